import { DEV_RSA_PUBLIC_KEY } from '../../dev-keys.ts';
import type { OperatorApiInput, ReplyNode } from '../../operator.ts';

/*
 * Hub88's Operator API (Games API): what the casino's backend calls on Hub88. JSON POSTs under
 * /operator/generic/v2, each body signed with RSA-SHA256 by the operator's private key (base64 in
 * X-Hub88-Signature), checked with the public key registered for operator_id; errors are an HTTP
 * status and {"error": <description>}. Research: docs/research/operator-apis.md §2.
 */

const error: ReplyNode = { object: { error: { from: 'error.message' } } };

/** Every refusal: an HTTP status and {"error": <description>} (Caleta answers the same). */
export const REFUSALS = {
  auth: { status: 401, body: error },
  'bad-request': { status: 400, body: error },
  'unknown-game': { status: 404, body: error },
  'not-found': { status: 404, body: error },
};

/** /game/round: the round's details page (Caleta's is the same call; each asks for its own fields). */
export const ROUND = {
  path: '/game/round',
  does: 'round-details' as const,
  request: { user: { to: 'player' as const }, round: { to: 'roundId' as const }, operator_id: { to: 'operatorId' as const } },
  reply: { body: { object: { url: { from: 'round.url' as const } } } },
};

/** A call that names nothing but the operator (the game and campaign lists; Caleta's too). */
export const BY_OPERATOR = { request: { operator_id: { to: 'operatorId' as const } }, required: ['operator_id'] };

/** A reward as the Freebets API answers one (the members aggmock knows; Caleta answers the same shape). */
export const REWARD: ReplyNode = {
  object: {
    reward_uuid: { from: 'award.id' },
    user: { from: 'award.player' },
    game_code: { from: 'award.gameId' },
    currency: { from: 'award.currency' },
    bet_count: { from: 'award.rounds' },
    status: { from: 'award.status', map: { active: 'FRS_ACTIVE', cancelled: 'FRS_CANCELED', expired: 'FRS_EXPIRED' } },
  },
};

/**
 * A campaign as Hub88's changelog prints campaigns/info's reply (June 2025, "Retrieve Campaign Details by
 * UUID"): start_time, prepaid_uuid, name, game_code, end_time, currency, campaign_uuid, bet_value, bet_count.
 */
export const CAMPAIGN: ReplyNode = {
  object: {
    start_time: { from: 'campaign.startTime' },
    prepaid_uuid: { from: 'campaign.gameId' },
    name: { from: 'campaign.name' },
    game_code: { from: 'campaign.gameId' },
    end_time: { from: 'campaign.endTime' },
    currency: { from: 'campaign.currency' },
    campaign_uuid: { from: 'campaign.id' },
    bet_value: { from: 'campaign.betValue' },
    bet_count: { from: 'campaign.rounds' },
  },
};

/**
 * A campaign's fields in a request: the same as a reward's, plus its name (Caleta's identical OAS, campaigns_create_body),
 * so Caleta's campaigns/create reads this table too.
 */
export const CAMPAIGN_REQUEST = {
  name: { to: 'campaignName' },
  prepaid_uuid: { to: 'gameId' },
  campaign_uuid: { to: 'campaignId' },
  currency: { to: 'currency' },
  bet_value: { to: 'betAmount', exponent: 5 },
  bet_count: { to: 'rounds' },
  start_time: { to: 'validFrom' },
  end_time: { to: 'validUntil' },
  operator_id: { to: 'operatorId' },
} as const;

export const HUB88_OPERATOR: OperatorApiInput = {
  description:
    "Hub88's Operator API: POST /operator/generic/v2/game/list, /game/url, /game/round, /freebet/prepaids/list, /freebet/rewards/create and /freebet/campaigns/create, /list and /info, JSON signed with RSA-SHA256 by the operator's key (X-Hub88-Signature, base64); DEMO is currency XXX.",
  sources: [
    {
      title: 'Hub88 Operator API reference: Games API (Get a Game URL, game list, round)',
      url: 'https://docs.hub88.io/developer-docs/operator-api-reference/games-api',
      grade: 'primary',
    },
    {
      title: 'Hub88 Operator API: error codes (401 signature invalid or x-hub88-signature missing)',
      url: 'https://docs.hub88.io/developer-docs/operator-api-reference/operator-api-overview/error-codes',
      grade: 'primary',
    },
    {
      title: "Hub88 Operator API overview: Getting started (the operator's key pair, Operator ID)",
      url: 'https://docs.hub88.io/developer-docs/operator-api-reference/operator-api-overview',
      grade: 'primary',
    },
    {
      title: 'Hub88 Operator API reference: Freebets API (Create a reward: user, prepaid_uuid, bet_value, bet_count, end_time)',
      url: 'https://docs.hub88.io/developer-docs/operator-api-reference/freebets-api',
      grade: 'primary',
    },
    {
      title:
        'Hub88 API changelog: June 2025 "New endpoint: Retreive Campaign Details by UUID" (campaigns/info request and reply) and August 2025 (campaigns/list filters)',
      url: 'https://docs.hub88.io/api-changelog/june-2025/new-endpoint-retreive-campaign-details-by-uuid',
      grade: 'primary',
    },
    {
      title: 'Cypress checks of the operator API: list item fields and types, /game/round (search index id 1743856145)',
      grade: 'secondary',
    },
    { title: 'A Kotlin operator client: SHA256withRSA, demo_game_support (search index id 71276049075)', grade: 'secondary' },
  ],
  unknown: [
    'The production base URL (per environment, given at onboarding): aggmock serves the documented paths at its own origin.',
    'Currencies and RTP per currency in the game list (not in the item): rtp is the catalog game\u2019s, as text.',
    'A close-session call (none is documented): not served.',
    'Free bets: aggmock keeps one prepaid per game (prepaid_uuid = game_code, bet_count 10, bet_value 100000 = 1.00, any currency the game takes), lists them all whatever the filter, and plays a reward\u2019s rounds on the player\u2019s play page of that game as /transaction/bet of 0 and /transaction/win with is_free true and reward_uuid (docs/operator-apis.md).',
    'Campaigns: campaigns/info\u2019s request and reply are Hub88\u2019s changelog example; campaigns/create\u2019s body is not printed in what was read, so aggmock takes Caleta\u2019s identical schema (name and prepaid_uuid required; currency, bet_value, bet_count, start_time, end_time); campaigns/list answers every campaign and ignores the August 2025 filters (start_time, end_time, name, prepaid_uuid, operator_reference). A reward naming campaign_uuid takes the campaign\u2019s prepaid, bet_value, bet_count and end ("inherited from the campaign", Create a reward), so it needs no prepaid_uuid. A reward cancel is not documented: not served.',
    'The reward reply: the Reward schema\u2019s members aggmock knows (reward_uuid, user, game_code, currency, bet_count, status FRS_ACTIVE); the other statuses are inferred.',
    'The round detail page: aggmock answers the URL of its deliveries page.',
  ],
  basePath: '/operator/generic/v2',
  credentials: {
    publicKey: {
      kind: 'public-key',
      default: DEV_RSA_PUBLIC_KEY,
      description:
        "the operator's RSA public key (PEM text or a PEM file path) that X-Hub88-Signature is checked with; the development default pairs with aggmock's published development private key (docs/operator-apis.md)",
    },
    operatorId: { kind: 'text', default: '1', description: 'the operator_id Hub88 gave the operator' },
  },
  operatorId: { field: 'operator_id', credential: 'operatorId' },
  auth: { kind: 'rsa-body', header: 'X-Hub88-Signature', publicKey: 'publicKey' },
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
              game_code: { from: 'game.id' },
              name: { from: 'game.name' },
              product: { from: 'game.providerName' },
              category: {
                from: 'game.type',
                map: {
                  slot: 'Video Slots',
                  live: 'Live Casino',
                  table: 'Table Games',
                  crash: 'Crash Games',
                  fishing: 'Fishing Games',
                  bingo: 'Bingo',
                  virtual: 'Virtual Sports',
                },
              },
              enabled: { const: true },
              platforms: { const: ['GPL_DESKTOP', 'GPL_MOBILE'] },
              url_thumb: { from: 'game.thumbnailUrl' },
              url_background: { from: 'game.thumbnailUrl' },
              freebet_support: { const: true },
              demo_game_support: { from: 'game.demo' },
              phoenix_jackpot_support: { const: false },
              blocked_countries: { const: [] },
              release_date: { from: 'game.releaseDate' },
              volatility: { from: 'game.volatility', map: { low: 1, medium: 3, high: 4, 'very-high': 5 } },
              rtp: { from: 'game.rtp', as: 'string' },
              paylines: { from: 'game.lines' },
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
        currency: { to: 'currency', demoWhen: 'XXX' },
        game_code: { to: 'gameId' },
        game_id: { to: 'gameId' },
        lang: { to: 'language' },
        platform: { to: 'platform', map: { GPL_DESKTOP: 'desktop', GPL_MOBILE: 'mobile' } },
        lobby_url: { to: 'lobbyUrl' },
        deposit_url: { to: 'depositUrl' },
        country: { to: 'country' },
        ip: { to: 'ip' },
        operator_id: { to: 'operatorId' },
      },
      required: ['operator_id', 'currency'],
      requiredWhenReal: ['user', 'token'],
      reply: { body: { object: { url: { from: 'launch.url' } } } },
    },
    { ...ROUND, required: ['round', 'operator_id'] },
    {
      // Freebets API (Supplier API's "Get a list of prepaids": currency, game_code, bet_value, bet_count): one prepaid per game.
      path: '/freebet/prepaids/list',
      does: 'list-games',
      ...BY_OPERATOR,
      reply: {
        body: {
          games: {
            object: {
              prepaid_uuid: { from: 'game.id' },
              game_code: { from: 'game.id' },
              bet_value: { const: 100000 },
              bet_count: { const: 10 },
            },
          },
        },
      },
    },
    {
      // Freebets API "Create a reward": user, prepaid_uuid (required), bet_value ×100000 and bet_count where the prepaid leaves them NULL.
      path: '/freebet/rewards/create',
      does: 'award-free-spins',
      request: {
        user: { to: 'player' },
        prepaid_uuid: { to: 'gameId' },
        game_code: { to: 'gameId' },
        reward_uuid: { to: 'awardId' },
        campaign_uuid: { to: 'campaignId' },
        currency: { to: 'currency' },
        bet_value: { to: 'betAmount', exponent: 5 },
        bet_count: { to: 'rounds' },
        end_time: { to: 'validUntil' },
        operator_id: { to: 'operatorId' },
      },
      // prepaid_uuid is asked for unless campaign_uuid names a campaign to take it from.
      required: ['user', 'operator_id'],
      awardDefaults: { rounds: 10, bet: '1.00' },
      reply: { body: REWARD },
    },
    {
      path: '/freebet/campaigns/create',
      does: 'create-campaign',
      request: CAMPAIGN_REQUEST,
      required: ['name', 'prepaid_uuid', 'operator_id'],
      awardDefaults: { rounds: 10, bet: '1.00' },
      reply: { body: CAMPAIGN },
    },
    {
      path: '/freebet/campaigns/list',
      does: 'list-campaigns',
      ...BY_OPERATOR,
      reply: { body: { campaigns: CAMPAIGN } },
    },
    {
      // Changelog June 2025: {campaign_uuid, operator_id}, both required.
      path: '/freebet/campaigns/info',
      does: 'campaign-info',
      request: { campaign_uuid: { to: 'campaignId' }, operator_id: { to: 'operatorId' } },
      required: ['campaign_uuid', 'operator_id'],
      reply: { body: CAMPAIGN },
    },
  ],
};
