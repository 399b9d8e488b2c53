import { NAMED_OPERATIONS, type StoredEvent } from '../callbacks/events.ts';
import { type DialectReading, judgeReply, type ReplyBalance, type ReplyInput, replyText } from '../callbacks/reply.ts';
import {
  MONEY_OPERATIONS,
  type RepeatJudgement,
  repeatAgrees,
  replyBalanceRule,
  unknownRollbackAccepts,
  unknownRollbackRule,
} from '../dialects/index.ts';
import { formatMinor } from '../money/index.ts';
import { describeExplanation } from './explain.ts';
import {
  checkHistory,
  type HistoryCause,
  type HistoryExplanation,
  type HistoryKind,
  type HistoryOp,
  type HistoryOutcome,
  type HistoryVerdict,
  type PastTx,
} from './history.ts';
import { type DiscrepancyKind, type LedgerTx, type LedgerView, ledgerTx, type ReducerOptions, transactionKey } from './model.ts';
import { replyBalance, replyOutcome } from './reply.ts';

/*
 * The shadow ledger's rules, one function each, over one window of a player's settled events:
 * the rules about each reply on its own (`replyRules`: a usable balance where the dialect wants
 * one, an unknown rollback answered as the dialect allows, a rejected rollback that kept a bet),
 * the balance rule (`historyRule`: the one history checker), a repeat's reply (`duplicateRule`)
 * and a negative balance (`overdraftRule`). The reducer (reducer.ts) runs them in that order and
 * works out what the ledger knows afterwards. The vendor rules are the dialect's one judge's
 * (dialects/judge.ts), which verify asks too.
 */

/** A settled event with when it could first have reached the wallet and when its answer came (any unit). */
export interface TimedEvent {
  event: StoredEvent;
  sentAt: number;
  answeredAt: number;
}

/** Events overlapping in one window beyond this are not searched: the balance becomes uncertain instead. */
export const MAX_WINDOW = 400;

/** Records one discrepancy of the window. */
export type Flag = (
  kind: DiscrepancyKind,
  expectedMinor: number | null,
  actualMinor: number | null,
  eventIds: number[],
  message: string,
  group?: string,
) => void;

/** What every rule of one window works with. */
export interface WindowContext {
  view: LedgerView;
  window: readonly TimedEvent[];
  options: ReducerOptions;
  /** The balance the ledger knew before the window; undefined when none or uncertain. */
  start: number | undefined;
  flag: Flag;
}

/** What the reducer made of one event of the window: its transaction record, and what the ledger knew of its key before. */
export interface Judged {
  tx: LedgerTx;
  known: LedgerTx | undefined;
}

/** A repeated transaction whose reply does not agree with its first. */
interface Duplicate {
  event: StoredEvent;
  first: LedgerTx;
  op: HistoryOp;
}

/** What the per-reply rules found: each event as the history checker sees it, its record, and the repeats that disagree. */
export interface ReplyFindings {
  ops: HistoryOp[];
  judged: Judged[];
  duplicates: Duplicate[];
}

/** The rules about each reply on its own. */
export function replyRules(w: WindowContext): ReplyFindings {
  // Each event's transaction record and what the ledger knew of its key are made and looked up once.
  // Only a window of several events can repeat a key within itself.
  const firstOf = w.window.length > 1 ? new Map<string, LedgerTx>() : undefined;
  const judged: Judged[] = [];
  const ops: HistoryOp[] = [];
  const duplicates: Duplicate[] = [];
  for (const { event, sentAt, answeredAt } of w.window) {
    const outcome = replyOutcome(event);
    const reading = w.options.reading(event.currency, event.facts?.operation);
    const said = event.reply ? judgeReply(event.reply, reading) : undefined;
    const balance = said?.balance ?? NO_BALANCE;
    const tx = ledgerTx(event, outcome);
    const { key } = tx;
    const known = w.view.transaction(key);
    const earlier = firstOf?.get(key) ?? known;
    const repeat = earlier && earlier.outcome !== 'failed' ? earlier : undefined;
    // A repeated transaction answered with the first reply again replays an old balance: it says nothing about now.
    const judgement =
      repeat?.reply !== undefined && event.reply !== undefined ? repeatOf(reading, repeat.reply, event.reply) : undefined;
    const agrees = judgement?.agrees === true;
    const replayed = agrees && judgement.balance === 'replayed';
    if (balance.kind === 'invalid') {
      const message = `${labelOf(event)}: the reply's balance ${JSON.stringify(balance.raw)} is not a valid amount`;
      w.flag('invalid-balance', null, null, [event.id], message, event.group);
    } else if (
      balance.kind === 'none' &&
      outcome === 'accepted' &&
      !agrees &&
      replyBalanceRule(reading.dialect, reading.operation ?? 'bet') === 'required'
    ) {
      w.flag(
        'missing-balance',
        null,
        null,
        [event.id],
        `${labelOf(event)} was accepted but the reply carries no balance`,
        event.group,
      );
    }
    const op = new EventOp(
      event,
      key,
      HISTORY_OUTCOME[outcome],
      sentAt,
      outcome === 'failed' ? Number.POSITIVE_INFINITY : answeredAt,
    );
    if (balance.kind === 'ok' && !replayed) op.balanceMinor = balance.minor;
    ops.push(op);
    judged.push({ tx, known });
    if (repeat && !agrees) duplicates.push({ event, first: repeat, op });
    if (!earlier || earlier.outcome === 'failed') firstOf?.set(key, tx);
    if (
      said &&
      op.reverses !== undefined &&
      w.view.transaction(op.reverses) === undefined &&
      !firstOf?.has(op.reverses) &&
      !unknownRollbackAccepts(reading.dialect, { verdict: said.verdict, code: said.error })
    ) {
      // A rollback of a transaction never settled here (so never seen by the wallet): answered as the dialect's one rule allows?
      const allowed = UNKNOWN_ROLLBACK_ANSWERS[unknownRollbackRule(reading.dialect)];
      w.flag(
        'unknown-rollback-answer',
        null,
        balance.kind === 'ok' ? balance.minor : null,
        [event.id],
        `${op.label} reverses ${event.referenceTransactionId ?? event.transactionId}, which the wallet never saw; the ${reading.dialect.name} wire answers that with ${allowed}, but the reply ${describeReply(event.reply)}`,
        event.group,
      );
    }
    if (event.kind === 'rollback' && outcome === 'rejected' && op.reverses && !op.reversesCredit) {
      // Settled before this window opened, so it reached the wallet first: no order excuses keeping it.
      const debit = w.view.transaction(op.reverses);
      if (debit?.outcome === 'accepted' && !debit.rolledBack) {
        const ref = event.referenceTransactionId ?? event.transactionId;
        w.flag(
          'rollback-not-restored',
          w.start === undefined ? null : w.start + debit.amountMinor,
          balance.kind === 'ok' ? balance.minor : null,
          [event.id],
          `${op.label} was rejected, so the accepted DEBIT ${ref} (event #${debit.eventId}, ${formatMinor(debit.amountMinor)}) was not given back`,
          event.group,
        );
      }
    }
  }

  return { ops, judged, duplicates };
}

/** The balance rule: one history check of the window; the reply no order explains is flagged as what the model says it is. */
export function historyRule(w: WindowContext, found: ReplyFindings): { verdict: HistoryVerdict; blamed?: HistoryExplanation } {
  const { ops, judged, duplicates } = found;
  const verdict =
    ops.length > MAX_WINDOW
      ? ({ linearizable: undefined } as const)
      : checkHistory(ops, {
          balanceMinor: w.start,
          // The window's own keys were looked up above: a lone event's is not looked up twice.
          past: (key) => pastOf(judged.length === 1 && key === judged[0]?.tx.key ? judged[0].known : w.view.transaction(key)),
        });
  const eventOf = (op: HistoryOp) => (w.window[ops.indexOf(op)] as TimedEvent).event;
  let blamed: HistoryExplanation | undefined;
  if (verdict.linearizable === false) {
    blamed = verdict.explanation;
    const event = eventOf(blamed.op);
    const kind = kindOf(blamed);
    w.flag(
      kind,
      blamed.expected,
      blamed.op.balanceMinor ?? null,
      blamed.involved.map((o) => o.id).sort((a, b) => a - b),
      describeExplanation(blamed, {
        windowSize: w.window.length,
        about: (op) => {
          const e = eventOf(op);
          const first = duplicates.find((d) => d.op === op)?.first;
          return {
            transactionId: e.transactionId,
            reversedId: e.referenceTransactionId ?? e.transactionId,
            ...(first ? { firstSaid: firstSaid(first, e) } : {}),
          };
        },
      }),
      event.group,
    );
  }
  return blamed ? { verdict, blamed } : { verdict };
}

/** A repeated transaction must get the first reply again, as the dialect's repeat rule reads "again" (unless the history rule blamed it already). */
export function duplicateRule(w: WindowContext, found: ReplyFindings, blamed: HistoryExplanation | undefined): void {
  const { duplicates } = found;
  for (const { event, first, op } of duplicates) {
    if (blamed?.op === op) continue;
    const balance = replyBalance({ reply: first.reply }, w.options.reading(first.currency));
    w.flag(
      'duplicate-reply-differs',
      balance.kind === 'ok' ? balance.minor : null,
      op.balanceMinor ?? null,
      [event.id],
      `${op.label} repeats transactionId ${event.transactionId} and must get the same reply as the first time; ${firstSaid(first, event)}`,
      event.group,
    );
  }
}

/** A balance is never negative (unless the history rule blamed that reply as an overdraft already). */
export function overdraftRule(w: WindowContext, found: ReplyFindings, blamed: HistoryExplanation | undefined): void {
  const { ops } = found;
  const eventOf = (op: HistoryOp) => (w.window[ops.indexOf(op)] as TimedEvent).event;
  for (const op of ops) {
    if (op.balanceMinor === undefined || op.balanceMinor >= 0) continue;
    if (blamed?.op === op && blamed.cause === 'overdraft') continue;
    w.flag(
      'overdraft',
      0,
      op.balanceMinor,
      [op.id],
      `${op.label}: the wallet reports a negative balance ${formatMinor(op.balanceMinor)}`,
      eventOf(op).group,
    );
  }
}

/** How a repeat's reply compares with its transaction's first, by the dialect's one rule. */
function repeatOf(reading: DialectReading, first: ReplyInput, again: ReplyInput): RepeatJudgement {
  const context = { operation: reading.operation ?? 'bet', currency: reading.currency, currencies: reading.currencies };
  return repeatAgrees(
    reading.dialect,
    context,
    { status: first.status, text: replyText(first) },
    { status: again.status, text: replyText(again) },
  );
}

const NO_BALANCE: ReplyBalance = { kind: 'none' };

/** What a dialect's rule lets a wallet answer to a rollback of a transaction it never saw, in a message's words. */
const UNKNOWN_ROLLBACK_ANSWERS = {
  acknowledge: 'an acknowledgement',
  'not-found': 'its not-found refusal',
  either: 'an acknowledgement or its not-found refusal',
} as const satisfies Record<ReturnType<typeof unknownRollbackRule>, string>;

const HISTORY_OUTCOME = { accepted: 'accepted', rejected: 'rejected', failed: 'unknown' } as const satisfies Record<
  ReturnType<typeof replyOutcome>,
  HistoryOutcome
>;

/** What the history checker may assume of a transaction the ledger settled before. */
function pastOf(tx: LedgerTx | undefined): PastTx | undefined {
  if (!tx || tx.outcome === 'rejected') return undefined;
  if (tx.rolledBack) return { status: 'rolled-back', amountMinor: tx.amountMinor };
  return { status: tx.outcome === 'accepted' ? 'applied' : 'maybe', amountMinor: tx.amountMinor };
}

/** The history checker's view of one event, named only when a message needs it: most events are never blamed. */
class EventOp implements HistoryOp {
  readonly id: number;
  readonly kind: HistoryKind;
  readonly amountMinor: number;
  readonly reverses: string | undefined;
  readonly reversesCredit: boolean;
  readonly winMinor: number | undefined;
  balanceMinor: number | undefined = undefined;

  constructor(
    private readonly event: StoredEvent,
    readonly key: string,
    readonly outcome: HistoryOutcome,
    readonly sentAt: number,
    readonly answeredAt: number,
  ) {
    this.id = event.id;
    // A call that moves no money (authenticate, balance, end of round: sent as a CREDIT of 0) is a read of the balance.
    const operation = event.facts?.operation;
    this.kind = operation !== undefined && MONEY_OPERATIONS[operation] === undefined ? 'read' : event.kind;
    this.amountMinor = event.amountMinor;
    // Every field set here, whatever the event: one shape for all ops.
    this.reversesCredit = event.facts?.operation === 'rollbackWin';
    this.reverses =
      event.kind === 'rollback'
        ? transactionKey(
            this.reversesCredit ? 'credit' : 'debit',
            event.playerId,
            event.referenceTransactionId ?? event.transactionId,
          )
        : undefined;
    this.winMinor = event.winMinor;
  }

  get label(): string {
    return labelOf(this.event);
  }
}

/** The discrepancy a cause is reported as; a repeat that moved money, by what it repeated. */
const KIND_OF_CAUSE = {
  overdraft: 'overdraft',
  'rollback-not-restored': 'rollback-not-restored',
  'rollback-moved-money': 'rollback-moved-money',
  'rejected-moved-money': 'rejected-moved-money',
  drift: 'balance-drift',
} as const satisfies Record<Exclude<HistoryCause, 'moved-on-duplicate'>, DiscrepancyKind>;

function kindOf({ cause, op }: HistoryExplanation): DiscrepancyKind {
  if (cause !== 'moved-on-duplicate') return KIND_OF_CAUSE[cause];
  return op.kind === 'debit' ? 'double-debit' : op.kind === 'credit' ? 'double-credit' : 'double-rollback';
}

export function labelOf(event: Pick<StoredEvent, 'kind' | 'transactionId' | 'id' | 'facts'>): string {
  // A call its kind does not name (a read, a rollback of a win) goes by its operation.
  const named = event.facts?.operation;
  const name = named !== undefined && (NAMED_OPERATIONS as readonly string[]).includes(named) ? named : event.kind.toUpperCase();
  return `${name} ${event.transactionId} (event #${event.id})`;
}

function firstSaid(first: LedgerTx, event: Pick<StoredEvent, 'reply'>): string {
  return `first reply (event #${first.eventId}) ${describeReply(first.reply)}, this one ${describeReply(event.reply)}`;
}

function describeReply(reply: { status: number; body: unknown } | undefined): string {
  if (!reply) return 'was missing';
  return `was ${reply.status} ${truncate(JSON.stringify(reply.body) ?? String(reply.body), 200)}`;
}

function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
