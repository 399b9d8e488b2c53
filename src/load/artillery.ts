import { appendFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { configSchema } from '../config/index.ts';
import { mulberry32 } from '../shared/index.ts';
import { poolSender } from './client.ts';
import type { ExportOptions } from './export-options.ts';
import { DEFAULT_MIX, type Mix, pickRound, ROUND_KINDS } from './mix.ts';
import { recordLine } from './record.ts';
import { roundPlayer } from './rounds.ts';
import { LoadStats } from './stats.ts';

/**
 * The Artillery export: a test whose processor plays aggmock's own rounds (rounds.ts) — every call
 * built and signed by aggmock's dialect code — so `artillery run` here and
 * `artillery run-fargate --count N` make the same calls `aggmock load` makes. Each worker appends
 * its calls to the record file for `aggmock load --check`.
 */

export interface LoadSessionOptions {
  /** A built-in dialect name or a dialect file, as `--dialect` takes it. */
  dialect: string;
  credentials?: Record<string, string>;
  url: string;
  players: readonly string[];
  mix?: Partial<Mix>;
  stakeMinor?: number;
  currency?: string;
  /** `{player}` is replaced by the player's id. */
  token?: string | null;
  /** The run record, appended line by line (one file for every worker of a machine). */
  recordFile?: string;
  seed?: number;
}

export interface LoadSession {
  /** Plays one round of a kind drawn from the mix for a random player (its session opened first); returns each call's latency. */
  round(): Promise<{ operation: string; ms: number; answered: boolean }[]>;
  /** Every player's final balance read. */
  reconcile(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A load session for a processor of another tool.
 *
 * @example
 * const session = createLoadSession({ dialect: 'hub88', url: 'http://127.0.0.1:4001', players: ['p1'], recordFile: 'calls.jsonl' });
 * await session.round();
 */
export function createLoadSession(o: LoadSessionOptions): LoadSession {
  const config = configSchema.parse({
    callbacks: { profile: o.dialect, ...(o.credentials ? { credentials: o.credentials } : {}) },
  });
  const sender = poolSender(o.url, { connections: 16 });
  const random = mulberry32(o.seed ?? process.pid);
  const mix = { ...Object.fromEntries(ROUND_KINDS.map((k) => [k, 0])), ...(o.mix ?? DEFAULT_MIX) } as Mix;
  let latencies: { operation: string; ms: number; answered: boolean }[] = [];
  const player = roundPlayer({
    config,
    sender,
    stats: new LoadStats(),
    onRecord: (r) => {
      if (o.recordFile) appendFileSync(o.recordFile, recordLine(r));
      latencies.push({
        operation: r.facts.operation,
        ms: (r.answeredAt ?? r.sentAt) - r.sentAt,
        answered: r.answeredAt !== undefined,
      });
    },
    // Epoch milliseconds: workers and machines order their calls on one clock.
    clock: () => performance.timeOrigin + performance.now(),
    origin: () => performance.timeOrigin,
    stakeMinor: o.stakeMinor ?? 100,
    currency: o.currency ?? 'EUR',
    random,
    ...(o.token ? { tokenOf: (p: string) => (o.token as string).replaceAll('{player}', p) } : {}),
    idBase: process.pid * 10_000_000,
  });
  const opened = new Map<string, Promise<void>>();
  return {
    async round() {
      const p = o.players[Math.floor(random() * o.players.length)] as string;
      if (!opened.has(p)) opened.set(p, player.open(p));
      await opened.get(p);
      latencies = [];
      await player.round(pickRound(mix, random()), p);
      return latencies;
    },
    async reconcile() {
      for (const p of o.players) await player.reconcile(p);
    },
    close: () => sender.close(),
  };
}

/** The files of `--export artillery`: the test, its processor, and a package.json naming aggmock. */
export function artilleryFiles(o: ExportOptions, version: string): Record<string, string> {
  const phases = o.schedule.stages.map((s, i) => {
    const from = i === 0 ? o.schedule.startRate : (o.schedule.stages[i - 1]?.rate ?? 0);
    return { duration: Math.max(1, Math.round(s.durationMs / 1000)), arrivalRate: Math.round(from), rampTo: Math.round(s.rate) };
  });
  const yaml = [
    `# Written by aggmock load --export artillery (dialect ${o.dialect.name}).`,
    '# Run:   npm install && npx artillery run load.artillery.yml',
    `# Check: aggmock load --check calls.jsonl --dialect ${o.dialectName} --threshold correctness`,
    '# Scale out: npx artillery run-fargate --region eu-west-1 --count 10 load.artillery.yml (each worker writes its own calls.jsonl)',
    'config:',
    `  target: ${JSON.stringify(o.url)}`,
    '  processor: "./processor.mjs"',
    '  phases:',
    ...phases.map((p) => `    - { duration: ${p.duration}, arrivalRate: ${p.arrivalRate}, rampTo: ${p.rampTo} }`),
    'scenarios:',
    '  - name: aggmock rounds',
    '    flow:',
    '      - function: "round"',
    'after:',
    '  flow:',
    '    - function: "reconcile"',
    '',
  ].join('\n');
  const settings = {
    dialect: o.dialectName,
    credentials: o.credentials,
    players: o.players,
    mix: o.mix,
    stakeMinor: o.stakeMinor,
    currency: o.currency,
    token: o.token ?? null,
  };
  const processor = `// Written by aggmock load --export artillery: every call is built and signed by aggmock's own dialect code.
import { createLoadSession } from 'aggmock';

const SETTINGS = ${JSON.stringify(settings, null, 2)};
let session;
function sessionOf(context) {
  session ??= createLoadSession({
    ...SETTINGS,
    url: process.env.WALLET_URL || context.vars.target,
    recordFile: process.env.AGGMOCK_RECORD || 'calls.jsonl',
  });
  return session;
}

export async function round(context, events) {
  for (const call of await sessionOf(context).round()) {
    if (call.answered) events.emit('histogram', 'aggmock.' + call.operation, call.ms);
    events.emit('counter', call.answered ? 'aggmock.answered' : 'aggmock.no_answer', 1);
  }
}

export async function reconcile(context) {
  await sessionOf(context).reconcile();
  await session.close();
}
`;
  const pkg = `${JSON.stringify({ private: true, type: 'module', dependencies: { aggmock: `^${version}`, artillery: '^2.0.34' } }, null, 2)}\n`;
  return { 'load.artillery.yml': yaml, 'processor.mjs': processor, 'package.json': pkg };
}
