import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, extname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { replyJson } from '../callbacks/reply.ts';
import { DIALECT_CONTRACTS, type DialectContract } from '../contracts/dialect.ts';
import { ALLOW_HOOKS_ENV } from '../dialects/index.ts';
import type { Exchange } from './client.ts';
import type { CheckSettings } from './context.ts';
import type { PactExchange, PactRunnerInput, PactRunnerOutput } from './pact-runner.ts';
import { DEFAULT_NEEDS, type Prerequisite } from './preflight.ts';
import type { ResultEntry, ResultStatus } from './report.ts';

/** The outcome of one contract interaction replayed against the webhook; its id is `pact:<interaction id>`. */
export type PactInteractionResult = Pick<ResultEntry, 'id' | 'rule' | 'reason' | 'durationMs' | 'hint' | 'exchanges'> & {
  description: string;
  status: Exclude<ResultStatus, 'warn'>;
  /** The provider states it needed. */
  states: string[];
  /** The interaction as the pact file has it (request and expected response), for the HTML report. */
  interaction: unknown;
};

interface PactFile {
  interactions: {
    description: string;
    providerStates?: { name: string }[];
    request?: { body?: { content?: { transactionId?: string } } };
  }[];
  [key: string]: unknown;
}

export const PACT_ID_PREFIX = 'pact:';

/** The contract behind a pact interaction, by its description (undefined in a custom pact file). */
function definitionOf(description: string): DialectContract | undefined {
  return DIALECT_CONTRACTS.find((c) => c.description === description);
}

/** Every contract's description, in report order. */
const REPORT_ORDER = DIALECT_CONTRACTS.map((i) => i.description);

export function pactIdOf(description: string): string {
  const known = definitionOf(description);
  return (
    PACT_ID_PREFIX +
    (known
      ? known.id
      : description
          .toLowerCase()
          .replace(/[^a-z0-9]+/g, '-')
          .replace(/^-|-$/g, ''))
  );
}

/**
 * What an interaction needs of the wallet (see preflight.ts), from its definition: aggmock's
 * signature accepted (also by one signed wrong on purpose), the main player unless its states
 * name none but absent ones. One not defined here (a custom pact file) needs everything.
 */
export function pactNeeds(description: string): readonly Prerequisite[] {
  const known = definitionOf(description);
  if (!known) return DEFAULT_NEEDS;
  // Signed wrong on purpose too: whether a wallet refuses a bad signature means nothing while it refuses aggmock's good one.
  const needs: Prerequisite[] = ['answers', 'signature'];
  if (known.states.some((s) => !/ does not exist$/.test(s.name))) needs.push('player');
  return needs;
}

/** Ids of the interactions in a pact file, in file order. */
export function pactInteractionIds(pactFile: string): string[] {
  return readPact(pactFile).interactions.map((i) => pactIdOf(i.description));
}

function readPact(pactFile: string): PactFile {
  return JSON.parse(readFileSync(pactFile, 'utf8')) as PactFile;
}

/**
 * The run's settings the contracts need: without a state URL (players mode) the provider states
 * are realised through the webhook with `players`, balances read with `balanceProbe` (the
 * preflight's choice), and `sessionTokens` updated with the tokens the wallet swapped.
 */
export type VerifyPactsOptions = Pick<
  CheckSettings,
  'webhookUrl' | 'stateUrl' | 'players' | 'runId' | 'callbacks' | 'timeoutMs' | 'balanceProbe' | 'sessionTokens'
> & {
  pactFile: string;
  /** Interaction ids to run (`pact:<id>`); the rest are reported as skipped. */
  selected: (id: string) => boolean;
  /** Why an interaction is blocked by the run's first cause (not run), given what it needs; undefined: run it. */
  blocked?: (needs: readonly Prerequisite[]) => string | undefined;
};

/**
 * Replays the contracts against the webhook with the real Pact Verifier (in a child process, see
 * pact-runner.ts). Every interaction runs: with a state URL its states are set up there; without
 * one they are realised through the webhook itself, with the known players and fresh ids.
 */
export async function verifyPacts(options: VerifyPactsOptions): Promise<PactInteractionResult[]> {
  const pact = readPact(options.pactFile);
  const results = new Map<string, PactInteractionResult>();
  const runnable: PactFile['interactions'] = [];
  for (const interaction of pact.interactions) {
    const id = pactIdOf(interaction.description);
    const known = definitionOf(interaction.description);
    const states = (interaction.providerStates ?? []).map((s) => s.name);
    const result: PactInteractionResult = {
      id,
      description: interaction.description,
      rule: known?.rule ?? interaction.description,
      status: 'skip',
      durationMs: 0,
      states,
      interaction,
      exchanges: [],
    };
    results.set(interaction.description, result);
    if (known?.hint !== undefined) result.hint = known.hint;
    const blocked = options.blocked?.(pactNeeds(interaction.description));
    if (!options.selected(id)) {
      result.reason = 'not selected (--only/--skip)';
    } else if (blocked !== undefined) {
      result.status = 'blocked';
      result.reason = blocked;
    } else {
      runnable.push(interaction);
    }
  }
  if (runnable.length === 0) return ordered(results);

  const dir = mkdtempSync(join(tmpdir(), 'aggmock-verify-pact-'));
  try {
    const pactFile = join(dir, 'pact.json');
    writeFileSync(pactFile, JSON.stringify({ ...pact, interactions: runnable }));
    const url = new URL(options.webhookUrl);
    const input: PactRunnerInput = {
      pactFile,
      providerBaseUrl: url.origin,
      webhookUrl: options.webhookUrl,
      webhookPath: `${url.pathname}${url.search}`,
      ...(options.stateUrl === undefined ? {} : { stateUrl: options.stateUrl }),
      players: options.players,
      runId: options.runId,
      callbacks: options.callbacks,
      timeoutMs: options.timeoutMs,
      ...(options.balanceProbe === undefined ? {} : { balanceProbe: options.balanceProbe }),
      ...(options.sessionTokens === undefined ? {} : { tokens: Object.fromEntries(options.sessionTokens) }),
      resultFile: join(dir, 'result.json'),
    };
    const output = await runChild(input);
    for (const [player, token] of Object.entries(output.tokens ?? {})) options.sessionTokens?.set(player, token);
    applyReport(results, runnable, output);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return ordered(results);
}

/** In the order the interactions are defined (the pact file sorts them by description). */
function ordered(results: Map<string, PactInteractionResult>): PactInteractionResult[] {
  const rank = (r: PactInteractionResult) => {
    const i = REPORT_ORDER.indexOf(r.description);
    return i < 0 ? REPORT_ORDER.length : i;
  };
  return [...results.values()].sort((a, b) => rank(a) - rank(b));
}

interface VerifierReport {
  errors?: {
    interaction?: string;
    mismatch?: { mismatches?: { mismatch?: string; type?: string }[]; message?: string; type?: string };
  }[];
  interactionResults?: { description: string; duration?: string; result?: string }[];
}

function applyReport(
  results: Map<string, PactInteractionResult>,
  runnable: PactFile['interactions'],
  output: PactRunnerOutput,
): void {
  const report = output.report as VerifierReport | undefined;
  if (!report) {
    for (const i of runnable) {
      const r = results.get(i.description) as PactInteractionResult;
      r.status = 'fail';
      r.reason = `the Pact Verifier did not run: ${output.error ?? 'no report'}`;
    }
    return;
  }
  const errors = new Map<string, string[]>();
  for (const e of report.errors ?? []) {
    const description = runnable.find((i) => e.interaction?.endsWith(` - ${i.description}`))?.description;
    if (!description) continue;
    const m = e.mismatch;
    const lines = m?.mismatches?.map((x) => x.mismatch ?? JSON.stringify(x)) ?? [m?.message ?? JSON.stringify(m)];
    errors.set(description, [...(errors.get(description) ?? []), ...lines]);
  }
  for (const i of runnable) {
    const r = results.get(i.description) as PactInteractionResult;
    const outcome = report.interactionResults?.find((x) => x.description === i.description);
    r.durationMs = pactDurationMs(outcome?.duration);
    const sent = output.exchanges?.[i.request?.body?.content?.transactionId ?? ''] ?? output.exchanges?.[i.description];
    if (sent) r.exchanges = [toExchange(r.description, sent)];
    const problems = errors.get(i.description);
    const stateProblems = (i.providerStates ?? [])
      .map((s) => output.stateErrors?.[s.name])
      .filter((m): m is string => m !== undefined)
      .map((m) => `provider state failed: ${m}`);
    const refused = sent?.response?.refused;
    const broken = sent?.problem;
    if (outcome?.result === 'OK' && !problems && stateProblems.length === 0 && refused === undefined && broken === undefined) {
      r.status = 'pass';
    } else {
      r.status = 'fail';
      // A refused reply (a redirect) explains the mismatches the Verifier saw in its stead.
      const mismatch =
        refused !== undefined ? [refused] : problems ? [`the reply does not match the contract: ${problems.join('; ')}`] : [];
      r.reason =
        [...stateProblems, ...(broken === undefined ? [] : [broken]), ...mismatch].join('; ') ||
        `the Verifier reported ${outcome?.result ?? 'no result'}`;
    }
  }
}

/** The filter's record of one forwarded request, as the report shows exchanges. */
function toExchange(label: string, sent: PactExchange): Exchange {
  const { method = 'POST', ...rest } = sent.request;
  const request = { method, ...rest };
  if (!sent.response) return { label, request, latencyMs: 0, error: 'no reply was recorded' };
  const { refused: _refused, ...response } = sent.response;
  return { label, request, latencyMs: 0, response: { ...response, json: replyJson(response.body) } };
}

/** A duration as the Pact verifier reports it ("12ms", "1.5s"), in milliseconds; 0 when absent. */
function pactDurationMs(text: string | undefined): number {
  const m = /^([\d.]+)(ms|s)$/.exec(text ?? '');
  if (!m) return 0;
  return Number(m[1]) * (m[2] === 's' ? 1000 : 1);
}

/**
 * The child entry next to this module: pact-child.js in the package (dist/), pact-child.ts when
 * the sources run under tsx (tests, `npm run` scripts), which then needs tsx's loader too.
 */
function childCommand(): string[] {
  const self = fileURLToPath(import.meta.url);
  const entry = join(dirname(self), `pact-child${extname(self)}`);
  if (extname(self) !== '.ts') return [entry];
  return ['--import', pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href, entry];
}

/** Pact children running a verification now, stopped with this process (see stopChildrenWithUs). */
const children = new Set<ChildProcess>();

/**
 * Children that finished a run and wait for the next, so a process that verifies again skips the
 * child's start-up (about 1.5 s, most of a verify against a quick wallet). They hold nothing of
 * the last run, keep no reference on this process's event loop, and end when it ends (the IPC
 * channel closes) or after IDLE_MS without work.
 */
const idle: ChildProcess[] = [];
const MAX_IDLE = 2;
const IDLE_MS = 30_000;
const idleTimers = new WeakMap<ChildProcess, NodeJS.Timeout>();

/**
 * Ctrl-C or SIGTERM to aggmock stops its Pact child too. A signal sent to one PID (`kill`, a CI
 * runner, `npx` forwarding it) would otherwise leave the Verifier running. When nothing else in
 * the process listens for the signal, it is then re-raised, so the process ends as it would have.
 */
function stopChildrenWithUs(child: ChildProcess): () => void {
  children.add(child);
  const onSignal = (signal: NodeJS.Signals) => {
    for (const c of [...children, ...idle]) c.kill('SIGTERM');
    children.clear();
    idle.length = 0;
    if (process.listenerCount(signal) === 1) {
      process.removeListener(signal, onSignal);
      process.kill(process.pid, signal);
    }
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return () => {
    children.delete(child);
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
  };
}

/** The PIDs of the Pact children waiting for a run (for tests of the reuse). */
export function idlePactChildPids(): number[] {
  return idle.map((c) => c.pid).filter((pid): pid is number => pid !== undefined);
}

/** Whether a child holds this process open: yes while it works, no while it waits. */
function holdOpen(child: ChildProcess, hold: boolean): void {
  const handles = [child, child.channel, child.stdout, child.stderr] as ({ ref?(): void; unref?(): void } | null | undefined)[];
  for (const h of handles) {
    if (hold) h?.ref?.();
    else h?.unref?.();
  }
}

function spawnChild(): ChildProcess {
  const child = spawn(process.execPath, childCommand(), {
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    env: { ...process.env, PACT_DO_NOT_TRACK: 'true' },
  });
  // The Verifier's own report goes to stdout from native code; only its last words are kept,
  // for the error of a run that produced no report.
  child.stdout?.on('data', () => {});
  child.stderr?.on('data', () => {});
  child.once('exit', () => {
    const i = idle.indexOf(child);
    if (i >= 0) idle.splice(i, 1);
  });
  return child;
}

function park(child: ChildProcess): void {
  if (child.exitCode !== null || child.signalCode !== null || !child.connected || idle.length >= MAX_IDLE) {
    child.disconnect?.();
    return;
  }
  holdOpen(child, false);
  const timer = setTimeout(() => {
    const i = idle.indexOf(child);
    if (i >= 0) idle.splice(i, 1);
    if (child.connected) child.disconnect();
  }, IDLE_MS);
  timer.unref();
  idleTimers.set(child, timer);
  idle.push(child);
}

function takeChild(): ChildProcess {
  for (let child = idle.pop(); child !== undefined; child = idle.pop()) {
    clearTimeout(idleTimers.get(child));
    if (child.connected && child.exitCode === null && child.signalCode === null) {
      holdOpen(child, true);
      return child;
    }
  }
  return spawnChild();
}

function runChild(input: PactRunnerInput): Promise<PactRunnerOutput> {
  return new Promise((resolve) => {
    const child = takeChild();
    const release = stopChildrenWithUs(child);
    let output = '';
    const keep = (d: Buffer) => {
      output = (output + d.toString()).slice(-4000);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    let settled = false;
    const settle = (result: PactRunnerOutput, reusable: boolean) => {
      if (settled) return;
      settled = true;
      child.stdout?.off('data', keep);
      child.stderr?.off('data', keep);
      child.off('message', onMessage);
      child.off('exit', onExit);
      child.off('error', onError);
      release();
      if (reusable) park(child);
      resolve(result);
    };
    const readResult = (code: number | null): PactRunnerOutput => {
      try {
        return JSON.parse(readFileSync(input.resultFile, 'utf8')) as PactRunnerOutput;
      } catch {
        return { error: `the Pact Verifier exited with code ${code} without a report. Its output:\n${output.slice(-2000)}` };
      }
    };
    const onMessage = (message: unknown) => {
      if ((message as { done?: unknown } | null)?.done !== input.resultFile) return;
      settle(readResult(null), true);
    };
    const onExit = (code: number | null) => settle(readResult(code), false);
    const onError = (error: Error) => settle({ error: `could not start the Pact Verifier: ${error.message}` }, false);
    child.on('message', onMessage);
    child.once('exit', onExit);
    child.once('error', onError);
    child.send({ ...input, allowHooks: process.env[ALLOW_HOOKS_ENV] === '1' }, (error) => {
      if (error) settle({ error: `could not start the Pact Verifier: ${error.message}` }, false);
    });
  });
}
