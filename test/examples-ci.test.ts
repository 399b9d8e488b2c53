import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { BIN, freePort, runCli } from './cli/process.ts';

/** The CI examples in examples/ci run what they say: their aggmock commands and flags exist, and the GitLab script passes. */
const root = fileURLToPath(new URL('..', import.meta.url));
const FILES = ['examples/ci/github-actions.yml', 'examples/ci/gitlab-ci.yml'];
const text = (file: string) => readFileSync(join(root, file), 'utf8');

describe('examples/ci', () => {
  it.each(FILES)(
    '%s uses only aggmock commands and flags that exist, and publishes the JUnit file verify writes',
    async (file) => {
      const commands = [...text(file).matchAll(/npx aggmock (\w+)([^\n]*)/g)];
      expect(commands.map((m) => m[1])).toEqual(['wallet', 'verify']);
      for (const [, command, rest] of commands) {
        const help = runCli([command as string, '--help']);
        expect(await help.exited).toBe(0);
        for (const flag of (rest as string).match(/--[a-z-]+/g) ?? [])
          expect(help.stdout(), `${command} ${flag}`).toContain(flag);
      }
      const reportDir = /--report-dir (\S+)/.exec(text(file))?.[1];
      expect(text(file)).toContain(`${reportDir}/junit.xml`);
    },
  );

  it('the GitLab script, run as written (with this checkout as aggmock and a free port), passes and writes junit.xml', async () => {
    const port = String(await freePort());
    const yml = text('examples/ci/gitlab-ci.yml');
    const variables = Object.fromEntries(
      [...yml.matchAll(/^ {4}([A-Z_]+): '?([^'\n]+)'?$/gm)].map((m) => [m[1], (m[2] as string).replace('4001', port)]),
    );
    const script = [...yml.matchAll(/^ {4}- (.+)$/gm)]
      .map((m) => m[1] as string)
      .filter((line) => line !== 'npm ci')
      .map((line) => line.replaceAll('npx aggmock', `node ${JSON.stringify(BIN)}`).replaceAll('4001', port));
    const cwd = mkdtempSync(join(tmpdir(), 'aggmock-gitlab-'));
    // The wallet the script starts in the background is stopped by its PID when the script ends.
    const shell = `set -e\n${script.join('\n')}\nkill $! 2>/dev/null || true\n`;
    await promisify(execFile)('bash', ['-c', shell], { cwd, env: { ...process.env, ...variables }, timeout: 90_000 });
    expect(existsSync(join(cwd, 'reports', 'verify', 'junit.xml'))).toBe(true);
    expect(readFileSync(join(cwd, 'reports', 'verify', 'junit.xml'), 'utf8')).toMatch(/failures="0"/);
  }, 120_000);
});
