/**
 * An independent Blue Ocean Gaming operator client: one JSON endpoint, the operation in `method`,
 * the operator's api_login/api_password in every body.
 *
 * Sources:
 * - Blue Ocean's docs, blueoceangaming.atlassian.net page 1209175592 ("Provide valid game launch
 *   link in demo or real mode"): the getGame request {api_login, api_password, method:"getGame",
 *   user_username, user_nickname, user_password (real mode only), lang, gameid (or the id_hash from
 *   getGameList), homeurl, play_for_fun ("1" = demo), currency}; replies {error:0, response:<launch
 *   url>, gamesession_id, sessionid, currency}, {error:1, message:"Game not found! Incorrect id:0"},
 *   {error:1, message:"Invalid player username or password! (2)"}.
 * - Operator-side clients read as code: a TypeScript client (search index id 49362802316:
 *   getGameList with show_additional, show_systems, currency -> {response:[…]}; addFreeRounds);
 *   a Node service (id 7848174992: addFreeRounds {title, playerids, gameids, available, validTo,
 *   validFrom, betlevel}, `error !== 0` is a failure); a C# integration (id 18251462683:
 *   createPlayer before addFreeRounds, which answers {"created":1,"freeround_id":"…"}); a Go allow
 *   list (id 53134225951: getGameList, createPlayer, playerExists, loginPlayer, getGame,
 *   getGameDirect, addFreeRounds, logoutPlayer, getGameHistory, getGameDemo, removeFreeRounds, …).
 * - A reseller's copy of the same API (https://softaggregator.com/docs.html): the game list item
 *   {id, name, type, category, id_hash, freerounds_supported, play_for_fun_supported, image}.
 * - A PHP client (id 29227339733): logoutPlayer and loginPlayer with user_username, user_password,
 *   currency, posted form-urlencoded (the TypeScript client posts JSON; this client posts JSON).
 *
 * Unknown: the reply to a wrong api_login/api_password (read as any `error` other than 0); whether
 * Blue Ocean requires JSON or form bodies; getGameHistory's parameters (not implemented); whether
 * Blue Ocean accepts the operator's own session token at launch (it issues `sessionid` itself,
 * which its wallet calls carry; so the launch token is not sent); RTP in the game list. No body signature exists: the
 * credentials are the authentication, so `tampered-body` is refused by this client as meaningless.
 */
import { call, jsonObject, type LaunchRequest, OperatorCallError, type Tamper } from './kit.ts';

export interface BlueOceanClientOptions {
  /** The single API endpoint URL given at onboarding. */
  baseUrl: string;
  apiLogin: string;
  apiPassword: string;
  tamper?: Tamper;
  fetch?: typeof fetch;
}

export interface BlueOceanGame {
  id: number | string;
  name: string;
  type?: string;
  category?: string;
  id_hash?: string;
  play_for_fun_supported?: boolean;
  freerounds_supported?: boolean;
  image?: string;
  [field: string]: unknown;
}

/** `token` is not sent (Blue Ocean issues its own sessionid); lobbyUrl is the homeurl. */
export interface BlueOceanLaunch extends LaunchRequest {
  /** The player's Blue Ocean password, chosen by the operator at createPlayer. */
  playerPassword: string;
  nickname?: string;
}

export function blueOceanClient(options: BlueOceanClientOptions) {
  if (options.tamper === 'tampered-body') {
    throw new Error(
      "Blue Ocean's operator API signs nothing (api_login/api_password authenticate), so a tampered body is not a refusal case",
    );
  }
  const credentials: Record<string, string> = { api_login: options.apiLogin };
  if (options.tamper !== 'no-signature') {
    credentials.api_password = options.tamper === 'wrong-key' ? `${options.apiPassword}-wrong` : options.apiPassword;
  }

  async function method(name: string, params: Record<string, unknown>): Promise<Record<string, unknown>> {
    const body = JSON.stringify({ ...credentials, method: name, ...params });
    const reply = await call(
      options.baseUrl,
      { method: 'POST', headers: { 'content-type': 'application/json' }, body },
      options.fetch,
    );
    const json = jsonObject(name, reply);
    if (reply.status !== 200 || json.error !== 0) {
      throw new OperatorCallError(name, reply.status, json, `error ${String(json.error)}: ${String(json.message ?? '')}`);
    }
    return json;
  }

  return {
    async listGames(currency: string): Promise<BlueOceanGame[]> {
      const reply = await method('getGameList', { show_systems: 0, show_additional: 0, currency });
      if (!Array.isArray(reply.response)) throw new OperatorCallError('getGameList', 200, reply, 'no response array');
      return reply.response as BlueOceanGame[];
    },

    async createPlayer(player: {
      player: string;
      playerPassword: string;
      currency: string;
      nickname?: string;
    }): Promise<Record<string, unknown>> {
      return method('createPlayer', {
        user_username: player.player,
        user_password: player.playerPassword,
        user_nickname: player.nickname ?? player.player,
        currency: player.currency,
      });
    },

    /** getGame: the launch URL is the reply's `response`; Blue Ocean's own sessionid comes with it. */
    async launch(launch: BlueOceanLaunch): Promise<string> {
      const demo = launch.mode === 'demo';
      const reply = await method('getGame', {
        ...(demo ? {} : { user_username: launch.player, user_password: launch.playerPassword }),
        user_nickname: launch.nickname ?? launch.player,
        lang: launch.language ?? 'en',
        gameid: launch.gameId,
        homeurl: launch.lobbyUrl,
        play_for_fun: demo ? '1' : '0',
        currency: launch.currency,
      });
      if (typeof reply.response !== 'string' || reply.response === '') {
        throw new OperatorCallError('getGame', 200, reply, 'no launch url in `response`');
      }
      return reply.response;
    },

    async awardFreeSpins(award: {
      title: string;
      players: string[];
      gameIds: string[];
      available: number;
      validTo: string;
      validFrom?: string;
      betLevel?: string;
      currency?: string;
    }): Promise<Record<string, unknown>> {
      return method('addFreeRounds', {
        title: award.title,
        playerids: award.players.join(','),
        gameids: award.gameIds.join(','),
        available: award.available,
        validTo: award.validTo,
        validFrom: award.validFrom,
        betlevel: award.betLevel,
        currency: award.currency,
      });
    },

    async closeSession(player: { player: string; playerPassword: string; currency: string }): Promise<Record<string, unknown>> {
      return method('logoutPlayer', {
        user_username: player.player,
        user_password: player.playerPassword,
        currency: player.currency,
      });
    },
  };
}
