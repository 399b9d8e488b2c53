import { expect } from 'vitest';
import { type AggmockConfig, type AggmockConfigInput, configSchema } from '../../src/config/index.ts';
import { checksFor, type ResultEntry, type RunVerifyOptions, runVerify, type VerifyOutcome } from '../../src/verify/index.ts';
import { type FaultOptions, type RunningWallet, startWallet, type WalletFault } from '../../src/wallet/index.ts';

export type Mode = 'state' | 'players';

export function config(input: AggmockConfigInput = {}): AggmockConfig {
  return configSchema.parse(input);
}

/** The reference wallet (or one with a fault) on 127.0.0.1:0, in memory, with the test endpoints on. */
export function startReferenceWallet(
  options: { fault?: WalletFault; faultOptions?: FaultOptions; config?: AggmockConfig } = {},
): Promise<RunningWallet> {
  return startWallet({
    config: options.config ?? config(),
    dbPath: ':memory:',
    port: 0,
    testEndpoints: true,
    ...(options.fault ? { fault: options.fault } : {}),
    ...(options.faultOptions ? { faultOptions: options.faultOptions } : {}),
  });
}

/** Runs verify against the wallet the way the CLI does, without writing report files. */
export function verifyWallet(wallet: RunningWallet, mode: Mode, extra: Partial<RunVerifyOptions> = {}): Promise<VerifyOutcome> {
  return runVerify({
    webhookUrl: wallet.webhookUrl,
    ...(mode === 'state' ? { stateUrl: `${wallet.url}/__state` } : { players: ['p1', 'p2'] }),
    reportDir: false,
    ...extra,
  });
}

export function idsWith(outcome: VerifyOutcome, status: ResultEntry['status']): string[] {
  return (outcome.report?.results ?? []).filter((r) => r.status === status).map((r) => r.id);
}

/** Every failure with its reason, so a failing assertion shows why. */
export function failures(outcome: VerifyOutcome): Record<string, string> {
  return Object.fromEntries(
    (outcome.report?.results ?? []).filter((r) => r.status === 'fail').map((r) => [r.id, r.reason ?? '']),
  );
}

/** The ids of the stateful checks that exist on the default wire, in report order. */
export const DEFAULT_CHECK_IDS: string[] = checksFor(config().callbacks).map((c) => c.id);

/**
 * Soft-asserts that a verify run passed: no first cause, no failed or blocked check, exit code 0;
 * the failures (or the first cause) in the message.
 */
export function expectPassed(outcome: VerifyOutcome, what: string): void {
  const failed = failures(outcome);
  const cause = outcome.report?.firstCause;
  const why = `${what}: ${outcome.error ?? (cause ? `first cause: ${cause.summary}: ${cause.fix}` : JSON.stringify(failed, null, 2))}`;
  expect.soft(cause, why).toBeUndefined();
  expect.soft(failed, why).toEqual({});
  expect.soft(outcome.report?.summary.failed, why).toBe(0);
  expect.soft(outcome.report?.summary.blocked, why).toBe(0);
  expect.soft(outcome.exitCode, why).toBe(0);
}
