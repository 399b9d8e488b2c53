/**
 * `aggmock verify` finds the first cause before the checks — a wallet that is down or silent, a
 * refused signature, an unknown player, another currency — says it once with the fix, and marks
 * what depends on it BLOCKED (not failed) in every report; the checks that do not depend on it
 * still run. A dead or silent wallet ends the run within about one --timeout.
 */
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { type AddressInfo, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialectOf } from '../../src/config/dialect.ts';
import { defaultConfig } from '../../src/config/index.ts';
import { dialectContracts } from '../../src/contracts/index.ts';
import { runVerify, type VerifyOutcome } from '../../src/verify/index.ts';
import type { RunningWallet } from '../../src/wallet/index.ts';
import {
  config,
  DEFAULT_CHECK_IDS,
  DEFAULT_NOT_APPLICABLE,
  failures,
  idsWith,
  notApplicableIds,
  startReferenceWallet,
  stopsAnsweringAfter,
  verifyWallet,
} from './helpers.ts';

/** The committed contracts: the default wire's. */
const DEFAULT_CONTRACTS = dialectContracts(dialectOf(defaultConfig().callbacks));

/** Every contract interaction and stateful check on the default wire. */
const TOTAL = DEFAULT_CONTRACTS.length + DEFAULT_CHECK_IDS.length;
/** The checks the default wire cannot express, listed as not applicable (skipped, never blocked). */
const NA = DEFAULT_NOT_APPLICABLE.length;
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** Runs verify with the console output and the three report files kept. */
async function verifyWithReports(
  options: Parameters<typeof runVerify>[0],
): Promise<{ outcome: VerifyOutcome; console: string; junit: string; html: string; json: Record<string, unknown> }> {
  const dir = mkdtempSync(join(tmpdir(), 'aggmock-first-cause-'));
  dirs.push(dir);
  let text = '';
  const outcome = await runVerify({ ...options, reportDir: dir, write: (t) => (text += t) });
  return {
    outcome,
    console: text,
    junit: readFileSync(join(dir, 'junit.xml'), 'utf8'),
    html: readFileSync(join(dir, 'report.html'), 'utf8'),
    json: JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')) as Record<string, unknown>,
  };
}

function count(text: string, needle: string): number {
  return text.split(needle).length - 1;
}

/** A port nothing listens on. */
async function deadPort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  server.close();
  await once(server, 'close');
  return port;
}

/** A tarpit: accepts every connection on 127.0.0.1 and never answers a byte. */
async function startTarpit(): Promise<{ url: string; close: () => Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/callback/webhook`,
    close: async () => {
      for (const s of sockets) s.destroy();
      server.close();
      await once(server, 'close');
    },
  };
}

describe('a wrong --secret: one first cause, the rest blocked', () => {
  let wallet: RunningWallet;
  let run: Awaited<ReturnType<typeof verifyWithReports>>;
  let before: (number | undefined)[];
  beforeAll(async () => {
    wallet = await startReferenceWallet();
    before = [wallet.store.balanceOf('p1'), wallet.store.balanceOf('p2')];
    run = await verifyWithReports({ webhookUrl: wallet.webhookUrl, players: ['p1', 'p2'], secrets: ['not-the-wallet-secret'] });
  });
  afterAll(() => wallet.close());

  it('exits 1 with the cause and its fix in the user’s terms', () => {
    expect(run.outcome.exitCode).toBe(1);
    const cause = run.outcome.report?.firstCause;
    expect(cause).toMatchObject({ kind: 'signature', blocks: 'signature' });
    expect(cause?.summary).toBe("the wallet refused aggmock's signature (401 INVALID_SIGNATURE)");
    expect(cause?.fix).toMatch(/pass the secret your wallet verifies with as --secret .*or set callbacks\.signing\.secrets/);
    expect(cause?.exchanges[0]?.response?.status).toBe(401);
  });

  it('fails nothing: every stateful check and every validly signed interaction is blocked by it', () => {
    expect(failures(run.outcome)).toEqual({});
    expect(idsWith(run.outcome, 'blocked')).toEqual([
      'pact:bet-accepted',
      'pact:win-accepted',
      'pact:rollback-restores',
      'pact:duplicate-bet',
      'pact:insufficient-funds',
      'pact:bad-signature',
      ...DEFAULT_CHECK_IDS,
    ]);
    for (const r of run.outcome.report?.results ?? [])
      if (r.status === 'blocked') expect(r.reason).toBe('blocked by the first cause (signature refused): see FIRST CAUSE');
  });

  it('blocks the interaction signed wrong on purpose too: its refusal means nothing while the good signature is refused', () => {
    expect(idsWith(run.outcome, 'pass')).toEqual([]);
  });

  it('says the cause once on the console, with the fix, and BLOCKED on each dependent row', () => {
    expect(count(run.console, "refused aggmock's signature")).toBe(1);
    expect(run.console).toMatch(
      /FIRST CAUSE: the wallet refused aggmock's signature \(401 INVALID_SIGNATURE\)\.\n {2}Fix: pass the secret/,
    );
    expect(run.console).toMatch(/^debit-applies +BLOCKED /m);
    expect(run.console).toContain(
      `FAILED: 0 passed, 0 failed, ${NA} skipped, ${TOTAL} blocked by the first cause above, of ${TOTAL + NA} in`,
    );
    expect(run.console).not.toMatch(/could not read the balance/);
  });

  it('JUnit: one <error> naming the cause, each blocked result a <skipped message="blocked by …">, no <failure>', () => {
    expect(count(run.junit, '<error ')).toBe(1);
    expect(run.junit).toContain('<testcase classname="aggmock.verify.preflight" name="first-cause" time="0.000">');
    expect(run.junit).toContain(
      `<error message="the wallet refused aggmock's signature (401 INVALID_SIGNATURE): pass the secret your wallet verifies with as --secret`,
    );
    expect(count(run.junit, '<skipped message="blocked by the first cause (signature refused): see FIRST CAUSE"/>')).toBe(TOTAL);
    expect(count(run.junit, '<failure ')).toBe(0);
    expect(run.junit).toContain(`failures="0" errors="1" skipped="${TOTAL + NA}"`);
  });

  it('JSON and HTML carry the cause and the blocked status', () => {
    expect(run.json.firstCause).toMatchObject({ kind: 'signature' });
    expect(run.json.summary).toEqual({ total: TOTAL + NA, passed: 0, failed: 0, skipped: NA, blocked: TOTAL });
    expect(run.html).toMatch(/<h1>aggmock verify: FAILED<\/h1>/);
    expect(run.html).toMatch(
      /<section class="failure" id="first-cause"><h3>First cause: the wallet refused aggmock(&#39;|&#x27;)s signature/,
    );
    expect(run.html).toMatch(/<td class="st blocked">BLOCKED<\/td>/);
    expect(run.html).toContain(`<span class="pill blocked">${TOTAL} blocked</span>`);
  });

  it('moves no money', () => {
    expect([wallet.store.balanceOf('p1'), wallet.store.balanceOf('p2')]).toEqual(before);
  });
});

describe('an unknown player', () => {
  let wallet: RunningWallet;
  beforeAll(async () => {
    wallet = await startReferenceWallet();
  });
  afterAll(() => wallet.close());

  it('an unknown main player blocks what uses it; the checks that make up their own players still run and pass', async () => {
    const outcome = await verifyWallet(wallet, 'players', { players: ['nobody-here', 'p2'] });
    expect(outcome.exitCode).toBe(1);
    expect(outcome.report?.firstCause).toMatchObject({
      kind: 'unknown-player',
      blocks: 'player',
      summary: 'the wallet does not know player nobody-here (404 PLAYER_NOT_FOUND)',
    });
    expect(outcome.report?.firstCause?.fix).toMatch(/name players your wallet knows with --players \(now nobody-here,p2\)/);
    expect(failures(outcome)).toEqual({});
    expect(idsWith(outcome, 'pass')).toEqual(['unknown-player', 'malformed-json']);
    expect(idsWith(outcome, 'blocked')).toContain('debit-applies');
  });

  it('an unknown second player blocks only the checks that play two players', async () => {
    const outcome = await verifyWallet(wallet, 'players', { players: ['p1', 'nobody-here'] });
    expect(outcome.exitCode).toBe(1);
    expect(outcome.report?.firstCause).toMatchObject({ kind: 'unknown-player', blocks: 'second-player' });
    expect(failures(outcome)).toEqual({});
    expect(idsWith(outcome, 'blocked').sort()).toEqual(['idempotent-later-retry', 'same-tx-two-players']);
    expect(outcome.report?.summary.passed).toBe((outcome.report?.summary.total ?? 0) - 2 - NA);
  });

  it('a state URL that refuses to set the players up is the first cause, named with its reply', async () => {
    const outcome = await verifyWallet(wallet, 'players', {
      stateUrl: `${wallet.url}/no-such-state-endpoint`,
      only: ['debit-applies', 'unknown-player'],
    });
    expect(outcome.exitCode).toBe(1);
    expect(outcome.report?.firstCause).toMatchObject({
      kind: 'state-url',
      blocks: 'player',
      summary: 'the state URL could not set up player p1',
    });
    expect(outcome.report?.firstCause?.fix).toMatch(/refused state "player p1 has balance 100\.00" with HTTP 404/);
    expect(idsWith(outcome, 'blocked')).toEqual(['debit-applies']);
    expect(idsWith(outcome, 'pass')).toEqual(['unknown-player']);
  });
});

describe('another currency', () => {
  it('a wallet whose players hold USD refuses the EUR verify writes: one first cause naming --currency', async () => {
    const wire = { callbacks: { extraFields: ['currency' as const] } };
    const wallet = await startReferenceWallet({ config: config({ ...wire, wallet: { currency: 'USD' } }) });
    try {
      const outcome = await verifyWallet(wallet, 'players', { config: config(wire) });
      expect(outcome.exitCode).toBe(1);
      expect(outcome.report?.firstCause).toMatchObject({
        kind: 'currency',
        blocks: 'player',
        summary: 'the wallet refused EUR, the currency verify wrote, for player p1 (400 WRONG_CURRENCY)',
      });
      expect(outcome.report?.firstCause?.fix).toMatch(/--currency <code> \(or config callbacks\.currency\)/);
      expect(failures(outcome)).toEqual({});
      expect(idsWith(outcome, 'pass')).toEqual(['unknown-player', 'malformed-json']);
    } finally {
      await wallet.close();
    }
  });
});

// Concurrently: most of these wait out a timeout (10 s, 3 s, 1.5 s, 1 s) on servers of their own,
// so they wait together; only one of them runs the contracts (the Pact child).
describe.concurrent('a wallet that is down, silent or slow: one cause, everything blocked, the run ends within about --timeout', () => {
  function expectAllBlocked(outcome: VerifyOutcome, kind: string): void {
    expect(outcome.exitCode).toBe(1);
    expect(outcome.report?.firstCause).toMatchObject({ kind, blocks: 'answers' });
    const results = outcome.report?.results ?? [];
    expect(results.length).toBe(TOTAL + NA);
    // Everything is blocked but the checks the wire cannot express, which are listed as not applicable.
    expect(results.filter((r) => r.status !== 'blocked').map((r) => r.id)).toEqual(DEFAULT_NOT_APPLICABLE);
    expect(notApplicableIds(outcome)).toEqual(DEFAULT_NOT_APPLICABLE);
  }

  it('connection refused: "nothing answers" with the URL, exit 1 and reports (no longer a usage error)', async () => {
    const port = await deadPort();
    const outcome = await runVerify({ webhookUrl: `http://127.0.0.1:${port}/callback/webhook`, reportDir: false });
    expectAllBlocked(outcome, 'down');
    expect(outcome.report?.firstCause?.summary).toMatch(
      new RegExp(`^nothing answers at http://127\\.0\\.0\\.1:${port}/callback/webhook \\(ECONNREFUSED`),
    );
    expect(outcome.report?.firstCause?.fix).toMatch(/start the wallet, or check the webhook URL/);
  });

  it('a host name that does not resolve: says so', async () => {
    const outcome = await runVerify({ webhookUrl: 'http://wallet.x.invalid/callback/webhook', reportDir: false });
    expectAllBlocked(outcome, 'down');
    expect(outcome.report?.firstCause?.summary).toMatch(/^the wallet's host name does not resolve \((ENOTFOUND|EAI_AGAIN)/);
  });

  it('a tarpit that accepts and never answers: one timeout, and the run ends within 2 × --timeout + 5 s', async () => {
    const tarpit = await startTarpit();
    try {
      const timeoutMs = 1_500;
      const t0 = performance.now();
      const outcome = await runVerify({ webhookUrl: tarpit.url, players: ['p1', 'p2'], timeoutMs, reportDir: false });
      const took = performance.now() - t0;
      expectAllBlocked(outcome, 'timeout');
      expect(outcome.report?.firstCause?.summary).toBe('the wallet did not answer within 1500 ms (--timeout)');
      expect(outcome.report?.firstCause?.exchanges).toHaveLength(1);
      // Generous on purpose (a noisy machine): the point is one timeout, not one per interaction and check.
      expect(took).toBeLessThan(2 * timeoutMs + 5_000);
    } finally {
      await tarpit.close();
    }
  });

  it('a tarpit with the default 10 s timeout: the full verify ends in under 25 s', async () => {
    const tarpit = await startTarpit();
    try {
      const t0 = performance.now();
      const outcome = await runVerify({ webhookUrl: tarpit.url, reportDir: false });
      expectAllBlocked(outcome, 'timeout');
      expect(outcome.report?.firstCause?.summary).toBe('the wallet did not answer within 10000 ms (--timeout)');
      expect(performance.now() - t0).toBeLessThan(25_000);
    } finally {
      await tarpit.close();
    }
  }, 40_000);

  it('a wallet that answers after the timeout: one timeout cause, nothing failed, no money moved', async () => {
    const wallet = await startReferenceWallet({ fault: 'slow', faultOptions: { slowMs: 2_500 } });
    try {
      const before = wallet.store.balanceOf('p1');
      const outcome = await verifyWallet(wallet, 'players', { timeoutMs: 1_000 });
      expectAllBlocked(outcome, 'timeout');
      expect(outcome.report?.firstCause?.fix).toMatch(/raise --timeout if your wallet is slow by design/);
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      expect(wallet.store.balanceOf('p1')).toBe(before);
    } finally {
      await wallet.close();
    }
  });

  it('a wallet that stops answering after the preflight: the contracts wait out one timeout, not one each', async () => {
    const wallet = await startReferenceWallet();
    // The preflight reads p1 twice and p2 once: three answered callbacks, then silence.
    const front = await stopsAnsweringAfter(wallet, 3);
    try {
      const timeoutMs = 3_000;
      const outcome = await runVerify({
        webhookUrl: front.url,
        players: ['p1', 'p2'],
        timeoutMs,
        only: ['pact'],
        reportDir: false,
      });
      expect(outcome.exitCode).toBe(1);
      const results = outcome.report?.results ?? [];
      expect(results.filter((r) => r.status === 'fail')).toHaveLength(DEFAULT_CONTRACTS.length);
      // Only the interaction that met the silence waited for it: the others were answered at once, never sent.
      const notSent = results.filter((r) =>
        /stopped answering \(no answer within 3000 ms, --timeout\) earlier in this run/.test(r.reason ?? ''),
      );
      expect(notSent.length).toBeGreaterThanOrEqual(DEFAULT_CONTRACTS.length - 1);
    } finally {
      await front.close();
      await wallet.close();
    }
  }, 60_000);
});
