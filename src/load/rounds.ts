import { renderCall, sessionTokenOf, withCurrencies } from '../callbacks/call.ts';
import { CallbackFaults } from '../callbacks/faults.ts';
import type { AggmockConfig, CallbackFaultRule } from '../config/index.ts';
import { dialectOf } from '../config/index.ts';
import {
  appliedEarlier,
  type CallFacts,
  type Dialect,
  MONEY_OPERATIONS,
  type Operation,
  readReply,
  resentAfter,
  rolledBackAfter,
} from '../dialects/index.ts';
import type { AttemptResult, Sender } from './client.ts';
import type { RoundKind } from './mix.ts';
import type { CallRecord } from './record.ts';
import type { LoadStats } from './stats.ts';

/**
 * The rounds a load run plays, one call after another as an aggregator makes them: each call built
 * and signed by the dialect code (`renderCall`), its reply read by `readReply`, retried when it got
 * no usable answer, under the callback fault rules that fire for it, and kept as a run record.
 * The generator (run.ts) and the Artillery processor (artillery.ts) both play rounds here.
 */

export interface RoundOptions {
  config: AggmockConfig;
  sender: Sender;
  stats: LoadStats;
  /** Every call's record, as it is made. */
  onRecord: (record: CallRecord) => void;
  /** The run's clock in ms (records are ordered by it). */
  clock: () => number;
  /** Where the schedule's clock started on `clock` (per-second counters are kept from it). */
  origin: () => number;
  stakeMinor: number;
  currency: string;
  random: () => number;
  tokenOf?: ((playerId: string) => string | undefined) | undefined;
  timeoutMs?: number | undefined;
  retryDelaysMs?: readonly number[] | undefined;
  faults?: readonly CallbackFaultRule[] | undefined;
  seed?: number | undefined;
  /** Makes record ids and transaction ids unique across processes (an Artillery worker's pid). */
  idBase?: number | undefined;
}

export interface RoundPlayer {
  dialect: Dialect;
  round(kind: RoundKind, player: string): Promise<void>;
  /** A player's session: authenticate and balance where the dialect has them. */
  open(player: string): Promise<void>;
  /** A player's final balance read (balance, else authenticate), which reconciles its history. */
  reconcile(player: string): Promise<void>;
}

const EVENT_KIND = { debit: 'debit', credit: 'credit', reverse: 'rollback' } as const;

export function roundPlayer(o: RoundOptions): RoundPlayer {
  return new Rounds(o);
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * The rounds of one run, as one class: its methods are made once, not per run, so they stay
 * optimized from one run to the next (a closure made per run starts cold and is compiled again).
 */
class Rounds implements RoundPlayer {
  readonly dialect: Dialect;
  private readonly o: RoundOptions;
  private readonly cfg: AggmockConfig['callbacks'];
  private readonly stats: LoadStats;
  private readonly sender: Sender;
  private readonly timeoutMs: number;
  private readonly retryDelays: readonly number[];
  private readonly faults: CallbackFaults | undefined;
  private readonly tokens = new Map<string, string | undefined>();
  private readonly run: string;
  private readonly roundBase: number;
  private readonly requestIdPrefix: string;
  private readonly read: Operation | undefined;
  /** The configured currencies ISO 4217 does not list, when there are any (`withCurrencies`). */
  private readonly currencies: CallFacts['currencies'];
  private seq: number;

  constructor(o: RoundOptions) {
    this.o = o;
    this.cfg = o.config.callbacks;
    this.dialect = dialectOf(this.cfg);
    this.stats = o.stats;
    this.sender = o.sender;
    this.timeoutMs = o.timeoutMs ?? 10_000;
    this.retryDelays = o.retryDelaysMs ?? [50, 200, 1000];
    this.faults = o.faults?.length ? new CallbackFaults({ seed: o.seed ?? 42, rules: o.faults }) : undefined;
    this.run = Date.now().toString(36).slice(-6);
    this.roundBase = (Date.now() % 1_000_000) * 10_000_000;
    this.requestIdPrefix = requestIdPrefixOf(this.run);
    this.seq = o.idBase ?? 0;
    const ops = this.dialect.operations;
    this.read = ops.balance ? 'balance' : ops.authenticate ? 'authenticate' : undefined;
    this.currencies = withCurrencies({} as Pick<CallFacts, 'currencies'>, this.cfg.currencies).currencies;
  }

  private tokenOf(player: string): string | undefined {
    if (!this.tokens.has(player))
      this.tokens.set(player, this.o.tokenOf ? this.o.tokenOf(player) : sessionTokenOf(this.cfg, player));
    return this.tokens.get(player);
  }

  /**
   * One attempt's request, signed now. A call's first attempt is normally made in the millisecond
   * its facts were created: then the facts are rendered as they are (an absent `sentAt` reads as
   * `createdAt`, the same value), without a copy of them (a copy with a field added costs more than
   * the rendering saves: V8 copies a spread followed by new fields on a slow path).
   */
  private requestOf(facts: CallFacts) {
    const now = Date.now();
    return renderCall(this.cfg, facts.createdAt === now ? facts : { ...facts, sentAt: now }, { signedAt: now });
  }

  /** One attempt, under a timeout fault when one fired: the reply is ignored, or the wait cut at afterMs. */
  private attempt(facts: CallFacts, fault: { afterMs?: number | undefined } | undefined): Promise<Attempted> {
    const req = this.requestOf(facts);
    this.stats.attempts++;
    if (!fault) return this.sender.send(req, this.timeoutMs);
    this.stats.faultTimeouts++;
    const sent = this.sender.send(req, this.timeoutMs);
    if (fault.afterMs === undefined)
      return sent.then(() => ({ ok: false, error: 'timeout', message: 'fault: the reply came and was ignored', faulted: true }));
    return Promise.race([
      sent.then(() => ({ ok: false, error: 'timeout', message: 'fault: the reply was ignored', faulted: true }) as const),
      sleep(fault.afterMs).then(
        () => ({ ok: false, error: 'timeout', message: `fault: gave up after ${fault.afterMs} ms`, faulted: true }) as const,
      ),
    ]);
  }

  /** One call with its retries; its record is kept for the verdict. */
  private async call(facts: CallFacts, duplicateOf?: number): Promise<Settled> {
    const { o, stats, dialect } = this;
    // Every field from the start: one shape for every record.
    const record: CallRecord = {
      id: ++this.seq,
      facts,
      sentAt: o.clock(),
      answeredAt: undefined,
      status: undefined,
      text: undefined,
      attempts: 0,
      duplicateOf,
    };
    stats.calls++;
    const money = MONEY_OPERATIONS[facts.operation];
    const fired =
      this.faults && money && duplicateOf === undefined
        ? this.faults.fire({
            source: 'load',
            kind: EVENT_KIND[money],
            playerId: facts.playerId,
            transactionId: facts.transactionId ?? '',
          })
        : undefined;
    let copy: Promise<unknown> | undefined;
    if (fired?.fault.kind === 'duplicate') {
      stats.faultDuplicates++;
      copy = sleep(fired.fault.afterMs).then(() => this.call(facts, record.id));
    }
    let accepted = false;
    let unknown = true;
    for (let n = 0; n <= this.retryDelays.length; n++) {
      if (n > 0) {
        stats.retries++;
        await sleep(this.retryDelays[n - 1] as number);
      }
      record.attempts++;
      const started = n === 0 ? record.sentAt : o.clock();
      const result = await this.attempt(facts, n === 0 && fired?.fault.kind === 'timeout' ? fired.fault : undefined);
      const at = o.clock();
      if (!result.ok) {
        if (!result.faulted) stats.error(at - o.origin(), result.error, result.message);
        continue;
      }
      stats.answered(at - o.origin(), facts.operation, Math.round((at - started) * 1000));
      const reading = readReply(dialect, facts, { status: result.status, text: result.text });
      record.answeredAt = at;
      record.status = result.status;
      record.text = result.text;
      // Sent again as the vendor would: a retry answer, or a refusal by a code the call's vendor re-sends after.
      if (
        reading.verdict === 'retry' ||
        (resentAfter(dialect, reading, facts.operation) &&
          !appliedEarlier(dialect, reading, facts.operation, record.attempts > 1))
      ) {
        stats.error(
          at - o.origin(),
          result.status >= 500 ? 'http5xx' : 'retryCode',
          `HTTP ${result.status}${reading.code ? ` code ${reading.code}` : ''}`,
        );
        continue;
      }
      if (reading.verdict === 'invalid') {
        stats.error(at - o.origin(), 'invalid', `HTTP ${result.status}: ${result.text.slice(0, 120)}`);
        break;
      }
      // An answer the vendor takes as "maybe applied" (Caleta's bet answered RS_ERROR_UNKNOWN): not sent
      // again, its outcome unknown, so the round rolls it back, as the engine does (rolledBackAfter).
      if (rolledBackAfter(dialect, reading, facts.operation)) {
        stats.error(at - o.origin(), 'rolledBack', `HTTP ${result.status} code ${reading.code}: rolled back`);
        break;
      }
      unknown = false;
      accepted = reading.verdict === 'accepted' || appliedEarlier(dialect, reading, facts.operation, record.attempts > 1);
      if (!accepted) stats.refusal(reading.code ?? reading.outcome ?? `HTTP ${result.status}`);
      if (reading.token) this.tokens.set(facts.playerId, reading.token);
      break;
    }
    // Kept once it is settled: a record written out (an Artillery worker's file) is complete.
    o.onRecord(record);
    if (copy) await copy;
    return accepted ? ACCEPTED : unknown ? UNKNOWN : REFUSED;
  }

  /**
   * The fields every call has, then the operation's own, then its request id: one literal with every
   * member in one order (absent ones undefined, which the wire, the record and the verdict read as
   * absent), so every call's facts have one shape, made in one step (no copy of the operation's own).
   */
  private factsOf(player: string, operation: Operation, extra: OwnFacts): CallFacts {
    return {
      operation,
      playerId: player,
      currency: this.o.currency,
      sessionToken: this.tokenOf(player),
      createdAt: Date.now(),
      currencies: this.currencies,
      transactionId: extra.transactionId,
      betTransactionId: extra.betTransactionId,
      roundId: extra.roundId,
      amountMinor: extra.amountMinor,
      roundClosed: extra.roundClosed,
      bonus: extra.bonus,
      requestId: requestIdOf(this.requestIdPrefix, ++this.seq),
    };
  }

  /**
   * A bet, then what the round kind does with it; a bet with no answer, or one the vendor takes as
   * "maybe applied", is rolled back, as an aggregator does.
   */
  async round(kind: RoundKind, player: string): Promise<void> {
    const { o, dialect } = this;
    if (kind === 'balance') {
      await this.call(this.factsOf(player, 'balance', {}));
      return;
    }
    const n = ++this.seq;
    const tx = `ld-${this.run}-${n}`;
    const roundId = String(this.roundBase + n);
    if (kind === 'promo') {
      await this.call(
        this.factsOf(player, 'promoWin', {
          transactionId: tx,
          roundId,
          amountMinor: o.stakeMinor,
          roundClosed: true,
          bonus: { kind: 'free-spins', id: `fs-${tx}` },
        }),
      );
      return;
    }
    // Amounts drawn between the stake and twice it: bets that overlap differ, so a balance says which were applied.
    const stake = o.stakeMinor + Math.floor(o.random() * o.stakeMinor);
    const betFacts = this.factsOf(player, 'bet', { transactionId: tx, roundId, amountMinor: stake });
    const bet = await this.call(betFacts);
    if (bet.unknown || kind === 'rollback') {
      await this.call(
        this.factsOf(player, 'rollback', {
          transactionId: `${tx}-rb`,
          betTransactionId: tx,
          roundId,
          amountMinor: stake,
          roundClosed: true,
        }),
      );
      return;
    }
    if (!bet.accepted) return;
    if (kind === 'duplicate') await this.call({ ...betFacts, requestId: requestIdOf(this.requestIdPrefix, ++this.seq) });
    const win = kind === 'bet-lose' ? 0 : 2 * stake;
    if (kind === 'bet-lose' && dialect.operations.endRound) {
      await this.call(this.factsOf(player, 'endRound', { roundId, roundClosed: true }));
      return;
    }
    await this.call(
      this.factsOf(player, 'win', {
        transactionId: `${tx}-w`,
        betTransactionId: tx,
        roundId,
        amountMinor: win,
        roundClosed: true,
      }),
    );
    if (kind !== 'bet-lose' && dialect.operations.endRound)
      await this.call(this.factsOf(player, 'endRound', { roundId, roundClosed: true }));
  }

  async open(player: string): Promise<void> {
    if (this.dialect.operations.authenticate) await this.call(this.factsOf(player, 'authenticate', {}));
    if (this.dialect.operations.balance) await this.call(this.factsOf(player, 'balance', {}));
  }

  async reconcile(player: string): Promise<void> {
    if (this.read) await this.call(this.factsOf(player, this.read, {}));
  }
}

/** What became of a call, for the round that made it. */
interface Settled {
  accepted: boolean;
  /** No usable answer came: the wallet may or may not have applied it. */
  unknown: boolean;
}
const ACCEPTED: Settled = Object.freeze({ accepted: true, unknown: false });
const REFUSED: Settled = Object.freeze({ accepted: false, unknown: false });
const UNKNOWN: Settled = Object.freeze({ accepted: false, unknown: true });

type Attempted = AttemptResult & { faulted?: boolean };

/** What a round gives each call of its own beyond the fields every call has. */
type OwnFacts = Pick<CallFacts, 'transactionId' | 'betTransactionId' | 'roundId' | 'amountMinor' | 'roundClosed' | 'bonus'>;

/** The run's part of its request ids: `xxxxxxxx-xxxx-4000-8000-` from the run's hex. */
function requestIdPrefixOf(run: string): string {
  const hex = Buffer.from(run).toString('hex').padEnd(12, '0').slice(0, 12);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4000-8000-`;
}

/** A UUID-shaped request id per call (Hub88 checks the form), cheap: the run and a counter. */
function requestIdOf(prefix: string, n: number): string {
  return `${prefix}${n.toString(16).padStart(12, '0')}`;
}
