import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type AggmockConfig, defaultConfig } from '../config/index.ts';
import { PACT_FILE_NAME } from '../contracts/interactions.ts';
import { SIGNING_SCHEMES, type SigningScheme } from '../signing/index.ts';
import { VERSION } from '../version.ts';
import { CHECK_IDS, type Check, checksFor } from './checks/index.ts';
import { DEFAULT_REPORT_DIR, EXIT_USAGE } from './defaults.ts';

export { DEFAULT_REPORT_DIR, EXIT_USAGE };

import { describeFetchError } from './client.ts';
import { CheckContext, CheckFailure, type CheckSettings, CheckSkipped } from './context.ts';
import { PACT_ID_PREFIX, pactInteractionIds, verifyPacts } from './pact.ts';
import {
  type ReportFiles,
  type ResultEntry,
  summarise,
  summaryLine,
  tableHeader,
  tableRow,
  type VerifyReport,
  writeReports,
} from './report.ts';

/** The committed contracts (for the default configuration). */
export const DEFAULT_PACT_FILE = fileURLToPath(new URL(`../../contracts/${PACT_FILE_NAME}`, import.meta.url));
export const DEFAULT_PLAYERS = ['p1', 'p2'];
export const DEFAULT_MAX_LATENCY_MS = 2_000;
export const DEFAULT_CONCURRENCY = 10;

export const EXIT_PASSED = 0;
export const EXIT_FAILED = 1;

export interface RunVerifyOptions {
  /** The integrator's webhook, e.g. http://127.0.0.1:4001/callback/webhook. */
  webhookUrl: string;
  /** Wire and signing settings (types, rollback style, amount format, header names); default: the default config. */
  config?: AggmockConfig;
  /** Override config.callbacks.signing.secrets. */
  secrets?: string[];
  /** Override config.callbacks.signing.scheme. */
  scheme?: SigningScheme;
  /** Known player ids (default p1,p2). */
  players?: string[];
  /** Provider-state endpoint, e.g. http://127.0.0.1:4001/__state. */
  stateUrl?: string;
  /** Per-request timeout; default config.callbacks.timeout (10 s). */
  timeoutMs?: number;
  /** p95 reply-time budget of reply-latency; default 2 s. */
  maxLatencyMs?: number;
  /** Check ids (or `pact:<id>`, or the groups `pact` and `checks`) to run / to leave out. */
  only?: string[];
  skip?: string[];
  /** Where junit.xml, report.json and report.html go; `false` writes none. Default reports/verify. */
  reportDir?: string | false;
  /** Parallel DEBITs in concurrent-debits; default 10. */
  concurrency?: number;
  /** The pact file to verify; default the committed contracts, or ones generated for a non-default wire config. */
  pactFile?: string;
  /** Live output: the console table (and notices). */
  write?: (text: string) => void;
  color?: boolean;
}

export interface VerifyOutcome {
  exitCode: 0 | 1 | 2;
  report?: VerifyReport;
  files?: ReportFiles;
  /** The usage error, when exitCode is 2. */
  error?: string;
}

/** A problem with how verify was called (bad flag, unknown check id, unreachable URL): exit 2. */
export class VerifyUsageError extends Error {
  override readonly name = 'VerifyUsageError';
}

/**
 * `aggmock verify`: replays the contracts through the Pact Verifier, then runs every stateful
 * check, and writes the reports. Exit code 0 only when every selected check passed.
 *
 * @example
 * const { exitCode, report } = await runVerify({ webhookUrl: 'http://127.0.0.1:4001/callback/webhook', stateUrl: 'http://127.0.0.1:4001/__state' });
 */
export async function runVerify(options: RunVerifyOptions): Promise<VerifyOutcome> {
  const write = options.write ?? (() => {});
  let plan: Plan;
  try {
    plan = await prepare(options);
  } catch (error) {
    if (error instanceof VerifyUsageError) return { exitCode: EXIT_USAGE, error: error.message };
    throw error;
  }
  const started = Date.now();
  const startedAt = new Date(started).toISOString();
  const results: ResultEntry[] = [];
  const notices: string[] = [];
  const emit = (entry: ResultEntry) => {
    results.push(entry);
    write(tableRow(entry, options.color));
  };

  if (plan.settings.stateUrl === undefined) {
    notices.push(
      `No --state-url: provider states are realised through the webhook itself with ${plan.settings.players.join(', ')} and fresh ` +
        'transaction ids, and the checks work from the balances the webhook reports (players mode). Every player is left with the balance it had.',
    );
  }
  for (const n of notices) write(`note: ${n}\n\n`);
  write(tableHeader());

  // 1. The contracts, through the Pact Verifier.
  const pactIds = plan.pactIds.filter((id) => plan.selected(id));
  if (pactIds.length > 0) {
    const pactFile = await plan.pactFile();
    // Players mode moves real money through the webhook; put the player back where it was afterwards.
    const restorer = new CheckContext(plan.settings, 'pact');
    try {
      if (plan.settings.stateUrl === undefined) await restorer.startBalance(plan.settings.players[0] as string);
      const pactResults = await verifyPacts({
        pactFile: pactFile.path,
        webhookUrl: plan.settings.webhookUrl,
        ...(plan.settings.stateUrl === undefined ? {} : { stateUrl: plan.settings.stateUrl }),
        players: plan.settings.players,
        runId: plan.settings.runId,
        callbacks: plan.settings.callbacks,
        timeoutMs: plan.settings.timeoutMs,
        selected: plan.selected,
      });
      // Moving money is what the interactions do; only a failure to put it back is worth a notice.
      for (const r of await restorer.restoreStartBalances()) if (!r.restored) notices.push(`contract interactions: ${r.note}`);
      for (const r of pactResults) {
        if (!plan.selected(r.id)) continue;
        emit({
          kind: 'pact',
          id: r.id,
          rule: r.rule,
          status: r.status,
          durationMs: r.durationMs,
          ...(r.reason === undefined ? {} : { reason: r.reason }),
          ...(r.hint === undefined ? {} : { hint: r.hint }),
          notes: [],
          exchanges: r.exchanges,
          states: r.states,
          interaction: r.interaction,
        });
      }
    } finally {
      pactFile.dispose();
    }
  }

  // 2. The stateful checks, one after another (they share the players). A webhook that stops
  // answering would make every check wait out --timeout several times, so after
  // TIMEOUT_BREAKER checks in a row failed on timeouts, the rest are reported as not run.
  let timedOutInARow = 0;
  for (const check of checksFor(plan.settings.callbacks)) {
    if (!plan.selected(check.id)) continue;
    if (timedOutInARow >= TIMEOUT_BREAKER) {
      emit(
        notRun(
          check,
          `not run: the webhook did not answer within ${plan.settings.timeoutMs} ms in the last ${TIMEOUT_BREAKER} checks (--timeout); fix its reply time, then run verify again`,
        ),
      );
      continue;
    }
    const result = await runCheck(check, plan.settings);
    emit(result);
    timedOutInARow = result.status === 'fail' && result.exchanges.some((e) => e.timedOut) ? timedOutInARow + 1 : 0;
  }

  const report: VerifyReport = {
    tool: 'aggmock verify',
    version: VERSION,
    webhookUrl: plan.settings.webhookUrl,
    ...(plan.settings.stateUrl === undefined ? {} : { stateUrl: plan.settings.stateUrl }),
    mode: plan.settings.stateUrl === undefined ? 'players' : 'state',
    players: plan.settings.players,
    scheme: plan.settings.callbacks.signing.scheme,
    runId: plan.settings.runId,
    startedAt,
    durationMs: Date.now() - started,
    summary: summarise(results),
    notices,
    results,
  };
  write(summaryLine(report));
  const files = options.reportDir === false ? undefined : writeReports(report, options.reportDir ?? DEFAULT_REPORT_DIR);
  if (files) write(`Reports: ${files.junit}, ${files.json}, ${files.html}\n`);
  return { exitCode: report.summary.failed > 0 ? EXIT_FAILED : EXIT_PASSED, report, ...(files ? { files } : {}) };
}

/** Consecutive checks failed on timeouts after which the remaining checks are not run. */
export const TIMEOUT_BREAKER = 2;

function notRun(check: Check, reason: string): ResultEntry {
  return {
    kind: 'check',
    id: check.id,
    rule: check.rule,
    hint: check.hint,
    status: 'skip',
    durationMs: 0,
    reason,
    notes: [],
    exchanges: [],
  };
}

/** Runs one check with a fresh context; cleans up whatever the outcome. */
export async function runCheck(check: Check, settings: CheckSettings): Promise<ResultEntry> {
  const ctx = new CheckContext(settings, check.id);
  const t0 = performance.now();
  let status: ResultEntry['status'] = 'pass';
  let reason: string | undefined;
  try {
    await check.run(ctx);
  } catch (error) {
    if (error instanceof CheckSkipped) {
      status = 'skip';
      reason = error.message;
    } else {
      status = 'fail';
      reason =
        error instanceof CheckFailure
          ? error.message
          : `the check crashed: ${error instanceof Error ? error.message : String(error)}`;
    }
  }
  await ctx.cleanUp();
  if (status !== 'fail') {
    try {
      await ctx.checkAfterCleanup();
    } catch (error) {
      if (!(error instanceof CheckFailure)) throw error;
      status = 'fail';
      reason = error.message;
    }
  }
  await ctx.restoreStartBalances();
  const durationMs = performance.now() - t0;
  return {
    kind: 'check',
    id: check.id,
    rule: check.rule,
    hint: check.hint,
    status,
    durationMs: Math.round(durationMs * 10) / 10,
    ...(reason === undefined ? {} : { reason }),
    notes: ctx.notes,
    exchanges: ctx.client.exchanges,
  };
}

interface Plan {
  settings: CheckSettings;
  pactIds: string[];
  selected: (id: string) => boolean;
  pactFile: () => Promise<{ path: string; dispose: () => void }>;
}

async function prepare(options: RunVerifyOptions): Promise<Plan> {
  const base = options.config ?? defaultConfig();
  const webhookUrl = httpUrl(options.webhookUrl, 'webhookUrl');
  const stateUrl = options.stateUrl === undefined ? undefined : httpUrl(options.stateUrl, '--state-url');
  if (options.scheme !== undefined && !SIGNING_SCHEMES.includes(options.scheme)) {
    throw new VerifyUsageError(`--scheme: expected one of ${SIGNING_SCHEMES.join(', ')}, got ${JSON.stringify(options.scheme)}.`);
  }
  if (options.secrets !== undefined && (options.secrets.length === 0 || options.secrets.some((s) => s.length === 0))) {
    throw new VerifyUsageError('--secret: expected a non-empty secret.');
  }
  const players = options.players ?? DEFAULT_PLAYERS;
  if (players.length === 0 || players.some((p) => p.trim() === '')) {
    throw new VerifyUsageError(
      `--players: expected comma-separated player ids such as p1,p2, got ${JSON.stringify(players.join(','))}.`,
    );
  }
  const timeoutMs = positiveInt(options.timeoutMs ?? base.callbacks.timeout, '--timeout');
  const maxLatencyMs = positiveInt(options.maxLatencyMs ?? DEFAULT_MAX_LATENCY_MS, '--max-latency');
  const concurrency = positiveInt(options.concurrency ?? DEFAULT_CONCURRENCY, '--concurrency');
  if (concurrency < 2) throw new VerifyUsageError(`--concurrency: expected at least 2 parallel DEBITs, got ${concurrency}.`);

  const callbacks = {
    ...base.callbacks,
    signing: {
      ...base.callbacks.signing,
      ...(options.scheme === undefined ? {} : { scheme: options.scheme }),
      ...(options.secrets === undefined ? {} : { secrets: options.secrets }),
    },
  };

  const pactFileOption = options.pactFile;
  if (pactFileOption !== undefined && !existsSync(pactFileOption)) {
    throw new VerifyUsageError(`pact file ${pactFileOption} does not exist.`);
  }
  const committed = pactFileOption ?? DEFAULT_PACT_FILE;
  const useCommitted = pactFileOption !== undefined || sameWire(callbacks, defaultConfig().callbacks);
  if (useCommitted && !existsSync(committed)) {
    throw new VerifyUsageError(`the contracts are missing at ${committed}; run \`aggmock contracts --regenerate\`.`);
  }
  const pactIds = existsSync(committed) ? pactInteractionIds(committed) : [];
  const checkIds = [...CHECK_IDS];
  const selected = selection(options.only, options.skip, pactIds, checkIds);

  await reachable(webhookUrl, timeoutMs, 'the webhook');
  if (stateUrl !== undefined) await reachable(stateUrl, timeoutMs, 'the state URL');

  const runId = `${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
  return {
    settings: {
      webhookUrl,
      callbacks,
      players,
      ...(stateUrl === undefined ? {} : { stateUrl }),
      timeoutMs,
      maxLatencyMs,
      concurrency,
      runId,
    },
    pactIds,
    selected,
    pactFile: async () => {
      if (useCommitted) return { path: committed, dispose: () => {} };
      // A non-default wire (type strings, rollback style, amount format, scheme…): contracts for it, from the same definitions.
      const dir = mkdtempSync(join(tmpdir(), 'aggmock-contracts-'));
      // Loaded only here: @pact-foundation/pact takes about half a second to import.
      const { generateContracts } = await import('../contracts/generate.ts');
      const path = await generateContracts({ config: { ...base, callbacks }, outDir: dir });
      return { path, dispose: () => rmSync(dir, { recursive: true, force: true }) };
    },
  };
}

/** Whether two callback configs put the same bytes on the wire (secrets aside: verify re-signs). */
function sameWire(a: AggmockConfig['callbacks'], b: AggmockConfig['callbacks']): boolean {
  const wire = (c: AggmockConfig['callbacks']) =>
    JSON.stringify([c.types, c.rollbackStyle, c.amountFormat, c.extraFields, c.signing.scheme, c.signing.headers, c.currency]);
  return wire(a) === wire(b);
}

function selection(
  only: string[] | undefined,
  skipIds: string[] | undefined,
  pactIds: string[],
  checkIds: string[],
): (id: string) => boolean {
  const all = [...pactIds, ...checkIds];
  const expand = (ids: string[], flag: string): Set<string> => {
    const out = new Set<string>();
    for (const raw of ids) {
      const id = raw.trim();
      if (id === '') continue;
      if (id === 'pact') for (const p of pactIds) out.add(p);
      else if (id === 'checks') for (const c of checkIds) out.add(c);
      else if (all.includes(id)) out.add(id);
      else if (pactIds.includes(PACT_ID_PREFIX + id) && !checkIds.includes(id)) out.add(PACT_ID_PREFIX + id);
      else {
        throw new VerifyUsageError(
          `${flag}: unknown check id ${JSON.stringify(id)}. Known ids: ${all.join(', ')} (and the groups "pact" and "checks").`,
        );
      }
    }
    return out;
  };
  const onlySet = only && only.length > 0 ? expand(only, '--only') : undefined;
  const skipSet = expand(skipIds ?? [], '--skip');
  return (id) => (onlySet === undefined || onlySet.has(id)) && !skipSet.has(id);
}

function httpUrl(value: string, what: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new VerifyUsageError(
      `${what}: expected an http(s) URL such as http://127.0.0.1:4001/callback/webhook, got ${JSON.stringify(value)}.`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new VerifyUsageError(`${what}: expected an http or https URL, got ${JSON.stringify(value)}.`);
  }
  return url.href;
}

function positiveInt(value: number, flag: string): number {
  if (!Number.isSafeInteger(value) || value <= 0)
    throw new VerifyUsageError(`${flag}: expected a positive whole number, got ${JSON.stringify(value)}.`);
  return value;
}

/** Any HTTP answer will do (even 404 or 405): only a dead address is a usage error. */
async function reachable(url: string, timeoutMs: number, what: string): Promise<void> {
  try {
    const res = await fetch(url, { method: 'GET', signal: AbortSignal.timeout(Math.min(timeoutMs, 5_000)), redirect: 'manual' });
    await res.arrayBuffer().catch(() => undefined);
  } catch (error) {
    throw new VerifyUsageError(
      `${what} ${url} is not reachable: ${describeFetchError(error, Math.min(timeoutMs, 5_000))}. Is it running?`,
    );
  }
}
