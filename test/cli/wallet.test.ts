import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildRequest, builtinDialect, readReply } from '../../src/dialects/index.ts';
import { signPayload } from '../../src/signing/index.ts';
import { runCli } from './process.ts';

async function debit(url: string, tx: string, amount: number) {
  const body = JSON.stringify({ type: 'DEBIT', transactionId: tx, amount, playerId: 'p1' });
  const headers = signPayload({ scheme: 'timestamped', secrets: ['aggmock-dev-secret'], payload: body });
  const res = await fetch(url, { method: 'POST', body, headers: { ...headers, 'content-type': 'application/json' } });
  return { status: res.status, body: (await res.json()) as { balance?: number; error?: string } };
}

describe('aggmock wallet (a real process)', () => {
  it('serves the reference webhook with p1…p10 at 1000.00 and stops on Ctrl-C', async () => {
    const cli = runCli(['wallet', '--port', '0', '--db', ':memory:', '--test-endpoints']);
    try {
      const [, url] = await cli.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+\/callback\/webhook)[\s\S]*Press Ctrl-C to stop/);
      expect(await debit(url!, 'tx-1', 10.5)).toEqual({ status: 200, body: { balance: 989.5 } });
      expect(await debit(url!, 'tx-1', 10.5)).toEqual({ status: 200, body: { balance: 989.5 } });
      const player = await (await fetch(new URL('/__players/p1', url))).json();
      expect(player).toMatchObject({ playerId: 'p1', balance: 989.5 });
    } finally {
      expect(await cli.stop('SIGINT')).toBe(0);
    }
  });

  it('runs a deliberately broken wallet with --fault and says so', async () => {
    const cli = runCli(['wallet', '--port', '0', '--db', ':memory:', '--fault', 'double-debit']);
    try {
      const [, url] = await cli.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+\/callback\/webhook)[\s\S]*Press Ctrl-C to stop/);
      expect(cli.stdout()).toContain('FAULT       double-debit');
      await debit(url!, 'tx-1', 10);
      expect((await debit(url!, 'tx-1', 10)).body.balance).toBe(980);
    } finally {
      await cli.stop('SIGINT');
    }
  });

  it('speaks the betnex profile: api_key in the body, {success, msg, handle, money} replies, players in their currency', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'aggmock-wallet-'));
    const config = {
      callbacks: { profile: 'betnex', apiKey: 'operator-key' },
      wallet: { players: { p1: 100, jp: { balance: 5000, currency: 'JPY' } } },
    };
    writeFileSync(join(dir, 'betnex.json'), JSON.stringify(config));
    const cli = runCli(['wallet', '--config', join(dir, 'betnex.json'), '--port', '0', '--db', ':memory:']);
    try {
      const [, url] = await cli.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+\/callback\/webhook)[\s\S]*Press Ctrl-C to stop/);
      expect(cli.stdout()).toContain('p1=100.00, jp=5000 JPY');
      // A configured key is masked in the banner like serve's (only the public development default shows).
      expect(cli.stdout()).toContain('api key     ******** (12 characters, masked) in the body (dialect betnex, no signature)');
      expect(cli.stdout()).not.toContain('operator-key');
      const round = (api_key: string, member_account = 'p1', currency_code = 'EUR') =>
        fetch(url!, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            bet_amount: 10,
            win_amount: 0,
            member_account,
            serial_number: `s-${api_key}`,
            currency_code,
            api_key,
          }),
        }).then(async (r) => ({ status: r.status, body: await r.json() }));
      expect(await round('operator-key')).toEqual({
        status: 200,
        body: { success: true, msg: 'success', handle: true, money: 90 },
      });
      expect(await round('wrong-key')).toMatchObject({ status: 200, body: { success: false, handle: false, money: 0 } });
      expect((await round('operator-key', 'jp', 'EUR')).body).toMatchObject({ success: false, money: 0 });
    } finally {
      expect(await cli.stop('SIGINT')).toBe(0);
    }
  });

  it('speaks a vendor dialect with --profile: its paths under the base URL, its signature, its replies', async () => {
    const cli = runCli(['wallet', '--profile', 'pragmatic', '--port', '0', '--db', ':memory:']);
    try {
      const [, url] = await cli.waitFor(
        /listening on (http:\/\/127\.0\.0\.1:\d+) \(base URL of the pragmatic dialect\)[\s\S]*Press Ctrl-C to stop/,
      );
      expect(cli.stdout()).toContain('bet POST /bet.html');
      expect(cli.stdout()).toContain('credentials secretKey (development default)');
      const pragmatic = builtinDialect('pragmatic');
      const facts = {
        operation: 'bet' as const,
        playerId: 'p1',
        currency: 'EUR',
        transactionId: 'tx-1',
        roundId: '7',
        amountMinor: 1050,
        createdAt: Date.now(),
      };
      const req = buildRequest(pragmatic, facts, { secretKey: 'testKey' });
      const res = await fetch(`${url}${req.path}`, { method: req.method, headers: req.headers, body: req.body ?? null });
      expect(readReply(pragmatic, facts, { status: res.status, text: await res.text() })).toMatchObject({
        verdict: 'accepted',
        balance: { kind: 'ok', minor: 98_950 },
      });
    } finally {
      expect(await cli.stop('SIGINT')).toBe(0);
    }
  });

  it('tells where the public key of an RSA dialect is', async () => {
    const cli = runCli(['wallet', '--profile', 'hub88', '--port', '0', '--db', ':memory:']);
    try {
      await cli.waitFor(/Press Ctrl-C to stop/);
      expect(cli.stdout()).toContain('rsa-sha256 with the public key of privateKey (print it: aggmock profiles show hub88)');
    } finally {
      await cli.stop('SIGINT');
    }
  });

  it('refuses an unknown fault with the list of faults', async () => {
    const cli = runCli(['wallet', '--fault', 'gremlins']);
    expect(await cli.exited).not.toBe(0);
    expect(cli.stderr()).toMatch(/gremlins.*double-debit/s);
  });
});
