import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/index.ts';
import { loadedHooks } from '../../src/dialects/index.ts';
import { runCli } from '../cli/process.ts';

/**
 * M-3 (review 2026-11-27, tools/repro-hooks.sh): a dialect file's hooks module ran as soon as any
 * command read the config — `profiles`, `contracts`, any command in a folder whose
 * aggmock.config.json named the dialect — with no opt-in and no notice. Hooks load now only with
 * --allow-hooks or AGGMOCK_ALLOW_HOOKS=1, never for a read-only command, only from the dialect
 * file's own folder, and the run names the module and its sha256.
 */
const EXAMPLE = fileURLToPath(new URL('../../examples/dialects/evoplay.json', import.meta.url));
const HOOKS = fileURLToPath(new URL('../../examples/dialects/evoplay-hooks.mjs', import.meta.url));

/** A folder holding the evoplay dialect, its hooks module writing `marker` when imported, and that marker's path. */
function sharedDialect(hooks = './evoplay-hooks.mjs'): { dir: string; dialect: string; marker: string; module: string } {
  const dir = mkdtempSync(join(tmpdir(), 'aggmock-hooks-optin-'));
  const marker = join(dir, 'hooks-ran');
  const module = join(dir, 'evoplay-hooks.mjs');
  writeFileSync(
    module,
    `import { writeFileSync } from 'node:fs';\nwriteFileSync(${JSON.stringify(marker)}, String(process.pid));\n${readFileSync(HOOKS, 'utf8')}`,
  );
  const dialect = join(dir, 'their-dialect.json');
  writeFileSync(dialect, JSON.stringify({ ...JSON.parse(readFileSync(EXAMPLE, 'utf8')), $schema: undefined, hooks }));
  return { dir, dialect, marker, module };
}

const load = (dialect: string, env: NodeJS.ProcessEnv, readOnly = false) =>
  loadConfig({ flags: { callbacks: { profile: dialect } }, cwd: tmpdir(), env, readOnly });

describe('M-3: a dialect’s hooks module runs only when the user allows it for the run', () => {
  it('refuses without the opt-in, naming the module, its sha256 and the flag; runs nothing', () => {
    const { dialect, marker, module } = sharedDialect();
    const sha = createHash('sha256').update(readFileSync(module)).digest('hex');
    expect(() => load(dialect, {})).toThrow(ConfigError);
    expect(() => load(dialect, {})).toThrow(/--allow-hooks or AGGMOCK_ALLOW_HOOKS=1/);
    expect(() => load(dialect, { AGGMOCK_ALLOW_HOOKS: 'yes' })).toThrow(new RegExp(`${module}.*sha256 ${sha}`));
    expect(existsSync(marker)).toBe(false);
  });

  it('a read-only command reads the dialect and loads nothing, even with the opt-in', () => {
    const { dialect, marker } = sharedDialect();
    expect(load(dialect, {}, true).callbacks.dialect).toBeDefined();
    expect(load(dialect, { AGGMOCK_ALLOW_HOOKS: '1' }, true).callbacks.dialect).toBeDefined();
    expect(existsSync(marker)).toBe(false);
  });

  it('loads with AGGMOCK_ALLOW_HOOKS=1, and the run records the module and its sha256', () => {
    const { dialect, marker, module } = sharedDialect();
    load(dialect, { AGGMOCK_ALLOW_HOOKS: '1' });
    expect(existsSync(marker)).toBe(true);
    const sha = createHash('sha256').update(readFileSync(module)).digest('hex');
    expect(loadedHooks()).toContainEqual({ file: module, sha256: sha });
  });

  it('takes a module only from the dialect file’s own folder, and only .mjs, .cjs or .js', () => {
    const outside = mkdtempSync(join(tmpdir(), 'aggmock-hooks-elsewhere-'));
    copyFileSync(HOOKS, join(outside, 'elsewhere.mjs'));
    const cases: [string, RegExp][] = [
      ['../elsewhere.mjs', /outside the dialect file's folder/],
      [join(outside, 'elsewhere.mjs'), /outside the dialect file's folder/],
      ['./addon.node', /not a JavaScript module/],
      ['./data.json', /not a JavaScript module/],
    ];
    for (const [hooks, message] of cases) {
      const { dialect, dir } = sharedDialect(hooks);
      writeFileSync(join(dir, 'addon.node'), '');
      writeFileSync(join(dir, 'data.json'), '{}');
      mkdirSync(join(dir, '..'), { recursive: true });
      expect(() => load(dialect, { AGGMOCK_ALLOW_HOOKS: '1' }), hooks).toThrow(message);
    }
    // A module in a subfolder of the dialect's folder is beside it too.
    const { dialect, dir } = sharedDialect('./lib/hooks.mjs');
    mkdirSync(join(dir, 'lib'));
    copyFileSync(HOOKS, join(dir, 'lib', 'hooks.mjs'));
    expect(() => load(dialect, { AGGMOCK_ALLOW_HOOKS: '1' })).not.toThrow();
  });

  it('the CLI: `profiles` in a folder whose aggmock.config.json names the dialect runs nothing; `contracts --out` needs --allow-hooks and then names the module', async () => {
    const { dir, marker } = sharedDialect();
    writeFileSync(join(dir, 'aggmock.config.json'), JSON.stringify({ callbacks: { profile: './their-dialect.json' } }));
    const profiles = runCli(['profiles'], { AGGMOCK_ALLOW_HOOKS: '' }, dir);
    expect(await profiles.exited, profiles.stderr()).toBe(0);
    expect(existsSync(marker)).toBe(false);
    const refused = runCli(['contracts', '--out', join(dir, 'pacts')], { AGGMOCK_ALLOW_HOOKS: '' }, dir);
    expect(await refused.exited).toBe(2);
    expect(refused.stderr()).toContain('--allow-hooks');
    expect(existsSync(marker)).toBe(false);
    const allowed = runCli(['contracts', '--out', join(dir, 'pacts'), '--allow-hooks'], { AGGMOCK_ALLOW_HOOKS: '' }, dir);
    await allowed.exited;
    expect(existsSync(marker)).toBe(true);
    expect(allowed.stderr()).toMatch(/hooks → .*evoplay-hooks\.mjs \(sha256 [0-9a-f]{64}\)/);
  });
});
