import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { runCli } from '../cli/process.ts';

/** `aggmock mcp --operator-key <file>` with a file that is not an RSA private key stops at start: exit 2, the file and why. */
describe('aggmock mcp --operator-key', () => {
  it('exits 2 naming the flag, the file and what is wrong, before serving anything', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'aggmock-mcp-key-'));
    const path = join(dir, 'operator.pub.pem');
    writeFileSync(path, 'not a key');
    const cli = runCli(['mcp', '--operator-key', path]);
    onTestFinished(() => void cli.stop());
    expect(await cli.exited).toBe(2);
    expect(cli.stderr()).toBe(
      `aggmock mcp: --operator-key: ${path} is not PEM text: expected "-----BEGIN PRIVATE KEY-----" or "-----BEGIN RSA PRIVATE KEY-----"\n`,
    );
  });
});
