import { performance } from 'node:perf_hooks';
import { renderCall, sessionTokenOf } from '../callbacks/call.ts';
import { CallbackFaults } from '../callbacks/faults.ts';
import type { AggmockConfig, CallbackFaultRule } from '../config/index.ts';
import { dialectOf } from '../config/index.ts';
import { type CallFacts, type Dialect, MONEY_OPERATIONS, type Operation, readReply } from '../dialects/index.ts';
import { mulberry32 } from '../shared/index.ts';
import { type AttemptResult, poolSender, type Sender } from './client.ts';
import { type Mix, pickRound, type RoundKind } from './mix.ts';
import type { CallRecord } from './record.ts';
import { arrivalsBy, arrivalTime, type Schedule, scheduleLength } from './schedule.ts';
import { LoadStats } from './stats.ts';

/**
 * The load generator: an open model. Rounds arrive on the schedule's clock whether or not earlier
 * replies came back (no coordinated omission); a round that cannot start on time is counted late,
 * and dropped past a bound or when the in-flight cap is reached, so a report says whether the
 * wallet or the generator was the limit. Requests are built and signed by the dialect code
 * (`renderCall`), replies read by `readReply`, sent over one keep-alive pool. Everything is in
 * memory: no journal, no durable outbox — a crash loses the run, and nothing is retried after it.
 */

export interface LoadOptions {
  config: AggmockConfig;
  /** The wallet's base URL. */
  url: string;
  schedule: Schedule;
  players: readonly string[];
  mix: Mix;
  stakeMinor: number;
  currency: string;
  /** The session token a player's calls carry; default the configured or development one. */
  tokenOf?: (playerId: string) => string | undefined;
  /** Per attempt (default 10 s). */
  timeoutMs?: number;
  /** Delays before each retry of a call that got no usable answer (default 50, 200, 1000 ms). */
  retryDelaysMs?: readonly number[];
  /** A round starting later than this after its time is late (default 10 ms). */
  lateMs?: number;
  /** …and later than this is dropped (default 1 s). */
  dropMs?: number;
  /** Rounds in flight beyond this are dropped (default 10 000). */
  maxInFlight?: number;
  connections?: number;
  faults?: readonly CallbackFaultRule[];
  seed?: number;
  /** Tests pass a sender; default an undici pool to `url`. */
  sender?: Sender;
  /** Every second while it runs. */
  onProgress?: (stats: LoadStats, elapsedMs: number) => void;
  /** Stops scheduling early (Ctrl-C). */
  signal?: AbortSignal;
}

export interface LoadResult {
  stats: LoadStats;
  records: CallRecord[];
  /** ms the schedule ran, and until the last call settled. */
  scheduleMs: number;
  elapsedMs: number;
  dialect: Dialect;
}

const EVENT_KIND = { debit: 'debit', credit: 'credit', reverse: 'rollback' } as const;

export async function runLoad(o: LoadOptions): Promise<LoadResult> {
  const dialect = dialectOf(o.config.callbacks);
  const cfg = o.config.callbacks;
  const sender = o.sender ?? poolSender(o.url, { connections: o.connections ?? 64 });
  const timeoutMs = o.timeoutMs ?? 10_000;
  const retryDelays = o.retryDelaysMs ?? [50, 200, 1000];
  const lateMs = o.lateMs ?? 10;
  const dropMs = o.dropMs ?? 1000;
  const maxInFlight = o.maxInFlight ?? 10_000;
  const random = mulberry32(o.seed ?? 42);
  const faults = o.faults?.length ? new CallbackFaults({ seed: o.seed ?? 42, rules: o.faults }) : undefined;
  const stats = new LoadStats();
  const records: CallRecord[] = [];
  const tokens = new Map<string, string | undefined>();
  const tokenOf = (player: string) => {
    if (!tokens.has(player)) tokens.set(player, o.tokenOf ? o.tokenOf(player) : sessionTokenOf(cfg, player));
    return tokens.get(player);
  };
  const run = Date.now().toString(36).slice(-6);
  const roundBase = (Date.now() % 1_000_000) * 10_000_000;
  let seq = 0;
  // One clock for every record of the run (the sessions before the schedule included): the verdict orders calls by it.
  const t0 = performance.now();
  const clock = () => performance.now() - t0;
  /** When the schedule's clock started. */
  let s0 = 0;

  const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

  /** One attempt, under a timeout fault when one fired: the reply is ignored, or the wait cut at afterMs. */
  const attempt = async (
    facts: CallFacts,
    fault: { afterMs?: number | undefined } | undefined,
  ): Promise<AttemptResult & { faulted?: boolean }> => {
    const now = Date.now();
    const req = renderCall(cfg, { ...facts, sentAt: now }, { signedAt: now });
    stats.attempts++;
    if (!fault) return sender.send(req, timeoutMs);
    stats.faultTimeouts++;
    const sent = sender.send(req, timeoutMs);
    if (fault.afterMs === undefined) {
      await sent;
      return { ok: false, error: 'timeout', message: 'fault: the reply came and was ignored', faulted: true };
    }
    return Promise.race([
      sent.then(() => ({ ok: false, error: 'timeout', message: 'fault: the reply was ignored', faulted: true }) as const),
      sleep(fault.afterMs).then(
        () => ({ ok: false, error: 'timeout', message: `fault: gave up after ${fault.afterMs} ms`, faulted: true }) as const,
      ),
    ]);
  };

  /** One call with its retries; its record is kept for the verdict. */
  const call = async (facts: CallFacts, duplicateOf?: number): Promise<CallRecord & { accepted: boolean; unknown: boolean }> => {
    const record: CallRecord = { id: ++seq, facts, sentAt: clock(), attempts: 0, ...(duplicateOf ? { duplicateOf } : {}) };
    records.push(record);
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
        if (!result.faulted) stats.error(at - s0, result.error, result.message);
        continue;
      }
      stats.answered(at - s0, facts.operation, Math.round((at - started) * 1000));
      const reading = readReply(dialect, facts, { status: result.status, text: result.text });
      if (reading.verdict === 'retry') {
        stats.error(
          at - s0,
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
        stats.error(at - s0, 'invalid', `HTTP ${result.status}: ${result.text.slice(0, 120)}`);
        break;
      }
      unknown = false;
      accepted = reading.verdict === 'accepted';
      if (!accepted) stats.refusal(reading.code ?? reading.outcome ?? `HTTP ${result.status}`);
      if (reading.token) tokens.set(facts.playerId, reading.token);
      break;
    }
    if (copy) await copy;
    return { ...record, accepted, unknown };
  };

  const ids = () => {
    const n = ++seq;
    return { tx: `ld-${run}-${n}`, round: String(roundBase + n), request: requestId(run, n) };
  };
  const factsOf = (player: string, operation: Operation, extra: Partial<CallFacts>): CallFacts => ({
    operation,
    playerId: player,
    currency: o.currency,
    sessionToken: tokenOf(player),
    createdAt: Date.now(),
    ...extra,
    requestId: ids().request,
  });

  /** A bet, then what the round kind does with it; a bet with no answer is rolled back, as an aggregator does. */
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
    if (kind === 'duplicate') await call({ ...betFacts, requestId: ids().request });
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

  // ---- a session per player first: its balance is where the history starts ----
  await inBatches(o.players, 32, async (player) => {
    if (dialect.operations.authenticate) await call(factsOf(player, 'authenticate', {}));
    if (dialect.operations.balance) await call(factsOf(player, 'balance', {}));
  });

  // ---- the open model ----
  const total = Math.floor(arrivalsBy(o.schedule, scheduleLength(o.schedule)) + 1e-9);
  const inFlight = new Set<Promise<void>>();
  s0 = clock();
  let due = 0;
  let lastProgress = 0;
  await new Promise<void>((finish) => {
    const tick = () => {
      const now = clock() - s0;
      while (due < total && !o.signal?.aborted) {
        const at = arrivalTime(o.schedule, due + 1) as number;
        if (at > now) break;
        due++;
        stats.roundsDue++;
        const second = stats.second(at);
        second.asked++;
        const lag = now - at;
        if (lag > dropMs || inFlight.size >= maxInFlight) {
          stats.dropped++;
          second.dropped++;
          if (lag <= dropMs) stats.droppedInFlight++;
          continue;
        }
        if (lag > lateMs) {
          stats.late++;
          second.late++;
        }
        stats.startLag.record(Math.round(lag * 1000));
        stats.roundsStarted++;
        second.started++;
        const p = round(pickRound(o.mix, random()), o.players[Math.floor(random() * o.players.length)] as string).finally(() =>
          inFlight.delete(p),
        );
        inFlight.add(p);
      }
      if (o.onProgress && now - lastProgress >= 1000) {
        lastProgress = now;
        o.onProgress(stats, now);
      }
      if (due >= total || o.signal?.aborted) return finish();
      const next = arrivalTime(o.schedule, due + 1) as number;
      setTimeout(tick, Math.max(0, Math.min(100, next - (clock() - s0) - 0.5)));
    };
    tick();
  });
  const scheduleMs = clock() - s0;
  while (inFlight.size > 0) await Promise.all([...inFlight]);

  // ---- reconciliation: each player's balance read last ----
  const read: Operation | undefined = dialect.operations.balance
    ? 'balance'
    : dialect.operations.authenticate
      ? 'authenticate'
      : undefined;
  if (read) await inBatches(o.players, 32, (player) => call(factsOf(player, read, {})).then(() => undefined));
  const elapsedMs = clock() - s0;
  if (!o.sender) await sender.close();
  return { stats, records, scheduleMs, elapsedMs, dialect };
}

/** A UUID-shaped request id per call (Hub88 checks the form), cheap: the run and a counter. */
function requestId(run: string, n: number): string {
  const hex = Buffer.from(run).toString('hex').padEnd(12, '0').slice(0, 12);
  const count = n.toString(16).padStart(12, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4000-8000-${count}`;
}

async function inBatches<T>(items: readonly T[], size: number, each: (item: T) => Promise<void>): Promise<void> {
  for (let i = 0; i < items.length; i += size) await Promise.all(items.slice(i, i + size).map(each));
}
