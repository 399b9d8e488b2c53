/**
 * Schedules that run scenarios on a cron or an interval. An engine: it imports callbacks, config
 * and scenarios; it must not import surfaces or the CLI.
 */
import { Cron } from 'croner';
import { type Clock, systemClock, type TimerHandle } from '../callbacks/clock.ts';
import type { CallbackEngine } from '../callbacks/engine.ts';
import type { Random } from '../callbacks/random.ts';
import { parseDuration, type ScheduleEntry } from '../config/index.ts';
import { planScenario, type RoundWire } from '../scenarios/plan.ts';
import { type ScenarioRunSummary, startScenario } from '../scenarios/run.ts';
import { messageOf } from '../shared/index.ts';

export { parseScheduleFlag } from './flag.ts';

/** Firings waiting for their turn beyond this are skipped (and reported) rather than piling up behind a slow wallet. */
export const DEFAULT_MAX_BACKLOG = 100;

export interface ScheduledRun {
  /** Index of the entry in the schedule. */
  entry: number;
  scenario: ScheduleEntry['scenario'];
  /** 1 for the entry's first firing. */
  firing: number;
  /** Clock time of the firing (ms epoch). */
  at: number;
  summary?: ScenarioRunSummary;
  /** Why the firing did not run or did not finish. */
  error?: string;
}

export interface EntryStatus {
  entry: number;
  scenario: ScheduleEntry['scenario'];
  when: string;
  fired: number;
  count?: number;
  /** Next firing (ms epoch); undefined when done or stopped. */
  nextAt?: number;
}

export interface Scheduler {
  /** Arms every entry; the first firing is one interval (or the next cron match) from now. */
  start(): void;
  /** Cancels every pending firing. Runs already started finish on their own. */
  stop(): void;
  /** Resolves when no scenario run is queued or in progress. */
  idle(): Promise<void>;
  status(): EntryStatus[];
}

export interface SchedulerOptions {
  entries: readonly ScheduleEntry[];
  engine: Pick<CallbackEngine, 'enqueue' | 'nextTransactionId'>;
  clock?: Clock;
  /** Draws players and amounts; seed it (e.g. `seededRandom(\`${seed}:schedule\`)`) for reproducible runs. */
  random: Random;
  /** Called after each firing's run ends (or is skipped). */
  onRun?: (run: ScheduledRun) => void;
  /** Known balances (minor units) for `insufficient-funds`, e.g. `() => ledger.knownBalances()`. */
  balances?: () => Readonly<Record<string, number>>;
  maxBacklog?: number;
  /**
   * The configured wire's rounds (`roundWireOf(config.callbacks)`), handed whole to the round
   * planner: its ROLLBACK (without one, ROLLBACK scenarios are refused with a clear error), whole
   * rounds, wins that name their bet, and a dialect's calls around the money.
   */
  wire?: RoundWire;
}

export class ScheduleError extends Error {
  override readonly name = 'ScheduleError';
}

interface Armed {
  index: number;
  entry: ScheduleEntry;
  /** The next firing time after `from`, or undefined when there is none. */
  nextAfter(from: number): number | undefined;
  fired: number;
  nextAt?: number;
  timer?: TimerHandle;
}

/**
 * Runs schedule entries in the background: `every` on the injected Clock, `cron` with croner
 * (only to compute the next match; the wait itself is a Clock timer, so a FakeClock drives it).
 * Each firing plans its scenario at once — players, amounts and transaction ids drawn in firing
 * order — and the runs execute one after another in that order, so the same seed and the same
 * schedule give the same events in the same order.
 *
 * @example
 * const scheduler = createScheduler({ entries: config.schedule, engine, random: seededRandom(`${config.seed}:schedule`) });
 * scheduler.start();
 * // … later
 * scheduler.stop();
 */
export function createScheduler(options: SchedulerOptions): Scheduler {
  const clock = options.clock ?? systemClock;
  const maxBacklog = options.maxBacklog ?? DEFAULT_MAX_BACKLOG;
  const armed = options.entries.map((entry, index) => arm(entry, index));
  let running = false;
  let chain: Promise<void> = Promise.resolve();
  let queued = 0;

  const report = (run: ScheduledRun) => {
    try {
      options.onRun?.(run);
    } catch {
      // A reporting hook must not stop the schedule.
    }
  };

  const fire = (a: Armed, at: number) => {
    a.fired += 1;
    const base = { entry: a.index, scenario: a.entry.scenario, firing: a.fired, at };
    if (queued >= maxBacklog) {
      report({ ...base, error: `skipped: ${queued} scheduled runs are still waiting (is the wallet slow or down?)` });
      return;
    }
    let plan: ReturnType<typeof planScenario>;
    try {
      // The entry's players, amount, size and rtp are the scenario's parameters.
      const params = { ...a.entry, balances: options.balances?.(), wire: options.wire };
      plan = planScenario(a.entry.scenario, params, options.random, () => options.engine.nextTransactionId());
    } catch (error) {
      report({ ...base, error: messageOf(error) });
      return;
    }
    queued += 1;
    chain = chain.then(async () => {
      try {
        const summary = await startScenario(options.engine, plan).done;
        report({ ...base, summary });
      } catch (error) {
        report({ ...base, error: messageOf(error) });
      } finally {
        queued -= 1;
      }
    });
  };

  const schedule = (a: Armed, from: number) => {
    if (!running) return;
    if (a.entry.count !== undefined && a.fired >= a.entry.count) {
      a.nextAt = undefined;
      return;
    }
    const next = a.nextAfter(from);
    a.nextAt = next;
    if (next === undefined) return;
    a.timer = clock.setTimer(
      () => {
        a.timer = undefined;
        if (!running) return;
        fire(a, next);
        schedule(a, Math.max(next, clock.now()));
      },
      Math.max(0, next - clock.now()),
    );
  };

  return {
    start() {
      if (running) return;
      running = true;
      const now = clock.now();
      for (const a of armed) schedule(a, now);
    },
    stop() {
      running = false;
      for (const a of armed) {
        if (a.timer) clock.clearTimer(a.timer);
        a.timer = undefined;
        a.nextAt = undefined;
      }
    },
    async idle() {
      // Runs queued while waiting extend the chain; wait until it stops growing.
      for (;;) {
        const current = chain;
        await current;
        if (current === chain) return;
      }
    },
    status: () =>
      armed.map((a) => ({
        entry: a.index,
        scenario: a.entry.scenario,
        when: a.entry.every ? `every ${a.entry.every}` : `cron ${a.entry.cron}`,
        fired: a.fired,
        ...(a.entry.count === undefined ? {} : { count: a.entry.count }),
        ...(a.nextAt === undefined ? {} : { nextAt: a.nextAt }),
      })),
  };
}

/** Validates one entry's timing and returns how to find its next firing. */
function arm(entry: ScheduleEntry, index: number): Armed {
  if (entry.every !== undefined) {
    const ms = parseDuration(entry.every);
    if (ms === undefined || ms <= 0) {
      throw new ScheduleError(
        `schedule[${index}].every: expected a positive duration such as "500ms", "2s" or "5m", got ${JSON.stringify(entry.every)}.`,
      );
    }
    return { index, entry, fired: 0, nextAfter: (from) => from + ms };
  }
  if (entry.cron !== undefined) {
    let cron: Cron;
    try {
      cron = new Cron(entry.cron, { paused: true });
    } catch (error) {
      throw new ScheduleError(
        `schedule[${index}].cron: ${JSON.stringify(entry.cron)} is not a cron pattern (${messageOf(error)}); expected e.g. "*/5 * * * * *" (seconds first) or "*/1 * * * *".`,
      );
    }
    return { index, entry, fired: 0, nextAfter: (from) => cron.nextRun(new Date(from))?.getTime() };
  }
  throw new ScheduleError(`schedule[${index}]: give exactly one of "every" (e.g. "2s") or "cron" (e.g. "*/5 * * * * *").`);
}
