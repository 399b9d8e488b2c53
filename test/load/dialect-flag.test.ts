import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { type LoadFlags, runLoadCommand } from '../../src/cli/commands/load.ts';
import { PROFILE_KEY_NOTE } from '../../src/config/load.ts';

/**
 * `aggmock load --dialect <name>` sets callbacks.dialect, as every other command's --dialect does: it
 * prints no deprecation note about callbacks.profile, which the user never wrote. A config file that
 * does use the old key still gets the note. (The note goes to the process's stderr once per process,
 * so the file-key case runs last.)
 */
const dir = mkdtempSync(join(tmpdir(), 'aggmock-load-dialect-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => vi.restoreAllMocks());

async function exportK6(flags: LoadFlags): Promise<{ code: number; err: string; processErr: string }> {
  let err = '';
  let processErr = '';
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    processErr += String(chunk);
    return true;
  });
  const code = await runLoadCommand(
    undefined,
    { rate: '1', duration: '1s', export: 'k6', out: 'k6', ...flags },
    {
      stdout: () => {},
      stderr: (t) => {
        err += t;
      },
      env: {},
      cwd: dir,
      tty: false,
    },
  );
  return { code, err, processErr };
}

describe('aggmock load --dialect', () => {
  it('names the wire as callbacks.dialect: no deprecation note, and the dialect is the one exported', async () => {
    const run = await exportK6({ dialect: 'softswiss' });
    expect(run).toMatchObject({ code: 0, err: '' });
    expect(run.processErr).not.toContain(PROFILE_KEY_NOTE);
  });

  it('an unknown dialect is refused naming --dialect', async () => {
    const run = await exportK6({ dialect: 'nosuchvendor' });
    expect(run.code).toBe(2);
    expect(run.err).toMatch(/--dialect/);
  });

  it('a config file under the old key callbacks.profile still gets the note', async () => {
    const config = join(dir, 'old-key.json');
    writeFileSync(config, JSON.stringify({ callbacks: { profile: 'softswiss' } }));
    const run = await exportK6({ config });
    expect(run.code).toBe(0);
    expect(run.processErr).toContain(PROFILE_KEY_NOTE);
  });
});
