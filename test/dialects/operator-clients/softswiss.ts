/**
 * An independent SoftSwiss Game Aggregator (GCP) / BGaming operator client: real and demo session
 * launch and free-spin issues. SoftSwiss's own API docs are given to partners only; this is read
 * from an operator platform's integration code.
 *
 * Sources:
 * - wendell1101/t1softxxx @ 7a67db73ab96f4b20ea413a64ceeb6e9fda08815,
 *   submodules/game-lib/game_platform/game_api_bgaming_seamless.php: URI_MAP /demo, /sessions,
 *   /freespins/issue, /freespins/cancel on the configured gcp_url; every call a JSON POST with
 *   X-REQUEST-SIGN = hash_hmac('sha256', json_encode(params), auth_token) (lowercase hex) over the
 *   very text sent; /sessions params {casino_id, game, locale, ip, client_type desktop|mobile,
 *   jurisdiction, currency, balance (integer subunits), urls{return_url, deposit_url}, user{id,
 *   email, firstname, lastname, nickname, city, date_of_birth, registered_at, gender, country}};
 *   /demo the same without currency, balance, user and deposit_url; the reply's
 *   launch_options.game_url (and .strategy) is the launch URL; HTTP 200 or 201 is success;
 *   /freespins/issue {casino_id, issue_id, currency, games[], freespins_quantity, bet_level,
 *   valid_until, user{…}}; /freespins/cancel {casino_id, issue_id}.
 * - https://apidoc.7softtech.pd15.uk (Introduction, "Security"), a provider whose API follows the
 *   GCP shape: every server-to-server request is signed, and "In case of signature mismatch, server
 *   (GCP and wallet) should respond with HTTP 403 Forbidden".
 *
 * Unknown: a game-list API (none in any source read; SoftSwiss catalogs reach operators another
 * way), so listGames() refuses; the error body of a refusal (the wallet side uses {code, message},
 * read the same way here); round details and session closing; the token the wallet later sees
 * (GCP issues its own session; the operator's token is not a /sessions field in the source); the
 * subunit exponent of `balance` (integer, per currency). The PHP source signs json_encode(), which
 * escapes '/' as '\/'; a verifier must hash the raw bytes received, never a re-serialisation.
 */
import { createHmac } from 'node:crypto';
import { jsonObject, type LaunchRequest, OperatorCallError, postSignedJson, type Tamper, withoutUndefined } from './kit.ts';

export const SOFTSWISS_SIGNATURE_HEADER = 'X-REQUEST-SIGN';

export interface SoftSwissClientOptions {
  /** The GCP base URL given at onboarding; /sessions, /demo, … are appended. */
  baseUrl: string;
  casinoId: string;
  authToken: string;
  tamper?: Tamper;
  fetch?: typeof fetch;
}

export function softSwissSign(text: string, authToken: string): string {
  return createHmac('sha256', authToken).update(text, 'utf8').digest('hex');
}

export function softSwissClient(options: SoftSwissClientOptions) {
  const token = options.tamper === 'wrong-key' ? `${options.authToken}-wrong` : options.authToken;

  async function post(route: string, body: Record<string, unknown>): Promise<Record<string, unknown>> {
    const reply = await postSignedJson({
      url: `${options.baseUrl}${route}`,
      body: withoutUndefined({ casino_id: options.casinoId, ...body }),
      signatureHeader: SOFTSWISS_SIGNATURE_HEADER,
      sign: (text) => softSwissSign(text, token),
      tamper: options.tamper,
      fetch: options.fetch,
    });
    if (reply.status !== 200 && reply.status !== 201) {
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

  return {
    async listGames(): Promise<never> {
      throw new Error('SoftSwiss GCP game list: no public source documents one');
    },

    /** POST /sessions (real) or /demo; returns launch_options.game_url. */
    /** `token` is not sent (GCP issues its own session); lobbyUrl is the return_url, language the locale. */
    async launch(
      launch: LaunchRequest & {
        /** The player's balance in integer subunits (sent on real launches). */
        balance?: number;
        jurisdiction?: string;
        user?: Record<string, unknown>;
      },
    ): Promise<string> {
      const demo = launch.mode === 'demo';
      const route = demo ? '/demo' : '/sessions';
      const common = {
        game: launch.gameId,
        locale: launch.language ?? 'en',
        ip: launch.ip ?? '127.0.0.1',
        client_type: launch.platform ?? 'desktop',
        jurisdiction: launch.jurisdiction ?? 'US',
      };
      const body = demo
        ? { ...common, urls: { return_url: launch.lobbyUrl } }
        : {
            ...common,
            currency: launch.currency,
            balance: launch.balance ?? 0,
            urls: { return_url: launch.lobbyUrl, deposit_url: launch.depositUrl },
            user: { id: launch.player, ...launch.user },
          };
      const reply = await post(route, body);
      const gameUrl = (reply.launch_options as { game_url?: unknown } | undefined)?.game_url;
      if (typeof gameUrl !== 'string' || gameUrl === '')
        throw new OperatorCallError(route, 200, reply, 'no launch_options.game_url');
      return gameUrl;
    },

    async awardFreeSpins(award: {
      issueId: string;
      player: string;
      currency: string;
      games: string[];
      quantity: number;
      betLevel?: number;
      validUntil: string;
    }): Promise<Record<string, unknown>> {
      return post('/freespins/issue', {
        issue_id: award.issueId,
        currency: award.currency,
        games: award.games,
        freespins_quantity: award.quantity,
        bet_level: award.betLevel,
        valid_until: award.validUntil,
        user: { id: award.player },
      });
    },

    async cancelFreeSpins(issueId: string): Promise<Record<string, unknown>> {
      return post('/freespins/cancel', { issue_id: issueId });
    },
  };
}
