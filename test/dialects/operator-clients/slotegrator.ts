/**
 * An independent Slotegrator GIS (APIgrator) operator client: game list, real and demo launch,
 * lobby tables. Slotegrator's own portal is not readable; what is public is a PHP SDK, integrators'
 * clients and a reseller that declares itself byte-compatible.
 *
 * Sources:
 * - A PHP "SdkGis\GisApi" class (search index id 11485238871): getAuthHeaders() = X-Merchant-Id,
 *   X-Timestamp = time(), X-Nonce = md5(uniqid()), X-Sign = hash_hmac('sha1',
 *   http_build_query(ksort(params ∪ those three headers)), merchantKey); GET {base}/games,
 *   GET {base}/games/lobby?game_uuid&currency, POST {base}/games/init and /games/init-demo as
 *   application/x-www-form-urlencoded (game_uuid, player_id, player_name, currency, session_id,
 *   return_url, language, email, lobby_data; demo: game_uuid, return_url, language), GET /limits,
 *   GET /jackpots. http_build_query leaves null values out of both the body and the signature.
 * - https://softbet.io/docs/CUSTOMER-API.md ("byte-compatible with the Slotegrator GIS API"):
 *   the same four headers (X-API-Key in place of X-Merchant-Id), X-Timestamp in unix seconds with
 *   ±5 minutes of skew, a single-use X-Nonce, X-Sign lowercase hex HMAC-SHA1 of the sorted query.
 * - A Node client (id 71317804778): base https://staging.slotegrator.com/api/index.php/v1, GET /games
 *   with page, perPage, expand (tags,parameters,images); init with `device` (desktop|mobile);
 *   init-demo; /freespins/bets?game_uuid&currency; replies parsed as JSON with `url` for launches.
 * - A TypeScript catalog type (search excerpt, unnamed file): a game is {uuid, name, image, type,
 *   provider, technology, has_lobby, is_mobile, has_freespins, has_tables, …}; lists come as
 *   {items: […]} pages.
 *
 * Unknown: the status and body of a refused request (the path /api/index.php/v1 suggests a Yii2
 * application, whose errors are {name, message, code, status} [inferred]; this client reports any
 * non-2xx as a refusal with the body it got); the pagination meta (`_meta.pageCount` is read when
 * present [inferred from Yii2], else one page is all); the free-spin award fields (the routes
 * /freespins/set and /freespins/bets exist in integrators' code, their parameters were not
 * readable); round details and session closing (nothing found).
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
  };
}
