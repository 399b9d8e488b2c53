import { z } from 'zod';
import { type AggmockConfig, credentialsOf, dialectOf, signOptionsOf } from '../config/index.ts';
import { BONUS_KINDS, type BonusKind, buildRequest, type CallFacts, type Dialect, type Operation } from '../dialects/index.ts';

/** The callback wire of SPEC §3, defined once: the engine, the contracts, OpenAPI and the tests use these. */

export type CallbacksConfig = AggmockConfig['callbacks'];

export const EVENT_KINDS = ['debit', 'credit', 'rollback'] as const;
export type EventKind = (typeof EVENT_KINDS)[number];

/** The dialect operation of an event kind: a DEBIT with its win is the dialect's bet-and-win when it has one. */
export function operationOf(kind: EventKind, dialect: Dialect, winMinor?: number): Operation {
  if (kind === 'credit') return 'win';
  if (kind === 'rollback') return 'rollback';
  return winMinor !== undefined && dialect.operations.betWin ? 'betWin' : 'bet';
}

/**
 * Dialect operations a caller names because its kind does not say them: a game opening's
 * `authenticate` and `balance` and a round's `endRound` move no money and go as a CREDIT of 0 (the
 * ledger judges them as reads: the balance they report must be the one it expects); a
 * `rollbackWin` is a ROLLBACK whose referenceTransactionId is the CREDIT it takes back; a `promoWin`
 * (Pragmatic's promoWin, 100HP's bonusWin) is a CREDIT that settles no bet.
 */
export const NAMED_OPERATIONS = ['authenticate', 'balance', 'endRound', 'rollbackWin', 'promoWin'] as const;
export type NamedOperation = (typeof NAMED_OPERATIONS)[number];
/** The named operations that move no money. */
export const READ_OPERATIONS: readonly NamedOperation[] = ['authenticate', 'balance', 'endRound'];

export const EVENT_STATUSES = ['pending', 'delivering', 'delivered', 'rejected', 'failed'] as const;
export type EventStatus = (typeof EVENT_STATUSES)[number];

const nonEmpty = (what: string) =>
  z.string({ error: `expected ${what} as a non-empty string` }).min(1, `expected ${what} as a non-empty string`);

/** What a caller (scenario, admin, CLI, play page) asks the engine to send. */
export const enqueueRequestSchema = z
  .object({
    kind: z.enum(EVENT_KINDS, { error: 'expected one of "debit", "credit", "rollback"' }),
    playerId: nonEmpty('the player id'),
    /** Integer minor units: 1050 is 10.50. Zero and negative amounts are allowed so the harness can send them. */
    amountMinor: z
      .number({ error: 'expected an integer number of minor units, e.g. 1050 for 10.50' })
      .refine(Number.isSafeInteger, { message: 'expected an integer number of minor units, e.g. 1050 for 10.50' }),
    /**
     * A whole round in one callback: the DEBIT's bet (`amountMinor`) and its win, on a wire whose
     * body carries both (Betnex's bet_amount and win_amount). Minor units, 0 or more.
     */
    winMinor: z
      .number({ error: 'expected the win as an integer number of minor units, 0 or more' })
      .refine((n) => Number.isSafeInteger(n) && n >= 0, {
        message: 'expected the win as an integer number of minor units, 0 or more',
      })
      .optional(),
    /** Default: the next id of the seeded sequence. */
    transactionId: nonEmpty('the transaction id').optional(),
    /** ROLLBACK: the DEBIT being reversed. */
    referenceTransactionId: nonEmpty('the reversed DEBIT transaction id').optional(),
    roundId: nonEmpty('the round id').optional(),
    gameId: nonEmpty('the game id').optional(),
    currency: nonEmpty('the currency code').optional(),
    gameName: nonEmpty('the game name').optional(),
    provider: nonEmpty('the provider name').optional(),
    /** A free-spin round, a jackpot win or a promotional credit: the bonus it belongs to. */
    bonus: z
      .strictObject({
        kind: z.enum(BONUS_KINDS, { error: `expected one of ${BONUS_KINDS.map((k) => `"${k}"`).join(', ')}` }),
        id: nonEmpty('the bonus id'),
        left: z
          .number({ error: 'expected the free rounds left as a whole number' })
          .int({ error: 'expected the free rounds left as a whole number' })
          .nonnegative({ error: 'expected the free rounds left as 0 or more' })
          .optional(),
      })
      .optional(),
    /** The operator's session token of the launch the call belongs to (a dialect's `sessionToken`). */
    sessionToken: nonEmpty('the session token').max(512, 'expected the session token in at most 512 characters').optional(),
    /** Whether this call closes its round (a dialect's `roundClosed`: Hub88's round_closed, a win's last). */
    roundClosed: z.boolean({ error: 'expected roundClosed as true or false' }).optional(),
    /** The dialect operation, when its kind does not say it (see {@link NAMED_OPERATIONS}); only on a dialect that has it. */
    operation: z
      .enum(NAMED_OPERATIONS, { error: `expected one of ${NAMED_OPERATIONS.map((o) => `"${o}"`).join(', ')}` })
      .optional(),
    /** 'manual' | 'scenario:bet-win' | 'play' | 'rollback-of-failed-debit' | 'replay:<id>' … */
    source: nonEmpty('the source').optional(),
    /** Events with the same key go out strictly one after another; default the player id. */
    orderingKey: nonEmpty('the ordering key').optional(),
    /** A scenario run id, to find a run's events later. */
    group: nonEmpty('the group').optional(),
    /** Where this event goes when not the configured webhook, e.g. a launch's `callback_url`. */
    url: z.url({ protocol: /^https?$/, error: 'expected an absolute http(s) URL' }).optional(),
  })
  .refine((r) => r.winMinor === undefined || r.kind === 'debit', {
    path: ['winMinor'],
    message: 'only a DEBIT carries a win (a whole round: its bet and its win in one callback)',
  })
  .refine((r) => r.operation !== 'rollbackWin' || r.kind === 'rollback', {
    path: ['kind'],
    message: 'a rollbackWin is a "rollback" whose referenceTransactionId is the CREDIT it takes back',
  })
  .refine((r) => r.operation !== 'promoWin' || r.kind === 'credit', {
    path: ['kind'],
    message: 'a promoWin is a "credit" that settles no bet',
  })
  .refine(
    (r) =>
      r.operation === undefined ||
      !(READ_OPERATIONS as readonly string[]).includes(r.operation) ||
      (r.kind === 'credit' && r.amountMinor === 0),
    {
      path: ['operation'],
      message: 'authenticate, balance and endRound move no money: send them with kind "credit" and amountMinor 0',
    },
  )
  .refine((r) => r.kind !== 'rollback' || r.referenceTransactionId !== undefined, {
    path: ['referenceTransactionId'],
    message: 'a rollback needs referenceTransactionId: the transactionId of the DEBIT it reverses',
  });
export type EnqueueRequest = z.input<typeof enqueueRequestSchema>;

export interface StoredEvent {
  id: number;
  kind: EventKind;
  /** The wire transactionId. For an 'original'-style ROLLBACK it is the reversed DEBIT's id. */
  transactionId: string;
  referenceTransactionId?: string;
  playerId: string;
  amountMinor: number;
  /** A whole round: the win that came with this DEBIT's bet, in the same callback. */
  winMinor?: number;
  roundId?: string;
  gameId?: string;
  currency?: string;
  gameName?: string;
  provider?: string;
  bonus?: { kind: (typeof BONUS_KINDS)[number]; id: string; left?: number };
  source: string;
  group?: string;
  orderingKey: string;
  url: string;
  /** The exact bytes sent on every attempt. */
  body: string;
  /**
   * The call's facts as the dialect reads them (operation, requestId, session token, game name…),
   * kept so every attempt is rendered and signed afresh from them. Absent on rows written before
   * outbox schema 4: their facts are read from the columns.
   */
  facts?: StoredFacts;
  /**
   * The request the call sends: method, path under the base URL, headers. Until an attempt is sent,
   * as rendered when the event was stored, its headers without the signature (each attempt signs
   * when it is sent); after, the last attempt's (`attempt`: its number), signature included.
   */
  request?: { method: string; path: string; headers: Record<string, string>; attempt?: number };
  status: EventStatus;
  attemptCount: number;
  /** When the next attempt is due (ms epoch), while the event waits for a retry. */
  nextAttemptAt?: number;
  createdAt: number;
  settledAt?: number;
  /** The last HTTP answer: status and JSON body (or the raw text when it is not JSON). */
  reply?: { status: number; body: unknown };
  /** The attempt whose journal row holds the reply's text (the reply is stored once). */
  replyAttempt?: number;
  error?: string;
}

/** The facts a call keeps with its event (its time is the event's `createdAt`). */
export type StoredFacts = Omit<CallFacts, 'createdAt' | 'currencies'>;

export type AttemptOutcome = 'delivered' | 'rejected' | 'retry' | 'failed';

/** One HTTP attempt as journaled. */
export interface Attempt {
  eventId: number;
  /** 1 for the first attempt. */
  n: number;
  startedAt: number;
  latencyMs: number;
  requestHeaders: Record<string, string>;
  requestBody: string;
  /** The method, when not POST (a query-string wire's GET). Rows before outbox schema 4 have none. */
  requestMethod?: string;
  /** The path (and query) under the event's base URL, when not "" (a dialect with paths). */
  requestPath?: string;
  responseStatus?: number;
  /** As stored: cut at MAX_STORED_BODY bytes (then `responseBytes` and `responseSha256` describe the whole). */
  responseBody?: string;
  /** Only when `responseBody` was cut: the length in UTF-8 bytes of the reply as judged. */
  responseBytes?: number;
  /** Only when `responseBody` was cut: the sha256 (hex) of the reply as judged. */
  responseSha256?: string;
  error?: string;
  outcome: AttemptOutcome;
}

/** The fields of one callback, before serialisation. */
export interface CallbackFields {
  kind: EventKind;
  /** The call's own transactionId (an 'original'-style ROLLBACK writes the reversed DEBIT's instead). */
  transactionId: string;
  referenceTransactionId?: string | undefined;
  playerId: string;
  /** Integer minor units of the event's currency. */
  amountMinor: number;
  /** A whole round (a DEBIT with its win, on a wire with bet and win fields): the win. */
  winMinor?: number | undefined;
  roundId?: string | undefined;
  gameId?: string | undefined;
  gameName?: string | undefined;
  provider?: string | undefined;
  currency?: string | undefined;
  /** `left`: a free round's rounds of its award still to play after it (Slotegrator's quantity). */
  bonus?: { kind: BonusKind; id: string; left?: number | undefined } | undefined;
  /** ms epoch of the event. */
  createdAt?: number | undefined;
}

/**
 * The exact body bytes of a callback under the configured dialect (`callbacks.dialect`), rendered by
 * the one renderer (`buildRequest`). The default dialect sends exactly
 * `{"type","transactionId","amount","playerId"}` in that order; a 'reference'-style ROLLBACK adds
 * `referenceTransactionId`; extra fields follow in the fixed order roundId, gameId, currency,
 * timestamp, only when configured and known.
 *
 * @example
 * buildCallbackBody({ kind: 'debit', transactionId: 'tx_1', amountMinor: 1050, playerId: 'p1' }, config.callbacks)
 * // '{"type":"DEBIT","transactionId":"tx_1","amount":10.5,"playerId":"p1"}'
 */
export function buildCallbackBody(fields: CallbackFields, config: CallbacksConfig): string {
  const dialect = dialectOf(config);
  const facts: CallFacts = {
    operation: operationOf(fields.kind, dialect, fields.winMinor),
    playerId: fields.playerId,
    currency: fields.currency ?? config.currency,
    transactionId: fields.transactionId,
    betTransactionId: fields.referenceTransactionId,
    amountMinor: fields.amountMinor,
    winMinor: fields.winMinor,
    roundId: fields.roundId,
    gameId: fields.gameId,
    gameName: fields.gameName,
    provider: fields.provider,
    bonus: fields.bonus,
    createdAt: fields.createdAt ?? Date.now(),
  };
  return buildRequest(dialect, facts, credentialsOf(config), { scheme: signOptionsOf(config).scheme, id: 'msg_body' }).body ?? '';
}
