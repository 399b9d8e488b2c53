/**
 * An independent Slotegrator GIS (APIgrator) operator client: game list, real and demo launch,
 * lobby tables, free-spin campaigns. Written from Slotegrator's own document as copied in public
 * code, and from integrators' clients.
 *
 * Sources:
 * - "Casino API Documentation – Slotegrator Game Aggregator", v1.4.3 (2025-07-14), a Markdown copy
 *   in a public repository (search index id 63093469083): request/response format (query and POST
 *   bodies application/x-www-form-urlencoded, JSON replies), HTTP statuses (401 authentication
 *   failed, 403 not allowed, 422 validation, 429 rate limit), the error body {name, message, code,
 *   status}, collections {items, _links, _meta{totalCount, pageCount, currentPage, perPage}} and the
 *   X-Pagination-* headers; the authorization headers (X-Timestamp "expires if >30 seconds
 *   difference") and the X-Sign recipe with its PHP example; GET /games (item fields uuid, name,
 *   image, type, provider, provider_id, technology, has_lobby, is_mobile, has_freespins, has_tables,
 *   freespin_valid_until_full_day, label; expand=tags,parameters{rtp, volatility, …},images,
 *   related_games; production max 50 per page, 1 request/s), GET /games/lobby, POST /games/init
 *   (game_uuid, player_id, player_name, currency, session_id required; device, return_url, language,
 *   email, lobby_data) and /games/init-demo -> {url}; GET /freespins/bets, POST /freespins/set
 *   (player_id, player_name, currency, quantity, valid_from, valid_until, freespin_id, game_uuid,
 *   one of bet_id | total_bet_id | denomination) -> 200, GET /freespins/get, POST /freespins/cancel.
 * - A PHP "SdkGis\GisApi" class (id 11485238871): the same headers and X-Sign, with
 *   X-Nonce = md5(uniqid()); http_build_query leaves null values out of body and signature alike.
 * - https://softbet.io/docs/CUSTOMER-API.md, a reseller "byte-compatible with the Slotegrator GIS
 *   API": lowercase hex HMAC-SHA1, values percent-encoded, a single-use nonce, ±5 minutes of skew
 *   (Slotegrator's own document says 30 seconds; the stricter one is what a client must meet).
 *
 * Unknown: which status a bad X-Sign gets exactly (the document lists 401 "Authentication failed";
 * this client reports any non-2xx as a refusal with the body it got); round details and session
 * closing (none in the document); whether single-use nonces are enforced by Slotegrator itself.
 */
import { createHmac, randomBytes } from 'node:crypto';
import {
  call,
  jsonObject,
  type LaunchRequest,
  OperatorCallError,
  phpBuildQuery,
  sortedByKey,
  type Tamper,
  tamperedCopy,
} from './kit.ts';

export interface SlotegratorClientOptions {
  /** The GIS base, e.g. https://staging.slotegrator.com/api/index.php/v1 (paths like /games appended). */
  baseUrl: string;
  merchantId: string;
  merchantKey: string;
  tamper?: Tamper;
  fetch?: typeof fetch;
  /** Unix seconds for X-Timestamp (default: the clock). */
  now?: () => number;
  /** X-Nonce (default: 32 random hex characters). */
  nonce?: () => string;
}

export interface SlotegratorGame {
  uuid: string;
  name: string;
  image: string;
  type: string;
  provider: string;
  technology?: string;
  has_lobby?: number;
  is_mobile?: number;
  has_freespins?: number;
  [field: string]: unknown;
}

/** The exact text X-Sign covers: http_build_query of the params and the three headers, ksort()ed. */
export function slotegratorSigningText(params: Record<string, unknown>, authHeaders: Record<string, string>): string {
  return phpBuildQuery(sortedByKey({ ...params, ...authHeaders }));
}

export function slotegratorSign(
  params: Record<string, unknown>,
  authHeaders: Record<string, string>,
  merchantKey: string,
): string {
  return createHmac('sha1', merchantKey).update(slotegratorSigningText(params, authHeaders), 'utf8').digest('hex');
}

export function slotegratorClient(options: SlotegratorClientOptions) {
  const key = options.tamper === 'wrong-key' ? `${options.merchantKey}-wrong` : options.merchantKey;
  const now = options.now ?? (() => Math.floor(Date.now() / 1000));
  const nonce = options.nonce ?? (() => randomBytes(16).toString('hex'));

  /** The auth headers for these params, and the params to send (spoiled after signing if asked). */
  function signed(params: Record<string, unknown>): { headers: Record<string, string>; sent: Record<string, unknown> } {
    const auth = { 'X-Merchant-Id': options.merchantId, 'X-Timestamp': String(now()), 'X-Nonce': nonce() };
    const present = Object.fromEntries(Object.entries(params).filter(([, v]) => v !== undefined && v !== null));
    const headers: Record<string, string> = { ...auth };
    if (options.tamper !== 'no-signature') headers['X-Sign'] = slotegratorSign(present, auth, key);
    return { headers, sent: options.tamper === 'tampered-body' ? tamperedCopy(present) : present };
  }

  async function request(
    method: 'GET' | 'POST',
    route: string,
    params: Record<string, unknown>,
    expect: { emptyReply?: boolean } = {},
  ): Promise<Record<string, unknown>> {
    const { headers, sent } = signed(params);
    const query = phpBuildQuery(sent);
    const reply =
      method === 'GET'
        ? await call(`${options.baseUrl}${route}${query ? `?${query}` : ''}`, { method, headers }, options.fetch)
        : await call(
            `${options.baseUrl}${route}`,
            { method, headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' }, body: query },
            options.fetch,
          );
    if (reply.status < 200 || reply.status >= 300) {
      const message = (reply.json as { message?: unknown } | undefined)?.message;
      throw new OperatorCallError(
        route,
        reply.status,
        reply.json ?? reply.text,
        typeof message === 'string' ? message : 'refused',
      );
    }
    // Campaign calls answer a bare "HTTP/1.1 200 OK".
    if (expect.emptyReply && reply.text === '') return {};
    return jsonObject(route, reply);
  }

  async function launchUrl(route: string, params: Record<string, unknown>): Promise<string> {
    const body = await request('POST', route, params);
    if (typeof body.url !== 'string' || body.url === '') throw new OperatorCallError(route, 200, body, 'no url in the reply');
    return body.url;
  }

  return {
    /** Every page of GET /games. */
    async listGames(perPage = 50): Promise<SlotegratorGame[]> {
      const games: SlotegratorGame[] = [];
      for (let page = 1; ; page++) {
        const body = await request('GET', '/games', { page, perPage });
        if (!Array.isArray(body.items)) throw new OperatorCallError('/games', 200, body, 'no items array');
        games.push(...(body.items as SlotegratorGame[]));
        const pageCount = (body._meta as { pageCount?: unknown } | undefined)?.pageCount;
        if (typeof pageCount !== 'number' || page >= pageCount) return games;
      }
    },

    /** `token` is the GIS session_id; lobbyUrl is the return_url; platform the device. */
    async launch(launch: LaunchRequest & { playerName?: string }): Promise<string> {
      if (launch.mode === 'demo') {
        return launchUrl('/games/init-demo', {
          game_uuid: launch.gameId,
          device: launch.platform,
          return_url: launch.lobbyUrl,
          language: launch.language ?? 'en',
        });
      }
      return launchUrl('/games/init', {
        game_uuid: launch.gameId,
        player_id: launch.player,
        player_name: launch.playerName ?? launch.player,
        currency: launch.currency,
        session_id: launch.token,
        device: launch.platform,
        return_url: launch.lobbyUrl,
        language: launch.language ?? 'en',
      });
    },

    async lobby(gameId: string, currency: string): Promise<Record<string, unknown>> {
      return request('GET', '/games/lobby', { game_uuid: gameId, currency });
    },

    /** The bets and denominations a free-spin campaign may use for this game and currency. */
    async freeSpinBets(gameId: string, currency: string): Promise<Record<string, unknown>> {
      return request('GET', '/freespins/bets', { game_uuid: gameId, currency });
    },

    /** POST /freespins/set: one of betId, totalBetId or denomination is required by Slotegrator. */
    async awardFreeSpins(award: {
      freespinId: string;
      player: string;
      playerName?: string;
      currency: string;
      gameId: string;
      quantity: number;
      validFrom: number;
      validUntil: number;
      betId?: number;
      totalBetId?: number;
      denomination?: number;
    }): Promise<void> {
      await request(
        'POST',
        '/freespins/set',
        {
          player_id: award.player,
          player_name: award.playerName ?? award.player,
          currency: award.currency,
          quantity: award.quantity,
          valid_from: award.validFrom,
          valid_until: award.validUntil,
          freespin_id: award.freespinId,
          bet_id: award.betId,
          total_bet_id: award.totalBetId,
          denomination: award.denomination,
          game_uuid: award.gameId,
        },
        { emptyReply: true },
      );
    },

    async cancelFreeSpins(freespinId: string): Promise<void> {
      await request('POST', '/freespins/cancel', { freespin_id: freespinId }, { emptyReply: true });
    },
  };
}
