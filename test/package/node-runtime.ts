import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
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
  if (!existsSync(node)) {
    mkdirSync(join(root, '.cache', 'node'), { recursive: true });
    const scratch = mkdtempSync(join(root, '.cache', 'node', `${version}-`));
    try {
      execFileSync(npm, ['pack', `${packageName()}@${version}`, '--prefer-offline', '--silent'], { cwd: scratch });
      const tarball = readdirSync(scratch).find((f) => f.endsWith('.tgz'));
      if (!tarball) throw new Error(`npm pack ${packageName()}@${version} left no tarball in ${scratch}`);
      execFileSync('tar', ['-xzf', tarball], { cwd: scratch });
      rmSync(dir, { recursive: true, force: true });
      renameSync(join(scratch, 'package'), dir);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  }
  return { dir, node };
}
