/**
 * The browser UI (catalog, launch form, deliveries, discrepancies) as server-rendered HTML; its
 * scripts are in `browser/` (served by http/browser-scripts.ts). A surface: it may import engines, the foundation and the aggregator's
 * schemas (it launches games like a client would); it must not import admin, verify or the CLI.
 */
import { type Context, Hono } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { launchResponseSchema } from '../aggregator/schemas.ts';
import { type Catalog, type CatalogGame, findGame } from '../catalog/index.ts';
import { type AggmockConfig, playerOpening } from '../config/index.ts';
import { type RawBodyVariables, readRawBody } from '../http/body.ts';
import type { FieldError } from '../http/errors.ts';
import { credentialGuard, isExposed, refuseAggmockCallbacks } from '../http/exposure.ts';
import { clientAddress } from '../http/rate-limit.ts';
import { sameOriginGuard } from '../http/same-origin.ts';
import { redactUrl } from '../shared/index.ts';
import { deliveriesPage } from './deliveries.ts';
import { discrepanciesPage } from './discrepancies.ts';
import { homePage, searchCatalog } from './home.ts';
import {
  defaultLaunchValues,
  internalAuthHeaders,
  type LaunchFormValues,
  launchPage,
  launchRequestBody,
  readLaunchForm,
} from './launch.ts';
import { messagePage } from './layout.ts';
import { requestsPage } from './requests.ts';

export { PAGE_SIZE, searchCatalog } from './home.ts';

export interface UiDeps {
  config: AggmockConfig;
  catalog: Catalog;
  /**
   * The app's own request handler: the launch form goes through `POST /getgameurl` itself, so a
   * UI launch is validated, authenticated and recorded exactly like a client's.
   */
  api: (request: Request, env: object | undefined) => Response | Promise<Response>;
  /** The public base URL (config `publicUrl`, else the origin the browser used). */
  baseUrl: (c: Context) => string;
  now?: () => number;
}

const LAUNCH_PATH = '/getgameurl';
/** The launch form's admin-token field, shown when the instance is exposed. */
export const TOKEN_FIELD = 'admin_token';

function formOf(c: Context<{ Variables: RawBodyVariables }>): URLSearchParams {
  return new URLSearchParams(Buffer.from(c.get('rawBody')).toString('utf8'));
}

/**
 * The web UI (SPEC §6) on the API's port, server-rendered, with its scripts in `browser/` and no
 * build step: `GET /` (catalog browser), `GET|POST /ui/launch` (launch form → play page),
 * `GET /ui/deliveries` (deliveries inspector) and `GET /ui/discrepancies` (shadow ledger).
 * The two inspector pages read the admin API from the browser, with its bearer token when set.
 *
 * The UI is for local use: the launch form needs no API key (the server signs its own call to
 * `POST /getgameurl` with the configured credentials), but every launch still goes through that
 * route's validation.
 *
 * @example
 * app.route('/', uiRoutes({ config, catalog, api: (req, env) => app.fetch(req, env), baseUrl }));
 */
export function uiRoutes(deps: UiDeps): Hono<{ Variables: RawBodyVariables }> {
  const { config, catalog } = deps;
  const now = deps.now ?? (() => Date.now());
  const players = Object.keys(config.wallet.players);
  const defaults = (): LaunchFormValues => {
    const values = defaultLaunchValues(config);
    const opening = playerOpening(config.wallet, values.username);
    return opening === undefined ? values : { ...values, money: opening.balance.toFixed(2) };
  };
  // Exposed, the form asks for the admin token (a plain form cannot send a header).
  const tokenRequired = isExposed(config);
  const app = new Hono<{ Variables: RawBodyVariables }>();
  const html = (c: Context, body: string, status: ContentfulStatusCode = 200) => {
    c.header('Cache-Control', 'no-store');
    return c.html(body, status);
  };
  const unknownGame = (c: Context, gameId: string) => {
    const message = gameId.trim()
      ? `No game with id ${JSON.stringify(gameId.trim())} in this catalog. Pick one from the games list.`
      : 'The launch form needs a gameId (?gameId=<32-character id>). Pick a game from the games list.';
    return html(c, messagePage('Unknown game', message, 'games'), 404);
  };

  const formPage = (game: CatalogGame, values: LaunchFormValues) => ({
    game,
    provider: catalog.providerByCode.get(game.provider),
    values,
    players,
    webhookUrl: redactUrl(config.callbacks.webhookUrl),
    tokenRequired,
  });

  app.get('/', (c) => html(c, homePage(catalog, searchCatalog(catalog, c.req.query()))));

  app.get('/ui', (c) => c.redirect('/', 302));

  app.get('/ui/launch', (c) => {
    const gameId = c.req.query('gameId') ?? '';
    const game = findGame(catalog, gameId);
    if (!game) return unknownGame(c, gameId);
    return html(c, launchPage(formPage(game, defaults())));
  });

  // The form is a plain HTML form (works without script); the Origin/Host check keeps other sites out.
  const sameOrigin = sameOriginGuard({
    bindHost: config.host,
    publicUrl: config.publicUrl,
    alsoAccept: ['application/x-www-form-urlencoded'],
  });
  // A launch sends signed callbacks: exposed, it needs the admin token (the form's field or a bearer header).
  const credentials = credentialGuard({
    host: config.host,
    publicUrl: config.publicUrl,
    token: config.admin.token,
    require: 'when-exposed',
    what: 'Launching from the UI',
    tokenFrom: (c) => formOf(c).get(TOKEN_FIELD) ?? undefined,
  });
  app.post(
    '/ui/launch',
    sameOrigin,
    refuseAggmockCallbacks('The launch form'),
    readRawBody(config.limits.bodyBytes),
    credentials,
    async (c) => {
      const contentType = (c.req.header('content-type') ?? '').split(';')[0]?.trim().toLowerCase();
      if (contentType !== 'application/x-www-form-urlencoded') {
        const message = `POST /ui/launch takes the launch form (application/x-www-form-urlencoded), not ${contentType || 'an untyped body'}. Clients use POST /getgameurl.`;
        return html(c, messagePage('Not a form', message, 'games'), 415);
      }
      const values = readLaunchForm(formOf(c));
      const game = findGame(catalog, values.gameId);
      if (!game) return unknownGame(c, values.gameId);

      const body = JSON.stringify(launchRequestBody(values, `${deps.baseUrl(c)}/`));
      const request = new Request(new URL(LAUNCH_PATH, c.req.url), {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...internalAuthHeaders(config.auth, 'POST', LAUNCH_PATH, body, now()) },
        body,
      });
      // The UI's launches count against the visitor's address (`uiClient`, server-side only), not the API key real clients use.
      const response = await deps.api(request, { ...(c.env as object | undefined), uiClient: clientAddress(c) });
      const answer = (await response.json().catch(() => undefined)) as
        | { message?: string; msg?: string; errors?: FieldError[] }
        | undefined;
      if (response.status === 200) {
        const launched = launchResponseSchema.safeParse(answer);
        // Relative: the play page opens on whatever host the browser used for the form.
        if (launched.success) return c.redirect(`/play/${encodeURIComponent(launched.data.payload.session_id)}`, 303);
      }
      const refused = {
        ...formPage(game, values),
        errors: response.status === 400 ? (answer?.errors ?? []) : [],
        ...(response.status === 400 && answer?.errors?.length
          ? {}
          : {
              problem: `POST ${LAUNCH_PATH} answered ${response.status}: ${answer?.message ?? answer?.msg ?? 'no explanation'}`,
            }),
      };
      // The API's own 4xx (400, 401, 404, 429…) passes through; anything else is a bad gateway, never a 500.
      const status = response.status >= 400 && response.status < 500 ? (response.status as ContentfulStatusCode) : 502;
      return html(c, launchPage(refused), status);
    },
  );

  app.get('/ui/deliveries', (c) => html(c, deliveriesPage(config, players)));
  app.get('/ui/discrepancies', (c) => html(c, discrepanciesPage(config)));
  app.get('/ui/requests', (c) => html(c, requestsPage(config)));
  return app;
}
