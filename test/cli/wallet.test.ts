import { describe, expect, it } from 'vitest';
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

  it('refuses an unknown fault with the list of faults', async () => {
    const cli = runCli(['wallet', '--fault', 'gremlins']);
    expect(await cli.exited).not.toBe(0);
    expect(cli.stderr()).toMatch(/gremlins.*double-debit/s);
  });
});
