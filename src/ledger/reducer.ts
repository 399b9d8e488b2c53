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
  type HistoryExplanation,
  type HistoryKind,
  type HistoryOp,
  type HistoryOutcome,
  type PastTx,
  type WalletState,
} from './history.ts';
import {
  DEFAULT_REDUCER_OPTIONS,
  type DiscrepancyDraft,
  type DiscrepancyKind,
  type LedgerTx,
  type LedgerView,
  ledgerTx,
  type PlayerLedger,
  type ReducerOptions,
  type SettlementOutcome,
  transactionKey,
} from './model.ts';
import { replyBalance, replyOutcome } from './reply.ts';

/**
 * The shadow ledger's rules, pure: given what the ledger knew and a window of settled events of
 * one player (one event when they go one after another; several when they overlapped in time),
 * every way the wallet's replies were wrong. No SQLite, no timers, no engine.
 *
 * The balance rule is the one history checker (history.ts): every reply's balance must be
 * explained by some order of the accepted events that respects real time. When none is, the
 * first reply no order explains is reported, as what the model says it is: a double debit or
 * credit (a repeated transaction moved money), a rollback that did not give the bet back, money
 * moved by a rejection or by a rollback of nothing, an overdraft, or plain balance drift. The
 * rules that are not about order stay their own: a repeated transaction must get the first reply
 * again, an accepted reply must carry a usable balance, a balance is never negative, and a
 * rejected ROLLBACK of a bet accepted earlier left the bet taken. After a mismatch the ledger
 * follows the wallet, so one mistake is reported once, not on every later event.
 */

export * from './model.ts';

/** A settled event with when it could first have reached the wallet and when its answer came (any unit). */
export interface TimedEvent {
  event: StoredEvent;
  sentAt: number;
  answeredAt: number;
}

/** Events overlapping in one window beyond this are not searched: the balance becomes uncertain instead. */
export const MAX_WINDOW = 400;

/**
 * Judges one settled, sequentially delivered event against what the ledger knew.
 *
 * @example
 * const { player, discrepancies } = evaluateSettlement(view, settledDebit, DEFAULT_REDUCER_OPTIONS);
 */
export function evaluateSettlement(
  view: LedgerView,
  event: StoredEvent,
  options: ReducerOptions = DEFAULT_REDUCER_OPTIONS,
): SettlementOutcome {
  return evaluateWindow(view, [{ event, sentAt: 0, answeredAt: 1 }], options);
}

/** Events sent in parallel for one player (a burst), all overlapping in time, judged as one history. */
export function evaluateConcurrentGroup(
  view: LedgerView,
  events: readonly StoredEvent[],
  options: ReducerOptions = DEFAULT_REDUCER_OPTIONS,
): SettlementOutcome {
  if (events.length === 0) throw new RangeError('evaluateConcurrentGroup needs at least one event');
  return evaluateWindow(
    view,
    events.map((event) => ({ event, sentAt: 0, answeredAt: 1 })),
    options,
  );
}

/**
 * Judges a window of one player's settled events, given in settle order, whose real-time
 * intervals are known: no event outside the window overlaps any inside it, so the player's
 * state before it is the ledger's and after it is a single known balance (or uncertain).
 */
export function evaluateWindow(
  view: LedgerView,
  window: readonly TimedEvent[],
  options: ReducerOptions = DEFAULT_REDUCER_OPTIONS,
): SettlementOutcome {
  const first = window[0];
  if (!first) throw new RangeError('evaluateWindow needs at least one event');
  const playerId = first.event.playerId;
  let at = Number.NEGATIVE_INFINITY;
  for (const { event } of window) at = Math.max(at, event.settledAt ?? event.createdAt);
  const lastEventId = window[window.length - 1]?.event.id as number;
  const before: PlayerLedger = view.player(playerId) ?? { playerId, uncertain: false };
  const start = before.uncertain ? undefined : before.balanceMinor;
  const discrepancies: DiscrepancyDraft[] = [];
  const flag = (
    kind: DiscrepancyKind,
    expectedMinor: number | null,
    actualMinor: number | null,
    eventIds: number[],
    message: string,
    group?: string,
  ) =>
    discrepancies.push({
      playerId,
      kind,
      expectedMinor,
      actualMinor,
      eventIds,
      message,
      createdAt: at,
      ...(group ? { group } : {}),
    });
  const moved = (player: Partial<PlayerLedger>): PlayerLedger => ({ ...before, ...player, lastEventId, updatedAt: at });

  // ---- per reply: what it says, and the rules that are not about order ----
  // Each event's transaction record and what the ledger knew of its key are made and looked up once.
  // Only a window of several events can repeat a key within itself.
  const firstOf = window.length > 1 ? new Map<string, LedgerTx>() : undefined;
  const judged: Judged[] = [];
  const ops: HistoryOp[] = [];
  const duplicates: { event: StoredEvent; first: LedgerTx; op: HistoryOp }[] = [];
  for (const { event, sentAt, answeredAt } of window) {
    const outcome = replyOutcome(event);
    const reading = options.reading(event.currency, event.facts?.operation);
    const said = event.reply ? judgeReply(event.reply, reading) : undefined;
    const balance = said?.balance ?? NO_BALANCE;
    const tx = ledgerTx(event, outcome);
    const { key } = tx;
    const known = view.transaction(key);
    const earlier = firstOf?.get(key) ?? known;
    const repeat = earlier && earlier.outcome !== 'failed' ? earlier : undefined;
    // A repeated transaction answered with the first reply again replays an old balance: it says nothing about now.
    const judgement =
      repeat?.reply !== undefined && event.reply !== undefined ? repeatOf(reading, repeat.reply, event.reply) : undefined;
    const agrees = judgement?.agrees === true;
    const replayed = agrees && judgement.balance === 'replayed';
    if (balance.kind === 'invalid') {
      flag(
        'invalid-balance',
        null,
        null,
        [event.id],
        `${labelOf(event)}: the reply's balance ${JSON.stringify(balance.raw)} is not a valid amount`,
        event.group,
      );
    } else if (
      balance.kind === 'none' &&
      outcome === 'accepted' &&
      !agrees &&
      replyBalanceRule(reading.dialect, reading.operation ?? 'bet') === 'required'
    ) {
      flag(
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
      view.transaction(op.reverses) === undefined &&
      !firstOf?.has(op.reverses) &&
      !unknownRollbackAccepts(reading.dialect, { verdict: said.verdict, code: said.error })
    ) {
      // A rollback of a transaction never settled here (so never seen by the wallet): answered as the dialect's one rule allows?
      const rule = unknownRollbackRule(reading.dialect);
      flag(
        'unknown-rollback-answer',
        null,
        balance.kind === 'ok' ? balance.minor : null,
        [event.id],
        `${op.label} reverses ${event.referenceTransactionId ?? event.transactionId}, which the wallet never saw; the ${reading.dialect.name} wire answers that with ${
          rule === 'acknowledge'
            ? 'an acknowledgement'
            : rule === 'not-found'
              ? 'its not-found refusal'
              : 'an acknowledgement or its not-found refusal'
        }, but the reply ${describeReply(event.reply)}`,
        event.group,
      );
    }
    if (event.kind === 'rollback' && outcome === 'rejected' && op.reverses && !op.reversesCredit) {
      // Settled before this window opened, so it reached the wallet first: no order excuses keeping it.
      const debit = view.transaction(op.reverses);
      if (debit?.outcome === 'accepted' && !debit.rolledBack) {
        const ref = event.referenceTransactionId ?? event.transactionId;
        flag(
          'rollback-not-restored',
          start === undefined ? null : start + debit.amountMinor,
          balance.kind === 'ok' ? balance.minor : null,
          [event.id],
          `${op.label} was rejected, so the accepted DEBIT ${ref} (event #${debit.eventId}, ${formatMinor(debit.amountMinor)}) was not given back`,
          event.group,
        );
      }
    }
  }

  // ---- the balance: one history check ----
  const verdict =
    ops.length > MAX_WINDOW
      ? ({ linearizable: undefined } as const)
      : checkHistory(ops, {
          balanceMinor: start,
          // The window's own keys were looked up above: a lone event's is not looked up twice.
          past: (key) => pastOf(judged.length === 1 && key === judged[0]?.tx.key ? judged[0].known : view.transaction(key)),
        });
  const eventOf = (op: HistoryOp) => (window[ops.indexOf(op)] as TimedEvent).event;
  let blamed: HistoryExplanation | undefined;
  if (verdict.linearizable === false) {
    blamed = verdict.explanation;
    const event = eventOf(blamed.op);
    const kind = kindOf(blamed);
    flag(
      kind,
      blamed.expected,
      blamed.op.balanceMinor ?? null,
      blamed.involved.map((o) => o.id).sort((a, b) => a - b),
      describeExplanation(blamed, {
        windowSize: window.length,
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
  for (const { event, first, op } of duplicates) {
    if (blamed?.op === op) continue;
    const balance = replyBalance({ reply: first.reply }, options.reading(first.currency));
    flag(
      'duplicate-reply-differs',
      balance.kind === 'ok' ? balance.minor : null,
      op.balanceMinor ?? null,
      [event.id],
      `${op.label} repeats transactionId ${event.transactionId} and must get the same reply as the first time; ${firstSaid(first, event)}`,
      event.group,
    );
  }
  for (const op of ops) {
    if (op.balanceMinor === undefined || op.balanceMinor >= 0) continue;
    if (blamed?.op === op && blamed.cause === 'overdraft') continue;
    flag(
      'overdraft',
      0,
      op.balanceMinor,
      [op.id],
      `${op.label}: the wallet reports a negative balance ${formatMinor(op.balanceMinor)}`,
      eventOf(op).group,
    );
  }

  // ---- what the ledger knows afterwards ----
  const finals = verdict.linearizable === true ? verdict.finals : [];
  const transactions = remember(view, judged, ops, finals[0]);
  const balances = finals.length === 1 ? [(finals[0] as WalletState).balance] : [...new Set(finals.map((f) => f.balance))];
  const [only] = balances;
  if (verdict.linearizable === true && balances.length === 1 && only !== undefined && verdict.complete) {
    const labels = window.length === 1 ? first.event : undefined;
    const note =
      start !== undefined
        ? before.note
        : before.balanceMinor === undefined
          ? `baseline ${formatMinor(only)} from the first reply${labels ? ` (${labelOf(labels)})` : ''}`
          : `re-baselined at ${formatMinor(only)}${labels ? ` from ${labelOf(labels)}` : ''} after an uncertain balance`;
    return { player: moved({ balanceMinor: only, uncertain: false, ...(note ? { note } : {}) }), transactions, discrepancies };
  }
  if (verdict.linearizable === true && balances.length === 1 && only === undefined) {
    // No reply carried a balance and none was known: still nothing known.
    return { player: moved({}), transactions, discrepancies };
  }
  // After a mismatch the ledger follows the wallet: the last reply of a lone event is the new balance.
  const last = ops[ops.length - 1] as HistoryOp;
  if (verdict.linearizable === false && ops.length === 1 && last.balanceMinor !== undefined) {
    return { player: moved({ balanceMinor: last.balanceMinor, uncertain: false }), transactions, discrepancies };
  }
  return {
    player: moved({ uncertain: true, note: uncertainty(verdict.linearizable, window, balances.length) }),
    transactions,
    discrepancies,
  };
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

/** What the reducer made of one event of the window: its transaction record, and what the ledger knew of its key before. */
interface Judged {
  tx: LedgerTx;
  known: LedgerTx | undefined;
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

/** The transaction records after the window: its own events, and earlier DEBITs its ROLLBACKs gave back. */
function remember(
  view: LedgerView,
  judged: readonly Judged[],
  ops: readonly HistoryOp[],
  final: WalletState | undefined,
): LedgerTx[] {
  const lone = judged.length === 1 ? judged[0] : undefined;
  if (lone && ops[0]?.kind !== 'rollback') {
    // One event that gives nothing back: its own record, unless an earlier settlement stays the one to compare with.
    return lone.known && lone.known.outcome !== 'failed' ? [] : [lone.tx];
  }
  const out = new Map<string, LedgerTx>();
  for (const { tx, known } of judged) {
    const first = out.get(tx.key) ?? known;
    if (first && first.outcome !== 'failed') continue; // the first settlement stays the one to compare with
    out.set(tx.key, tx);
  }
  for (const op of ops) {
    if (op.kind !== 'rollback' || op.outcome === 'rejected' || !op.reverses) continue;
    const debit = out.get(op.reverses) ?? view.transaction(op.reverses);
    if (!debit || debit.rolledBack) continue;
    // Given back in the order found; when none was (a mismatch), an accepted ROLLBACK still closes its DEBIT.
    const status = final?.touched.get(op.reverses)?.status;
    if (final === undefined ? op.outcome === 'accepted' : status === 'rolled-back')
      out.set(op.reverses, { ...debit, rolledBack: true });
  }
  return [...out.values()];
}

function kindOf(explanation: HistoryExplanation): DiscrepancyKind {
  switch (explanation.cause) {
    case 'overdraft':
      return 'overdraft';
    case 'moved-on-duplicate':
      return explanation.op.kind === 'debit'
        ? 'double-debit'
        : explanation.op.kind === 'credit'
          ? 'double-credit'
          : 'double-rollback';
    case 'rollback-not-restored':
      return 'rollback-not-restored';
    case 'rollback-moved-money':
      return 'rollback-moved-money';
    case 'rejected-moved-money':
      return 'rejected-moved-money';
    case 'drift':
      return 'balance-drift';
  }
}

export { describeExplanation } from './explain.ts';

function uncertainty(linearizable: boolean | undefined, window: readonly TimedEvent[], balances: number): string {
  const what = window.length === 1 ? labelOf((window[0] as TimedEvent).event) : `${window.length} overlapping events`;
  if (linearizable === undefined)
    return `balance uncertain: ${what} are too many to search for an order; the next reply sets a new baseline`;
  if (linearizable === false) return `balance uncertain after the discrepancy in ${what}; the next reply sets a new baseline`;
  const failed = window.find(({ event }) => replyOutcome(event) === 'failed')?.event;
  if (failed)
    return `balance uncertain: ${labelOf(failed)} failed without a reply (${failed.error ?? 'no reply'}); the next reply sets a new baseline`;
  return `balance uncertain: ${what} leave ${balances} possible balances; the next reply sets a new baseline`;
}

function labelOf(event: Pick<StoredEvent, 'kind' | 'transactionId' | 'id' | 'facts'>): string {
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

/** The whole ledger as a plain value, for the pure reducer. */
export interface LedgerState {
  players: Readonly<Record<string, PlayerLedger>>;
  transactions: Readonly<Record<string, LedgerTx>>;
}

export function emptyLedgerState(): LedgerState {
  return { players: {}, transactions: {} };
}

function viewOf(state: LedgerState): LedgerView {
  // Own keys only: a player called "constructor" is a player with no history, not Object's constructor.
  return {
    player: (id) => (Object.hasOwn(state.players, id) ? state.players[id] : undefined),
    transaction: (key) => (Object.hasOwn(state.transactions, key) ? state.transactions[key] : undefined),
  };
}

function applyOutcome(state: LedgerState, outcome: SettlementOutcome): LedgerState {
  const transactions = { ...state.transactions };
  for (const tx of outcome.transactions) transactions[tx.key] = tx;
  return { players: { ...state.players, [outcome.player.playerId]: outcome.player }, transactions };
}

/**
 * The reducer: a settled event and the state before it → the state after it and what was wrong.
 * Never mutates `state`.
 *
 * @example
 * let state = emptyLedgerState();
 * ({ state } = applySettlement(state, firstDebit));        // baseline from the reply
 * const { discrepancies } = applySettlement(state, dupDebit); // [{ kind: 'double-debit', … }] on a bad wallet
 */
export function applySettlement(
  state: LedgerState,
  event: StoredEvent,
  options: ReducerOptions = DEFAULT_REDUCER_OPTIONS,
): { state: LedgerState; discrepancies: DiscrepancyDraft[] } {
  const outcome = evaluateSettlement(viewOf(state), event, options);
  return { state: applyOutcome(state, outcome), discrepancies: outcome.discrepancies };
}

/** {@link applySettlement} for a parallel group, judged as one history. */
export function applyConcurrentGroup(
  state: LedgerState,
  events: readonly StoredEvent[],
  options: ReducerOptions = DEFAULT_REDUCER_OPTIONS,
): { state: LedgerState; discrepancies: DiscrepancyDraft[] } {
  const outcome = evaluateConcurrentGroup(viewOf(state), events, options);
  return { state: applyOutcome(state, outcome), discrepancies: outcome.discrepancies };
}

/** {@link evaluateWindow} on a plain state. */
export function applyWindow(
  state: LedgerState,
  window: readonly TimedEvent[],
  options: ReducerOptions = DEFAULT_REDUCER_OPTIONS,
): { state: LedgerState; discrepancies: DiscrepancyDraft[] } {
  const outcome = evaluateWindow(viewOf(state), window, options);
  return { state: applyOutcome(state, outcome), discrepancies: outcome.discrepancies };
}
