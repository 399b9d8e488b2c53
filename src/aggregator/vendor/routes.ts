import { randomBytes } from 'node:crypto';
import { type Context, Hono, type MiddlewareHandler } from 'hono';
import type { Catalog, CatalogGame } from '../../catalog/index.ts';
import type { AggmockConfig } from '../../config/index.ts';
import type { OperatorApi, OperatorRoute, RefusalReason, ReplyTemplate } from '../../dialects/operator.ts';
import { type RawBodyVariables, readRawBody } from '../../http/body.ts';
import { ApiError } from '../../http/errors.ts';
import { exposureOf } from '../../http/exposure.ts';
import type { LaunchSession, LaunchSessions } from '../../launch/sessions.ts';
import type { AuthVerdict } from '../../requests/index.ts';
import { launchCurrency, openLaunchSession } from '../launch.ts';
import { matchesEtag } from '../listings.ts';
import { awardFreeRounds, campaignInfo, cancelFreeRounds, createCampaign, fieldOf, gameOf, listCampaigns } from './awards.ts';
import { type Concepts, decide, listingPage, Refusal, routeGroups } from './decide.ts';
import { OPERATOR_OPENAPI_PATH, operatorOpenApi } from './openapi.ts';
import { listingCache, type RenderValues, replyText, replyTextBody } from './render.ts';
import { BadOperatorRequest } from './request.ts';

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

const FALLBACK_STATUS: Record<RefusalReason, number> = { auth: 401, 'bad-request': 400, 'unknown-game': 404, 'not-found': 404 };

/**
 * The sub-app the caller mounts at `/`.
 *
 * @example app.route('/', vendorOperatorRoutes({ config, catalog, sessions, api, credentials, baseUrl }));
 */
export function vendorOperatorRoutes(deps: VendorOperatorDeps): Hono<Env> {
  const { api, catalog, config } = deps;
  const now = deps.now ?? Date.now;
  const listing = listingCache(catalog, api);
  const app = new Hono<Env>();
  const groups = routeGroups(api);
  const exposure = exposureOf(config);

  const send = (
    template: ReplyTemplate,
    values: RenderValues,
    baseUrl: string,
    headers: Record<string, string> = {},
    game?: CatalogGame,
  ) => {
    if (template.text !== undefined)
      return new Response(replyTextBody(template.text, values, catalog, baseUrl), {
        status: template.status,
        headers: { 'content-type': 'text/plain; charset=UTF-8', ...template.headers, ...headers },
      });
    const text = replyText(template.body, values, catalog, baseUrl, [], game);
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
        // aggmock's own capacity (launch.maxSessions reached on an exposed instance): its 503, as /getgameurl answers it.
        if (error instanceof ApiError && error.status >= 500) throw error;
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
    const decision = decide(
      api,
      candidates,
      {
        rawBody: c.get('rawBody'),
        headers,
        query: new URL(c.req.url).searchParams,
        pathParams: c.req.param() as Record<string, string>,
      },
      deps.credentials,
      now(),
      (verdict) => journalVerdict(c, verdict),
      exposure,
    );
    const { route, routeKey, parts, values, demo } = decision;
    const awards = deps.sessions.awards;
    switch (route.does) {
      case 'list-games':
        return sendListing(route, routeKey, baseUrl, values, c);
      case 'launch':
        return send(
          route.reply,
          { launch: launch(route, parts.fields, values, demo || route.mode === 'demo', baseUrl) },
          baseUrl,
        );
      case 'round-details': {
        const round = values.roundId ?? '';
        return send(
          route.reply,
          { round: { id: round, url: `${baseUrl}/ui/deliveries?round=${encodeURIComponent(round)}` } },
          baseUrl,
        );
      }
      case 'lobby': {
        const gameField = fieldOf(route, 'gameId');
        if (values.gameId === undefined) throw new Refusal('bad-request', `${gameField} is required`);
        return send(route.reply, {}, baseUrl, {}, gameOf(catalog, values.gameId, gameField));
      }
      case 'award-free-spins':
        // Recorded in the launch sessions' awards: the player's play page of that game plays them (src/play/routes.ts).
        return send(route.reply, { award: awardFreeRounds(route, values, decision.lists, catalog, awards, now()) }, baseUrl);
      case 'close-session': {
        // The player's open games end now (of one game when the request names it): their play pages answer 410.
        if (values.player === undefined) throw new Refusal('bad-request', `${fieldOf(route, 'player')} is required`);
        const game = values.gameId === undefined ? undefined : gameOf(catalog, values.gameId, fieldOf(route, 'gameId'));
        deps.sessions.closeFor(values.player, game?.id);
        return send(route.reply, {}, baseUrl);
      }
      case 'cancel-free-spins':
        return send(route.reply, { award: cancelFreeRounds(route, values, decision.lists, awards, now()) }, baseUrl);
      case 'create-campaign':
        return send(route.reply, { campaign: createCampaign(route, values, decision.lists, catalog, awards) }, baseUrl);
      case 'list-campaigns':
        return send(route.reply, { campaigns: listCampaigns(awards, catalog) }, baseUrl);
      case 'campaign-info':
        return send(route.reply, { campaign: campaignInfo(route, values, awards, catalog) }, baseUrl);
      default:
        return send(route.reply, {}, baseUrl);
    }
  }

  function sendListing(route: OperatorRoute, routeKey: string, baseUrl: string, values: Concepts, c: Context<Env>): Response {
    const { bytes, etag } = listing(route, routeKey, baseUrl, listingPage(route, values));
    const notModified = matchesEtag(c.req.header('if-none-match'), etag);
    return new Response(notModified ? null : bytes, {
      status: notModified ? 304 : route.reply.status,
      headers: {
        etag,
        'cache-control': 'no-cache',
        ...(notModified ? {} : { 'content-type': 'application/json; charset=UTF-8' }),
      },
    });
  }

  function launch(
    route: OperatorRoute,
    fields: Readonly<Record<string, string>>,
    values: Concepts,
    demo: boolean,
    baseUrl: string,
  ): NonNullable<RenderValues['launch']> {
    const gameField = fieldOf(route, 'gameId');
    if (values.gameId === undefined) throw new Refusal('bad-request', `${gameField} is required`);
    const game = gameOf(catalog, values.gameId, gameField);
    const requested = demo && values.currency === undefined ? undefined : values.currency;
    const { currency } = launchCurrency(requested, game, config);
    if (!demo) {
      for (const field of route.requiredWhenReal)
        if (fields[field] === undefined || fields[field] === '')
          throw new Refusal('bad-request', `${field} is required for a real-money launch`);
      if (values.player === undefined) throw new Refusal('bad-request', `${fieldOf(route, 'player')} is required`);
    }
    const token = api.sessionToken === 'issued' ? `aggmock-${randomBytes(12).toString('hex')}` : values.token;
    const session = openLaunchSession(deps, {
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
    });
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

/**
 * Hands the vendor's verdict on the caller to the request journal (the response the API's server
 * created watches for it), so a refused call shows why and the text its signature should cover.
 */
function journalVerdict(c: Context, verdict: AuthVerdict): void {
  const outgoing = (c.env as { outgoing?: { operatorAuth?: AuthVerdict } } | undefined)?.outgoing;
  if (outgoing && 'operatorAuth' in outgoing) outgoing.operatorAuth = verdict;
}

/** A header value: printable ASCII only, bounded. */
function headerSafe(text: string): string {
  const clean = text.replace(/[^\x20-\x7e]/g, '?');
  return clean.length > 2000 ? `${clean.slice(0, 2000)}...` : clean;
}
