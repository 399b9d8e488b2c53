/**
 * The reference wallet's webhook in every dialect — aggmock's own (default, betnex, a profile
 * file) and the vendors' (hub88, pragmatic, …): the calls arrive on the dialect's paths under the
 * wallet's base URL (a wire whose calls all go to the webhook URL itself at `/callback/webhook`
 * too), as JSON, a form or a query string, signed by the dialect's recipe or carrying its static
 * credentials. The wallet verifies them (`verifyRequest`, or the behaviour's check for aggmock's
 * header schemes), names every wrong field of a JSON call (`fieldProblems`), reads the facts back
 * (`recogniseCall`), applies the money ones with one store and rules (idempotency, rollback once,
 * tombstones, funds, currency), and answers with the dialect's reply (answers.ts, `writeReply`).
 *
 * The store writes neutral answers (`dialectAnswers`) — accepted with a balance, or refused with
 * aggmock's outcome name — so a duplicate's stored answer is rendered in the dialect again, and
 * the planted faults (faults.ts), which go through the same store and behaviour, work on every wire.
 */
import type { ServerResponse } from 'node:http';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import { type Context, Hono, type MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { AggmockConfig } from '../config/index.ts';
import {
  type CallFacts,
  type CallReading,
  type Credentials,
  callProblem,
  credentialsCarried,
  type Dialect,
  type FieldProblem,
  fieldProblems,
  MONEY_OPERATIONS,
  type Operation,
  operationOfBody,
  operationsAt,
  type ReadFacts,
  type ReceivedRequest,
  recogniseCall,
  repeatAnswer,
  type SignOptions,
  unknownRollbackAnswer,
  verifyRequest,
} from '../dialects/index.ts';
import { isJsonContentType, parseJsonBytes } from '../http/body.ts';
import { ApiError, describeFieldErrors } from '../http/errors.ts';
import { MAX_ID_LENGTH } from '../http/limits.ts';
import type { ExtraCurrencies } from '../money/index.ts';
import { constantTimeEqual } from '../signing/index.ts';
import { type NeutralBody, neutralOf, type Rendered, refused, render } from './answers.ts';
import type { WalletBehaviour } from './behaviour.ts';
import type { WalletEvent } from './events.ts';
import type { WalletStore } from './store.ts';

/** What the wallet speaks: the dialect, its credentials and aggmock's header schemes. */
export interface DialectSettings {
  dialect: Dialect;
  credentials: Credentials;
  signOptions: SignOptions;
  /**
   * aggmock's header schemes as the wallet checks them (`callbacks.signing`): a dialect signed with
   * them (`signing: {algorithm: "scheme"}`) is checked by the behaviour's own signature check, so
   * the planted signature faults work on it.
   */
  signing?: AggmockConfig['callbacks']['signing'] | undefined;
  /** Extra currencies (crypto, say): code → decimals. */
  currencies?: ExtraCurrencies | undefined;
  /**
   * How the wallet answers a rollback of a bet it never saw where the dialect leaves it open
   * (default: as `unknownRollbackAnswer` says). aggmock's own wire acknowledges it.
   */
  unknownRollback?: 'acknowledge' | 'not-found' | undefined;
}

/** The session token every configured player is issued in development (defined with the dialects, which send it). */
export { devSessionToken } from '../dialects/index.ts';
export { dialectAnswers, renderedAnswers } from './answers.ts';

export interface DialectRoutesOptions extends DialectSettings {
  store: WalletStore;
  behaviour: WalletBehaviour;
  bodyBytes: number;
  /** The wallet's own currency, for a refusal before the player is known. */
  currency: string;
  /** Refuses a request addressed to a foreign Host (DNS rebinding), with why. */
  foreignHost: (host: string) => string | undefined;
  nowSeconds: (() => number) | undefined;
  /** The path the routes are mounted under (`/callback/webhook`): taken off before the dialect's paths are matched. */
  base?: string;
  /** The paths served (default every path: a dialect with paths of its own answers a wrong one itself). */
  paths?: readonly string[];
}

/** The dialect's calls under the wallet's base URL: one handler for every path and method, routed by the dialect. */
export function dialectRoutes(options: DialectRoutesOptions): Hono {
  const app = new Hono();
  const { dialect } = options;
  const fallback = { operation: 'bet' as Operation, currency: options.currency };
  for (const path of options.paths ?? ['*'])
    app.on(
      ['GET', 'POST', 'PUT', 'DELETE'],
      path,
      async (c, next) => {
        const refusal = options.foreignHost(c.req.header('host') ?? new URL(c.req.url).host);
        return refusal ? send(c, render(dialect, fallback, refused('INVALID_REQUEST', refusal), 403)) : next();
      },
      declaredBodyLimit(
        options.bodyBytes,
        bodyLimit({
          maxSize: options.bodyBytes,
          onError: (c) =>
            send(c, render(dialect, fallback, refused('INVALID_REQUEST', `Body larger than ${options.bodyBytes} bytes.`), 413)),
        }),
      ),
      async (c) => {
        const url = new URL(c.req.url);
        const raw = new Uint8Array(await c.req.arrayBuffer());
        // The path under the wallet: a wallet mounted in another app (`app.route('/api/wallet', …)`)
        // is reached at the mount's prefix, which Hono's routePath carries before the pattern.
        let pathname = url.pathname;
        const mount = mountPrefix(c.req.routePath, path);
        if (mount && pathname.startsWith(mount)) pathname = pathname.slice(mount.length) || '/';
        const received: ReceivedRequest = {
          method: c.req.method,
          path: (options.base && pathname.startsWith(options.base) ? pathname.slice(options.base.length) : pathname) + url.search,
          headers: Object.fromEntries(c.req.raw.headers),
          body: UTF8.decode(raw),
        };
        return send(c, await answerCall(options, received, raw));
      },
    );
  return app;
}

/**
 * Hono's `bodyLimit` decided from the Content-Length alone, as it does, without touching the
 * request's body stream first: reading `raw.body` makes the Node adapter build a whole web Request
 * (a fifth of a verify run's CPU went there), while the handler's `arrayBuffer()` reads the
 * socket directly. A chunked body (no length) still goes through `bodyLimit`, which counts it.
 */
function declaredBodyLimit(maxSize: number, limit: MiddlewareHandler): MiddlewareHandler {
  return (c, next) => {
    // bodyLimit lets a request without a body through: GET and HEAD never carry one.
    if (c.req.method === 'GET' || c.req.method === 'HEAD') return next();
    const length = c.req.header('content-length');
    if (length === undefined || c.req.header('transfer-encoding') !== undefined) return limit(c, next);
    return Number.parseInt(length || '0', 10) > maxSize ? limit(c, next) : next();
  };
}

/** Decodes a body as received (invalid bytes as U+FFFD, a leading BOM dropped): one decoder for every call. */
const UTF8 = new TextDecoder();

/** The prefix a mounting app put before `pattern` ('/api/wallet' for '/api/wallet/*' and '*'), or ''. */
function mountPrefix(routePath: string, pattern: string): string {
  const tail = pattern === '*' ? '/*' : pattern === '/' ? '' : pattern;
  if (!routePath.endsWith(tail)) return '';
  const prefix = routePath.slice(0, routePath.length - tail.length);
  return prefix === '/' ? '' : prefix.replace(/\/$/, '');
}

/**
 * Sends a reply. A status a `Response` cannot carry (100HP answers errors with 601–702) is written
 * straight to Node's response when the wallet runs on a Node server; elsewhere (`app.request` in a
 * test) it becomes a 400, still a final refusal.
 */
function send(c: Context, reply: Rendered): Response {
  if (reply.status >= 200 && reply.status <= 599) return c.json(reply.body as object, reply.status as 200);
  const outgoing = (c.env as { outgoing?: ServerResponse } | undefined)?.outgoing;
  if (!outgoing) return c.json(reply.body as object, 400);
  const text = JSON.stringify(reply.body);
  outgoing.writeHead(reply.status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  outgoing.end(text);
  return RESPONSE_ALREADY_SENT;
}

/** How a money call moves money, as the store's event kinds. */
const KIND = { debit: 'DEBIT', credit: 'CREDIT', reverse: 'ROLLBACK' } as const;

/**
 * One call, in the order a wallet checks things: a route for the method and path, the signature
 * over the bytes as received, the fields, the credentials the call carries, the player (by id or
 * by session token), the token where the dialect checks it, and only then money.
 */
export async function answerCall(options: DialectRoutesOptions, received: ReceivedRequest, raw?: Uint8Array): Promise<Rendered> {
  const { dialect, store, behaviour } = options;
  const fallback = { operation: 'bet' as Operation, currency: options.currency };
  const say = (facts: Parameters<typeof render>[1], answer: NeutralBody, status?: number, token?: string) =>
    render(dialect, facts, answer, status, token, options.currencies);
  const routes = operationsAt(dialect, received.method, received.path);
  if (routes.length === 0) {
    const reading = recogniseCall(dialect, received);
    return say(fallback, refused('INVALID_REQUEST', reading.ok ? 'no route' : reading.message), 404);
  }
  // A JSON call comes as JSON (a wallet that read a form as JSON would read nothing).
  const json = routes.every((op) => (dialect.operations[op]?.encoding ?? dialect.request.encoding) === 'json');
  const contentType = lowerHeader(received.headers, 'content-type') ?? '';
  if (json && received.method !== 'GET' && !isJsonContentType(contentType)) {
    const message = `Content-Type must be application/json, got ${JSON.stringify(contentType || '(none)')}.`;
    return say(fallback, refused('INVALID_REQUEST', message, undefined, { status: 415 }));
  }
  const bytes = raw ?? Buffer.from(received.body);
  // A planted fault may change the bytes after the signature check, before they are read (rounds-amounts).
  const rewritten = behaviour.rewriteBody ? behaviour.rewriteBody(bytes) : undefined;
  const readable = rewritten ? { ...received, body: Buffer.from(rewritten).toString('utf8') } : received;
  // A JSON call's body is parsed once, strictly; the facts are read from that parse when its text is the one read.
  const parsed = json ? strictJson(rewritten ?? bytes) : undefined;
  const reading: CallReading = recogniseCall(dialect, readable, {
    currencies: options.currencies,
    currencyOf: (playerId) => (playerId === undefined ? undefined : store.currencyOf(playerId)) ?? options.currency,
    parsedBody: parsed && 'value' in parsed && raw !== undefined && !rewritten ? parsed : undefined,
  });

  // The signature first, over the bytes as received; a wallet with the no-signature-check fault skips it.
  const checks =
    behaviour.checkSignature !== null &&
    !(behaviour.signatureScope === 'debits' && reading.ok && MONEY_OPERATIONS[reading.operation] !== 'debit');
  if (checks) {
    const refusal = signatureRefusal(options, behaviour, received, bytes);
    if (refusal !== undefined) return say(fallback, refused('INVALID_SIGNATURE', refusal));
  }
  if (parsed) {
    const problems = bodyProblems(options, routes, parsed, reading);
    if (problems.length > 0) {
      const message = describeFieldErrors(problems);
      const crash = behaviour.onUnparsable?.({ ok: false, message, errors: [...problems] });
      if (crash) return crash;
      return say(fallback, refused('INVALID_REQUEST', message, undefined, { errors: problems }));
    }
  }
  if (!reading.ok) {
    const crash = /not JSON/.test(reading.message)
      ? behaviour.onUnparsable?.({ ok: false, message: reading.message, errors: [{ field: '(body)', message: reading.message }] })
      : undefined;
    if (crash) return crash;
    return say(fallback, refused('INVALID_REQUEST', reading.message));
  }
  const { operation, facts } = reading;
  const base = { operation, currency: options.currency, ...echoes(facts) };
  if (checks) {
    for (const name of credentialsCarried(dialect, operation)) {
      const given = reading.credentials[name];
      const expected = options.credentials[name];
      if (given === undefined || expected === undefined || !constantTimeEqual(given, expected)) {
        const what = words(name);
        const message =
          given === undefined
            ? `Missing ${what}: the call carries no ${what}; no money moved.`
            : `Wrong ${what}: the call's ${what} is not this wallet's; no money moved.`;
        return say(base, refused('INVALID_SIGNATURE', message));
      }
    }
  }

  const byToken = facts.sessionToken === undefined ? undefined : store.playerOfToken(facts.sessionToken);
  const playerId = facts.playerId ?? byToken;
  if (playerId === undefined) {
    return say(
      base,
      facts.sessionToken !== undefined && dialect.reply.codes.INVALID_TOKEN !== undefined
        ? refused('INVALID_TOKEN', 'This session token was not issued by this wallet.')
        : refused('INVALID_REQUEST', 'The call names no player (no user id and no session token this wallet issued).'),
    );
  }
  const balance = store.balanceOf(playerId);
  const currency = store.currencyOf(playerId) ?? options.currency;
  const known = { ...base, currency, playerId };
  // Where the dialect checks the token, it is checked first: a call whose token is not the named
  // player's is refused as such, whether or not that player exists.
  if (dialect.session.checkedOn.includes(operation) && (facts.sessionToken === undefined || byToken !== playerId)) {
    const message =
      facts.sessionToken === undefined
        ? `A ${operation} must carry the session token.`
        : `The session token is not one this wallet issued to player ${playerId}.`;
    return say(known, refused('INVALID_TOKEN', message, balance));
  }
  const kind = MONEY_OPERATIONS[operation];
  // A money call for an unknown player is the store's to refuse (so a planted fault can get it wrong).
  if (kind === undefined)
    return balance === undefined
      ? say(known, refused('PLAYER_NOT_FOUND', `Player ${JSON.stringify(playerId)} does not exist in this wallet.`))
      : say(known, { accepted: true, balanceMinor: balance }, undefined, facts.sessionToken);
  const event = eventOf(store, facts, playerId, kind, behaviour.allowNegativeAmounts === true);
  if (typeof event === 'string') return say(known, refused('INVALID_REQUEST', event, balance));

  const seen = store.findTransaction(event.playerId, event.kind, event.transactionId);
  const debitId = event.debitTransactionId ?? event.transactionId;
  const reversed = event.reverses ?? 'DEBIT';
  const unknownBet = event.kind === 'ROLLBACK' && !store.findTransaction(event.playerId, reversed, debitId);
  const reply = await behaviour.applyCallback(event);
  const answer = neutralOf(reply);
  // A fault's raw reply (a 500, a crash) goes out as it is.
  if (!answer) return { status: reply.status, body: reply.body };
  const now = store.balanceOf(event.playerId);
  // A repeat moves no money. It is answered as the dialect's repeat rule (repeatAgrees) wants it:
  // the stored first reply again, or on "current-balance" wires the same outcome with the balance as it is now.
  if (seen && answer.accepted && repeatAnswer(dialect) === 'current-balance' && now !== undefined)
    return say(known, { accepted: true, balanceMinor: now });
  // A rollback of a bet the wallet never saw: remembered (a late bet is not charged), and answered
  // as the dialect says (Caleta acknowledges it; Hub88 refuses it "not found").
  if (
    unknownBet &&
    answer.accepted &&
    answer.balanceMinor === balance &&
    (dialect.reply.unknownRollback ?? options.unknownRollback ?? unknownRollbackAnswer(dialect)) === 'not-found' &&
    store.findTransaction(event.playerId, 'ROLLBACK', event.transactionId)?.status === 'tombstone'
  )
    return say(
      known,
      refused(
        'TRANSACTION_NOT_FOUND',
        `No ${reversed === 'CREDIT' ? 'win' : 'bet'} ${debitId} of player ${playerId} to roll back.`,
        balance,
      ),
    );
  return say(known, answer);
}

/**
 * Why a call's signature (or header scheme) is refused, or undefined. A dialect signed with
 * aggmock's header schemes is checked by the behaviour's own check over the raw bytes (so the
 * planted signature faults work on it); every other recipe by `verifyRequest`.
 */
function signatureRefusal(
  options: DialectRoutesOptions,
  behaviour: WalletBehaviour,
  received: ReceivedRequest,
  bytes: Uint8Array,
): string | undefined {
  const now = options.nowSeconds?.();
  if (options.dialect.signing.algorithm === 'scheme' && options.signing && behaviour.checkSignature)
    return behaviour.checkSignature({
      rawBody: bytes,
      headers: new Headers(received.headers as Record<string, string>),
      signing: options.signing,
      ...(now === undefined ? {} : { now }),
    });
  const verdict = verifyRequest(options.dialect, received, options.credentials, {
    ...(options.signOptions.scheme ? { scheme: options.signOptions.scheme } : {}),
    ...(now === undefined ? {} : { now }),
  });
  return verdict.ok ? undefined : `${verdict.reason}; no money moved.`;
}

/**
 * Every wrong field of a JSON call, named (empty when it reads): the body as strict JSON (UTF-8,
 * bounded nesting, an object), the constant that tells the calls at its address apart, then the
 * ids, currency, amounts and bonus of the call it is.
 */
function bodyProblems(
  options: DialectRoutesOptions,
  routes: readonly Operation[],
  parsed: StrictJson,
  reading: CallReading,
): FieldProblem[] {
  if ('problems' in parsed) return [...parsed.problems];
  const body = parsed.value;
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    return [{ field: '(body)', message: 'expected a JSON object', ...(body === undefined ? {} : { received: body }) }];
  const object = body as Record<string, unknown>;
  const { dialect, store } = options;
  const operation = reading.ok ? reading.operation : operationOfBody(dialect, routes, object);
  if (operation === undefined)
    return [
      callProblem(dialect, routes, object) ?? {
        field: '(body)',
        message: `expected a ${dialect.name} call (its constant fields do not match)`,
      },
    ];
  return fieldProblems(dialect, operation, object, {
    currency: options.currency,
    currencies: options.currencies,
    currencyOf: (playerId) => store.currencyOf(playerId),
    allowNegative: options.behaviour.allowNegativeAmounts === true,
    maxIdLength: MAX_ID_LENGTH,
  });
}

type StrictJson = { value: unknown } | { problems: readonly FieldProblem[] };

/** A body as strict JSON (UTF-8, bounded nesting: `parseJsonBytes`), or what is wrong with it. */
function strictJson(bytes: Uint8Array): StrictJson {
  try {
    return { value: parseJsonBytes(bytes) };
  } catch (error) {
    return { problems: error instanceof ApiError && error.errors ? error.errors : [{ field: '(body)', message: String(error) }] };
  }
}

/** A credential's name as words: apiKey → "API key", callerPassword → "caller password". */
function words(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .replace(/\bapi\b/g, 'API');
}

function lowerHeader(headers: ReceivedRequest['headers'], name: string): string | undefined {
  for (const [key, value] of Object.entries(headers)) if (key.toLowerCase() === name) return value ?? undefined;
  return undefined;
}

/** The facts a reply echoes (Hub88's request_uuid). */
function echoes(facts: ReadFacts): Partial<CallFacts> {
  return {
    ...(facts.requestId === undefined ? {} : { requestId: facts.requestId }),
    ...(facts.transactionId === undefined ? {} : { transactionId: facts.transactionId }),
    ...(facts.playerId === undefined ? {} : { playerId: facts.playerId }),
  };
}

/**
 * The store's event for a money call. A call's own id is its transaction id; a wire that carries
 * only the bet's id on a win or a rollback (100HP's deposit reuses the withdrawal's txId; a
 * cancel names the debit) uses that. A rollback without an amount restores what its bet took.
 */
function eventOf(
  store: WalletStore,
  facts: ReadFacts,
  playerId: string,
  money: 'debit' | 'credit' | 'reverse',
  allowNegative = false,
): WalletEvent | string {
  const transactionId = facts.transactionId ?? facts.betTransactionId;
  if (transactionId === undefined) return `A ${facts.operation} must carry its transaction id.`;
  const kind = KIND[money];
  let amountMinor = facts.amountMinor;
  if (kind === 'ROLLBACK') {
    const debitId = facts.betTransactionId ?? transactionId;
    const ofWin = facts.operation === 'rollbackWin';
    amountMinor ??= store.findTransaction(playerId, ofWin ? 'CREDIT' : 'DEBIT', debitId)?.amountMinor ?? 0;
    return {
      kind,
      playerId,
      transactionId,
      debitTransactionId: debitId,
      ...(ofWin ? { reverses: 'CREDIT' as const } : {}),
      amountMinor,
      ...(facts.currency === undefined ? {} : { currency: facts.currency }),
    };
  }
  if (amountMinor === undefined) return `A ${facts.operation} must carry its amount.`;
  if (amountMinor < 0 && !allowNegative) return `amount: ${amountMinor} is negative; expected 0 or more.`;
  // A round body (Betnex: bet and win in one call) with no bet is a win: a CREDIT of the win.
  if (facts.operation === 'bet' && facts.winMinor !== undefined && amountMinor === 0)
    return {
      kind: 'CREDIT',
      playerId,
      transactionId,
      amountMinor: facts.winMinor,
      ...(facts.currency === undefined ? {} : { currency: facts.currency }),
    };
  return {
    kind,
    playerId,
    transactionId,
    amountMinor,
    ...(facts.winMinor ? { winMinor: facts.winMinor } : {}),
    ...(facts.currency === undefined ? {} : { currency: facts.currency }),
  };
}
