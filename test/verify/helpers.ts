import { once } from 'node:events';
import { createServer, type IncomingMessage, request, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'vitest';
import { type AggmockConfig, type AggmockConfigInput, configSchema } from '../../src/config/index.ts';
import { DEEP_CHECK_IDS } from '../../src/verify/checks/index.ts';
import {
  CHECK_IDS,
  checksFor,
  type ResultEntry,
  type RunVerifyOptions,
  runVerify,
  type VerifyOutcome,
} from '../../src/verify/index.ts';
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
 * The checks the default wire cannot express (no endRound call, no API key…): its reports list them as not applicable.
 * (The deep checks run only when asked for, and are not listed otherwise.)
 */
export const DEFAULT_NOT_APPLICABLE: string[] = CHECK_IDS.filter(
  (id) => !DEFAULT_CHECK_IDS.includes(id) && !DEEP_CHECK_IDS.includes(id),
);

/** The skipped rows of checks the wire cannot express ("not run: the default dialect has no endRound call"). */
export function notApplicableIds(outcome: VerifyOutcome): string[] {
  return (outcome.report?.results ?? [])
    .filter((r) => r.status === 'skip' && /^not run: the \S+ dialect /.test(r.reason ?? ''))
    .map((r) => r.id);
}

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

/**
 * The reference wallet behind a front that forwards the first `answered` callbacks and then holds
 * every later one open without a byte: a webhook that stops answering in the middle of a run.
 */
/** One GET to a URL, whatever it answers (a fresh server's first answer is its slowest). */
export async function warmUp(url: string): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const get = request(url, { method: 'GET' }, (res) => {
      res.resume();
      res.on('end', resolve);
    });
    get.on('error', reject);
    get.end();
  });
}

export async function stopsAnsweringAfter(
  wallet: RunningWallet,
  answered: number,
): Promise<{ url: string; close: () => Promise<void> }> {
  let seen = 0;
  const held = new Set<ServerResponse>();
  const server = createServer(async (req, res) => {
    seen += 1;
    if (seen > answered) {
      held.add(res);
      return;
    }
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const headers = Object.fromEntries(
      Object.entries(req.headers).filter((e): e is [string, string] => typeof e[1] === 'string' && e[0] !== 'host'),
    );
    // node:http, not fetch: fetch's first call in a process loads undici, which alone can outlast
    // the 100 ms timeouts these tests give verify.
    const reply = await new Promise<IncomingMessage>((resolve, reject) => {
      const forward = request(wallet.webhookUrl, { method: 'POST', headers }, resolve);
      forward.on('error', reject);
      forward.end(Buffer.concat(chunks));
    });
    const body: Buffer[] = [];
    for await (const c of reply) body.push(c as Buffer);
    res.writeHead(reply.statusCode ?? 502, { 'content-type': reply.headers['content-type'] ?? 'application/json' });
    res.end(Buffer.concat(body));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/callback/webhook`,
    close: async () => {
      for (const res of held) res.destroy();
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}
