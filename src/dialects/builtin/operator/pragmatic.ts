import type { OperatorApiInput, ReplyNode } from '../../operator.ts';

/*
 * Pragmatic Play's Integration API (CasinoGameAPI): form POSTs under /IntegrationService/v3/http,
 * authenticated by secureLogin and `hash` = MD5 of the parameters sorted by name, joined k=v&…
 * (hash and empty values left out), with the secret key appended. Every reply carries `error`
 * ("0" = success) and `description`. Research: docs/research/operator-apis.md §5.
 */

const refusal = (code: string): { status: number; body: ReplyNode } => ({
  status: 200,
  body: { object: { error: { const: code }, description: { from: 'error.message' } } },
});

export const PRAGMATIC_OPERATOR: OperatorApiInput = {
  description:
    "Pragmatic Play's CasinoGameAPI: POST /IntegrationService/v3/http/CasinoGameAPI/getCasinoGames/ and /game/url/, form-encoded, hash = MD5(sorted k=v&… + secret key); DEMO is playMode=DEMO.",
  sources: [
    {
      title:
        'Integration with casino games – API specification v3.85, change log (secureLogin on every method, demoGameAvailable)',
      url: 'https://pdfcoffee.com/pragmatic-play-documentation-api-pdf-free.html',
      grade: 'primary',
    },
    {
      title:
        'nekzabirov/IGambling-Game-Core src/main/kotlin/infrastructure/aggregator/pragmatic/client/PragmaticHttpClient.kt and client/dto/*.kt: routes, parameters, hash, replies',
      url: 'https://github.com/nekzabirov/IGambling-Game-Core',
      grade: 'secondary',
    },
    {
      title:
        'An operator-side PHP client (CasinoGameAPI getCasinoGames, getLobbyGames, closeSession, cancelRound, game/url, ReplayAPI)',
      url: 'https://github.com/NikitaPilez/pragmatic/blob/11fc1650627ab17a429f605d61ff6b198ed7b798/app/Services/IntegrationApi.php',
      grade: 'secondary',
    },
    {
      title: 'The hash rule in a Node integrator (search index id 35972202927: sorted, empty skipped, secret appended, MD5)',
      grade: 'secondary',
    },
  ],
  unknown: [
    'The code of a refused call (a bad secureLogin or hash, a missing parameter) is not public: aggmock answers error "5" (the code Pragmatic\u2019s wallet API uses for a bad hash) for a bad hash or login and "7" for a bad request, with HTTP 200 [inferred].',
    'Platform values (DESKTOP|MOBILE in one client, web|mobile in another): both read; anything else is desktop.',
    'RTP and currencies per game are not in the list item.',
    'CloseSession: the parameters are an integrator\u2019s (secureLogin, externalPlayerId, gameId, clearHistory); its reply is assumed {"error":"0","description":"OK"}. aggmock ends the player\u2019s open sessions (of that game when named); clearHistory is not read. The 3.30 change log\u2019s TerminateSession may be the same call under another name: unknown.',
    'An integrator\u2019s error catalogue (1 unauthorized, 2 empty mandatory field, 3 invalid parameter value, 4 round not found, 17 player not found) is listed beside the Replay API and may be that API\u2019s alone: aggmock keeps 5 and 7.',
    'Free rounds (FRB v2): the first game of gameList and its first totalBet are read; the rounds are played at that stake on the player\u2019s play page (docs/operator-apis.md). Which encoding cancel takes is unknown: aggmock reads a form.',
    'OpenHistoryExtended answers the URL of aggmock’s deliveries page for the round, not a game-history page.',
  ],
  basePath: '/IntegrationService/v3/http',
  credentials: {
    secureLogin: { kind: 'text', default: 'aggmock-dev-login', description: 'the operator\u2019s secureLogin' },
    secretKey: { kind: 'secret', default: 'aggmock-dev-secret', description: 'the secret key appended to the hashed text' },
  },
  operatorId: { field: 'secureLogin', credential: 'secureLogin', refusal: 'auth' },
  auth: {
    kind: 'sorted-params',
    place: { field: 'hash' },
    hash: 'md5',
    mode: 'append-secret',
    encodeValues: 'none',
    skipEmpty: true,
    secret: 'secretKey',
  },
  refusals: { auth: refusal('5'), 'bad-request': refusal('7'), 'unknown-game': refusal('7'), 'not-found': refusal('7') },
  routes: [
    {
      path: '/CasinoGameAPI/getCasinoGames/',
      encoding: 'form',
      does: 'list-games',
      request: { secureLogin: { to: 'operatorId' } },
      required: ['secureLogin', 'hash'],
      reply: {
        body: {
          object: {
            error: { const: '0' },
            description: { const: 'OK' },
            gameList: {
              games: {
                object: {
                  gameID: { from: 'game.id' },
                  gameName: { from: 'game.name' },
                  gameTypeID: {
                    from: 'game.type',
                    map: { slot: 'vs', live: 'lg', table: 'tb', crash: 'cr', fishing: 'fs', bingo: 'bn', virtual: 'vr' },
                  },
                  typeDescription: {
                    from: 'game.type',
                    map: {
                      slot: 'Video Slots',
                      live: 'Live games',
                      table: 'Classic table games',
                      crash: 'Crash games',
                      fishing: 'Fishing games',
                      bingo: 'Bingo',
                      virtual: 'Virtual sports',
                    },
                  },
                  technology: { const: 'html5' },
                  platform: { const: 'MOBILE,WEB' },
                  demoGameAvailable: { from: 'game.demo' },
                  aspectRatio: { const: '16:9' },
                  frbAvailable: { const: true },
                  fcAvailable: { const: false },
                  variableFrbAvailable: { const: false },
                  lines: { from: 'game.lines' },
                },
              },
            },
          },
        },
      },
    },
    {
      path: '/CasinoGameAPI/game/url/',
      encoding: 'form',
      does: 'launch',
      request: {
        secureLogin: { to: 'operatorId' },
        externalPlayerId: { to: 'player' },
        token: { to: 'token' },
        symbol: { to: 'gameId' },
        language: { to: 'language' },
        country: { to: 'country' },
        currency: { to: 'currency' },
        platform: { to: 'platform', map: { MOBILE: 'mobile', mobile: 'mobile', DESKTOP: 'desktop', web: 'desktop' } },
        playMode: { to: 'mode', map: { REAL: 'real', DEMO: 'demo' } },
        lobbyUrl: { to: 'lobbyUrl' },
        cashierUrl: { to: 'depositUrl' },
      },
      required: ['secureLogin', 'symbol', 'language', 'externalPlayerId', 'country', 'hash'],
      requiredWhenReal: ['token'],
      reply: {
        body: { object: { error: { const: '0' }, description: { const: 'OK' }, gameURL: { from: 'launch.url' } } },
      },
    },
    {
      // History API (research §5, secondary): secureLogin, playerId, gameId, roundId (+ language) → {error, description, url}.
      path: '/HistoryAPI/OpenHistoryExtended/',
      encoding: 'form',
      does: 'round-details',
      request: {
        secureLogin: { to: 'operatorId' },
        playerId: { to: 'player' },
        gameId: { to: 'gameId' },
        roundId: { to: 'roundId' },
        language: { to: 'language' },
      },
      required: ['secureLogin', 'playerId', 'gameId', 'roundId', 'hash'],
      reply: { body: { object: { error: { const: '0' }, description: { const: 'OK' }, url: { from: 'round.url' } } } },
    },
    {
      // FRB v2 (research §5): the signed parameters in the query, the game list as a JSON body.
      path: '/FreeRoundsBonusAPI/v2/bonus/player/create',
      encoding: 'query+json',
      does: 'award-free-spins',
      request: {
        secureLogin: { to: 'operatorId' },
        playerId: { to: 'player' },
        currency: { to: 'currency' },
        bonusCode: { to: 'awardId' },
        rounds: { to: 'rounds' },
        expirationDate: { to: 'validUntil' },
        'gameList.0.gameId': { to: 'gameId' },
        'gameList.0.betValues.0.totalBet': { to: 'betAmount' },
      },
      required: ['secureLogin', 'bonusCode', 'playerId', 'currency', 'rounds', 'startDate', 'expirationDate', 'hash'],
      reply: { body: { object: { error: { const: '0' }, description: { const: 'OK' } } } },
    },
    {
      // CloseSession (NikitaPilez/pragmatic app/Services/IntegrationApi.php, "2.3 CloseSession"): secureLogin,
      // externalPlayerId, gameId (only that game's session), clearHistory (0|1), hash → POST CasinoGameAPI/closeSession/.
      path: '/CasinoGameAPI/closeSession/',
      encoding: 'form',
      does: 'close-session',
      request: { secureLogin: { to: 'operatorId' }, externalPlayerId: { to: 'player' }, gameId: { to: 'gameId' } },
      required: ['secureLogin', 'externalPlayerId', 'hash'],
      reply: { body: { object: { error: { const: '0' }, description: { const: 'OK' } } } },
    },
    {
      path: '/FreeRoundsBonusAPI/v2/bonus/cancel/',
      encoding: 'form',
      does: 'cancel-free-spins',
      request: { secureLogin: { to: 'operatorId' }, bonusCode: { to: 'awardId' } },
      required: ['secureLogin', 'bonusCode', 'hash'],
      reply: { body: { object: { error: { const: '0' }, description: { const: 'OK' } } } },
    },
  ],
};
