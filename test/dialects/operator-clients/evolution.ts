/**
 * An independent Evolution operator client: the User Authentication launch ("UA2"), the lobby state
 * as a game list, and the round render. Evolution's own API docs (studio.evolution.com/api/docs)
 * sit behind a login, so every fact here comes from integrations that quote them.
 *
 * Sources:
 * - valkyrie-fnd/valkyrie @ fe49faae254f20311af90157952f9c365779768a, provider/evolution/:
 *   provider_service.go (POST {url}/ua/v1/{casinoKey}/{casinoToken} with a JSON
 *   UserAuthenticationRequest; game URL = {url} + reply.entry; round render = GET
 *   {url}/api/render/v1/details?gameId={round} with `Authorization: Basic base64(casinoKey:casinoToken)`,
 *   an HTML reply); model.go (request {uuid, player{id, update, firstName, lastName, nickname,
 *   country, language (2 letters), currency (3 letters), session{id, ip}}, config{urls{cashier,
 *   responsibleGaming, lobby, sessionTimeout, gameHistory, …}, brand{id, skin}, game{category,
 *   interface, playMode, table{id, seat}}, channel{wrapped, mobile}}}; reply {entry, entryEmbedded};
 *   errors {errors:[{code, message}]} with codes G.0–G.11, e.g. G.1 unknown casino, G.2 "Provided
 *   $apiToken for casino $casinoKey is incorrect"); docs/index.md (casino_key, api_key, casino_token).
 * - A Python licensee UAT client (search index id 6728391569): the same UA2 call, and GET
 *   {url}/api/lobby/v1/{casinoKey}/state with Basic auth; its Basic header for casino
 *   'diyft40000000001' and token 'test123' is 'Basic ZGl5ZnQ0MDAwMDAwMDAwMTp0ZXN0MTIz' (the vector
 *   evolution.test.ts checks).
 * - Lobby state readers (ids 10583282977, 55536291410): reply {tables: {<id>: {tableId, name,
 *   gameType, virtualTableId, videoSnapshot{thumbnails{L}}, …}}}; 401/404 for bad credentials.
 *
 * Unknown: the HTTP status that carries a UA2 error body (the client treats any non-2xx, or a 2xx
 * with `errors`, as a refusal); demo launch (config.game.playMode exists in valkyrie's model but
 * no value is documented anywhere readable, so this client refuses mode 'demo'); free rounds and
 * session closing (Evolution's are not in any public source found); RTP and currencies per table.
 * There is no body signature: the API token in the path authenticates the launch, so a tampered
 * body cannot be detected by Evolution and `tampered-body` is refused by this client as meaningless.
 */
import { call, type HttpReply, jsonObject, type LaunchRequest, OperatorCallError, type Tamper } from './kit.ts';

export interface EvolutionClientOptions {
  /** Evolution's licensee host, e.g. https://<licensee>.uat1.evo-test.com (the entry path is appended). */
  baseUrl: string;
  casinoKey: string;
  apiToken: string;
  tamper?: Tamper;
  fetch?: typeof fetch;
}

export interface EvolutionTable {
  tableId: string;
  name: string;
  gameType: string;
  [field: string]: unknown;
}

/** `token` becomes player.session.id, which Evolution's wallet calls carry back as `sid`; depositUrl is the cashier. */
export interface EvolutionLaunch extends LaunchRequest {
  category?: string;
  uuid?: string;
}

/** `Authorization: Basic base64(casinoKey:apiToken)`, as Evolution's data and render APIs take it. */
export function evolutionBasicAuth(casinoKey: string, apiToken: string): string {
  return `Basic ${Buffer.from(`${casinoKey}:${apiToken}`, 'utf8').toString('base64')}`;
}

export function evolutionClient(options: EvolutionClientOptions) {
  if (options.tamper === 'tampered-body') {
    throw new Error(
      "Evolution's UA2 has no body signature (the API token in the path authenticates), so a tampered body is not a refusal case",
    );
  }
  const token = options.tamper === 'wrong-key' ? `${options.apiToken}-wrong` : options.apiToken;
  const omitCredential = options.tamper === 'no-signature';
  const basic = (): Record<string, string> =>
    omitCredential ? {} : { authorization: evolutionBasicAuth(options.casinoKey, token) };

  function refusal(route: string, reply: HttpReply): OperatorCallError | undefined {
    const errors = (reply.json as { errors?: { code?: string; message?: string }[] } | undefined)?.errors;
    if (reply.status >= 200 && reply.status < 300 && !errors) return undefined;
    const first = errors?.[0];
    return new OperatorCallError(
      route,
      reply.status,
      reply.json ?? reply.text,
      first ? `${first.code}: ${first.message}` : 'refused',
    );
  }

  return {
    /** The lobby state's tables, as the game list. */
    async listGames(): Promise<EvolutionTable[]> {
      const route = `/api/lobby/v1/${options.casinoKey}/state`;
      const reply = await call(`${options.baseUrl}${route}`, { method: 'GET', headers: basic() }, options.fetch);
      const refused = refusal(route, reply);
      if (refused) throw refused;
      const tables = jsonObject(route, reply).tables;
      if (tables === null || typeof tables !== 'object')
        throw new OperatorCallError(route, reply.status, reply.json, 'no tables object');
      return Object.values(tables as Record<string, EvolutionTable>);
    },

    /** UA2: authenticates the player and returns the game URL (base + entry). */
    async launch(launch: EvolutionLaunch): Promise<string> {
      if (launch.mode === 'demo') throw new Error('Evolution demo launch: no public source documents it');
      const route = omitCredential ? `/ua/v1/${options.casinoKey}` : `/ua/v1/${options.casinoKey}/${token}`;
      const body = {
        uuid: launch.uuid ?? crypto.randomUUID(),
        player: {
          id: launch.player,
          update: true,
          country: launch.country ?? 'EE',
          language: launch.language ?? 'en',
          currency: launch.currency,
          session: { id: launch.token, ip: launch.ip ?? '127.0.0.1' },
        },
        config: {
          brand: { id: '1', skin: '1' },
          game: { category: launch.category, table: { id: launch.gameId } },
          channel: { wrapped: false, mobile: launch.platform === 'mobile' },
          urls: { lobby: launch.lobbyUrl, cashier: launch.depositUrl },
        },
      };
      const reply = await call(
        `${options.baseUrl}${route}`,
        { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) },
        options.fetch,
      );
      const refused = refusal(route, reply);
      if (refused) throw refused;
      const entry = jsonObject(route, reply).entry;
      if (typeof entry !== 'string' || entry === '')
        throw new OperatorCallError(route, reply.status, reply.json, 'no entry in the reply');
      return `${options.baseUrl}${entry}`;
    },

    /** The round's rendered detail page (HTML). */
    async roundDetails(round: { round: string }): Promise<string> {
      const route = '/api/render/v1/details';
      const reply = await call(
        `${options.baseUrl}${route}?gameId=${encodeURIComponent(round.round)}`,
        { method: 'GET', headers: basic() },
        options.fetch,
      );
      const refused = refusal(route, reply);
      if (refused) throw refused;
      return reply.text;
    },
  };
}
