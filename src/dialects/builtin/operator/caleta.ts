import { DEV_RSA_PUBLIC_KEY } from '../../dev-keys.ts';
import type { OperatorApiInput, ReplyNode } from '../../operator.ts';
import { BY_OPERATOR, CAMPAIGN_REQUEST, REFUSALS, REWARD, ROUND } from './hub88.ts';

/*
 * Caleta Gaming's Games API (a Hub88-shaped API): JSON POSTs under /api, every request signed by
 * the operator with RSA-SHA256 over the body (base64 in X-Auth-Signature), checked with the public
 * key of operator_id; DEMO is currency FUN. Research: docs/research/operator-apis.md §3.
 */

/** OAS `Campaign`: campaign_uuid, name, prepaid_uuid, game_id required; currency, bet_value (×100000), bet_count, start_time. */
const CAMPAIGN: ReplyNode = {
  object: {
    campaign_uuid: { from: 'campaign.id' },
    name: { from: 'campaign.name' },
    prepaid_uuid: { from: 'campaign.gameId' },
    game_id: { from: 'campaign.gameNumericId' },
    currency: { from: 'campaign.currency' },
    bet_value: { from: 'campaign.betValue' },
    bet_count: { from: 'campaign.rounds' },
    start_time: { from: 'campaign.startTime' },
    end_time: { from: 'campaign.endTime' },
  },
};

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
    'A close-session call (none): not served.',
    'Campaigns (OAS /api/freebet/campaigns/create and /list): a campaign is made from a prepaid (here a game) with its bet_count and bet_value (a prepaid\u2019s 10 and 100000 when not named), start_time and an end_time (not in the OAS\u2019s create body; taken when sent). The list ignores its filters. A reward naming campaign_uuid takes the campaign\u2019s game, bet_count, bet_value and end (the OAS: they "will be inherited from the campaign"), so its prepaid_uuid may be left out although the OAS lists it as required; an unknown campaign_uuid is the not-found refusal. Whether a reward\u2019s start_time delays its rounds: unknown; aggmock plays them at once.',
    'Free bets: aggmock keeps one prepaid per game (prepaid_uuid = game_code, bet_count 10, bet_value 100000 = 1.00) and lists them all whatever the filter; a reward\u2019s rounds are played on the player\u2019s play page of that game as /wallet/bet of 0 and /wallet/win with is_free true and reward_uuid. The Reward reply is answered with the members Hub88\u2019s Reward has (the OAS names the schema, its members are not in our copy).',
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
  // Hub88's; the OAS's own example: 404 {"error": "The operator_id does not correspond to any existing Operator."}
  refusals: REFUSALS,
  routes: [
    {
      path: '/game/list',
      does: 'list-games',
      ...BY_OPERATOR,
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
    { ...ROUND, required: ['operator_id', 'sub_partner_id'] },
    {
      // OAS /api/freebet/prepaids/list: operator_id (+ game_id, game_code, currency) → [{prepaid_uuid, game_id, currency, bet_value, bet_count}].
      path: '/freebet/prepaids/list',
      does: 'list-games',
      ...BY_OPERATOR,
      reply: {
        body: {
          games: {
            object: {
              prepaid_uuid: { from: 'game.id' },
              game_id: { from: 'game.numericId' },
              bet_value: { const: 100000 },
              bet_count: { const: 10 },
            },
          },
        },
      },
    },
    {
      // OAS /api/freebet/rewards/create: prepaid_uuid, sub_partner_id, user required; bet_value an integer ×100000.
      path: '/freebet/rewards/create',
      does: 'award-free-spins',
      request: {
        user: { to: 'player' },
        prepaid_uuid: { to: 'gameId' },
        game_code: { to: 'gameId' },
        game_id: { to: 'gameId' },
        reward_uuid: { to: 'awardId' },
        campaign_uuid: { to: 'campaignId' },
        bet_value: { to: 'betAmount', exponent: 5 },
        bet_count: { to: 'rounds' },
        end_time: { to: 'validUntil' },
        operator_id: { to: 'operatorId' },
      },
      // prepaid_uuid (the game) is asked for unless campaign_uuid names a campaign to take it from.
      required: ['sub_partner_id', 'user'],
      awardDefaults: { rounds: 10, bet: '1.00' },
      reply: { body: REWARD },
    },
    {
      // OAS /api/freebet/rewards/cancel: operator_id, reward_uuid → Reward.
      path: '/freebet/rewards/cancel',
      does: 'cancel-free-spins',
      request: { reward_uuid: { to: 'awardId' }, operator_id: { to: 'operatorId' } },
      required: ['operator_id', 'reward_uuid'],
      reply: { body: REWARD },
    },
    {
      // OAS /api/freebet/campaigns/create: name, prepaid_uuid required (+ start_time, currency, bet_value, bet_count) → Campaign.
      path: '/freebet/campaigns/create',
      does: 'create-campaign',
      request: CAMPAIGN_REQUEST,
      required: ['name', 'prepaid_uuid'],
      awardDefaults: { rounds: 10, bet: '1.00' },
      reply: { body: CAMPAIGN },
    },
    {
      // OAS /api/freebet/campaigns/list: operator_id → CampaignList.
      path: '/freebet/campaigns/list',
      does: 'list-campaigns',
      ...BY_OPERATOR,
      reply: { body: { campaigns: CAMPAIGN } },
    },
  ],
};
