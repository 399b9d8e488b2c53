import type { OperatorApiInput } from '../../operator.ts';

/*
 * Blue Ocean Gaming's API: one JSON POST endpoint, the operation in `method`, the operator's
 * api_login and api_password in every body (no signature); every reply {error: 0 | 1, …}.
 * Blue Ocean issues its own session at launch. Research: docs/research/operator-apis.md §7.
 */

/** Every refusal: HTTP 200 {"error": 1, "message": …}. */
const refused = { status: 200, body: { object: { error: { const: 1 }, message: { from: 'error.message' } } } } as const;

/** One endpoint, the operation named by the `method` field. */
const method = (name: string) => ({ path: '/blueocean', selector: { field: 'method', equals: name } });

export const BLUEOCEAN_OPERATOR: OperatorApiInput = {
  description:
    'Blue Ocean: POST /blueocean with {api_login, api_password, method: getGameList | getGame | addFreeRounds | removeFreeRounds | logoutPlayer, …}; replies {error: 0, response: …}; play_for_fun "1" is demo.',
  sources: [
    {
      title: 'Blue Ocean docs: getGame (Provide valid game launch link in demo or real mode)',
      url: 'https://blueoceangaming.atlassian.net/wiki/pages/viewpage.action?pageId=1209175592',
      grade: 'primary',
    },
    {
      title:
        'A TypeScript operator client: getGameList with show_additional, show_systems, currency (search index id 49362802316)',
      grade: 'secondary',
    },
    {
      title: "A reseller's copy of the API: the game list item",
      url: 'https://softaggregator.com/docs.html',
      grade: 'secondary',
    },
  ],
  unknown: [
    'The endpoint\u2019s path (given at onboarding): aggmock serves it at /blueocean.',
    'The reply to a wrong api_login/api_password: aggmock answers HTTP 200 {"error": 1, "message": …}, the shape of the documented refusals.',
    'Whether JSON or form bodies are required: aggmock reads JSON.',
    'Whether getGame needs createPlayer first: aggmock launches any user_username (it keeps no player registry).',
    'RTP in the game list; getGameHistory, createPlayer, playerExists and loginPlayer: not served by aggmock yet.',
    'removeFreeRounds: known from one operator client of Pantallo Games (Blue Ocean\u2019s former name; search-index document 31224330537, address not recorded): {playerids, freeround_id} \u2192 {"error":0,"response":{"successfull_removals":[player ids]}}. Another client (document 8336849033) sends title, player_ids and game_ids instead, which aggmock does not take. aggmock takes the rounds from the players named (all of them when playerids is left out) and lists those that had rounds left; an unknown freeround_id is error 1.',
    'addFreeRounds and logoutPlayer are known from operator clients only (secondary): aggmock checks the credentials and the fields those clients send; addFreeRounds\u2019 rounds are played on the player\u2019s play page at the game\u2019s smallest bet (betlevel is a level aggmock cannot price), and logoutPlayer ends the player\u2019s open sessions (their play pages answer 410).',
  ],
  credentials: {
    apiLogin: { kind: 'text', default: 'aggmock-dev-login', description: 'the api_login Blue Ocean gave the operator' },
    apiPassword: { kind: 'secret', default: 'aggmock-dev-secret', description: 'the api_password Blue Ocean gave the operator' },
  },
  auth: { kind: 'static', fields: { api_login: 'apiLogin', api_password: 'apiPassword' } },
  refusals: { auth: refused, 'bad-request': refused, 'unknown-game': refused, 'not-found': refused },
  sessionToken: 'issued',
  routes: [
    {
      ...method('getGameList'),
      does: 'list-games',
      reply: {
        body: {
          object: {
            error: { const: 0 },
            response: {
              games: {
                object: {
                  id: { from: 'game.numericId' },
                  name: { from: 'game.name' },
                  type: { from: 'game.type', map: { slot: 'video-slots', live: 'live-casino' } },
                  category: { from: 'game.provider' },
                  id_hash: { from: 'game.id' },
                  freerounds_supported: { const: true },
                  play_for_fun_supported: { from: 'game.demo' },
                  image: { from: 'game.thumbnailUrl' },
                },
              },
            },
          },
        },
      },
    },
    {
      ...method('getGame'),
      does: 'launch',
      request: {
        user_username: { to: 'player' },
        gameid: { to: 'gameId' },
        lang: { to: 'language' },
        homeurl: { to: 'lobbyUrl' },
        currency: { to: 'currency' },
        play_for_fun: { to: 'mode', map: { '1': 'demo', '0': 'real' } },
      },
      required: ['gameid'],
      requiredWhenReal: ['user_username', 'user_password'],
      reply: {
        body: {
          object: {
            error: { const: 0 },
            response: { from: 'launch.url' },
            gamesession_id: { from: 'launch.token' },
            sessionid: { from: 'launch.token' },
            currency: { from: 'launch.currency' },
          },
        },
      },
    },
    {
      // Operator clients [S] (docs/research/operator-apis.md §7): {"error":0,"response":{"created":1,"freeround_id":"…"}}.
      ...method('addFreeRounds'),
      does: 'award-free-spins',
      request: {
        playerids: { to: 'player', list: 'comma' },
        gameids: { to: 'gameId', list: 'comma' },
        available: { to: 'rounds' },
        validTo: { to: 'validUntil' },
        currency: { to: 'currency' },
      },
      required: ['title', 'playerids', 'gameids', 'available', 'validTo', 'validFrom'],
      reply: {
        body: {
          object: { error: { const: 0 }, response: { object: { created: { const: 1 }, freeround_id: { from: 'award.id' } } } },
        },
      },
    },
    {
      // A Pantallo (Blue Ocean) operator client [S]: removeFreeRounds({playerids, freeround_id}); reads error and response.successfull_removals.
      ...method('removeFreeRounds'),
      does: 'cancel-free-spins',
      request: { playerids: { to: 'player', list: 'comma' }, freeround_id: { to: 'awardId' } },
      required: ['freeround_id'],
      reply: {
        body: { object: { error: { const: 0 }, response: { object: { successfull_removals: { from: 'award.removed' } } } } },
      },
    },
    {
      // Operator clients [S]: logoutPlayer with user_username, user_password, currency → {"error":0,…}.
      ...method('logoutPlayer'),
      does: 'close-session',
      request: { user_username: { to: 'player' }, currency: { to: 'currency' } },
      required: ['user_username'],
      reply: { body: { object: { error: { const: 0 }, response: { const: true } } } },
    },
  ],
};
