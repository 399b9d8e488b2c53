import { DEV_RSA_PUBLIC_KEY } from '../../dev-keys.ts';
import type { OperatorApiInput, ReplyNode } from '../../operator.ts';

/*
 * Caleta Gaming's Games API (a Hub88-shaped API): JSON POSTs under /api, every request signed by
 * the operator with RSA-SHA256 over the body (base64 in X-Auth-Signature), checked with the public
 * key of operator_id; DEMO is currency FUN. Research: docs/research/operator-apis.md §3.
 */

const error: ReplyNode = { object: { error: { from: 'error.message' } } };

export const CALETA_OPERATOR: OperatorApiInput = {
  description:
    "Caleta's Games API: POST /api/game/list, /api/game/url and /api/game/round, JSON signed with RSA-SHA256 by the operator's key (X-Auth-Signature, base64); DEMO is currency FUN.",
  sources: [
    {
      title:
        "Caleta Gaming System API – Operator's Guide 1.5 (OpenAPI 3.0.1), copied in valkyrie-fnd/valkyrie @ fe49faae254f20311af90157952f9c365779768a, provider/caleta/caletagaming-caleta-gaming_system_api_operators_guide-1.5-oapi3.yaml: Request signing, /api/game/*",
      url: 'https://github.com/valkyrie-fnd/valkyrie',
      grade: 'primary',
    },
    {
      title:
        'valkyrie-fnd/valkyrie provider/caleta/api_client.go and auth_signature_test.go (signing the marshalled body, PKCS#1 v1.5)',
      url: 'https://github.com/valkyrie-fnd/valkyrie',
      grade: 'secondary',
    },
  ],
  unknown: [
    'The refusal of a bad signature on the Games API (the OAS lists no status for it): aggmock answers 401 {"error": …}, the shape of the documented 404.',
    'Which of game_id and game_code wins when both are sent: aggmock takes game_code, then game_id (the game\u2019s position in the catalog).',
    'A close-session call (none): not served. Free bets (prepaids, rewards): not served by aggmock yet.',
    'The round detail page: aggmock answers the URL of its deliveries page.',
  ],
  basePath: '/api',
  credentials: {
    publicKey: {
      kind: 'public-key',
      default: DEV_RSA_PUBLIC_KEY,
      description:
        "the operator's RSA public key (PEM text or a PEM file path) that X-Auth-Signature is checked with; the development default pairs with aggmock's published development private key",
    },
    operatorId: { kind: 'text', default: '1', description: 'the operator_id Caleta gave the operator' },
  },
  operatorId: { field: 'operator_id', credential: 'operatorId' },
  auth: { kind: 'rsa-body', header: 'X-Auth-Signature', publicKey: 'publicKey' },
  refusals: {
    auth: { status: 401, body: error },
    'bad-request': { status: 400, body: error },
    'unknown-game': { status: 404, body: error },
    // The OAS's own example: 404 {"error": "The operator_id does not correspond to any existing Operator."}
    'not-found': { status: 404, body: error },
  },
  routes: [
    {
      path: '/game/list',
      does: 'list-games',
      request: { operator_id: { to: 'operatorId' } },
      required: ['operator_id'],
      reply: {
        body: {
          games: {
            object: {
              url_thumb: { from: 'game.thumbnailUrl' },
              url_background: { from: 'game.thumbnailUrl' },
              url_square_thumb: { from: 'game.thumbnailUrl' },
              product: { from: 'game.providerName' },
              platforms: { const: ['GPL_DESKTOP', 'GPL_MOBILE'] },
              name: { from: 'game.name' },
              game_id: { from: 'game.numericId' },
              game_code: { from: 'game.id' },
              enabled: { const: true },
              category: { from: 'game.type' },
              blocked_countries: { const: [] },
            },
          },
        },
      },
    },
    {
      path: '/game/url',
      does: 'launch',
      request: {
        user: { to: 'player' },
        token: { to: 'token' },
        currency: { to: 'currency', demoWhen: 'FUN' },
        game_code: { to: 'gameId' },
        game_id: { to: 'gameId' },
        lang: { to: 'language' },
        lobby_url: { to: 'lobbyUrl' },
        deposit_url: { to: 'depositUrl' },
        country: { to: 'country' },
        operator_id: { to: 'operatorId' },
      },
      // The OAS's required list, but game_code or game_id either.
      required: ['country', 'currency', 'lang', 'lobby_url', 'operator_id', 'sub_partner_id'],
      reply: { body: { object: { url: { from: 'launch.url' } } } },
    },
    {
      path: '/game/round',
      does: 'round-details',
      request: { user: { to: 'player' }, round: { to: 'roundId' }, operator_id: { to: 'operatorId' } },
      required: ['operator_id', 'sub_partner_id'],
      reply: { body: { object: { url: { from: 'round.url' } } } },
    },
  ],
};
