import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasBuiltinSqlite } from '../../src/storage/index.ts';
import { runCli } from '../cli/process.ts';
import { NODE_RUNTIMES, nodeRuntime } from './node-runtime.ts';

/**
 * The package as a user gets it: `npm pack`, installed from the tarball into empty folders with
 * npm and with pnpm, then the installed `aggmock` bin and `import('aggmock')` run there, outside
 * this repository, on this Node (20 under `npm test`) and on Node 24.
 *
 * `npm test` runs every install and its checks (no install script anywhere in the tree, the
 * exit on a Node without SQLite), all the runs (demo, verify, serve with a callback) for npm on
 * Node 20, demo and serve for npm on Node 24 and serve for pnpm on Node 24: the whole matrix took
 * 7.5 minutes on a loaded 2-core machine. `npm run test:package` (AGGMOCK_PACKAGE_MATRIX=full)
 * adds verify on Node 24 for npm, and demo and verify for pnpm.
 */
const root = fileURLToPath(new URL('../..', import.meta.url));
const run = promisify(execFile);
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const FULL = process.env.AGGMOCK_PACKAGE_MATRIX === 'full';
/** npm's own script, to run npm on another Node than this one (npm sets npm_execpath for `npm test`). */
const npmCli = process.env.npm_execpath?.endsWith('npm-cli.js')
  ? process.env.npm_execpath
  : join(dirname(process.execPath), '..', 'lib', 'node_modules', 'npm', 'bin', 'npm-cli.js');
const pnpmCli = join(root, 'node_modules', 'pnpm', 'bin', 'pnpm.mjs');

interface PackResult {
  filename: string;
  files: { path: string }[];
}

interface Install {
  /** The folder of the consuming project. */
  app: string;
  bin: string;
  /** The Node that runs aggmock there. */
  node: string;
  /** What the package manager printed. */
  output: string;
}

const work = mkdtempSync(join(tmpdir(), 'aggmock-package-'));
let tarball = '';
let files: string[] = [];
let node24 = '';

beforeAll(async () => {
  if (!existsSync(join(root, 'dist', 'cli', 'main.js'))) throw new Error('dist/ is missing: run `npm run build` first');
  // --ignore-scripts: `npm test` has just built dist/ (pretest), so prepack need not build it again.
  const { stdout } = await run(npm, ['pack', '--ignore-scripts', '--json', '--pack-destination', work], { cwd: root });
  const [packed] = JSON.parse(stdout) as PackResult[];
  if (!packed) throw new Error(`npm pack printed no result: ${stdout}`);
  files = packed.files.map((f) => f.path);
  tarball = join(work, packed.filename);
  node24 = nodeRuntime(NODE_RUNTIMES.node24).node;
}, 300_000);

afterAll(() => {
  rmSync(work, { recursive: true, force: true });
}, 300_000);

/** An empty project, then the tarball added with npm or pnpm (run by `managerNode`), offline where the cache has it. */
async function install(name: string, manager: 'npm' | 'pnpm', managerNode: string, runNode: string): Promise<Install> {
  const app = join(work, name);
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  const args =
    manager === 'npm'
      ? [npmCli, 'install', '--save-dev', '--no-audit', '--no-fund', '--prefer-offline', tarball]
      : [pnpmCli, 'add', '--save-dev', '--prefer-offline', '--config.update-notifier=false', tarball];
  // The PATH leads to the Node that runs the manager, as when a user runs it.
  const env = { ...process.env, PATH: `${dirname(managerNode)}:${process.env.PATH}`, npm_config_update_notifier: 'false' };
  const { stdout, stderr } = await run(managerNode, args, { cwd: app, env, maxBuffer: 16 * 1024 * 1024 });
  return { app, bin: join(app, 'node_modules', 'aggmock', 'bin', 'aggmock.js'), node: runNode, output: stdout + stderr };
}

/**
 * Every installed package (under node_modules, pnpm's .pnpm store included) that would run code
 * when installed: a non-empty preinstall, install or postinstall script, or a binding.gyp (npm builds it).
 */
function installScripts(app: string): string[] {
  const found = new Set<string>();
  const entries = readdirSync(join(app, 'node_modules'), { recursive: true }) as string[];
  for (const entry of entries) {
    if (!/(^|\/)((@[^/]+\/)?[^/@.][^/]*)\/package\.json$/.test(entry)) continue;
    if (!/(^|\/)node_modules\/(@[^/]+\/)?[^/]+\/package\.json$/.test(`node_modules/${entry}`)) continue;
    const manifest = JSON.parse(readFileSync(join(app, 'node_modules', entry), 'utf8')) as {
      name?: string;
      scripts?: Record<string, string>;
    };
    // An empty script runs nothing (@pact-foundation/pact-core sets `install: ""` to turn off npm's default build).
    const scripts = Object.entries(manifest.scripts ?? {}).filter(
      ([name, command]) => ['preinstall', 'install', 'postinstall'].includes(name) && command.trim() !== '',
    );
    if (scripts.length > 0 || existsSync(join(app, 'node_modules', dirname(entry), 'binding.gyp')))
      found.add(manifest.name ?? entry);
  }
  return [...found].sort();
}

/** The one line aggmock prints where it has no SQLite, and its exit code, for `serve`, `wallet` and `demo`. */
async function expectSqliteAdvice(i: Install): Promise<void> {
  for (const args of [
    ['serve', '--port', '0', '--db', ':memory:'],
    ['wallet', '--port', '0', '--db', ':memory:'],
    ['demo', '--port', '0', '--wallet-port', '0', '--db', ':memory:'],
  ]) {
    const cli = runCli(args, {}, i.app, i.bin, i.node);
    expect(await cli.exited, cli.stderr()).toBe(2);
    const lines = cli.stderr().trim().split('\n');
    expect(lines, cli.stderr()).toHaveLength(1);
    expect(lines[0]).toMatch(/^aggmock: SQLite: better-sqlite3 is not installed\. On Node 20\.\d+\.\d+ aggmock/);
    expect(lines[0]).toContain('`npm install better-sqlite3@12`');
    expect(lines[0]).toContain('`npm rebuild better-sqlite3`');
    expect(lines[0]).toContain('`pnpm add better-sqlite3@12 && pnpm approve-builds`');
  }
}

async function expectDemoDelivers(i: Install): Promise<void> {
  const cli = runCli(['demo', '--port', '0', '--wallet-port', '0', '--db', ':memory:'], {}, i.app, i.bin, i.node);
  try {
    const [, url] = await cli.waitFor(/listening on (http:\/\/\S+)/);
    await cli.waitFor(/DEBIT +p\d+ +\d+\.\d\d {2}delivered/, 30_000);
    // /docs works from the installed package: it ships Swagger UI's two files itself.
    const bundle = await fetch(`${url}/docs/assets/swagger-ui-bundle.js`);
    expect(bundle.status).toBe(200);
    expect((await bundle.text()).length).toBeGreaterThan(100_000);
    // The pages' scripts come from the package's browser/ folder, found relative to dist/.
    const script = await fetch(`${url}/assets/js/deliveries.js`);
    expect(script.status).toBe(200);
    expect(await script.text()).toContain("from './admin-client.js'");
  } finally {
    expect(await cli.stop('SIGTERM')).toBe(0);
  }
}

async function expectVerifyPasses(i: Install): Promise<void> {
  const wallet = runCli(['wallet', '--port', '0', '--db', ':memory:', '--test-endpoints'], {}, i.app, i.bin, i.node);
  try {
    const [, webhook] = await wallet.waitFor(/listening on (http:\/\/\S+\/callback\/webhook)/);
    const stateUrl = new URL('/__state', webhook).href;
    const reports = join(i.app, 'reports');
    const verify = runCli(
      ['verify', webhook as string, '--state-url', stateUrl, '--report-dir', reports],
      { NO_COLOR: '1' },
      i.app,
      i.bin,
      i.node,
    );
    expect(await verify.exited, verify.stdout() + verify.stderr()).toBe(0);
    expect(verify.stdout()).toMatch(/PASSED: (\d+) passed, 0 failed, 0 skipped/);
    expect(readFileSync(join(reports, 'junit.xml'), 'utf8')).toMatch(/<testsuites[^>]* failures="0"/);
  } finally {
    await wallet.stop('SIGTERM');
  }
}

/** `serve` with a file database: a catalog listing, then a callback triggered through the admin API and delivered. */
async function expectServeDelivers(i: Install): Promise<void> {
  const wallet = runCli(['wallet', '--port', '0', '--db', ':memory:'], {}, i.app, i.bin, i.node);
  try {
    const [, webhook] = await wallet.waitFor(/listening on (http:\/\/\S+\/callback\/webhook)/);
    const db = join(i.app, 'data', 'aggmock.db');
    const serve = runCli(['serve', '--port', '0', '--db', db, '--webhook', webhook as string], {}, i.app, i.bin, i.node);
    try {
      const [, url] = await serve.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+)/);
      const listing = await fetch(`${url}/getallproviders`, { headers: { 'x-betnex-key': 'aggmock-dev-key' } });
      expect(listing.status).toBe(200);
      expect(JSON.stringify(await listing.json())).toMatch(/"name"/);
      const queued = await fetch(`${url}/__admin/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ type: 'Debit', playerId: 'p1', amount: 5 }),
      });
      expect(queued.status, await queued.clone().text()).toBeLessThan(300);
      await expect
        .poll(
          async () => {
            const res = await fetch(`${url}/__admin/deliveries?status=delivered`);
            return ((await res.json()) as { deliveries: unknown[] }).deliveries.length;
          },
          { timeout: 20_000 },
        )
        .toBe(1);
    } finally {
      expect(await serve.stop('SIGTERM')).toBe(0);
    }
  } finally {
    await wallet.stop('SIGTERM');
  }
}

/** better-sqlite3 added to a Node 20 project, with the native addon this repository's install built (same version, same Node). */
async function addBuiltBetterSqlite(i: Install): Promise<void> {
  const here = createRequire(join(root, 'package.json'));
  const { version } = here('better-sqlite3/package.json') as { version: string };
  // Its install script would fetch a prebuilt binary from GitHub or compile SQLite for minutes.
  await run(
    process.execPath,
    [npmCli, 'install', '--no-audit', '--no-fund', '--prefer-offline', '--ignore-scripts', `better-sqlite3@${version}`],
    { cwd: i.app },
  );
  const addon = join('node_modules', 'better-sqlite3', 'build', 'Release');
  mkdirSync(join(i.app, addon), { recursive: true });
  copyFileSync(join(root, addon, 'better_sqlite3.node'), join(i.app, addon, 'better_sqlite3.node'));
}

describe('the packed tarball', () => {
  it('ships the compiled CLI, Swagger UI with its licence, the contracts and the Pact child, and no tests or sources', () => {
    expect(files).toEqual(
      expect.arrayContaining([
        'bin/aggmock.js',
        'dist/cli/main.js',
        'dist/index.js',
        'dist/index.d.ts',
        'dist/verify/pact-child.js',
        'dist/openapi/swagger-ui/swagger-ui-bundle.js',
        'dist/openapi/swagger-ui/swagger-ui.css',
        'dist/openapi/swagger-ui/LICENSE',
        'browser/admin-client.js',
        'browser/deliveries.js',
        'browser/page-data.js',
        'contracts/aggmock-integrator-webhook.json',
        'contracts/openapi.json',
        'README.md',
        'docs/verify.md',
      ]),
    );
    expect(files.filter((f) => /\.test\.|(^|\/)test-[^/]*$|^src\/|^test\/|^tools\//.test(f))).toEqual([]);
  });

  it('has no lifecycle script an install would run, needs no native module, and says which Node it runs on', async () => {
    const { stdout } = await run('tar', ['-xzOf', tarball, 'package/package.json']);
    const manifest = JSON.parse(stdout) as {
      scripts: Record<string, string>;
      dependencies: Record<string, string>;
      peerDependencies: Record<string, string>;
      peerDependenciesMeta: Record<string, { optional?: boolean }>;
      engines: { node: string };
    };
    for (const script of ['preinstall', 'install', 'postinstall', 'prepare']) expect(manifest.scripts).not.toHaveProperty(script);
    expect(Object.keys(manifest.dependencies)).not.toContain('better-sqlite3');
    expect(Object.keys(manifest.dependencies)).not.toContain('swagger-ui-dist');
    expect(Object.keys(manifest.dependencies)).not.toContain('tsx');
    // Node 20 only: the user adds it, and no package manager installs an optional peer by itself.
    expect(manifest.peerDependencies['better-sqlite3']).toMatch(/^\^12\./);
    expect(manifest.peerDependenciesMeta['better-sqlite3']).toEqual({ optional: true });
    expect(manifest.engines.node).toBe('>=20.19');
  });
});

describe('installed with npm, run on Node 24 (built-in SQLite)', () => {
  let i: Install;
  beforeAll(async () => {
    i = await install('npm-node24', 'npm', node24, node24);
  }, 300_000);

  it('installs with no install script anywhere in the tree and no warning about one', () => {
    expect(installScripts(i.app)).toEqual([]);
    expect(i.output).not.toMatch(/install-scripts|allowScripts/);
  });

  it('runs `aggmock demo` until the first delivered callback and serves /docs offline', () => expectDemoDelivers(i), 60_000);
  it.runIf(FULL)(
    'runs `aggmock verify` against `aggmock wallet --test-endpoints`, with a JUnit report',
    () => expectVerifyPasses(i),
    120_000,
  );
  it('runs `aggmock serve` with a file database: a listing and a delivered callback', () => expectServeDelivers(i), 60_000);
});

describe('installed with pnpm, run on Node 24 (built-in SQLite)', () => {
  let i: Install;
  beforeAll(async () => {
    // Exits 1 (ERR_PNPM_IGNORED_BUILDS) if any package in the tree wants a build approved.
    i = await install('pnpm-node24', 'pnpm', node24, node24);
  }, 300_000);

  it('installs with no build to approve and no install script anywhere in the tree', () => {
    expect(installScripts(i.app)).toEqual([]);
    expect(i.output).not.toMatch(/IGNORED_BUILDS|approve-builds/);
  });

  it('runs `aggmock serve` with a file database: a listing and a delivered callback', () => expectServeDelivers(i), 60_000);
  it.runIf(FULL)('runs `aggmock demo` until the first delivered callback', () => expectDemoDelivers(i), 60_000);
  it.runIf(FULL)('runs `aggmock verify` against the reference wallet', () => expectVerifyPasses(i), 120_000);
});

describe.runIf(!hasBuiltinSqlite())('installed with pnpm, run on Node 20 (no SQLite until better-sqlite3 is added)', () => {
  let i: Install;
  beforeAll(async () => {
    // pnpm 11 itself needs Node 22.13: it runs on Node 24, the package then on this Node.
    i = await install('pnpm-node20', 'pnpm', node24, process.execPath);
  }, 300_000);

  it('installs with no build to approve, and serve, wallet and demo exit 2 with one line on how to add better-sqlite3', async () => {
    expect(installScripts(i.app)).toEqual([]);
    await expectSqliteAdvice(i);
  }, 60_000);
});

describe.runIf(!hasBuiltinSqlite())('installed with npm, run on Node 20 (better-sqlite3 added by the user)', () => {
  let i: Install;
  beforeAll(async () => {
    i = await install('npm-node20', 'npm', process.execPath, process.execPath);
  }, 300_000);

  it('installs with no install script in the tree; serve, wallet and demo exit 2 with one line on how to add better-sqlite3', async () => {
    expect(installScripts(i.app)).toEqual([]);
    await expectSqliteAdvice(i);
  }, 60_000);

  describe('after `npm install better-sqlite3@12`', () => {
    beforeAll(() => addBuiltBetterSqlite(i), 300_000);

    it('has better-sqlite3 as the only package with an install script', () => {
      expect(installScripts(i.app)).toEqual(['better-sqlite3']);
    });

    it('runs `aggmock --help`', async () => {
      const cli = runCli(['--help'], {}, i.app, i.bin);
      expect(await cli.exited).toBe(0);
      expect(cli.stdout()).toMatch(/Usage: aggmock/);
      for (const command of ['serve', 'wallet', 'demo', 'verify', 'send', 'contracts']) expect(cli.stdout()).toContain(command);
    });

    it(
      'runs `aggmock demo` until the first delivered callback, serves /docs offline, and stops on SIGTERM',
      () => expectDemoDelivers(i),
      60_000,
    );
    it(
      'runs `aggmock verify` against `aggmock wallet --test-endpoints`, with a JUnit report',
      () => expectVerifyPasses(i),
      120_000,
    );
    it('runs `aggmock serve` with a file database: a listing and a delivered callback', () => expectServeDelivers(i), 60_000);

    it("runs verify programmatically through `import … from 'aggmock'` in plain JavaScript", async () => {
      const script = `
        import { runVerify, startWallet, validateConfig, VERSION } from 'aggmock';
        const wallet = await startWallet({ config: validateConfig({}), dbPath: ':memory:', port: 0, testEndpoints: true });
        try {
          const outcome = await runVerify({ webhookUrl: wallet.webhookUrl, stateUrl: wallet.url + '/__state', reportDir: false });
          console.log(JSON.stringify({ version: VERSION, exitCode: outcome.exitCode, failed: outcome.report.summary.failed }));
        } finally {
          await wallet.close();
        }`;
      const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: i.app });
      const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
      expect(JSON.parse(stdout)).toEqual({ version, exitCode: 0, failed: 0 });
    }, 60_000);
  });
});
