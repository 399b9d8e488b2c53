import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Other Node versions than the one running, for the tests that install and run the package
 * under them. Each comes from the npm registry as `node-<platform>-<arch>` (the official binary
 * and headers in one package), pinned here and unpacked once under `.cache/node/`.
 *
 * Not devDependencies: such a package links a `node` bin into node_modules/.bin, and npm puts
 * that folder first on the PATH of every script, so `npm test` and `npx vitest` would silently
 * run on that Node instead of the one the user has.
 */
export const NODE_RUNTIMES = { node24: '24.21.0' } as const;

/**
 * Package managers the full install matrix runs, fetched the same way on first use. Not
 * devDependencies: pnpm 11 declares `engines.node >= 22.13`, so as a devDependency every `npm ci` on
 * Node 20 printed an EBADENGINE warning for a tool only `npm run test:package` uses.
 */
export const REGISTRY_TOOLS = { pnpm: '11.28.10' } as const;

const root = fileURLToPath(new URL('../..', import.meta.url));
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/** The registry package that holds this platform's Node binary. */
function packageName(): string {
  const platform = process.platform === 'win32' ? 'win' : process.platform;
  return `node-${platform}-${process.arch}`;
}

/**
 * The folder of a Node runtime (`bin/node`, `include/node`), fetched through npm's cache the
 * first time. Pass it as `npm_config_nodedir` so native addons build against its headers.
 */
export function nodeRuntime(version: string): { dir: string; node: string } {
  const dir = join(root, '.cache', 'node', version);
  const node = join(dir, 'bin', process.platform === 'win32' ? 'node.exe' : 'node');
  unpackOnce(`${packageName()}@${version}`, dir, node);
  return { dir, node };
}

/** A package manager's CLI script (e.g. pnpm's `bin/pnpm.mjs`), unpacked once under `.cache/tools/`. */
export function registryTool(name: keyof typeof REGISTRY_TOOLS, script: string): string {
  const dir = join(root, '.cache', 'tools', `${name}-${REGISTRY_TOOLS[name]}`);
  const cli = join(dir, script);
  unpackOnce(`${name}@${REGISTRY_TOOLS[name]}`, dir, cli);
  return cli;
}

/** `npm pack <spec>` through npm's cache and unpacked into `dir`, unless `marker` (a file in it) exists. */
function unpackOnce(spec: string, dir: string, marker: string): void {
  if (existsSync(marker)) return;
  const parent = dirname(dir);
  mkdirSync(parent, { recursive: true });
  const scratch = mkdtempSync(`${dir}-`);
  try {
    execFileSync(npm, ['pack', spec, '--prefer-offline', '--silent'], { cwd: scratch });
    const tarball = readdirSync(scratch).find((f) => f.endsWith('.tgz'));
    if (!tarball) throw new Error(`npm pack ${spec} left no tarball in ${scratch}`);
    execFileSync('tar', ['-xzf', tarball], { cwd: scratch });
    rmSync(dir, { recursive: true, force: true });
    renameSync(join(scratch, 'package'), dir);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
