import { type Context, Hono, type MiddlewareHandler } from 'hono';
import type { AggmockConfig } from '../config/index.ts';
import { codecOf, type Dialect } from '../dialects/index.ts';
import { type RawBodyVariables, readRawBody } from '../http/body.ts';
import { ApiError } from '../http/errors.ts';
import { credentialGuard, isExposed } from '../http/exposure.ts';
import { hostCheck, sameOriginGuard } from '../http/same-origin.ts';
import { serverToServerOnly } from '../http/server-to-server.ts';
import { encodeAmount } from '../money/index.ts';
import { parseJsonOr } from '../shared/index.ts';
import type { WalletBehaviour } from './behaviour.ts';
import { type DialectSettings, dialectRoutes } from './dialect.ts';
import { applyProviderState, parseProviderState, stateRequestSchema } from './state.ts';
import type { WalletStore } from './store.ts';

export const WEBHOOK_PATH = '/callback/webhook';

const NOT_JSON = Symbol('not JSON');
/** What a webhook's body may be: every wire is JSON or a form. */
const WEBHOOK_BODY_TYPES = ['application/json', 'application/x-www-form-urlencoded'] as const;

export interface WalletAppOptions {
  config: AggmockConfig;
  store: WalletStore;
  behaviour: WalletBehaviour;
  /** Exposes POST /__state and GET /__players/:id. Never on a real-money wallet. */
  testEndpoints: boolean;
  /** Unix seconds, for signature timestamps; injected by tests. */
  nowSeconds?: () => number;
  /** The address the wallet binds (default 127.0.0.1): what its Host check and exposure rest on. */
  bindHost?: string;
  /** The dialect the wallet speaks, with its credentials. */
  dialect: DialectSettings;
}

/**
 * The wallet's HTTP surface: the webhook, a health check and, when enabled, the test endpoints.
 * Every answer is JSON, including 404, 413, 415 and unexpected errors.
 */
export function createWalletApp(options: WalletAppOptions): Hono {
  const { config, store, behaviour } = options;
  const app = new Hono();

  const bindHost = options.bindHost ?? '127.0.0.1';
  app.get('/health', (c) => c.json({ status: 'ok' }));
  app.use(
    serverToServerOnly({ what: 'The wallet webhook', unless: (path) => path.startsWith('/__'), bodyTypes: WEBHOOK_BODY_TYPES }),
  );

  // On loopback, only the loopback names reach it: a rebinding page (its own DNS name resolving to
  // 127.0.0.1) cannot post callbacks signed with the public dev secret. A network binding is
  // reached by whatever name the network uses (a container's service name), so no Host check there.
  const foreignHost = isExposed({ host: bindHost }) ? () => undefined : hostCheck({ bindHost });
  const { dialect } = options.dialect;
  const currency = config.wallet.currency;
  if (options.testEndpoints)
    mountTestEndpoints(app, {
      store,
      config,
      bindHost,
      balanceOf: (playerId, minor) =>
        encodeAmount(minor, codecOf(dialect, store.currencyOf(playerId) ?? currency, config.callbacks.currencies)),
    });
  // A wire whose calls all go to the webhook URL itself is served at /callback/webhook (and, as
  // before, at the base URL); a wire with paths of its own under the base URL.
  const atWebhook = servedAtWebhook(dialect);
  app.route(
    '/',
    dialectRoutes({
      ...options.dialect,
      store,
      behaviour,
      bodyBytes: config.limits.bodyBytes,
      currency,
      foreignHost,
      nowSeconds: options.nowSeconds,
      ...(atWebhook ? { base: WEBHOOK_PATH, paths: ['/', WEBHOOK_PATH, `${WEBHOOK_PATH}/`] } : {}),
    }),
  );
  return withErrorHandlers(app);
}

/** Whether every call of the dialect goes to the webhook URL itself (path ""): default, betnex, profile files, Blue Ocean. */
export function servedAtWebhook(dialect: Dialect): boolean {
  return Object.values(dialect.operations).every((op) => op === undefined || op.path === '' || op.path === '/');
}

/** Every answer is JSON, including 404 and unexpected errors. */
function withErrorHandlers(app: Hono): Hono {
  app.notFound((c) => c.json({ error: 'NOT_FOUND', message: `No route ${c.req.method} ${c.req.path}.` }, 404));
  app.onError((error, c) =>
    error instanceof ApiError
      ? c.json(
          { error: error.status === 401 || error.status === 403 ? 'FORBIDDEN' : 'INVALID_REQUEST', message: error.message },
          error.status as 400,
        )
      : c.json(
          { error: 'INTERNAL_ERROR', message: `The wallet failed: ${error instanceof Error ? error.message : String(error)}` },
          500,
        ),
  );
  return app;
}

/**
 * Provider states for Pact and a balance probe for `aggmock verify`. They set any balance, so they
 * take only same-origin JSON on one of the wallet's own names (no cross-site form, no rebinding),
 * bounded by `limits.bodyBytes`; bound beyond loopback they also want the admin token.
 */
function mountTestEndpoints(
  app: Hono,
  deps: {
    store: WalletStore;
    config: AggmockConfig;
    bindHost: string;
    /** A balance as the wire writes it. */
    balanceOf: (playerId: string, minor: number) => number | string;
  },
): void {
  const { store, config, bindHost, balanceOf } = deps;
  const guards = [
    sameOriginGuard({ bindHost }),
    credentialGuard({ host: bindHost, token: config.admin.token, require: 'when-exposed', what: "The wallet's test endpoints" }),
  ];
  for (const path of ['/__state', '/__players/*']) app.use(path, ...guards);

  app.post('/__state', readRawBody(config.limits.bodyBytes) as MiddlewareHandler, async (c) => {
    const json = parseJsonOr(
      Buffer.from((c as unknown as Context<{ Variables: RawBodyVariables }>).get('rawBody')).toString('utf8'),
      NOT_JSON,
    );
    if (json === NOT_JSON) {
      return c.json({ error: 'INVALID_REQUEST', message: 'Provider-state body must be JSON: {state, params?, action?}.' }, 400);
    }
    const request = stateRequestSchema.safeParse(json);
    if (!request.success) {
      return c.json(
        { error: 'INVALID_REQUEST', message: `Provider-state body must be {state, params?, action?}: ${request.error.message}` },
        400,
      );
    }
    const { state, states = [], action = 'setup', params = {} } = request.data;
    // Each test sets its whole state up front, so there is nothing to undo.
    if (action === 'teardown') return c.json({ ok: true, action });

    const results = [];
    for (const name of state ? [state, ...states] : states) {
      const parsed = parseProviderState(name, params);
      if (!parsed.ok) return c.json({ error: 'INVALID_REQUEST', message: parsed.message }, 400);
      const outcome = applyProviderState(store, parsed.state);
      if (!outcome.ok) return c.json({ error: 'INVALID_REQUEST', message: outcome.message }, 400);
      results.push({
        state: name,
        playerId: outcome.playerId,
        balance: outcome.balanceMinor === undefined ? null : balanceOf(outcome.playerId, outcome.balanceMinor),
      });
    }
    return c.json({ ok: true, action, results });
  });

  app.get('/__players/:id', (c) => {
    const playerId = c.req.param('id');
    const balance = store.balanceOf(playerId);
    if (balance === undefined) {
      return c.json(
        { error: 'PLAYER_NOT_FOUND', message: `Player ${JSON.stringify(playerId)} does not exist in this wallet.` },
        404,
      );
    }
    return c.json({ playerId, balance: balanceOf(playerId, balance) });
  });
}
