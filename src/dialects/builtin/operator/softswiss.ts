import type { OperatorApiInput, ReplyNode } from '../../operator.ts';

/*
 * SoftSwiss Game Aggregator (GCP) / BGaming: JSON POSTs signed with X-REQUEST-SIGN = hex(HMAC-SHA256(
 * auth token, raw body)); /sessions launches for real, /demo for fun, the URL in
 * launch_options.game_url; a signature mismatch is a 403. GCP issues its own session.
 * Research: docs/research/operator-apis.md §8.
 */

const error = (status: number): { status: number; body: ReplyNode } => ({
  status,
  body: { object: { code: { const: status }, message: { from: 'error.message' } } },
});

const launchReply = {
  body: { object: { launch_options: { object: { game_url: { from: 'launch.url' }, strategy: { const: 'redirect' } } } } },
} as const;

const common = {
  casino_id: { to: 'operatorId' },
  game: { to: 'gameId' },
  locale: { to: 'language' },
  ip: { to: 'ip' },
  client_type: { to: 'platform' },
  'urls.return_url': { to: 'lobbyUrl' },
} as const;

export const SOFTSWISS_OPERATOR: OperatorApiInput = {
  description:
    'SoftSwiss GCP: POST /softswiss/sessions (real), /softswiss/demo, /softswiss/freespins/issue and /freespins/cancel, JSON signed with X-REQUEST-SIGN (HMAC-SHA256 hex of the raw body keyed by the auth token); the launch URL is launch_options.game_url.',
  sources: [
    {
      title:
        'wendell1101/t1softxxx @ 7a67db73ab96f4b20ea413a64ceeb6e9fda08815, submodules/game-lib/game_platform/game_api_bgaming_seamless.php: URI_MAP, getHttpHeaders, queryForwardGame',
      url: 'https://github.com/wendell1101/t1softxxx',
      grade: 'secondary',
    },
    {
      title: 'A GCP-shaped provider, "Security": a signature mismatch is answered HTTP 403 Forbidden',
      url: 'https://apidoc.7softtech.pd15.uk',
      grade: 'secondary',
    },
  ],
  unknown: [
    'The GCP base URL (given at onboarding): aggmock serves the routes under /softswiss.',
    'A game-list API: none in any source read, so none is served (the catalog reaches SoftSwiss operators another way).',
    'The refusal body: aggmock answers {code, message}, the wallet side\u2019s shape; the status of a bad request (422 here) is unknown.',
    'The session the wallet later sees: GCP issues its own, so aggmock issues one (the operator\u2019s token is not a /sessions field).',
    'Round details and closing a session: not served by aggmock yet.',
    'The reply to /freespins/issue and /freespins/cancel (the integration reads only the status, 200 or 201): aggmock answers 200 {}. bet_level is a level of the game\u2019s bets, not an amount: aggmock plays the rounds at the game\u2019s smallest bet.',
    'An unknown issue_id on /freespins/cancel: aggmock answers 404 {code, message}.',
  ],
  basePath: '/softswiss',
  credentials: {
    casinoId: { kind: 'text', default: 'aggmock-casino', description: 'the casino_id SoftSwiss gave the operator' },
    authToken: { kind: 'secret', default: 'aggmock-dev-secret', description: 'the auth token X-REQUEST-SIGN is keyed with' },
  },
  operatorId: { field: 'casino_id', credential: 'casinoId', refusal: 'auth' },
  auth: { kind: 'hmac-body', header: 'X-REQUEST-SIGN', hash: 'sha256', encoding: 'hex', secret: 'authToken' },
  refusals: { auth: error(403), 'bad-request': error(422), 'unknown-game': error(404), 'not-found': error(404) },
  sessionToken: 'issued',
  routes: [
    {
      path: '/sessions',
      does: 'launch',
      mode: 'real',
      request: {
        ...common,
        currency: { to: 'currency' },
        'user.id': { to: 'player' },
        'user.country': { to: 'country' },
        'urls.deposit_url': { to: 'depositUrl' },
      },
      required: ['casino_id', 'game', 'currency', 'user.id'],
      reply: launchReply,
    },
    {
      path: '/demo',
      does: 'launch',
      mode: 'demo',
      request: common,
      required: ['casino_id', 'game'],
      reply: launchReply,
    },
    {
      // t1 freespinsIssue: casino_id, issue_id, currency, games[], freespins_quantity, bet_level, valid_until, user{…}.
      path: '/freespins/issue',
      does: 'award-free-spins',
      request: {
        casino_id: { to: 'operatorId' },
        issue_id: { to: 'awardId' },
        currency: { to: 'currency' },
        games: { to: 'gameId', list: 'json' },
        freespins_quantity: { to: 'rounds' },
        valid_until: { to: 'validUntil' },
        'user.id': { to: 'player' },
      },
      required: ['casino_id', 'issue_id', 'currency', 'games', 'freespins_quantity', 'valid_until', 'user.id'],
      reply: { body: { object: {} } },
    },
    {
      // t1 freespinsCancel: casino_id, issue_id.
      path: '/freespins/cancel',
      does: 'cancel-free-spins',
      request: { casino_id: { to: 'operatorId' }, issue_id: { to: 'awardId' } },
      required: ['casino_id', 'issue_id'],
      reply: { body: { object: {} } },
    },
  ],
};
