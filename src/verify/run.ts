import { messageOf, terminalSafe } from '../shared/index.ts';
import { VERSION } from '../version.ts';
import { type Check, checkPlan } from './checks/index.ts';
import { needsOf } from './checks/shared.ts';
import { CheckContext, CheckFailure, type CheckSettings, CheckSkipped } from './context.ts';
import { DEFAULT_REPORT_DIR, EXIT_FAILED, EXIT_PASSED, EXIT_USAGE } from './defaults.ts';
import { isWarning } from './failure.ts';
import { verifyPacts } from './pact.ts';
import { type Plan, type RunVerifyOptions as PlanOptions, prepare, VerifyUsageError } from './plan.ts';
import { blockedBy, blockedReason, DEFAULT_NEEDS, type Prerequisite, type ProbeFinding, runPreflight } from './preflight.ts';
import { readFirst, statusWithWarnings, withReadingAids } from './read-first.ts';
import {
  firstCauseBlock,
  passed,
  type ReportFiles,
  type ResultEntry,
  sessionTokensBlock,
  shownCause,
  shownResult,
  summarise,
  summaryLine,
  tableHeader,
  tableRow,
  type VerifyReport,
  writeReports,
} from './report.ts';
import { readTokenFile, TokenFileError, writeTokenFile } from './token-file.ts';
import { handedOverTokens, tokenFlags, tokensWithoutAuthenticate } from './tokens.ts';
import { verifyWireOf } from './wire.ts';

export interface RunVerifyOptions extends PlanOptions {
  /**
   * `--tokens <file>`: player=token lines read before the run (they win over `tokens` for the
   * players they name; a file that does not exist yet is empty) and written back at its end with
   * the tokens the wallet handed over, so runs against a wallet that rotates its token chain.
   */
  tokensFile?: string;
}

export interface VerifyOutcome {
  exitCode: 0 | 1 | 2;
  report?: VerifyReport;
  files?: ReportFiles;
  /** The usage error, when exitCode is 2. */
  error?: string;
}

/**
 * `aggmock verify`: a preflight (preflight.ts) that finds a first cause such as a refused
 * signature or a wallet that does not answer, then the contracts through the Pact Verifier, then
 * every stateful check, and the reports. What the first cause blocks is not run. Exit code 0 only
 * when every selected check passed and nothing was blocked.
 *
 * @example
 * const { exitCode, report } = await runVerify({ webhookUrl: 'http://127.0.0.1:4001/callback/webhook', stateUrl: 'http://127.0.0.1:4001/__state' });
 */
export async function runVerify(options: RunVerifyOptions): Promise<VerifyOutcome> {
  const write = options.write ?? (() => {});
  let plan: Plan;
  let startTokens: Record<string, string>;
  try {
    startTokens = { ...options.tokens, ...(options.tokensFile === undefined ? {} : readTokenFile(options.tokensFile)) };
    plan = await prepare(Object.keys(startTokens).length === 0 ? options : { ...options, tokens: startTokens });
  } catch (error) {
    if (error instanceof VerifyUsageError || error instanceof TokenFileError)
      return { exitCode: EXIT_USAGE, error: error.message };
    throw error;
  }
  const started = Date.now();
  const startedAt = new Date(started).toISOString();
  const results: ResultEntry[] = [];
  const notices: string[] = [];
  const dialect = verifyWireOf(plan.settings.callbacks).dialect;
  const emit = (entry: ResultEntry) => {
    const shown = shownResult(withReadingAids(entry, dialect));
    results.push(shown);
    write(tableRow(shown, options.color));
  };

  if (plan.settings.stateUrl === undefined) {
    notices.push(
      `No --state-url: provider states are realised through the webhook itself with ${plan.settings.players.join(', ')} and fresh ` +
        'transaction ids, and the checks work from the balances the webhook reports (players mode). Every player is left with the balance it had.',
    );
  }
  // 0. The preflight: the first cause, if any, and the balance probe the run may use.
  tokensWithoutAuthenticate(plan.settings);
  const preflight = await runPreflight(plan.settings);
  plan.settings.balanceProbe = preflight.balanceProbe;
  const cause = preflight.cause;
  const blocked = (needs: readonly Prerequisite[]) => (blockedBy(cause, needs) && cause ? blockedReason(cause) : undefined);
  for (const n of notices) write(`note: ${terminalSafe(n)}\n\n`);
  if (cause) write(terminalSafe(firstCauseBlock(shownCause(cause))));
  write(tableHeader());

  // 1. The contracts, through the Pact Verifier.
  const pactIds = plan.pactIds.filter((id) => plan.selected(id));
  if (pactIds.length > 0) {
    const pactFile = await plan.pactFile();
    // Players mode moves real money through the webhook; put the player back where it was afterwards.
    const restorer = new CheckContext(plan.settings, 'pact');
    try {
      if (plan.settings.stateUrl === undefined && blocked(DEFAULT_NEEDS) === undefined) {
        // A balance that cannot be read (an unknown player, another currency, a refused signature)
        // is the interactions' to report, as their replies show it; only the restore is lost.
        const player = plan.settings.players[0] as string;
        await restorer.startBalance(player).catch((error: unknown) => {
          if (!(error instanceof CheckFailure)) throw error;
          notices.push(
            `contract interactions: ${player}'s balance could not be read first, so it is not restored afterwards: ${error.message}`,
          );
        });
      }
      const pactResults = await verifyPacts({ ...plan.settings, pactFile: pactFile.path, selected: plan.selected, blocked });
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
  const findings = new Map(preflight.findings.map((f) => [f.checkId, f]));
  for (const { check, notApplicable } of checkPlan(plan.settings.callbacks)) {
    if (!plan.selected(check.id)) continue;
    if (notApplicable !== undefined) {
      emit(notRun(check, notApplicable));
      continue;
    }
    const blockedBecause = blocked(needsOf(check));
    if (blockedBecause !== undefined) {
      emit({ ...notRun(check, blockedBecause), status: 'blocked' });
      continue;
    }
    if (timedOutInARow >= TIMEOUT_BREAKER) {
      const silent = `the webhook did not answer within ${plan.settings.timeoutMs} ms in the last ${TIMEOUT_BREAKER} checks (--timeout)`;
      emit(notRun(check, `not run: ${silent}; fix its reply time, then run verify again`));
      continue;
    }
    const result = withFinding(await runCheck(check, plan.settings), findings.get(check.id));
    findings.delete(check.id);
    emit(result);
    timedOutInARow = result.status === 'fail' && result.exchanges.some((e) => e.timedOut) ? timedOutInARow + 1 : 0;
  }

  // A probe finding whose check did not run is still said, once.
  for (const f of findings.values()) notices.push(`${f.checkId} (not run): ${f.reason}`);

  const sessionTokens = keepTokens(plan, startTokens, options.tokensFile, notices);
  const report: VerifyReport = {
    tool: 'aggmock verify',
    version: VERSION,
    webhookUrl: plan.settings.webhookUrl,
    ...(plan.settings.stateUrl === undefined ? {} : { stateUrl: plan.settings.stateUrl }),
    mode: plan.settings.stateUrl === undefined ? 'players' : 'state',
    players: plan.settings.players,
    scheme: verifyWireOf(plan.settings.callbacks).signingScheme,
    profile: verifyWireOf(plan.settings.callbacks).name,
    runId: plan.settings.runId,
    startedAt,
    durationMs: Date.now() - started,
    summary: summarise(results),
    ...readFirst(results, dialect, plan.settings.strict === true),
    ...(cause === undefined ? {} : { firstCause: shownCause(cause) }),
    ...(sessionTokens === undefined ? {} : { sessionTokens }),
    notices,
    results,
  };
  write(summaryLine(report));
  if (sessionTokens !== undefined) write(terminalSafe(sessionTokensBlock(sessionTokens)));
  const files = options.reportDir === false ? undefined : writeReports(report, options.reportDir ?? DEFAULT_REPORT_DIR);
  if (files) write(`Reports: ${files.junit}, ${files.json}, ${files.html}\n`);
  return { exitCode: passed(report) ? EXIT_PASSED : EXIT_FAILED, report, ...(files ? { files } : {}) };
}

/**
 * A check whose rule the preflight's balance probe broke: its failure, once. When the check
 * failed on its own the probe's finding is a note; when it passed anyway, the finding fails it.
 */
function withFinding(result: ResultEntry, finding: ProbeFinding | undefined): ResultEntry {
  if (finding === undefined) return result;
  const note = `verify's balance probe found it first: ${finding.reason}`;
  if (result.status === 'fail') return { ...result, notes: [...result.notes, note] };
  return { ...result, status: 'fail', reason: finding.reason, exchanges: [...finding.exchanges, ...result.exchanges] };
}

/**
 * The tokens the wallet handed over, said with the flags that start the next run with them, and
 * written back to the tokens file when there is one (with the tokens the run started with that
 * nothing replaced). Undefined when nothing was handed over and there is no file.
 */
function keepTokens(
  plan: Plan,
  start: Record<string, string>,
  file: string | undefined,
  notices: string[],
): VerifyReport['sessionTokens'] {
  const handedOver = handedOverTokens(plan.settings, start);
  const next = { ...start, ...handedOver };
  if (Object.keys(handedOver).length === 0 && file === undefined) return undefined;
  const kept: NonNullable<VerifyReport['sessionTokens']> = { handedOver, nextRun: tokenFlags(next) };
  if (file !== undefined) {
    try {
      writeTokenFile(file, next);
      kept.file = file;
    } catch (error) {
      if (!(error instanceof TokenFileError)) throw error;
      notices.push(`${error.message} The next run needs: ${kept.nextRun}`);
    }
  }
  if (Object.keys(handedOver).length > 0)
    notices.push(
      `the wallet handed over new session tokens (${Object.keys(handedOver).sort().join(', ')}); the ones this run started with may be stale. ` +
        (kept.file === undefined
          ? `Start the next run with ${kept.nextRun}, or give --tokens <file> to keep them between runs.`
          : `They are in ${kept.file}: run the next verify with --tokens ${kept.file} again.`),
    );
  return kept;
}

/** Consecutive checks failed on timeouts after which the remaining checks are not run. */
export const TIMEOUT_BREAKER = 2;

/** The start of a check's row in the report. */
const rowOf = (check: Check) => ({ kind: 'check' as const, id: check.id, rule: check.rule, hint: check.hint });

function notRun(check: Check, reason: string): ResultEntry {
  return { ...rowOf(check), status: 'skip', durationMs: 0, reason, notes: [], exchanges: [] };
}

/** Runs one check with a fresh context; cleans up whatever the outcome. */
async function runCheck(check: Check, settings: CheckSettings): Promise<ResultEntry> {
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
      reason = error instanceof CheckFailure ? error.message : `the check crashed: ${messageOf(error)}`;
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
  ctx.client.close();
  status = statusWithWarnings(status, ctx.notes, isWarning);
  const durationMs = performance.now() - t0;
  return {
    ...rowOf(check),
    status,
    durationMs: Math.round(durationMs * 10) / 10,
    ...(reason === undefined ? {} : { reason }),
    notes: ctx.notes,
    exchanges: ctx.client.exchanges,
  };
}
