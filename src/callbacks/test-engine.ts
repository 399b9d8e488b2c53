import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AggmockConfig, configSchema } from '../config/index.ts';
import { verifySignature } from '../signing/index.ts';
import { FakeClock } from './clock.ts';
import { openDatabase } from './db.ts';
import { type CallbackEngine, createCallbackEngine } from './engine.ts';
import { seededRandom } from './random.ts';
import { type ReceivedRequest, type ReceiverAction, startTestReceiver, type TestReceiver } from './test-receiver.ts';

/**
 * The engine tests' harness: real receivers on 127.0.0.1, engines over real SQLite, fake time for
 * schedules. Each test file runs `afterEach(runCleanups)` so what a test opened is closed.
 */
const cleanups: (() => Promise<void> | void)[] = [];

/** Runs `fn` after the current test, to close what it opened. */
export function onCleanup(fn: () => Promise<void> | void): void {
  cleanups.push(fn);
}

/** Closes what the test opened, last first. */
export async function runCleanups(): Promise<void> {
  for (const fn of cleanups.splice(0).reverse()) await fn();
}

export async function receiver(
  respond?: (req: ReceivedRequest) => ReceiverAction | Promise<ReceiverAction>,
): Promise<TestReceiver> {
  const rx = await startTestReceiver(respond);
  cleanups.push(() => rx.close());
  return rx;
}

export function configFor(url: string, callbacks: Record<string, unknown> = {}): AggmockConfig {
  return configSchema.parse({
    seed: 'engine-test',
    callbacks: { webhookUrl: url, jitter: 0, retrySchedule: [0, 1_000, 5_000], ...callbacks },
  });
}

export function engineFor(config: AggmockConfig, options: { clock?: FakeClock; dbPath?: string } = {}): CallbackEngine {
  const db = openDatabase(options.dbPath ?? ':memory:');
  const engine = createCallbackEngine({ config, db, clock: options.clock ?? new FakeClock(), random: seededRandom(1) });
  cleanups.push(async () => {
    await engine.stop({ deadlineMs: 0 });
    db.close();
  });
  return engine;
}

export function tempDbPath(): string {
  const dir = mkdtempSync(join(tmpdir(), 'aggmock-callbacks-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return join(dir, 'outbox.db');
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Lets real I/O run and, whenever nothing is on the wire, jumps the fake clock to the next timer,
 * until `until` settles: a whole retry schedule (minutes of fake time) in milliseconds.
 */
export async function drive<T>(engine: CallbackEngine, clock: FakeClock, until: Promise<T>): Promise<T> {
  let done = false;
  let value: T | undefined;
  until.then((v) => {
    done = true;
    value = v;
  });
  for (let step = 0; step < 5_000 && !done; step++) {
    await sleep(2);
    if (!done && engine.inFlight() === 0 && clock.pending() > 0) await clock.advanceToNext();
  }
  if (!done) throw new Error('the engine did not settle');
  return value as T;
}

export function verify(req: ReceivedRequest, config: AggmockConfig, clock: FakeClock) {
  const { scheme, secrets, headers } = config.callbacks.signing;
  return verifySignature({
    scheme,
    secrets,
    headerNames: headers,
    payload: req.body,
    headers: req.headers,
    now: Math.floor(clock.now() / 1000),
  });
}

// ---- signing ----
