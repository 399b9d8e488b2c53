import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runVerifyCommand } from '../../src/cli/commands/verify.ts';
import { dialectOf } from '../../src/config/dialect.ts';
import { defaultConfig } from '../../src/config/index.ts';
import { dialectContracts } from '../../src/contracts/index.ts';
import { runVerify } from '../../src/verify/index.ts';
import { createWallet, type RunningWallet } from '../../src/wallet/index.ts';
import { config, failures, idsWith, notApplicableIds, startReferenceWallet, verifyWallet } from './helpers.ts';

/** The committed contracts: the default wire's. */
const DEFAULT_CONTRACTS = dialectContracts(dialectOf(defaultConfig().callbacks));

/** A port nothing listens on. */
async function deadPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('usage errors exit 2 with a message that says what to fix', () => {
  let wallet: RunningWallet;
  beforeAll(async () => {
    wallet = await startReferenceWallet();
  });
  afterAll(() => wallet.close());

  it('refuses an unknown check id and lists the known ones', async () => {
    const outcome = await verifyWallet(wallet, 'state', { only: ['idempotent-debti'] });
    expect(outcome.exitCode).toBe(2);
    expect(outcome.error).toMatch(/--only: unknown check id "idempotent-debti"\. Known ids: .*idempotent-debit/);
  });

  it('refuses an unreachable state URL', async () => {
    const port = await deadPort();
    const outcome = await verifyWallet(wallet, 'players', { stateUrl: `http://127.0.0.1:${port}/__state` });
    expect(outcome.exitCode).toBe(2);
    expect(outcome.error).toMatch(/the state URL .* is not reachable/);
  });

  it('refuses a URL that is not http(s), and bad numbers, naming the flag', async () => {
    const lines: string[] = [];
    const io = { stdout: (t: string) => lines.push(t), stderr: (t: string) => lines.push(t), env: {} };
    expect((await runVerifyCommand('ftp://example.com/hook', {}, io)).exitCode).toBe(2);
    expect((await runVerifyCommand(wallet.webhookUrl, { timeout: 'soon' }, io)).exitCode).toBe(2);
    expect((await runVerifyCommand(wallet.webhookUrl, { concurrency: '1', reports: false }, io)).exitCode).toBe(2);
    expect(lines.join('')).toMatch(/expected an http or https URL, got "ftp:\/\/example.com\/hook"/);
    expect(lines.join('')).toMatch(/--timeout: expected milliseconds or a duration such as "2s", got "soon"/);
    expect(lines.join('')).toMatch(/--concurrency: expected at least 2 parallel DEBITs, got 1/);
  });
});

describe('webhook shapes other than the default', () => {
  it('verifies a wallet configured for BET/WIN/REFUND, reference rollbacks, minor amounts and standard-webhooks signatures', async () => {
    const custom = config({
      callbacks: {
        types: { debit: 'BET', credit: 'WIN', rollback: 'REFUND' },
        rollbackStyle: 'reference',
        amountFormat: 'minor',
        signing: { scheme: 'standard-webhooks', secrets: ['whsec_c2VjcmV0LWZvci10aGUtdGVzdA=='] },
      },
    });
    const wallet = await startReferenceWallet({ config: custom });
    try {
      const outcome = await verifyWallet(wallet, 'state', { config: custom });
      expect(failures(outcome)).toEqual({});
      expect(idsWith(outcome, 'pass')).toHaveLength((outcome.report?.results.length ?? -1) - notApplicableIds(outcome).length);
      // The contracts were generated for that wire: the bodies carry the configured type strings.
      const sent = outcome.report?.results.flatMap((r) => r.exchanges.map((x) => x.request.body)) ?? [];
      expect(sent.some((b) => b.includes('"type":"REFUND"') && b.includes('referenceTransactionId'))).toBe(true);
    } finally {
      await wallet.close();
    }
  });

  it('catches a secret mismatch: the refused signature is the first cause, the checks that need it are blocked', async () => {
    const wallet = await startReferenceWallet();
    try {
      const outcome = await verifyWallet(wallet, 'players', {
        secrets: ['not-the-wallet-secret'],
        only: ['debit-applies', 'missing-signature'],
      });
      expect(outcome.exitCode).toBe(1);
      expect(outcome.report?.firstCause?.summary).toMatch(/INVALID_SIGNATURE/);
      expect(idsWith(outcome, 'blocked')).toEqual(['debit-applies', 'missing-signature']);
    } finally {
      await wallet.close();
    }
  });

  it('rewrites the contracts’ path when the webhook lives elsewhere (/api/wallet/callback/webhook)', async () => {
    const wallet = createWallet({ config: config(), dbPath: ':memory:', testEndpoints: true });
    const app = new Hono().route('/api/wallet', wallet.app);
    const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
      const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
    });
    const { port } = server.address() as AddressInfo;
    try {
      const base = `http://127.0.0.1:${port}/api/wallet`;
      const outcome = await runVerify({
        webhookUrl: `${base}/callback/webhook`,
        stateUrl: `${base}/__state`,
        reportDir: false,
        only: ['pact', 'debit-applies'],
      });
      expect(failures(outcome)).toEqual({});
      expect(idsWith(outcome, 'pass')).toEqual([...DEFAULT_CONTRACTS.map((i) => `pact:${i.id}`), 'debit-applies']);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      wallet.close();
    }
  });
});

describe('reports', () => {
  const dir = mkdtempSync(join(tmpdir(), 'aggmock-verify-reports-'));
  let wallet: RunningWallet;
  beforeAll(async () => {
    wallet = await startReferenceWallet({ fault: 'double-debit' });
    await verifyWallet(wallet, 'state', {
      reportDir: dir,
      only: ['pact:bet-accepted', 'idempotent-debit', 'debit-applies', 'stale-timestamp'],
      skip: [],
    });
  });
  afterAll(async () => {
    await wallet.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('writes JUnit XML with one testcase per check and per pact interaction, the failure carrying the rule, the reason and the hint', () => {
    const xml = readFileSync(join(dir, 'junit.xml'), 'utf8');
    expect(xml).toMatch(/^<\?xml version="1.0" encoding="UTF-8"\?>/);
    expect(xml.match(/<testcase /g)).toHaveLength(4);
    expect(xml).toContain('<testcase classname="aggmock.verify.pact" name="pact:bet-accepted"');
    expect(xml).toMatch(/<testsuite name="aggmock verify: stateful checks" tests="3" failures="1"/);
    expect(xml).toMatch(
      /<testcase classname="aggmock.verify.check" name="idempotent-debit" time="[\d.]+">\s*<failure message="the repeated DEBIT must get the first reply again/,
    );
    expect(xml).toContain('How to fix: Store every transaction under (playerId, type, transactionId)');
    expect(xml).toContain('{&quot;balance&quot;:99}');
  });

  it('writes report.json with the summary and every exchange of each check', () => {
    const report = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8'));
    expect(report.summary).toEqual({ total: 4, passed: 3, failed: 1, skipped: 0, blocked: 0 });
    const check = report.results.find((r: { id: string }) => r.id === 'idempotent-debit');
    expect(check.exchanges.map((x: { label: string }) => x.label)).toContain('DEBIT 1.00 (first time)');
    expect(check.exchanges[1].response.status).toBe(200);
  });

  it('writes one self-contained HTML page showing every request and reply of the failing check', () => {
    const html = readFileSync(join(dir, 'report.html'), 'utf8');
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).not.toMatch(/<script|<link|src="http|href="http|@import/);
    expect(html).toContain('<section class="failure" id="r-idempotent-debit">');
    const section = html.slice(
      html.indexOf('id="r-idempotent-debit"'),
      html.indexOf('</section>', html.indexOf('id="r-idempotent-debit"')),
    );
    expect(section).toContain('the same DEBIT again (same transactionId');
    expect(section).toContain('X-Signature: t=');
    // 100 − the DEBIT, + the CREDIT of 0.01 sent between it and its repeat, − the DEBIT charged again.
    expect(section).toContain('{&quot;balance&quot;:98.01}');
    expect(section).toContain('How to fix:');
  });
});

describe('players the balance cannot be read of (players mode)', () => {
  it('reports an unknown player once, as the first cause, and blocks what needs it, instead of crashing', async () => {
    const wallet = await startReferenceWallet();
    try {
      const outcome = await verifyWallet(wallet, 'players', {
        players: ['nobody'],
        only: ['pact:bet-accepted', 'debit-applies'],
      });
      expect(outcome.exitCode).toBe(1);
      expect(failures(outcome)).toEqual({});
      expect(idsWith(outcome, 'blocked')).toEqual(['pact:bet-accepted', 'debit-applies']);
      expect(outcome.report?.firstCause?.summary).toBe('the wallet does not know player nobody (404 PLAYER_NOT_FOUND)');
    } finally {
      await wallet.close();
    }
  });

  it('passes a wallet whose players hold JPY once callbacks.currency is JPY, and names the setting when it is not', async () => {
    const walletConfig = config({ wallet: { players: { jp: { balance: 5000, currency: 'JPY' } } } });
    const wallet = await startReferenceWallet({ config: walletConfig });
    try {
      const yen = await verifyWallet(wallet, 'players', { players: ['jp'], config: config({ callbacks: { currency: 'JPY' } }) });
      expect(failures(yen)).toEqual({});
      expect(yen.exitCode).toBe(0);
      expect(idsWith(yen, 'pass').length).toBeGreaterThan(30);

      const euro = await verifyWallet(wallet, 'players', { players: ['jp'], only: ['debit-applies'] });
      expect(euro.exitCode).toBe(1);
      expect(idsWith(euro, 'blocked')).toEqual(['debit-applies']);
      expect(euro.report?.firstCause?.fix).toMatch(
        /not holding EUR, the currency verify writes amounts in\?\).*say which \(--currency JPY, or config callbacks\.currency\)/,
      );
      // The flag says the same as the config key; an unknown code is a usage error naming it.
      const lines: string[] = [];
      const io = { stdout: (t: string) => lines.push(t), stderr: (t: string) => lines.push(t), env: {} };
      const flagged = await runVerifyCommand(
        wallet.webhookUrl,
        { players: 'jp', currency: 'JPY', only: 'debit-applies,pact:bet-accepted', reports: false },
        io,
      );
      expect(flagged.exitCode).toBe(0);
      expect(idsWith(flagged, 'pass').sort()).toEqual(['debit-applies', 'pact:bet-accepted']);
      const lowerCase = await runVerifyCommand(wallet.webhookUrl, { players: 'jp', currency: 'jpy', reports: false }, io);
      expect(lowerCase.exitCode).toBe(2);
      expect(lines.join('')).toMatch(
        /callbacks\.currency.*expected an ISO 4217 code in capitals such as "EUR" or "JPY".*got "jpy"/,
      );
      // Nothing was taken from the player by the attempts.
      const after = (await (await fetch(`${wallet.url}/__players/jp`)).json()) as { balance: number };
      expect(after.balance).toBe(5000);
    } finally {
      await wallet.close();
    }
  });
});
