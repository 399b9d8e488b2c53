import { z } from 'zod';
import { configuredOperatorApi, OPERATOR_OPENAPI_PATH, operatorCredentials } from '../../aggregator/vendor/index.ts';
import { dialectOf } from '../../config/index.ts';
import { builtinOperatorApi } from '../../dialects/builtin/operator/index.ts';
import { devSessionToken } from '../../dialects/dev-keys.ts';
import type { OperatorApi, OperatorRoute } from '../../dialects/operator.ts';
import {
  gamesIn,
  launchLinkIn,
  OperatorClientError,
  type OperatorValues,
  operatorRequest,
  operatorRouteFor,
  pagingIn,
} from '../../dialects/operator-client.ts';
import { MAX_ID_LENGTH, MAX_URL_LENGTH } from '../../http/limits.ts';
import { parseJsonOr } from '../../shared/index.ts';
import { callAggmock, ToolError } from './client.ts';
import { count, id, type ToolDefinition, tool } from './define.ts';
import type { AggmockTarget } from './target.ts';

/*
 * The MCP tools for a vendor's operator API (Hub88's /operator/generic/v2/game/list …): the target
 * aggmock's own dialect, read from its /health (a `--url` instance may run another dialect than
 * this config names), and each request built and signed the vendor's way by the one operator
 * client of src/dialects/operator-client.ts, sent over HTTP like any integrator's client, so the
 * journal and the fault rules see it.
 */

/** What the target says of itself (GET /health). */
interface Health {
  dialect?: string;
  operatorApi?: { basePath: string; openapi: string };
}

/**
 * The dialect of the aggmock the tools drive: the embedded one's config, or what a `--url`
 * instance reports (its own config, not this one's).
 */
export async function targetDialect(target: AggmockTarget): Promise<{ dialect: string; operatorApi?: Health['operatorApi'] }> {
  if (target.mode === 'embedded') {
    const api = configuredOperatorApi(target.config);
    return {
      dialect: dialectOf(target.config.callbacks).name,
      ...(api ? { operatorApi: { basePath: api.basePath, openapi: OPERATOR_OPENAPI_PATH } } : {}),
    };
  }
  const health = (await callAggmock(target, { method: 'GET', path: '/health' })) as Health;
  if (typeof health?.dialect !== 'string')
    throw new ToolError(`${target.url}/health names no dialect: is it an aggmock older than this one?`);
  return { dialect: health.dialect, ...(health.operatorApi ? { operatorApi: health.operatorApi } : {}) };
}

/** The target's operator API and the credentials to call it with, or a ToolError saying why there is none. */
async function targetOperator(
  target: AggmockTarget,
): Promise<{ dialect: string; api: OperatorApi; credentials: Record<string, string> }> {
  const { dialect, operatorApi } = await targetDialect(target);
  if (!operatorApi)
    throw new ToolError(
      `the aggmock at ${target.url} runs the ${dialect} dialect, which has no vendor operator API: use list_games and launch_game (the seed's API).`,
    );
  // This config's dialect when it is the target's (a dialect file's own section and credentials); else the built-in one.
  const own = dialectOf(target.config.callbacks).name === dialect ? configuredOperatorApi(target.config) : undefined;
  const api = own ?? builtinOperatorApi(dialect);
  if (!api)
    throw new ToolError(
      `the aggmock at ${target.url} serves the operator API of the dialect file ${dialect}: give \`aggmock mcp\` the same --config (or --dialect) so these tools know its routes.`,
    );
  const credentials = operatorCredentials(api, own ? target.config.operator.credentials : {}, dialect);
  return { dialect, api, credentials: { ...credentials } };
}

/** Sends one operator request; the reply's JSON (or text) and status, refusals as ToolErrors naming aggmock's reason. */
async function send(
  target: AggmockTarget,
  api: OperatorApi,
  route: Parameters<typeof operatorRequest>[1],
  values: OperatorValues,
  credentials: Record<string, string>,
) {
  let request: ReturnType<typeof operatorRequest>;
  try {
    request = operatorRequest(api, route, values, credentials, target.operatorKey ? { privateKey: target.operatorKey } : {});
  } catch (error) {
    if (error instanceof OperatorClientError) throw new ToolError(error.message);
    throw error;
  }
  const shown = `${request.method} ${request.path.split('?')[0]}`;
  let response: Response;
  try {
    response = await fetch(new URL(request.path, target.url), {
      method: request.method,
      headers: request.headers,
      ...(request.body === undefined ? {} : { body: request.body }),
      redirect: 'manual',
      signal: AbortSignal.timeout(30_000),
    });
  } catch (error) {
    throw new ToolError(`cannot reach aggmock at ${target.url} for ${shown} (${(error as Error).message}).`);
  }
  const text = await response.text();
  // Not JSON: the vendor's reply as text (a fault rule may have bent it: malformed, cut).
  const reply = text === '' ? undefined : parseJsonOr(text, text);
  if (response.status >= 400) {
    const why = response.headers.get('x-aggmock-refusal');
    throw new ToolError(`${shown} answered HTTP ${response.status}${why ? ` (${why})` : ''}: ${text.slice(0, 500)}`);
  }
  return { route: shown, status: response.status, reply };
}

/** Pages read at most for one answer (50 games each on Slotegrator: 10,000 games). */
const MAX_PAGES = 200;

/**
 * The vendor's game list: one reply, or for a paged listing its pages in order, each as large as the
 * vendor allows, until `wanted` games are in hand or the last page is read.
 */
async function listAll(
  target: AggmockTarget,
  api: OperatorApi,
  route: OperatorRoute,
  credentials: Record<string, string>,
  wanted: number,
) {
  const games: unknown[] = [];
  let page = 1;
  let pagesRead = 0;
  let pageCount = 1;
  let total: number | undefined;
  let sent: Awaited<ReturnType<typeof send>>;
  const perPage = route.paging?.maxPerPage;
  do {
    sent = await send(target, api, route, perPage ? { page: String(page), perPage: String(perPage) } : {}, credentials);
    const items = gamesIn(route, sent.reply);
    if (!items)
      throw new ToolError(`${sent.route} answered a reply without the game list: ${JSON.stringify(sent.reply).slice(0, 300)}`);
    games.push(...items);
    pagesRead++;
    if (!route.paging) break;
    const meta = pagingIn(route, sent.reply);
    // No page count in the reply (a fault rule may have bent it): a short page is the last.
    pageCount = meta?.pageCount ?? (items.length < (perPage as number) ? page : page + 1);
    total = meta?.totalCount;
    if (items.length === 0) break;
    page++;
  } while (page <= pageCount && games.length < wanted && page <= MAX_PAGES);
  const paging = route.paging ? { pagesRead, pageCount, perPage } : undefined;
  return { route: sent.route, status: sent.status, games, total: total ?? games.length, paging };
}

export const VENDOR_TOOLS: ToolDefinition[] = [
  tool({
    name: 'list_vendor_games',
    title: "List games through the vendor's operator API",
    description:
      "The catalog as the vendor's operator API lists it (e.g. Hub88's POST /operator/generic/v2/game/list), signed the vendor's way with the operator's credentials: each game in the vendor's own field names. Only when the target aggmock runs a vendor dialect with an operator API (info shows it); otherwise use list_games.",
    inputSchema: {
      limit: count(1, 500, 20, 'at most this many games (1 to 500, default 20)'),
      offset: count(0, 1_000_000, 0, 'skip this many games of the reply first'),
    },
    readOnly: true,
    run: async ({ limit, offset }, target) => {
      const { dialect, api, credentials } = await targetOperator(target);
      const route = operatorRouteFor(api, 'list-games');
      if (!route) throw new ToolError(`the ${dialect} operator API documents no game list: use list_games.`);
      const listed = await listAll(target, api, route, credentials, offset + limit);
      return {
        dialect,
        route: listed.route,
        status: listed.status,
        total: listed.total,
        offset,
        games: listed.games.slice(offset, offset + limit),
        // Whether the vendor pages its list (Slotegrator) and how many of its pages were read for this answer.
        paging: listed.paging ?? 'the vendor answers its whole list in one reply',
      };
    },
  }),

  tool({
    name: 'launch_vendor_game',
    title: "Launch a game through the vendor's operator API",
    description:
      "Launch a game the way the vendor's client does (e.g. Hub88's POST /operator/generic/v2/game/url), signed with the operator's credentials. It opens the same launch session as launch_game: its play page's spins send the vendor's wallet calls carrying this launch's token and player. Answers the vendor's reply and the play page URL.",
    inputSchema: {
      player: id('the player id', 'the player id the wallet knows, e.g. p1'),
      gameId: z
        .string()
        .min(1)
        .max(MAX_ID_LENGTH)
        .describe('a game id from list_vendor_games (the vendor field the catalog id is in, e.g. game_code) or list_games'),
      mode: z.enum(['real', 'demo']).default('real').describe('real money (default) or demo play'),
      currency: z.string().max(8).describe('an ISO 4217 code the game lists (default: callbacks.currency)').optional(),
      token: id(
        'a session token',
        "the operator's session token the wallet calls carry (default: the development token of the player, aggmock-session-<player>)",
      ).optional(),
      language: z.string().max(8).describe('a language code such as en').optional(),
      platform: z.enum(['desktop', 'mobile']).describe('desktop or mobile').optional(),
      lobbyUrl: z.string().max(MAX_URL_LENGTH).describe('where the game returns to: an absolute http(s) URL').optional(),
    },
    readOnly: false,
    run: async (args, target) => {
      const { dialect, api, credentials } = await targetOperator(target);
      const route = operatorRouteFor(api, 'launch', args.mode);
      if (!route) throw new ToolError(`the ${dialect} operator API documents no launch: use launch_game.`);
      if (
        args.mode === 'demo' &&
        route.mode === 'real' &&
        !Object.values(route.request).some((f) => f.demoWhen || f.to === 'mode')
      )
        throw new ToolError(`mode: the ${dialect} operator API documents no demo launch; expected "real".`);
      const values: OperatorValues = {
        player: args.player,
        gameId: args.gameId,
        mode: args.mode,
        currency: args.currency ?? target.config.callbacks.currency,
        token: args.token ?? devSessionToken(args.player),
        language: args.language ?? 'en',
        platform: args.platform ?? 'desktop',
        ...(args.lobbyUrl === undefined ? {} : { lobbyUrl: args.lobbyUrl }),
      };
      const sent = await send(target, api, route, values, credentials);
      const url = launchLinkIn(route, sent.reply, target.url);
      return { dialect, route: sent.route, status: sent.status, reply: sent.reply, ...(url ? { url } : {}) };
    },
  }),
];
