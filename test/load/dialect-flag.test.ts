import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type LoadFlags, runLoadCommand } from '../../src/cli/commands/load.ts';
import { PROFILE_KEY_NOTE } from '../../src/config/load.ts';

/**
 * `aggmock load --dialect <name>` sets callbacks.dialect, as every other command's --dialect does: it
 * prints no deprecation note about callbacks.profile, which the user never wrote. A config file that
 * does use the old key still gets the note, on the command's stderr.
 */
const dir = mkdtempSync(join(tmpdir(), 'aggmock-load-dialect-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function exportK6(flags: LoadFlags): Promise<{ code: number; err: string }> {
  let err = '';
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
  return { code, err };
}

describe('aggmock load --dialect', () => {
  it('names the wire as callbacks.dialect: no deprecation note, and the dialect is the one exported', async () => {
    const run = await exportK6({ dialect: 'softswiss' });
    expect(run).toEqual({ code: 0, err: '' });
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
    expect(run).toEqual({ code: 0, err: `${PROFILE_KEY_NOTE}\n` });
  });
});
