import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { type LoadFlags, runLoadCommand } from '../../src/cli/commands/load.ts';
import { dialectOf, loadConfig } from '../../src/config/index.ts';
import { PROFILE_KEY_NOTE } from '../../src/config/load.ts';
import { builtinDialect } from '../../src/dialects/index.ts';
import { DEFAULT_MIX, ExportError } from '../../src/load/index.ts';
import { k6Script } from '../../src/load/k6.ts';

/**
 * What `--export k6` cannot write is refused as a usage error naming the dialect and why (exit 2,
 * no stack trace): a wire signed with aggmock's header schemes (`default`), and a dialect
 * that signs through a hooks module (examples/dialects/evoplay.json), which a k6 script cannot load.
 * The vendor dialects it can write are proven signature by signature in k6.test.ts.
 */

const dir = mkdtempSync(join(tmpdir(), 'aggmock-export-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const EVOPLAY = fileURLToPath(new URL('../../examples/dialects/evoplay.json', import.meta.url));

async function load(flags: LoadFlags): Promise<{ code: number; err: string }> {
  let err = '';
  const code = await runLoadCommand(undefined, flags, {
    stdout: () => {},
    stderr: (t) => {
      err += t;
    },
    env: {},
    cwd: dir,
    tty: false,
  });
  return { code, err };
}

const options = (dialect: ReturnType<typeof builtinDialect>) => ({
  dialect,
  dialectName: dialect.name,
  credentials: {},
  url: 'http://x.invalid',
  schedule: { startRate: 1, stages: [{ durationMs: 1000, rate: 1 }] },
  players: ['p1'],
  mix: DEFAULT_MIX,
  stakeMinor: 100,
  currency: 'EUR',
  out: dir,
});

describe('--export k6 refuses what a k6 script cannot sign', () => {
  it("the default wire (aggmock's header schemes): exit 2 with the reason; a vendor dialect and unsigned betnex are written", async () => {
    for (const flags of [{}, { dialect: 'default' }]) {
      const refused = await load({ rate: '1', duration: '1s', export: 'k6', out: 'k6', ...flags });
      expect(refused.code).toBe(2);
      expect(refused.err).toMatch(/^aggmock load: --export k6: the default wire signs with aggmock's header schemes/);
    }
    for (const dialect of ['softswiss', 'betnex'])
      expect(await load({ rate: '1', duration: '1s', export: 'k6', out: 'k6', dialect })).toEqual({ code: 0, err: '' });
  });

  it('a dialect that signs through a hooks module', () => {
    const config = loadConfig({
      flags: { callbacks: { profile: EVOPLAY } },
      cwd: dir,
      env: { AGGMOCK_ALLOW_HOOKS: '1' },
    });
    const evoplay = dialectOf(config.callbacks);
    expect(() => k6Script(options(evoplay))).toThrow(ExportError);
    expect(() => k6Script(options(evoplay))).toThrow('signs through a hooks module, which a k6 script cannot load');
    expect(() => k6Script(options(builtinDialect('hub88')))).not.toThrow();
  });
});

/**
 * `aggmock load --dialect <name>` sets callbacks.dialect, as every other command's --dialect does: it
 * prints no deprecation note about callbacks.profile, which the user never wrote. A config file that
 * does use the old key still gets the note, on the command's stderr.
 */
describe('aggmock load --dialect', () => {
  it('names the wire as callbacks.dialect: no deprecation note', async () => {
    const run = await load({ rate: '1', duration: '1s', export: 'k6', out: 'k6', dialect: 'softswiss' });
    expect(run).toEqual({ code: 0, err: '' });
  });

  it('an unknown dialect is refused naming --dialect', async () => {
    const run = await load({ rate: '1', duration: '1s', export: 'k6', out: 'k6', dialect: 'nosuchvendor' });
    expect(run.code).toBe(2);
    expect(run.err).toMatch(/--dialect/);
  });

  it('a config file under the old key callbacks.profile still gets the note', async () => {
    const config = join(dir, 'old-key.json');
    writeFileSync(config, JSON.stringify({ callbacks: { profile: 'softswiss' } }));
    const run = await load({ rate: '1', duration: '1s', export: 'k6', out: 'k6', config });
    expect(run).toEqual({ code: 0, err: `${PROFILE_KEY_NOTE}\n` });
  });
});
