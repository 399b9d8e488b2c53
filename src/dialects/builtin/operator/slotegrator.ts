import type { OperatorApiInput, ReplyNode } from '../../operator.ts';

/*
 * Slotegrator's Game Integration Service (GIS): GET with query parameters and form POSTs under
 * /api/index.php/v1, signed with X-Sign = hex(HMAC-SHA1(merchant key, http_build_query(ksort(params
 * ∪ {X-Merchant-Id, X-Timestamp, X-Nonce})))), X-Timestamp within 30 s. Errors are
 * {name, message, code, status}. Research: docs/research/operator-apis.md §6.
 */

const error = (status: number, name: string): { status: number; body: ReplyNode } => ({
  status,
  body: { object: { name: { const: name }, message: { from: 'error.message' }, code: { const: 0 }, status: { const: status } } },
});

const launchReply = { body: { object: { url: { from: 'launch.url' } } } } as const;

export const SLOTEGRATOR_OPERATOR: OperatorApiInput = {
  description:
    'Slotegrator GIS: GET /api/index.php/v1/games (paged), POST /games/init and /games/init-demo (form), signed with X-Sign (HMAC-SHA1 of the sorted parameters and the X-Merchant-Id, X-Timestamp and X-Nonce headers).',
  sources: [
    {
      title:
        'Casino API Documentation – Slotegrator Game Aggregator v1.4.3 (2025-07-14), a Markdown copy in a public repository (search index id 63093469083): format, statuses, errors, pagination, X-Sign, /games, /games/init, /games/init-demo',
      grade: 'primary',
    },
    {
      title: "An integrator's PHP call of GET /games: the same X-Sign recipe (ksort, http_build_query, HMAC-SHA1)",
      url: 'https://github.com/blancos13/csgo-casino-whitelabel/blob/HEAD/frontend/test.php',
      grade: 'secondary',
    },
  ],
  unknown: [
    'Which of 401 and 403 a bad X-Sign gets: aggmock answers 401 "Authentication failed" (the listed meaning of 401).',
    'Whether Slotegrator refuses a reused X-Nonce: aggmock does not remember nonces.',
    'Round details and closing a session (not in the document): not served. /limits, /freespins/bets, /freespins/get, /freevouchers/*: not served by aggmock yet.',
    "/games/lobby answers one table per game (lobbyData is the game's uuid, open around the clock, no dealer, no limits); the live tables of a real lobby are unknown to a seeded catalog.",
    '/freespins/set and /freespins/cancel are checked (signature, required fields) and acknowledged with 200 and no body, as documented; the campaign is not played: the play page spins for money.',
  ],
  basePath: '/api/index.php/v1',
  credentials: {
    merchantId: { kind: 'text', default: 'aggmock-merchant', description: 'the X-Merchant-Id Slotegrator gave the operator' },
    merchantKey: { kind: 'secret', default: 'aggmock-dev-secret', description: 'the merchant key X-Sign is keyed with' },
  },
  operatorId: { header: 'X-Merchant-Id', credential: 'merchantId', refusal: 'auth' },
  auth: {
    kind: 'sorted-params',
    place: { header: 'X-Sign' },
    hash: 'sha1',
    mode: 'hmac',
    encodeValues: 'php-urlencode',
    skipEmpty: false,
    includeHeaders: ['X-Merchant-Id', 'X-Timestamp', 'X-Nonce'],
    secret: 'merchantKey',
    timestamp: { header: 'X-Timestamp', toleranceSeconds: 30 },
  },
  refusals: {
    auth: error(401, 'Unauthorized'),
    'bad-request': error(422, 'Data Validation Failed.'),
    'unknown-game': error(404, 'Not Found'),
    'not-found': error(404, 'Not Found'),
  },
  routes: [
    {
      method: 'GET',
      path: '/games',
      encoding: 'query',
      does: 'list-games',
      request: { page: { to: 'page' }, perPage: { to: 'perPage' }, 'per-page': { to: 'perPage' } },
      paging: { defaultPerPage: 50, maxPerPage: 50 },
      reply: {
        body: {
          object: {
            items: {
              games: {
                object: {
                  uuid: { from: 'game.id' },
                  name: { from: 'game.name' },
                  image: { from: 'game.thumbnailUrl' },
                  type: { from: 'game.type', map: { slot: 'slots' } },
                  provider: { from: 'game.providerName' },
                  provider_id: { from: 'game.provider' },
                  technology: { const: 'HTML5' },
                  has_lobby: { const: 0 },
                  is_mobile: { from: 'game.mobile', as: 'flag' },
                  has_freespins: { const: 1 },
                  has_tables: { const: 0 },
                  freespin_valid_until_full_day: { const: 0 },
                },
              },
            },
            _links: { object: {} },
            _meta: {
              object: {
                totalCount: { from: 'paging.totalCount' },
                pageCount: { from: 'paging.pageCount' },
                currentPage: { from: 'paging.currentPage' },
                perPage: { from: 'paging.perPage' },
              },
            },
          },
        },
      },
    },
    {
      path: '/games/init',
      encoding: 'form',
      does: 'launch',
      mode: 'real',
      request: {
        game_uuid: { to: 'gameId' },
        player_id: { to: 'player' },
        currency: { to: 'currency' },
        session_id: { to: 'token' },
        device: { to: 'platform' },
        return_url: { to: 'lobbyUrl' },
        language: { to: 'language' },
      },
      required: ['game_uuid', 'player_id', 'player_name', 'currency', 'session_id'],
      reply: launchReply,
    },
    {
      path: '/games/init-demo',
      encoding: 'form',
      does: 'launch',
      mode: 'demo',
      request: {
        game_uuid: { to: 'gameId' },
        device: { to: 'platform' },
        return_url: { to: 'lobbyUrl' },
        language: { to: 'language' },
      },
      required: ['game_uuid'],
      reply: launchReply,
    },
    {
      // Document §"Lobby": GET /games/lobby?game_uuid&currency → {lobby: {lobbyData, name, isOpen, …}}.
      method: 'GET',
      path: '/games/lobby',
      encoding: 'query',
      does: 'lobby',
      request: { game_uuid: { to: 'gameId' }, currency: { to: 'currency' } },
      required: ['game_uuid', 'currency'],
      reply: {
        body: {
          object: {
            lobby: {
              object: {
                lobbyData: { from: 'game.id' },
                name: { from: 'game.name' },
                isOpen: { const: true },
                openTime: { const: '00:00:00' },
                closeTime: { const: '23:59:59' },
                dealerName: { const: '' },
                technology: { const: 'html5' },
                limits: { const: [] },
                tableId: { from: 'game.id' },
              },
            },
          },
        },
      },
    },
    {
      // Document §"Freespins": POST /freespins/set → 200 OK without a body.
      path: '/freespins/set',
      encoding: 'form',
      does: 'award-free-spins',
      request: {
        player_id: { to: 'player' },
        currency: { to: 'currency' },
        game_uuid: { to: 'gameId' },
        freespin_id: { to: 'awardId' },
        quantity: { to: 'rounds' },
        valid_until: { to: 'validUntil' },
      },
      required: ['player_id', 'player_name', 'currency', 'quantity', 'valid_from', 'valid_until', 'freespin_id', 'game_uuid'],
      reply: { status: 200 },
    },
    {
      // Document §"Freespins": POST /freespins/cancel (freespin_id) → 200 OK.
      path: '/freespins/cancel',
      encoding: 'form',
      does: 'cancel-free-spins',
      request: { freespin_id: { to: 'awardId' } },
      required: ['freespin_id'],
      reply: { status: 200 },
    },
  ],
};
