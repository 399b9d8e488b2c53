/**
 * The reference wallet in a vendor's dialect (hub88, pragmatic, …): the calls arrive on the
 * dialect's paths under the wallet's base URL, as JSON, a form or a query string, signed by the
 * dialect's recipe or carrying its static credentials. The wallet verifies them (`verifyRequest`),
 * reads the facts back (`recogniseCall`), applies the money ones with the same store and rules as
 * the profile wire (idempotency, rollback once, tombstones, funds, currency), and answers with the
 * dialect's reply (`writeReply`): its codes, its statuses, its balance shape, its echoes.
 *
 * The store writes neutral answers (`dialectAnswers`) — accepted with a balance, or refused with
 * aggmock's outcome name — so a duplicate's stored answer is rendered in the dialect again, and
 * the planted faults (faults.ts), which go through the same store and behaviour, work here too.
 */
import type { ServerResponse } from 'node:http';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import { type Context, Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import {
  type CallFacts,
  type CallReading,
  type Credentials,
  credentialsCarried,
  type Dialect,
  MONEY_OPERATIONS,
  type Operation,
  type OutcomeCode,
  operationsAt,
  type ReadFacts,
  type ReceivedRequest,
  recogniseCall,
  repeatAnswer,
  type SignOptions,
  unknownRollbackAnswer,
  verifyRequest,
  type WalletAnswer,
  writeAmount,
  writeReply,
} from '../dialects/index.ts';
import { setAt } from '../shared/index.ts';
import { constantTimeEqual } from '../signing/index.ts';
import type { WalletBehaviour } from './behaviour.ts';
import type { WalletEvent } from './events.ts';
import type { ReplyWriter, WalletReply } from './replies.ts';
import type { WalletStore } from './store.ts';

/** What the wallet speaks in dialect mode: the dialect, its credentials and (for profiles) the header schemes. */
export interface DialectSettings {
  dialect: Dialect;
  credentials: Credentials;
  signOptions: SignOptions;
}

/** A neutral answer as the store keeps it: rendered in the dialect when it is sent. */
type NeutralBody =
  | { accepted: true; balanceMinor: number }
  | { accepted: false; refusal: OutcomeCode; message: string; balanceMinor?: number };

/**
 * The store's reply writer in dialect mode: neutral answers, so a stored first answer can be
 * rendered again in the dialect for a duplicate. A 409 (a bet cancelled before it arrived) is
 * "already settled" where the dialect has a code for it.
 */
export function dialectAnswers(dialect: Dialect): ReplyWriter {
  return {
    balance: (balanceMinor) => ({ status: 200, body: { accepted: true, balanceMinor } }),
    reject: (code, message, options = {}) => {
      const refusal: OutcomeCode =
        options.status === 409 && dialect.reply.codes.ALREADY_SETTLED !== undefined ? 'ALREADY_SETTLED' : code;
      return {
        status: 400,
        body: {
          accepted: false,
          refusal,
          message,
          ...(options.balanceMinor === undefined ? {} : { balanceMinor: options.balanceMinor }),
        },
      };
    },
  };
}

function neutralOf(reply: WalletReply): NeutralBody | undefined {
  const body = reply.body as Partial<NeutralBody>;
  return typeof body.accepted === 'boolean' ? (body as NeutralBody) : undefined;
}

/** The session token every configured player is issued in development (defined with the dialects, which send it). */
export { devSessionToken } from '../dialects/index.ts';

export interface DialectRoutesOptions extends DialectSettings {
  store: WalletStore;
  behaviour: WalletBehaviour;
  bodyBytes: number;
  /** The wallet's own currency, for a refusal before the player is known. */
  currency: string;
  /** Refuses a request addressed to a foreign Host (DNS rebinding), with why. */
  foreignHost: (host: string) => string | undefined;
  nowSeconds: (() => number) | undefined;
}

/** The dialect's calls under the wallet's base URL: one handler for every path and method, routed by the dialect. */
export function dialectRoutes(options: DialectRoutesOptions): Hono {
  const app = new Hono();
  const { dialect } = options;
  const fallback = { operation: 'bet' as Operation, currency: options.currency };
  app.on(
    ['GET', 'POST', 'PUT', 'DELETE'],
    '*',
    async (c, next) => {
      const refusal = options.foreignHost(c.req.header('host') ?? new URL(c.req.url).host);
      return refusal ? send(c, render(dialect, fallback, refused('INVALID_REQUEST', refusal), 403)) : next();
    },
    bodyLimit({
      maxSize: options.bodyBytes,
      onError: (c) =>
        send(c, render(dialect, fallback, refused('INVALID_REQUEST', `Body larger than ${options.bodyBytes} bytes.`), 413)),
    }),
    async (c) => {
      const url = new URL(c.req.url);
      const received: ReceivedRequest = {
        method: c.req.method,
        path: url.pathname + url.search,
        headers: Object.fromEntries(c.req.raw.headers),
        body: await c.req.text(),
      };
      return send(c, await answerCall(options, received));
    },
  );
  return app;
}

type Rendered = { status: number; body: unknown };

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

const refused = (refusal: OutcomeCode, message: string, balanceMinor?: number): NeutralBody => ({
  accepted: false,
  refusal,
  message,
  ...(balanceMinor === undefined ? {} : { balanceMinor }),
});

/** A neutral answer in the dialect's words; `status` overrides the dialect's (404 for no such path, 413). */
function render(
  dialect: Dialect,
  facts: Pick<CallFacts, 'operation' | 'currency'> & Partial<CallFacts>,
  answer: NeutralBody,
  status?: number,
  token?: string,
): Rendered {
  const walletAnswer: WalletAnswer = answer.accepted
    ? { accepted: true, balanceMinor: answer.balanceMinor }
    : { accepted: false, refusal: spokenRefusal(dialect, answer.refusal), balanceMinor: answer.balanceMinor };
  const reply = writeReply(dialect, facts, walletAnswer, (minor) => writeAmount(dialect, facts.currency, minor));
  const messagePath = dialect.reply.message[0];
  if (!answer.accepted && messagePath && !messagePath.includes('.') && !Object.hasOwn(reply.body, messagePath))
    reply.body[messagePath] = answer.message;
  const tokenPath = dialect.operations[facts.operation]?.reply?.token;
  // Where the reply names the session token (Caleta's token, Red Tiger's result.token): the one it holds.
  if (answer.accepted && token && tokenPath) setAt(reply.body, tokenPath, token);
  return { status: status ?? reply.status, body: reply.body };
}

/**
 * A refusal the wire has no code for (100HP documents no "not enough money") is answered as the
 * wire's invalid request, when it has one: a code the sender knows is a refusal, rather than a
 * word it has never seen.
 */
function spokenRefusal(dialect: Dialect, refusal: OutcomeCode): OutcomeCode {
  const codes = dialect.reply.codes;
  return codes[refusal] === undefined && codes.INVALID_REQUEST !== undefined ? 'INVALID_REQUEST' : refusal;
}

/** How a money call moves money, as the store's event kinds. */
const KIND = { debit: 'DEBIT', credit: 'CREDIT', reverse: 'ROLLBACK' } as const;

/**
 * One call, in the order a wallet checks things: a route for the method and path, the signature
 * over the bytes as received, the fields, the credentials the call carries, the player (by id or
 * by session token), the token where the dialect checks it, and only then money.
 */
export async function answerCall(options: DialectRoutesOptions, received: ReceivedRequest): Promise<Rendered> {
  const { dialect, store, behaviour } = options;
  const fallback = { operation: 'bet' as Operation, currency: options.currency };
  if (operationsAt(dialect, received.method, received.path).length === 0) {
    const reading = recogniseCall(dialect, received);
    return render(dialect, fallback, refused('INVALID_REQUEST', reading.ok ? 'no route' : reading.message), 404);
  }
  const reading: CallReading = recogniseCall(dialect, received, {
    currencyOf: (playerId) => (playerId === undefined ? undefined : store.currencyOf(playerId)) ?? options.currency,
  });

  // The signature first, over the bytes as received; a wallet with the no-signature-check fault skips it.
  const checks =
    behaviour.checkSignature !== null && !(behaviour.signatureScope === 'debits' && reading.ok && !isDebit(reading.operation));
  if (checks) {
    const now = options.nowSeconds?.();
    const verdict = verifyRequest(dialect, received, options.credentials, {
      ...(options.signOptions.scheme ? { scheme: options.signOptions.scheme } : {}),
      ...(now === undefined ? {} : { now }),
    });
    if (!verdict.ok) return render(dialect, fallback, refused('INVALID_SIGNATURE', `${verdict.reason}; no money moved.`));
  }
  if (!reading.ok) {
    const crash = /not JSON/.test(reading.message)
      ? behaviour.onUnparsable?.({ ok: false, message: reading.message, errors: [{ field: '(body)', message: reading.message }] })
      : undefined;
    if (crash) return crash;
    return render(dialect, fallback, refused('INVALID_REQUEST', reading.message));
  }
  const { operation, facts } = reading;
  const base = { operation, currency: options.currency, ...echoes(facts) };
  if (checks) {
    for (const name of credentialsCarried(dialect, operation)) {
      const given = reading.credentials[name];
      const expected = options.credentials[name];
      if (given === undefined || expected === undefined || !constantTimeEqual(given, expected))
        return render(
          dialect,
          base,
          refused(
            'INVALID_SIGNATURE',
            given === undefined ? `The call carries no ${name}.` : `The ${name} is not this wallet's.`,
          ),
        );
    }
  }

  const byToken = facts.sessionToken === undefined ? undefined : store.playerOfToken(facts.sessionToken);
  const playerId = facts.playerId ?? byToken;
  if (playerId === undefined) {
    return render(
      dialect,
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
  if (dialect.session.checkedOn.includes(operation) && (facts.sessionToken === undefined || byToken !== playerId))
    return render(
      dialect,
      known,
      refused(
        'INVALID_TOKEN',
        facts.sessionToken === undefined
          ? `A ${operation} must carry the session token.`
          : `The session token is not one this wallet issued to player ${playerId}.`,
        balance,
      ),
    );
  if (balance === undefined)
    return render(
      dialect,
      known,
      refused('PLAYER_NOT_FOUND', `Player ${JSON.stringify(playerId)} does not exist in this wallet.`),
    );

  const kind = MONEY_OPERATIONS[operation];
  if (kind === undefined) return render(dialect, known, { accepted: true, balanceMinor: balance }, undefined, facts.sessionToken);
  const event = eventOf(store, facts, playerId, kind);
  if (typeof event === 'string') return render(dialect, known, refused('INVALID_REQUEST', event, balance));

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
    return render(dialect, known, { accepted: true, balanceMinor: now });
  // A rollback of a bet the wallet never saw: remembered (a late bet is not charged), and answered
  // as the dialect says (Caleta acknowledges it; Hub88 refuses it "not found").
  if (
    unknownBet &&
    answer.accepted &&
    answer.balanceMinor === balance &&
    unknownRollbackAnswer(dialect) === 'not-found' &&
    store.findTransaction(event.playerId, 'ROLLBACK', event.transactionId)?.status === 'tombstone'
  )
    return render(
      dialect,
      known,
      refused(
        'TRANSACTION_NOT_FOUND',
        `No ${reversed === 'CREDIT' ? 'win' : 'bet'} ${debitId} of player ${playerId} to roll back.`,
        balance,
      ),
    );
  return render(dialect, known, answer);
}

function isDebit(operation: Operation): boolean {
  return MONEY_OPERATIONS[operation] === 'debit';
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
  if (amountMinor < 0) return `amount: ${amountMinor} is negative; expected 0 or more.`;
  return {
    kind,
    playerId,
    transactionId,
    amountMinor,
    ...(facts.winMinor ? { winMinor: facts.winMinor } : {}),
    ...(facts.currency === undefined ? {} : { currency: facts.currency }),
  };
}
