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
  const cfg = o.config.callbacks;
  const dialect = dialectOf(cfg);
  const { sender, stats, clock, random } = o;
  const timeoutMs = o.timeoutMs ?? 10_000;
  const retryDelays = o.retryDelaysMs ?? [50, 200, 1000];
  const faults = o.faults?.length ? new CallbackFaults({ seed: o.seed ?? 42, rules: o.faults }) : undefined;
  const tokens = new Map<string, string | undefined>();
  const tokenOf = (player: string) => {
    if (!tokens.has(player)) tokens.set(player, o.tokenOf ? o.tokenOf(player) : sessionTokenOf(cfg, player));
    return tokens.get(player);
  };
  const run = Date.now().toString(36).slice(-6);
  const roundBase = (Date.now() % 1_000_000) * 10_000_000;
  let seq = o.idBase ?? 0;
  const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

  /**
   * One attempt's request, signed now. A call's first attempt is normally made in the millisecond
   * its facts were created: then the facts are rendered as they are (an absent `sentAt` reads as
   * `createdAt`, the same value), without a copy of them (a copy with a field added costs more than
   * the rendering saves: V8 copies a spread followed by new fields on a slow path).
   */
  const requestOf = (facts: CallFacts) => {
    const now = Date.now();
    return renderCall(cfg, facts.createdAt === now ? facts : { ...facts, sentAt: now }, { signedAt: now });
  };

  /** One attempt, under a timeout fault when one fired: the reply is ignored, or the wait cut at afterMs. */
  const attempt = (facts: CallFacts, fault: { afterMs?: number | undefined } | undefined): Promise<Attempted> => {
    const req = requestOf(facts);
    stats.attempts++;
    if (!fault) return sender.send(req, timeoutMs);
    stats.faultTimeouts++;
    const sent = sender.send(req, timeoutMs);
    if (fault.afterMs === undefined)
      return sent.then(() => ({ ok: false, error: 'timeout', message: 'fault: the reply came and was ignored', faulted: true }));
    return Promise.race([
      sent.then(() => ({ ok: false, error: 'timeout', message: 'fault: the reply was ignored', faulted: true }) as const),
      sleep(fault.afterMs).then(
        () => ({ ok: false, error: 'timeout', message: `fault: gave up after ${fault.afterMs} ms`, faulted: true }) as const,
      ),
    ]);
  };

  /** One call with its retries; its record is kept for the verdict. */
  const call = async (facts: CallFacts, duplicateOf?: number): Promise<Settled> => {
    const record: CallRecord = { id: ++seq, facts, sentAt: clock(), attempts: 0 };
    if (duplicateOf) record.duplicateOf = duplicateOf;
    stats.calls++;
    const money = MONEY_OPERATIONS[facts.operation];
    const fired =
      faults && money && duplicateOf === undefined
        ? faults.fire({
            source: 'load',
            kind: EVENT_KIND[money],
            playerId: facts.playerId,
            transactionId: facts.transactionId ?? '',
          })
        : undefined;
    let copy: Promise<unknown> | undefined;
    if (fired?.fault.kind === 'duplicate') {
      stats.faultDuplicates++;
      const after = fired.fault.afterMs;
      copy = sleep(after).then(() => call(facts, record.id));
    }
    let accepted = false;
    let unknown = true;
    for (let n = 0; n <= retryDelays.length; n++) {
      if (n > 0) {
        stats.retries++;
        await sleep(retryDelays[n - 1] as number);
      }
      record.attempts++;
      const started = clock();
      const result = await attempt(facts, n === 0 && fired?.fault.kind === 'timeout' ? fired.fault : undefined);
      const at = clock();
      if (!result.ok) {
        if (!result.faulted) stats.error(at - o.origin(), result.error, result.message);
        continue;
      }
      stats.answered(at - o.origin(), facts.operation, Math.round((at - started) * 1000));
      const reading = readReply(dialect, facts, { status: result.status, text: result.text });
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
        record.answeredAt = at;
        record.status = result.status;
        record.text = result.text;
        continue;
      }
      record.answeredAt = at;
      record.status = result.status;
      record.text = result.text;
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
      if (reading.token) tokens.set(facts.playerId, reading.token);
      break;
    }
    // Kept once it is settled: a record written out (an Artillery worker's file) is complete.
    o.onRecord(record);
    if (copy) await copy;
    return accepted ? ACCEPTED : unknown ? UNKNOWN : REFUSED;
  };

  const ids = () => {
    const n = ++seq;
    return { tx: `ld-${run}-${n}`, round: String(roundBase + n) };
  };
  const requestIdPrefix = requestIdPrefixOf(run);
  /** The fields every call has, then the operation's own, then its request id (one order for every call). */
  const factsOf = (player: string, operation: Operation, extra: Partial<CallFacts>): CallFacts => {
    const facts: CallFacts = {
      operation,
      playerId: player,
      currency: o.currency,
      sessionToken: tokenOf(player),
      createdAt: Date.now(),
    };
    withCurrencies(facts, cfg.currencies);
    Object.assign(facts, extra);
    facts.requestId = requestIdOf(requestIdPrefix, ++seq);
    return facts;
  };

  /**
   * A bet, then what the round kind does with it; a bet with no answer, or one the vendor takes as
   * "maybe applied", is rolled back, as an aggregator does.
   */
  const round = async (kind: RoundKind, player: string): Promise<void> => {
    if (kind === 'balance') {
      await call(factsOf(player, 'balance', {}));
      return;
    }
    const { tx, round: roundId } = ids();
    if (kind === 'promo') {
      await call(
        factsOf(player, 'promoWin', {
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
    const stake = o.stakeMinor + Math.floor(random() * o.stakeMinor);
    const betFacts = factsOf(player, 'bet', { transactionId: tx, roundId, amountMinor: stake });
    const bet = await call(betFacts);
    if (bet.unknown || kind === 'rollback') {
      await call(
        factsOf(player, 'rollback', {
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
    if (kind === 'duplicate') await call({ ...betFacts, requestId: requestIdOf(requestIdPrefix, ++seq) });
    const win = kind === 'bet-lose' ? 0 : 2 * stake;
    if (kind === 'bet-lose' && dialect.operations.endRound) {
      await call(factsOf(player, 'endRound', { roundId, roundClosed: true }));
      return;
    }
    await call(
      factsOf(player, 'win', { transactionId: `${tx}-w`, betTransactionId: tx, roundId, amountMinor: win, roundClosed: true }),
    );
    if (kind !== 'bet-lose' && dialect.operations.endRound)
      await call(factsOf(player, 'endRound', { roundId, roundClosed: true }));
  };

  const read: Operation | undefined = dialect.operations.balance
    ? 'balance'
    : dialect.operations.authenticate
      ? 'authenticate'
      : undefined;
  return {
    dialect,
    round,
    async open(player) {
      if (dialect.operations.authenticate) await call(factsOf(player, 'authenticate', {}));
      if (dialect.operations.balance) await call(factsOf(player, 'balance', {}));
    },
    async reconcile(player) {
      if (read) await call(factsOf(player, read, {}));
    },
  };
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

/** The run's part of its request ids: `xxxxxxxx-xxxx-4000-8000-` from the run's hex. */
function requestIdPrefixOf(run: string): string {
  const hex = Buffer.from(run).toString('hex').padEnd(12, '0').slice(0, 12);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4000-8000-`;
}

/** A UUID-shaped request id per call (Hub88 checks the form), cheap: the run and a counter. */
function requestIdOf(prefix: string, n: number): string {
  return `${prefix}${n.toString(16).padStart(12, '0')}`;
}
