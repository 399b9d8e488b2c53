import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from './process.ts';

/** The start-up banner says where callbacks go, how they are signed and where aggmock writes. */
async function banner(args: string[], env: NodeJS.ProcessEnv = {}, cwd?: string): Promise<string> {
  const cli = runCli(['serve', '--port', '0', ...args], env, cwd);
  try {
    await cli.waitFor(/Press Ctrl-C to stop/);
    return cli.stdout();
  } finally {
    expect(await cli.stop('SIGTERM')).toBe(0);
  }
}

describe('the serve banner (a real process)', () => {
  it('shows the callback URL, the signing scheme and header, the dev credentials and the default data folder', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'aggmock-banner-'));
    const out = await banner(['--webhook', 'http://127.0.0.1:9/hook'], {}, cwd);
    expect(out).toMatch(
      /^ {2}callbacks {3}→ http:\/\/127\.0\.0\.1:9\/hook, signed timestamped \(HMAC-SHA256\) in X-Signature with secret aggmock-dev-secret$/m,
    );
    expect(out).toContain('x-betnex-key: aggmock-dev-key');
    expect(out).toMatch(new RegExp(`^ {2}data {8}${join(cwd, '.aggmock')}/ {3}\\(database aggmock\\.db\\)$`, 'm'));
    expect(existsSync(join(cwd, '.aggmock', 'aggmock.db'))).toBe(true);
  });

  it('masks secrets and keys that are not the built-in development defaults, and names a configured data folder', async () => {
    const dataDir = join(mkdtempSync(join(tmpdir(), 'aggmock-banner-')), 'state');
    const env = {
      AGGMOCK_SECRET: 'not-for-your-eyes',
      AGGMOCK_API_KEY: 'team-key-123',
      AGGMOCK_CALLBACKS__SIGNING__SCHEME: 'standard-webhooks',
    };
    const out = await banner(['--data-dir', dataDir], env);
    expect(out).not.toContain('not-for-your-eyes');
    expect(out).not.toContain('team-key-123');
    expect(out).toContain('x-betnex-key: ******** (12 characters, masked)');
    expect(out).toMatch(
      /signed standard-webhooks \(HMAC-SHA256\) in webhook-id, webhook-timestamp, webhook-signature with secret \*{8} \(17 characters, masked\)/,
    );
    expect(out).toContain(`${dataDir}/   (database aggmock.db)`);
    expect(existsSync(join(dataDir, 'aggmock.db'))).toBe(true);
  });

  it('says when nothing is written to disk, and where the client’s requests are journaled', async () => {
    const out = await banner(['--db', ':memory:']);
    expect(out).toMatch(/^ {2}data {8}in memory/m);
    expect(out).toMatch(/^ {2}requests {4}http:\/\/127\.0\.0\.1:\d+\/ui\/requests {3}\(every request your client sent/m);
  });
});
