import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from './process.ts';

describe('aggmock demo (a real process)', () => {
  it('starts both sides, shows callbacks flowing within seconds with zero discrepancies, and stops on Ctrl-C', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'aggmock-demo-'));
    const cli = runCli(['demo', '--port', '0', '--wallet-port', '0', '--db', join(dir, 'aggmock.db')]);
    try {
      const [, url] = await cli.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+)[\s\S]*Press Ctrl-C to stop/);
      expect(cli.stdout()).toMatch(/reference wallet, players p1, p2/);
      // Each banner line once: the demo adds to the serve banner, it does not repeat it.
      const banner = cli.stdout().slice(0, cli.stdout().indexOf('Press Ctrl-C'));
      for (const label of ['admin', 'schedule', 'wallet', 'callbacks'])
        expect(banner.match(new RegExp(`^  ${label} `, 'gm'))).toHaveLength(1);
      // A line per callback: time, type, player, amount, status, the balance the wallet replied.
      await cli.waitFor(/(\d\d:\d\d:\d\d {2}bet +p\d+ +\d+\.\d\d {2}delivered +balance \d+\.\d\d[^\n]*\n[\s\S]*){3}/, 20_000);
      await cli.waitFor(/win +p\d+ +\d+\.\d\d {2}delivered +balance/, 20_000);

      const deliveries = (await (await fetch(`${url}/__admin/deliveries?status=delivered`)).json()) as { deliveries: unknown[] };
      expect(deliveries.deliveries.length).toBeGreaterThanOrEqual(4);
      const discrepancies = (await (await fetch(`${url}/__admin/discrepancies`)).json()) as { discrepancies: unknown[] };
      expect(discrepancies.discrepancies).toEqual([]);
      expect(cli.stdout()).not.toContain('discrepancy');
    } finally {
      expect(await cli.stop('SIGINT')).toBe(0);
    }
    expect(cli.stdout()).toContain('shutting down');
  }, 60_000);
});
