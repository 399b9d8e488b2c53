import { randomBytes } from 'node:crypto';
import { type Context, Hono, type MiddlewareHandler } from 'hono';
import type { Catalog, CatalogGame } from '../../catalog/index.ts';
import type { AggmockConfig } from '../../config/index.ts';
import type {
  OperatorApi,
  OperatorAuth,
  OperatorConcept,
  OperatorRoute,
  RefusalReason,
  ReplyTemplate,
} from '../../dialects/operator.ts';
import { verifyOperator } from '../../dialects/operator-auth.ts';
import { type RawBodyVariables, readRawBody } from '../../http/body.ts';
import { ApiError } from '../../http/errors.ts';
import type { LaunchSession, LaunchSessions } from '../../launch/sessions.ts';
import type { AuthVerdict } from '../../requests/index.ts';
import { maskedText, sha256Hex } from '../../shared/secrets.ts';
import { launchCurrency, launchedGame } from '../launch.ts';
import { OPERATOR_OPENAPI_PATH, operatorOpenApi } from './openapi.ts';
import { listingCache, type RenderValues, replyText } from './render.ts';
import { BadOperatorRequest, requestParts } from './request.ts';

/*
 * A vendor's operator API served beside the seed's: the routes its dialect's operator section
 * describes, each request checked the vendor's way, refused with the vendor's status and body,
 * the game list rendered from the catalog once and served from its bytes, and a launch that opens
 * the same launch session as POST /getgameurl, so its play page spins with the vendor's wallet calls.
 */

export interface VendorOperatorDeps {
  config: AggmockConfig;
  catalog: Catalog;
  sessions: LaunchSessions;
  api: OperatorApi;
  /** The dialect's name, for the OpenAPI document's title. */
  vendor: string;
  /** The operator credentials by the vendor's names (development defaults, overridden by config). */
  credentials: Readonly<Record<string, string>>;
  baseUrl: (c: Context) => string;
  now?: () => number;
  onLaunch?: (session: LaunchSession) => void;
}

/** Response header naming why a request was refused (the body keeps the vendor's own shape). */
export const REFUSAL_HEADER = 'X-Aggmock-Refusal';
/** Response header with the text the refused signature should have covered, JSON-encoded. */
export const EXPECTED_SIGNED_HEADER = 'X-Aggmock-Expected-Signed';

type Env = { Variables: RawBodyVariables };

/** A refusal inside the handler: the reason picks the vendor's reply. */
class Refusal extends Error {
  constructor(
    readonly reason: RefusalReason,
    message: string,
    readonly expectedSigned?: string,
  ) {
    super(message);
  }
}

const FALLBACK_STATUS: Record<RefusalReason, number> = { auth: 401, 'bad-request': 400, 'unknown-game': 404, 'not-found': 404 };

/**
 * The sub-app the caller mounts at `/`.
 *
 * @example app.route('/', vendorOperatorRoutes({ config, catalog, sessions, api, credentials, baseUrl }));
 */
export function vendorOperatorRoutes(deps: VendorOperatorDeps): Hono<Env> {
  const { api, catalog, config } = deps;
  const now = deps.now ?? Date.now;
  const listing = listingCache(catalog);
  const app = new Hono<Env>();

  const groups = new Map<string, { method: string; path: string; routes: [OperatorRoute, string][] }>();
  api.routes.forEach((route, i) => {
    const path = `${api.basePath}${route.path}`;
    const key = `${route.method} ${path}`;
    const group = groups.get(key) ?? { method: route.method, path, routes: [] };
    group.routes.push([route, String(i)]);
    groups.set(key, group);
  });

  const send = (template: ReplyTemplate, values: RenderValues, baseUrl: string, headers: Record<string, string> = {}) => {
    const text = replyText(template.body, values, catalog, baseUrl);
    return new Response(text ?? null, {
      status: template.status,
      headers: {
        ...(text === undefined ? {} : { 'content-type': 'application/json; charset=UTF-8' }),
        ...template.headers,
        ...headers,
      },
    });
  };

  const refuse = (refusal: Refusal, baseUrl: string) => {
    const template: ReplyTemplate = api.refusals[refusal.reason] ?? {
      status: FALLBACK_STATUS[refusal.reason],
      body: { object: { error: { from: 'error.message' } } },
      headers: {},
    };
    const headers: Record<string, string> = { [REFUSAL_HEADER]: headerSafe(refusal.message) };
    if (refusal.expectedSigned !== undefined)
      headers[EXPECTED_SIGNED_HEADER] = headerSafe(JSON.stringify(refusal.expectedSigned));
    return send(template, { error: { message: refusal.message } }, baseUrl, headers);
  };

  const document = operatorOpenApi(deps.vendor, api);
  app.get(OPERATOR_OPENAPI_PATH, (c) => c.json(document));

  const readBody = readRawBody(config.limits.bodyBytes);
  // The body the request journal already read (src/aggregator/client-faults.ts) is taken as it is:
  // touching the Request's stream makes the Node adapter build one, a measurable part of a listing.
  const rawBody: MiddlewareHandler<Env> = (c, next) => {
    const read = (c.env as { incoming?: { rawBody?: unknown } } | undefined)?.incoming?.rawBody;
    if (read instanceof Buffer && read.byteLength <= config.limits.bodyBytes) {
      c.set('rawBody', read);
      return next();
    }
    return readBody(c, next);
  };

  for (const group of groups.values()) {
    app.on(group.method, group.path, rawBody, async (c) => {
      const baseUrl = deps.baseUrl(c);
      try {
        return handle(c, group.routes, baseUrl);
      } catch (error) {
        if (error instanceof Refusal) return refuse(error, baseUrl);
        if (error instanceof BadOperatorRequest) return refuse(new Refusal('bad-request', error.message), baseUrl);
        if (error instanceof ApiError) {
          const reason: RefusalReason = error.status === 404 ? 'unknown-game' : 'bad-request';
          return refuse(new Refusal(reason, error.message), baseUrl);
        }
        throw error;
      }
    });
  }

  function handle(c: Context<Env>, candidates: [OperatorRoute, string][], baseUrl: string): Response {
    const headers = c.req.header();
    const url = new URL(c.req.url);
    const pathParams = c.req.param() as Record<string, string>;
    let chosen: [OperatorRoute, string] | undefined;
    let parts: ReturnType<typeof requestParts> | undefined;
    for (const candidate of candidates) {
      const [route] = candidate;
      const candidateParts = requestParts(route.encoding, c.get('rawBody'), headers, url.searchParams, pathParams);
      if (route.selector && candidateParts.fields[route.selector.field] !== route.selector.equals) continue;
      chosen = candidate;
      parts = candidateParts;
      break;
    }
    if (!chosen || !parts) {
      const selector = candidates[0]?.[0].selector;
      const served = candidates.map(([r]) => r.selector?.equals).join(', ');
      throw new Refusal('bad-request', `${selector?.field ?? 'the request'}: expected one of ${served}`);
    }
    const [route, routeKey] = chosen;
    const recipe = route.auth ?? api.auth;
    const verdict = verifyOperator(recipe, parts, deps.credentials, now());
    journalVerdict(
      c,
      verdict.ok
        ? { ok: true, method: 'operator', header: credentialPlace(recipe) }
        : {
            ok: false,
            error: 'expectedSigned' in verdict && verdict.expectedSigned !== undefined ? 'INVALID_SIGNATURE' : 'UNAUTHORIZED',
            message: verdict.message,
            ...(verdict.expectedSigned === undefined ? {} : journaledSigned(verdict.expectedSigned)),
          },
    );
    if (!verdict.ok) throw new Refusal('auth', verdict.message, verdict.expectedSigned);
    for (const field of route.required) {
      if (parts.fields[field] === undefined || parts.fields[field] === '')
        throw new Refusal('bad-request', `${field} is required`);
    }
    const { values, demo } = conceptsOf(route, parts.fields);
    if (api.operatorId) {
      const { field, header, credential, refusal } = api.operatorId;
      const named = field !== undefined ? parts.fields[field] : headers[(header as string).toLowerCase()];
      if (named !== undefined && named !== deps.credentials[credential])
        throw new Refusal(refusal, `The ${field ?? header} ${JSON.stringify(named)} doesn't correspond to any existing operator`);
    }
    switch (route.does) {
      case 'list-games':
        return sendListing(route, routeKey, baseUrl, values);
      case 'launch':
        return send(
          route.reply,
          { launch: launch(route, parts.fields, values, demo || route.mode === 'demo', baseUrl) },
          baseUrl,
        );
      case 'round-details': {
        const round = values.roundId ?? '';
        return send(route.reply, { round: { url: `${baseUrl}/ui/deliveries?round=${encodeURIComponent(round)}` } }, baseUrl);
      }
      default:
        return send(route.reply, {}, baseUrl);
    }
  }

  function sendListing(route: OperatorRoute, routeKey: string, baseUrl: string, values: Concepts): Response {
    let page: { page: number; perPage: number } | undefined;
    if (route.paging) {
      const number = (text: string | undefined, fallback: number, field: string) => {
        if (text === undefined || text === '') return fallback;
        if (!/^\d{1,6}$/.test(text) || Number(text) < 1)
          throw new Refusal('bad-request', `${field}: expected a whole number ≥ 1`);
        return Number(text);
      };
      page = {
        page: number(values.page, 1, 'page'),
        perPage: Math.min(number(values.perPage, route.paging.defaultPerPage, 'perPage'), route.paging.maxPerPage),
      };
    }
    const bytes = listing(route, routeKey, baseUrl, page);
    return new Response(bytes as Uint8Array<ArrayBuffer>, {
      status: route.reply.status,
      headers: { 'content-type': 'application/json; charset=UTF-8' },
    });
  }

  function launch(
    route: OperatorRoute,
    fields: Readonly<Record<string, string>>,
    values: Concepts,
    demo: boolean,
    baseUrl: string,
  ): NonNullable<RenderValues['launch']> {
    const gameField = Object.entries(route.request).find(([, spec]) => spec.to === 'gameId')?.[0] ?? 'gameId';
    if (values.gameId === undefined) throw new Refusal('bad-request', `${gameField} is required`);
    const game = gameOf(catalog, values.gameId, gameField);
    const requested = demo && values.currency === undefined ? undefined : values.currency;
    const { currency } = launchCurrency(requested, game, config);
    if (!demo) {
      for (const field of route.requiredWhenReal)
        if (fields[field] === undefined || fields[field] === '')
          throw new Refusal('bad-request', `${field} is required for a real-money launch`);
      const playerField = Object.entries(route.request).find(([, spec]) => spec.to === 'player')?.[0] ?? 'player';
      if (values.player === undefined) throw new Refusal('bad-request', `${playerField} is required`);
    }
    const token = api.sessionToken === 'issued' ? `aggmock-${randomBytes(12).toString('hex')}` : values.token;
    const session = deps.sessions.create(
      {
        playerId: values.player ?? 'demo',
        gameId: game.id,
        gameName: game.name,
        provider: game.provider,
        currency,
        lang: values.language ?? 'en',
        platform: values.platform === 'mobile' ? 2 : 1,
        homeUrl: values.lobbyUrl ?? '',
        ...(token === undefined ? {} : { token }),
        balanceAtLaunchMinor: 0,
      },
      { expiresInSeconds: config.launch.expiresIn, maxSessions: config.launch.maxSessions },
    );
    deps.onLaunch?.(session);
    const path = `/play/${session.id}`;
    return {
      url: `${baseUrl}${path}`,
      path,
      sessionId: session.id,
      currency,
      player: session.playerId,
      ...(token === undefined ? {} : { token }),
    };
  }

  return app;
}

type Concepts = Partial<Record<OperatorConcept, string>>;

/** The request's fields as aggmock's concepts, and whether they ask for demo play. */
function conceptsOf(route: OperatorRoute, fields: Readonly<Record<string, string>>): { values: Concepts; demo: boolean } {
  const values: Concepts = {};
  let demo = false;
  for (const [field, spec] of Object.entries(route.request)) {
    const value = fields[field];
    if (value === undefined || value === '') continue;
    if (spec.demoWhen !== undefined && value === spec.demoWhen) {
      demo = true;
      continue;
    }
    const mapped = spec.map && Object.hasOwn(spec.map, value) ? (spec.map[value] as string) : value;
    values[spec.to] ??= mapped;
  }
  if (values.mode === 'demo') demo = true;
  return { values, demo };
}

/** A game by its catalog id, or by its 1-based number in the catalog (vendors with integer ids). */
function gameOf(catalog: Catalog, id: string, field: string): CatalogGame {
  if (/^\d{1,9}$/.test(id)) {
    const game = catalog.games[Number(id) - 1];
    if (game) return game;
  }
  return launchedGame(catalog, id, field);
}

/**
 * Hands the vendor's verdict on the caller to the request journal (the response the API's server
 * created watches for it), so a refused call shows why and the text its signature should cover.
 */
function journalVerdict(c: Context, verdict: AuthVerdict): void {
  const outgoing = (c.env as { outgoing?: { operatorAuth?: AuthVerdict } } | undefined)?.outgoing;
  if (outgoing && 'operatorAuth' in outgoing) outgoing.operatorAuth = verdict;
}

/** Longest prefix of the expected signed text a journal row keeps (masked); its digest and length stand for the rest. */
const MAX_JOURNALED_SIGNED = 1024;

/**
 * The text a refused signature should have covered, as the journal keeps it: bounded and masked like
 * every journaled body (a signed body may be 1 MiB and hold a player's token), with its SHA-256 and
 * length so the client can compare with what it signed.
 */
function journaledSigned(text: string): { signedPrefix: string; bodySha256: string; bodyBytes: number } {
  const shown = maskedText(text);
  return {
    signedPrefix: shown.length > MAX_JOURNALED_SIGNED ? `${shown.slice(0, MAX_JOURNALED_SIGNED)}…` : shown,
    bodySha256: sha256Hex(text),
    bodyBytes: Buffer.byteLength(text),
  };
}

/** Where the operator's proof travels, as the journal names it. */
function credentialPlace(recipe: OperatorAuth): string {
  switch (recipe.kind) {
    case 'rsa-body':
    case 'hmac-body':
      return recipe.header;
    case 'sorted-params':
      return 'field' in recipe.place ? recipe.place.field : recipe.place.header;
    case 'static':
      return Object.keys(recipe.fields).join(', ');
    case 'basic':
      return 'Authorization';
  }
}

/** A header value: printable ASCII only, bounded. */
function headerSafe(text: string): string {
  const clean = text.replace(/[^\x20-\x7e]/g, '?');
  return clean.length > 2000 ? `${clean.slice(0, 2000)}...` : clean;
}
