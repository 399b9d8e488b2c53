/**
 * An independent Hub88 Operator API client (the casino's side of Hub88's Games and Freebets APIs),
 * written from Hub88's public docs only.
 *
 * Sources:
 * - https://docs.hub88.io/developer-docs/operator-api-reference/games-api (and its .md twin with the
 *   embedded OpenAPI 3.1.1): POST /operator/generic/v2/game/url, its body (user, token 10–255 chars,
 *   sub_partner_id, platform GPL_DESKTOP|GPL_MOBILE, operator_id, meta, lobby_url, lang, ip, game_code,
 *   deposit_url, currency, game_currency, country), DEMO = `"currency":"XXX"` with user and token
 *   omitted; the header X-Hub88-Signature = RSA-SHA256 of the request body by the operator's private
 *   key, checked with the public key registered for operator_id. Same page: /game/list, /game/round.
 * - https://docs.hub88.io/developer-docs/operator-api-reference/operator-api-overview/error-codes:
 *   errors are an HTTP status and `{"error": <description>}`; 401 = signature invalid or header
 *   x-hub88-signature missing; 400 bad parameters; 403 currency/country/game not enabled; 404 unknown
 *   country/currency/game/operator_id; 500.
 * - https://docs.hub88.io/developer-docs/operator-api-reference/freebets-api: rewards/create (user,
 *   prepaid_uuid; bet_value/bet_count from the prepaid unless NULL there), prepaids/list.
 * - Operator-side clients read as code: a Cypress suite of the operator API (search index id 1743856145:
 *   the game list item fields and types, /game/round body {user, transaction_uuid, round, operator_id}
 *   -> {url}); a Kotlin client (id 71276049075: SHA256withRSA, base64, body {operator_id} for the list,
 *   demo launch with currency and game_currency "XXX").
 *
 * - The signing example: https://docs.hub88.io/developer-docs/supplier-api-reference/supplier-api-overview
 *   ("Request signing logic": an example body and "Correct signature: FFdiceKls…"; the private key is
 *   a link), with the key as copied in a C# demo (search index id 28442272220) and the full
 *   signature as a Java test asserts it (id 12710240722). The signed body carries "game_id":39 where
 *   the page now prints "game_code":"ctl_dragonrising"; the launch body below keeps the example's
 *   field order so the example's values sign to the published signature (hub88.test.ts).
 *
 * Unknown: the production base URL (per environment, given at onboarding); the error body of a
 * refused freebet call (read as the generic `{error}` here); a close-session call (none is
 * documented); the reward's full field list (taken from the same-shaped Caleta OAS where Hub88's
 * page excerpt is silent); whether game_currency and meta are required (sent only when given).
 */
import type { KeyObject } from 'node:crypto';
import {
  type HttpReply,
  jsonObject,
  type LaunchRequest,
  OperatorCallError,
  postSignedJson,
  rsaSha256Base64,
  strangerRsaKey,
  type Tamper,
  withoutUndefined,
} from './kit.ts';

export const HUB88_BASE_PATH = '/operator/generic/v2';
export const HUB88_SIGNATURE_HEADER = 'X-Hub88-Signature';
/** The currency code that asks for DEMO play. */
export const HUB88_DEMO_CURRENCY = 'XXX';

export interface Hub88ClientOptions {
  /** Hub88's API origin; the documented paths (/operator/generic/v2/…) are appended. */
  baseUrl: string;
  operatorId: number;
  /** The operator's RSA private key (PEM text or KeyObject); Hub88 holds the public half. */
  privateKey: KeyObject | string;
  tamper?: Tamper;
  fetch?: typeof fetch;
}

/** One entry of /game/list, as Hub88 documents and integrators read it. */
export interface Hub88Game {
  game_code: string;
  name: string;
  product: string;
  category: string;
  enabled: boolean;
  platforms: string[];
  url_thumb?: string;
  url_background?: string;
  freebet_support?: boolean;
  demo_game_support?: boolean;
  rtp?: string;
  blocked_countries?: string[];
  [field: string]: unknown;
}

export interface Hub88Launch extends LaunchRequest {
  subPartnerId?: string;
  /** Send gameId as game_code (default) or as the numeric game_id of older integrations and the signing example. */
  gameIdField?: 'game_code' | 'game_id';
  /** Sent only when given (the signing example has neither). */
  gameCurrency?: string;
  meta?: Record<string, unknown>;
}

export interface Hub88Reward {
  user: string;
  prepaidUuid: string;
  rewardUuid: string;
  currency?: string;
  gameCode?: string;
  /** Integer ×100000 (Hub88's money unit). */
  betValue?: number;
  betCount?: number;
  startTime?: string;
  endTime?: string;
  subPartnerId?: string;
}

export function hub88Client(options: Hub88ClientOptions) {
  const key = options.tamper === 'wrong-key' ? strangerRsaKey() : options.privateKey;

  async function post(route: string, body: Record<string, unknown>): Promise<HttpReply> {
    const reply = await postSignedJson({
      url: `${options.baseUrl}${HUB88_BASE_PATH}${route}`,
      body,
      signatureHeader: HUB88_SIGNATURE_HEADER,
      sign: (text) => rsaSha256Base64(text, key),
      tamper: options.tamper,
      fetch: options.fetch,
    });
    if (reply.status !== 200) {
      const error = (reply.json as { error?: unknown } | undefined)?.error;
      throw new OperatorCallError(route, reply.status, reply.json ?? reply.text, typeof error === 'string' ? error : 'refused');
    }
    return reply;
  }

  function urlOf(route: string, reply: HttpReply): string {
    const url = jsonObject(route, reply).url;
    if (typeof url !== 'string' || url === '')
      throw new OperatorCallError(route, reply.status, reply.json, 'no url in the reply');
    return url;
  }

  return {
    async listGames(): Promise<Hub88Game[]> {
      const reply = await post('/game/list', { operator_id: options.operatorId });
      if (!Array.isArray(reply.json))
        throw new OperatorCallError('/game/list', reply.status, reply.text, 'expected a JSON array');
      return reply.json as Hub88Game[];
    },

    /** The landing URL of the game. DEMO sends currency XXX and leaves user and token out. */
    async launch(launch: Hub88Launch): Promise<string> {
      const demo = launch.mode === 'demo';
      const currency = demo ? HUB88_DEMO_CURRENCY : launch.currency;
      // Fields in the order of Hub88's signing example, so its values sign to its published signature.
      const body: Record<string, unknown> = {
        user: demo ? undefined : launch.player,
        country: launch.country ?? 'EE',
        currency,
        operator_id: options.operatorId,
        token: demo ? undefined : launch.token,
        platform: launch.platform === 'mobile' ? 'GPL_MOBILE' : 'GPL_DESKTOP',
        game_id: launch.gameIdField === 'game_id' ? Number(launch.gameId) : undefined,
        game_code: launch.gameIdField === 'game_id' ? undefined : launch.gameId,
        lang: launch.language ?? 'en',
        lobby_url: launch.lobbyUrl,
        ip: launch.ip ?? '127.0.0.1',
        deposit_url: launch.depositUrl,
        sub_partner_id: launch.subPartnerId,
        game_currency: launch.gameCurrency,
        meta: launch.meta,
      };
      return urlOf('/game/url', await post('/game/url', withoutUndefined(body)));
    },

    /** The URL of a round's detail page. */
    async roundDetails(round: { user: string; round: string; transactionUuid?: string }): Promise<string> {
      const body = withoutUndefined({
        user: round.user,
        transaction_uuid: round.transactionUuid,
        round: round.round,
        operator_id: options.operatorId,
      });
      return urlOf('/game/round', await post('/game/round', body));
    },

    async listPrepaids(filter: { gameCode?: string; currency?: string } = {}): Promise<Record<string, unknown>[]> {
      const route = '/freebet/prepaids/list';
      const reply = await post(
        route,
        withoutUndefined({ operator_id: options.operatorId, game_code: filter.gameCode, currency: filter.currency }),
      );
      if (!Array.isArray(reply.json)) throw new OperatorCallError(route, reply.status, reply.text, 'expected a JSON array');
      return reply.json as Record<string, unknown>[];
    },

    /** Grants one reward (free spins / free bets) from a prepaid; returns Hub88's reward object. */
    async awardFreeSpins(reward: Hub88Reward): Promise<Record<string, unknown>> {
      const route = '/freebet/rewards/create';
      const body = withoutUndefined({
        user: reward.user,
        sub_partner_id: reward.subPartnerId,
        start_time: reward.startTime,
        prepaid_uuid: reward.prepaidUuid,
        reward_uuid: reward.rewardUuid,
        operator_id: options.operatorId,
        game_code: reward.gameCode,
        end_time: reward.endTime,
        currency: reward.currency,
        bet_value: reward.betValue,
        bet_count: reward.betCount,
      });
      return jsonObject(route, await post(route, body));
    },
  };
}
