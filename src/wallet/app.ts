import { timingSafeEqual } from 'node:crypto';
import { type Context, Hono, type MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { AggmockConfig } from '../config/index.ts';
import { codecOf } from '../dialects/index.ts';
import { type RawBodyVariables, readRawBody } from '../http/body.ts';
import { ApiError } from '../http/errors.ts';
import { credentialGuard, isExposed } from '../http/exposure.ts';
import { hostCheck, sameOriginGuard } from '../http/same-origin.ts';
import { serverToServerOnly } from '../http/server-to-server.ts';
import { encodeAmount } from '../money/index.ts';
import type { Wire } from '../profiles/index.ts';
import { parseJsonOr } from '../shared/index.ts';
import type { WalletBehaviour } from './behaviour.ts';
import { type DialectSettings, dialectRoutes } from './dialect.ts';
import { type CallbackBodySchema, type ParsedCallback, parseCallbackBody, walletWire } from './events.ts';
import type { WalletReply } from './replies.ts';
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
  /** A vendor dialect: its calls are answered on its paths under the base URL instead of the profile webhook. */
  dialect?: DialectSettings | undefined;
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
  if (options.dialect) {
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
      }),
    );
    return withErrorHandlers(app);
  }
  const wire = walletWire(config.callbacks);
  const schema: CallbackBodySchema = {
    wire,
    allowNegative: behaviour.allowNegativeAmounts === true,
    currencyOf: (playerId) => store.currencyOf(playerId),
  };
  app.post(
    WEBHOOK_PATH,
    async (c, next) => {
      const refusal = foreignHost(c.req.header('host') ?? new URL(c.req.url).host);
      return refusal ? send(c, store.replies.reject('INVALID_REQUEST', refusal, { status: 403 })) : next();
    },
    bodyLimit({
      maxSize: config.limits.bodyBytes,
      onError: (c) =>
        send(c, store.replies.reject('INVALID_REQUEST', `Body larger than ${config.limits.bodyBytes} bytes.`, { status: 413 })),
    }),
    async (c) => send(c, await receiveCallback(c, { config, schema, behaviour, store, nowSeconds: options.nowSeconds })),
  );

  if (options.testEndpoints)
    mountTestEndpoints(app, {
      store,
      config,
      bindHost,
      balanceOf: (playerId, minor) => encodeAmount(minor, wire.codec(store.currencyOf(playerId))),
    });
  return withErrorHandlers(app);
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

interface CallbackContext {
  config: AggmockConfig;
  schema: CallbackBodySchema;
  behaviour: WalletBehaviour;
  store: WalletStore;
  nowSeconds: (() => number) | undefined;
}

/**
 * One callback, in the order a wallet must check things: content type, then the signature over
 * the raw bytes (before parsing: re-serialised JSON would not match), then the fields, then the
 * API key when the profile signs nothing and puts a key in the body instead, and only then money.
 */
async function receiveCallback(c: Context, context: CallbackContext): Promise<WalletReply> {
  const { replies } = context.store;
  const contentType = c.req.header('content-type') ?? '';
  if (!isJsonContentType(contentType)) {
    return replies.reject(
      'INVALID_REQUEST',
      `Content-Type must be application/json, got ${JSON.stringify(contentType || '(none)')}.`,
      { status: 415 },
    );
  }

  const rawBody = new Uint8Array(await c.req.arrayBuffer());

  const { checkSignature } = context.behaviour;
  const { wire } = context.schema;
  if (checkSignature && wire.signingScheme !== 'none') {
    const now = context.nowSeconds?.();
    const refusal = checkSignature({
      rawBody,
      headers: c.req.raw.headers,
      signing: context.config.callbacks.signing,
      ...(now === undefined ? {} : { now }),
    });
    if (refusal) return replies.reject('INVALID_SIGNATURE', refusal);
  }

  const parsed = parseCallbackBody(context.behaviour.rewriteBody?.(rawBody) ?? rawBody, context.schema);
  const crash = parsed.ok ? undefined : context.behaviour.onUnparsable?.(parsed);
  if (crash) return crash;
  if (!parsed.ok) return replies.reject('INVALID_REQUEST', parsed.message, { errors: parsed.errors });

  // A wallet that checks no signature (the `no-signature-check` fault) checks no API key either.
  const keyRefusal = checkSignature ? apiKeyRefusal(wire, parsed) : undefined;
  if (keyRefusal) return replies.reject('INVALID_SIGNATURE', keyRefusal);

  return context.behaviour.applyCallback(parsed.event);
}

/**
 * A wire that signs nothing but carries the operator's API key in the body (Betnex `api_key`):
 * the key must be the configured one (compared in constant time). Undefined when it is, or when
 * the wire authenticates another way.
 */
function apiKeyRefusal(wire: Wire, parsed: ParsedCallback & { ok: true }): string | undefined {
  if (wire.signingScheme !== 'none' || !wire.carries('apiKey')) return undefined;
  const expected = Buffer.from(wire.apiKey);
  const got = Buffer.from(parsed.apiKey ?? '');
  if (got.length === expected.length && timingSafeEqual(got, expected)) return undefined;
  return parsed.apiKey === undefined
    ? 'Missing API key: the body carries no API key field; no money moved.'
    : "Wrong API key: the body's API key is not this wallet's; no money moved.";
}

function isJsonContentType(value: string): boolean {
  const mediaType = value.split(';', 1)[0]?.trim().toLowerCase() ?? '';
  return mediaType === 'application/json' || /^application\/[\w.+-]+\+json$/.test(mediaType);
}

function send(c: Context, reply: WalletReply): Response {
  return c.json(reply.body, reply.status);
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
