import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from './process.ts';

describe('aggmock serve (a real process)', () => {
  it('prints the URLs and dev credentials, serves the API, and shuts down cleanly on Ctrl-C', async () => {
    const cli = runCli(['serve', '--port', '0', '--db', ':memory:', '--seed', '7']);
    try {
      const [, url] = await cli.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+)[\s\S]*Press Ctrl-C to stop/);
      expect(cli.stdout()).toContain('aggmock-dev-key');
      expect(cli.stdout()).toContain('aggmock-dev-secret');
      const res = await fetch(`${url}/getallproviders`, { headers: { 'x-betnex-key': 'aggmock-dev-key' } });
      expect(res.status).toBe(200);
    } finally {
      expect(await cli.stop('SIGINT')).toBe(0);
    }
  });

  it('published at a public --public-url behind a proxy (loopback bind): warns, generates a token, and the admin API wants it', async () => {
    const cli = runCli(['serve', '--port', '0', '--db', ':memory:', '--public-url', 'https://demo.example.test']);
    try {
      const [, url] = await cli.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+)[\s\S]*Press Ctrl-C to stop/);
      expect(cli.stderr()).toContain('WARNING: aggmock is published at https://demo.example.test');
      const token = /Admin token \(generated[^:]*: ([\w-]+)/.exec(cli.stderr())?.[1];
      expect(token).toMatch(/^[\w-]{32}$/);
      // The proxy forwards the public name as Host.
      const anonymous = await fetch(`${url}/__admin/ledger`, { headers: { host: 'demo.example.test' } });
      expect(anonymous.status).toBe(401);
      const authorized = await fetch(`${url}/__admin/ledger`, {
        headers: { host: 'demo.example.test', authorization: `Bearer ${token}` },
      });
      expect(authorized.status).toBe(200);
    } finally {
      expect(await cli.stop('SIGINT')).toBe(0);
    }
  });

  it('exits 2 naming the key, value and expectation for a bad config value', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'aggmock-cli-'));
    writeFileSync(join(dir, 'bad.json'), JSON.stringify({ callbacks: { concurrency: 0 } }));
    const cli = runCli(['serve', '--config', join(dir, 'bad.json'), '--port', '0']);
    expect(await cli.exited).toBe(2);
    expect(cli.stderr()).toMatch(/callbacks\.concurrency: .*>=1.*\(got 0\)/);
  });

  it('exits 2 naming the schedule entry when it needs a ROLLBACK the profile does not have', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'aggmock-cli-'));
    const schedule = [
      { scenario: 'bet-win', every: '2s' },
      { scenario: 'rollback-unknown', every: '5s' },
    ];
    writeFileSync(join(dir, 'betnex.json'), JSON.stringify({ callbacks: { profile: 'betnex' }, schedule }));
    const cli = runCli(['demo', '--config', join(dir, 'betnex.json'), '--port', '0', '--wallet-port', '0', '--db', ':memory:']);
    expect(await cli.exited).toBe(2);
    expect(cli.stderr()).toMatch(
      /schedule\.1\.scenario: the "rollback-unknown" scenario sends a ROLLBACK, and the "betnex" profile/,
    );
  });

  it('rejects a bad --port before starting', async () => {
    const cli = runCli(['serve', '--port', 'eighty']);
    expect(await cli.exited).toBe(2);
    expect(cli.stderr()).toMatch(/--port.*expected a port from 0 to 65535, got "eighty"/);
  });

  it('exits 2 for an unknown option or command, and 0 for --help and --version', async () => {
    expect(await runCli(['serve', '--frobnicate']).exited).toBe(2);
    expect(await runCli(['frobnicate']).exited).toBe(2);
    expect(await runCli(['--version']).exited).toBe(0);
  });

  it('prints help for every option', async () => {
    const cli = runCli(['serve', '--help']);
    expect(await cli.exited).toBe(0);
    for (const flag of ['--port', '--host', '--seed', '--config', '--db', '--webhook', '--public-url'])
      expect(cli.stdout()).toContain(flag);
  });
});
