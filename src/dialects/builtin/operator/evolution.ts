import type { OperatorApiInput, ReplyNode } from '../../operator.ts';

/*
 * Evolution's User Authentication launch (UA2): POST /ua/v1/{casinoKey}/{apiToken} with the player
 * and the operator's session (player.session.id, which the One Wallet calls carry back as sid),
 * answered {entry, entryEmbedded}; the lobby state (the game list) with HTTP Basic
 * casinoKey:apiToken. Errors are {errors: [{code: "G.n", message}]}. Research:
 * docs/research/operator-apis.md §4.
 */

const errors = (status: number, code: string): { status: number; body: ReplyNode } => ({
  status,
  body: { object: { errors: { list: [{ object: { code: { const: code }, message: { from: 'error.message' } } }] } } },
});

export const EVOLUTION_OPERATOR: OperatorApiInput = {
  description:
    'Evolution: POST /ua/v1/{casinoKey}/{apiToken} (UA2) answers {entry, entryEmbedded}, the game URL being the host + entry; GET /api/lobby/v1/{casinoKey}/state with HTTP Basic casinoKey:apiToken lists the tables; GET /api/render/v1/details?gameId=<round> (Basic) renders a round as HTML.',
  sources: [
    {
      title:
        'valkyrie-fnd/valkyrie @ fe49faae254f20311af90157952f9c365779768a, provider/evolution/provider_service.go and model.go: UA2 request and reply, G.* error codes',
      url: 'https://github.com/valkyrie-fnd/valkyrie',
      grade: 'secondary',
    },
    {
      title: "A licensee's Python UAT client (search index id 6728391569): UA2, GET /api/lobby/v1/{casino}/state with Basic auth",
      grade: 'secondary',
    },
    {
      title: 'Lobby state readers (search index ids 10583282977, 55536291410): {tables: {<id>: …}}, 401 on bad credentials',
      grade: 'secondary',
    },
  ],
  unknown: [
    'Evolution\u2019s own API docs need a login: every fact is read in integrations that quote them.',
    'The HTTP status that carries a UA2 error: aggmock answers 401 with {errors: [{code: "G.2", …}]} for a wrong token, 400 "G.11" for a bad request.',
    'Demo launch (config.game.playMode has no documented value): a UA2 launch is always real money.',
    'Free rounds, closing a session, RTP and currencies per table: not served.',
    'The round render\u2019s page itself (GET /api/render/v1/details?gameId=<round>, Basic auth, an HTML page): aggmock answers a small HTML page naming the round and linking to its deliveries page, not Evolution\u2019s game history view. Whether gameId is the round id or the table id is read from valkyrie\u2019s call (the round).',
  ],
  credentials: {
    casinoKey: { kind: 'text', default: 'aggmockcasino001', description: 'the casino key Evolution gave the licensee' },
    apiToken: { kind: 'secret', default: 'aggmock-dev-secret', description: 'the API token (UA2 path, Basic password)' },
  },
  operatorId: { field: 'casinoKey', credential: 'casinoKey', refusal: 'not-found' },
  auth: { kind: 'static', fields: { casinoKey: 'casinoKey', apiToken: 'apiToken' } },
  refusals: {
    auth: errors(401, 'G.2'),
    'bad-request': errors(400, 'G.11'),
    'unknown-game': errors(400, 'G.11'),
    'not-found': errors(404, 'G.1'),
  },
  routes: [
    {
      method: 'GET',
      path: '/api/lobby/v1/:casinoKey/state',
      encoding: 'query',
      does: 'list-games',
      auth: { kind: 'basic', user: 'casinoKey', password: 'apiToken' },
      reply: {
        body: {
          object: {
            tables: {
              gamesKeyed: {
                key: 'game.id',
                item: {
                  object: {
                    tableId: { from: 'game.id' },
                    name: { from: 'game.name' },
                    gameType: { from: 'game.type' },
                    gameProvider: { from: 'game.provider' },
                    videoSnapshot: { object: { thumbnails: { object: { L: { from: 'game.thumbnailUrl' } } } } },
                  },
                },
              },
            },
          },
        },
      },
    },
    {
      path: '/ua/v1/:casinoKey/:apiToken',
      does: 'launch',
      mode: 'real',
      request: {
        'player.id': { to: 'player' },
        'player.currency': { to: 'currency' },
        'player.language': { to: 'language' },
        'player.country': { to: 'country' },
        'player.session.id': { to: 'token' },
        'player.session.ip': { to: 'ip' },
        'config.game.table.id': { to: 'gameId' },
        'config.channel.mobile': { to: 'platform', map: { true: 'mobile', false: 'desktop' } },
        'config.urls.lobby': { to: 'lobbyUrl' },
        'config.urls.cashier': { to: 'depositUrl' },
      },
      required: ['uuid', 'player.id', 'player.currency', 'player.session.id', 'config.game.table.id'],
      reply: {
        body: { object: { entry: { from: 'launch.path' }, entryEmbedded: { template: '{launch.path}?embedded=true' } } },
      },
    },
    {
      // valkyrie provider/evolution/provider_service.go: the round render, GET /api/render/v1/details?gameId=<round>, Basic auth, HTML.
      method: 'GET',
      path: '/api/render/v1/details',
      encoding: 'query',
      does: 'round-details',
      auth: { kind: 'basic', user: 'casinoKey', password: 'apiToken' },
      request: { gameId: { to: 'roundId' } },
      required: ['gameId'],
      reply: {
        headers: { 'content-type': 'text/html; charset=UTF-8' },
        text: '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Round {round.id}</title></head><body><h1>Round {round.id}</h1><p>aggmock renders no game history: <a href="{round.url}">the round\u2019s callbacks</a>.</p></body></html>',
      },
    },
  ],
};
