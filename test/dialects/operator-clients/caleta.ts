/**
 * An independent Caleta Gaming operator client (Games API and Freebets API, casino -> Caleta),
 * written from Caleta's own OpenAPI document only.
 *
 * Sources:
 * - Caleta Gaming System API – Operator's Guide 1.5 (OpenAPI 3.0.1), vendored in valkyrie-fnd/valkyrie
 *   @ fe49faae254f20311af90157952f9c365779768a as
 *   provider/caleta/caletagaming-caleta-gaming_system_api_operators_guide-1.5-oapi3.yaml:
 *   "# Request signing" (every Games API request is signed by the operator: RSA-SHA256 of the body,
 *   base64, header X-Auth-Signature, checked with the public key of operator_id; an example body and
 *   its correct signature), "# Request consistency" (DEMO = `"currency":"FUN"`, token and user may be
 *   omitted), paths /api/game/url, /api/game/list, /api/game/round, /api/freebet/rewards/create,
 *   /api/freebet/rewards/cancel, /api/freebet/prepaids/list, /api/freebet/campaigns/{list,create};
 *   schemas game_url_body (required: country, currency, game_code, lang, lobby_url, operator_id,
 *   sub_partner_id), Game, game_round_body, rewards_*_body, Reward, Prepaid; replies {url}; 404
 *   {"error": "The operator_id does not correspond to any existing Operator."}; /game/round 405
 *   {"code": "100,", "message": "Invalid Round"}.
 * - valkyrie provider/caleta/auth_signature_test.go: the same example with the signing key of
 *   Caleta's sample project (bitbucket.org/paulocaleta/signaturetest, keys/key). The OAS prints the
 *   body with "currency":"EUR", but the published signature is over "currency":"BTC" (checked in
 *   caleta.test.ts); PKCS#1 v1.5 (rsa.SignPKCS1v15 in valkyrie's api_client.go / auth_signature.go).
 *
 * Unknown: the HTTP status and body for a bad signature on the Games API (the OAS lists only 200
 * and 404; this client reports any non-200 as a refusal with the body it got); the production base
 * URL (the OAS names //staging.the-rgs.com/); a close-session call (none in the OAS); whether
 * game_id or game_code wins when both are sent (the client sends what it is given).
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

export const CALETA_SIGNATURE_HEADER = 'X-Auth-Signature';
export const CALETA_DEMO_CURRENCY = 'FUN';

export interface CaletaClientOptions {
  /** Caleta's API origin; the documented /api/… paths are appended. */
  baseUrl: string;
  operatorId: number;
  /** The operator's RSA private key (PEM text or KeyObject); Caleta holds the public half. */
  privateKey: KeyObject | string;
  subPartnerId?: string;
  tamper?: Tamper;
  fetch?: typeof fetch;
}

export interface CaletaGame {
  game_id: number;
  game_code?: string;
  name: string;
  product: string;
  category: string;
  enabled: boolean;
  platforms: string[];
  url_thumb: string;
  url_background: string;
  blocked_countries: string[];
  [field: string]: unknown;
}

export interface CaletaLaunch extends LaunchRequest {
  /** Send gameId as game_code (the schema's required field, default) or as the numeric game_id (the example's). */
  gameIdField?: 'game_code' | 'game_id';
}

export function caletaClient(options: CaletaClientOptions) {
  const key = options.tamper === 'wrong-key' ? strangerRsaKey() : options.privateKey;

  async function post(route: string, body: Record<string, unknown>): Promise<HttpReply> {
    const reply = await postSignedJson({
      url: `${options.baseUrl}/api${route}`,
      body: withoutUndefined(body),
      signatureHeader: CALETA_SIGNATURE_HEADER,
      sign: (text) => rsaSha256Base64(text, key),
      tamper: options.tamper,
      fetch: options.fetch,
    });
    if (reply.status !== 200) {
      const json = reply.json as { error?: unknown; message?: unknown } | undefined;
      const reason = typeof json?.error === 'string' ? json.error : typeof json?.message === 'string' ? json.message : 'refused';
      throw new OperatorCallError(route, reply.status, reply.json ?? reply.text, reason);
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
    async listGames(): Promise<CaletaGame[]> {
      const reply = await post('/game/list', { operator_id: options.operatorId });
      if (!Array.isArray(reply.json))
        throw new OperatorCallError('/game/list', reply.status, reply.text, 'expected a JSON array');
      return reply.json as CaletaGame[];
    },

    /**
     * The landing URL. Fields go in the order of the OAS example body, so a launch with the
     * example's values signs to the example's published signature.
     */
    async launch(launch: CaletaLaunch): Promise<string> {
      const demo = launch.mode === 'demo';
      const body = {
        user: demo ? undefined : launch.player,
        country: launch.country ?? 'BR',
        currency: demo ? CALETA_DEMO_CURRENCY : launch.currency,
        operator_id: options.operatorId,
        token: demo ? undefined : launch.token,
        game_id: launch.gameIdField === 'game_id' ? Number(launch.gameId) : undefined,
        game_code: launch.gameIdField === 'game_id' ? undefined : launch.gameId,
        sub_partner_id: options.subPartnerId,
        lang: launch.language ?? 'en',
        lobby_url: launch.lobbyUrl,
        deposit_url: launch.depositUrl,
      };
      return urlOf('/game/url', await post('/game/url', body));
    },

    async roundDetails(round: { round: string; user?: string; transactionUuid?: string }): Promise<string> {
      const body = {
        operator_id: options.operatorId,
        transaction_uuid: round.transactionUuid,
        user: round.user,
        round: round.round,
        sub_partner_id: options.subPartnerId ?? 'default',
      };
      return urlOf('/game/round', await post('/game/round', body));
    },

    async listPrepaids(
      filter: { gameId?: number; gameCode?: string; currency?: string } = {},
    ): Promise<Record<string, unknown>[]> {
      const route = '/freebet/prepaids/list';
      const reply = await post(route, {
        operator_id: options.operatorId,
        game_id: filter.gameId,
        game_code: filter.gameCode,
        currency: filter.currency,
      });
      if (!Array.isArray(reply.json)) throw new OperatorCallError(route, reply.status, reply.text, 'expected a JSON array');
      return reply.json as Record<string, unknown>[];
    },

    /** Creates a single-use reward from a prepaid; bet_value is an integer ×100000. */
    async awardFreeSpins(reward: {
      user: string;
      prepaidUuid: string;
      rewardUuid?: string;
      gameId?: number;
      betValue?: number;
      betCount?: number;
      startTime?: string;
      endTime?: string;
    }): Promise<Record<string, unknown>> {
      const route = '/freebet/rewards/create';
      const body = {
        user: reward.user,
        sub_partner_id: options.subPartnerId ?? 'default',
        start_time: reward.startTime,
        prepaid_uuid: reward.prepaidUuid,
        reward_uuid: reward.rewardUuid,
        operator_id: options.operatorId,
        game_id: reward.gameId,
        end_time: reward.endTime,
        bet_value: reward.betValue,
        bet_count: reward.betCount,
      };
      return jsonObject(route, await post(route, body));
    },

    async cancelFreeSpins(rewardUuid: string): Promise<Record<string, unknown>> {
      const route = '/freebet/rewards/cancel';
      return jsonObject(route, await post(route, { reward_uuid: rewardUuid, operator_id: options.operatorId }));
    },
  };
}
