import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasBuiltinSqlite } from '../../src/storage/index.ts';
import { type CliProcess, runCli } from '../cli/process.ts';
import { NODE_RUNTIMES, nodeRuntime, registryTool } from './node-runtime.ts';

/**
 * The package as a user gets it: `npm pack`, installed from the tarball into empty folders, then
 * the installed `aggmock` bin and `import('aggmock')` run there, outside this repository.
 *
 * `npm test` keeps one install: npm on this Node (20 under `npm test`, 24 under `npm run
 * test:node24`), with no install script anywhere in the tree, the one-line exit where Node has no
 * SQLite, then `--help`, `demo`, `serve` and the library import. `npm run test:package`
 * (AGGMOCK_PACKAGE_MATRIX=full) adds `verify` there and the other installs: npm on Node 24, pnpm on
 * Node 24 (and on Node 20 up to the SQLite exit), yarn (Plug'n'Play, its defaults) on Node 24, each
 * running `serve`, `demo` and `verify`.
 */
const root = fileURLToPath(new URL('../..', import.meta.url));
const run = promisify(execFile);
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const FULL = process.env.AGGMOCK_PACKAGE_MATRIX === 'full';
/** npm's own script, to run npm on another Node than this one (npm sets npm_execpath for `npm test`). */
const npmCli = process.env.npm_execpath?.endsWith('npm-cli.js')
  ? process.env.npm_execpath
  : join(dirname(process.execPath), '..', 'lib', 'node_modules', 'npm', 'bin', 'npm-cli.js');
const yarnCli = join(root, 'node_modules', '@yarnpkg', 'cli-dist', 'bin', 'yarn.js');
/**
 * Yarn as a developer runs it on their machine: no telemetry from the test, and `yarn add` allowed
 * to write the lockfile even when CI=true (yarn otherwise makes every install immutable on CI).
 */
const YARN_ENV = { YARN_ENABLE_TELEMETRY: '0', YARN_ENABLE_IMMUTABLE_INSTALLS: 'false', YARN_ENABLE_PROGRESS_BARS: 'false' };

type Manager = 'npm' | 'pnpm' | 'yarn';

interface PackResult {
  filename: string;
  files: { path: string }[];
}

interface Install {
  /** The folder of the consuming project. */
  app: string;
  manager: Manager;
  /** The Node that runs aggmock there. */
  node: string;
  /** What the package manager printed. */
  output: string;
}

const work = mkdtempSync(join(tmpdir(), 'aggmock-package-'));
let tarball = '';
let files: string[] = [];
/** Node 24, fetched only for the full matrix (or when this Node is 24 already). */
const node24 = () => (process.versions.node === NODE_RUNTIMES.node24 ? process.execPath : nodeRuntime(NODE_RUNTIMES.node24).node);
const onNode24 = process.versions.node.split('.')[0] === NODE_RUNTIMES.node24.split('.')[0];

beforeAll(async () => {
  if (!existsSync(join(root, 'dist', 'cli', 'main.js'))) throw new Error('dist/ is missing: run `npm run build` first');
  // --ignore-scripts: `npm test` has just built dist/ (pretest), so prepack need not build it again.
  const { stdout } = await run(npm, ['pack', '--ignore-scripts', '--json', '--pack-destination', work], { cwd: root });
  const [packed] = JSON.parse(stdout) as PackResult[];
  if (!packed) throw new Error(`npm pack printed no result: ${stdout}`);
  files = packed.files.map((f) => f.path);
  tarball = join(work, packed.filename);
}, 300_000);

afterAll(() => {
  rmSync(work, { recursive: true, force: true });
}, 300_000);

/** An empty project, then the tarball added with npm, pnpm or yarn (run by `managerNode`), offline where the cache has it. */
async function install(name: string, manager: Manager, managerNode: string, runNode: string): Promise<Install> {
  const app = join(work, name);
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  const args = {
    npm: () => [npmCli, 'install', '--save-dev', '--no-audit', '--no-fund', '--prefer-offline', tarball],
    pnpm: () => [
      registryTool('pnpm', 'bin/pnpm.mjs'),
      'add',
      '--save-dev',
      '--prefer-offline',
      '--config.update-notifier=false',
      tarball,
    ],
    yarn: () => [yarnCli, 'add', '--dev', tarball],
  }[manager]();
  // The PATH leads to the Node that runs the manager, as when a user runs it.
  const env = {
    ...process.env,
    PATH: `${dirname(managerNode)}:${process.env.PATH}`,
    npm_config_update_notifier: 'false',
    ...(manager === 'yarn' ? YARN_ENV : {}),
  };
  const { stdout, stderr } = await run(managerNode, args, { cwd: app, env, maxBuffer: 16 * 1024 * 1024 });
  return { app, manager, node: runNode, output: stdout + stderr };
}

/**
 * The installed `aggmock`, run in the consuming project: its bin under node_modules (npm, pnpm), or
 * `yarn aggmock` (Plug'n'Play has no node_modules: yarn runs the bin with its resolver loaded).
 */
function aggmock(i: Install, args: string[], env: NodeJS.ProcessEnv = {}): CliProcess {
  if (i.manager === 'yarn') {
    return runCli(
      ['aggmock', ...args],
      { ...YARN_ENV, PATH: `${dirname(i.node)}:${process.env.PATH}`, ...env },
      i.app,
      yarnCli,
      i.node,
    );
  }
  return runCli(args, env, i.app, join(i.app, 'node_modules', 'aggmock', 'bin', 'aggmock.js'), i.node);
}

interface InstalledPackage {
  manifest: { name?: string; scripts?: Record<string, string> };
  bindingGyp: boolean;
}

/** Whether installing the package runs code: a non-empty preinstall, install or postinstall script, or a binding.gyp (npm builds it). */
function runsOnInstall({ manifest, bindingGyp }: InstalledPackage): boolean {
  // An empty script runs nothing (@pact-foundation/pact-core sets `install: ""` to turn off npm's default build).
  const scripts = Object.entries(manifest.scripts ?? {}).filter(
    ([name, command]) => ['preinstall', 'install', 'postinstall'].includes(name) && command.trim() !== '',
  );
  return scripts.length > 0 || bindingGyp;
}

/** Every installed package: under node_modules (pnpm's .pnp store included), or in yarn's Plug'n'Play map. */
async function installedPackages(i: Install): Promise<InstalledPackage[]> {
  if (i.manager === 'yarn') {
    // Yarn keeps packages in zip archives: its own resolver (pnpapi) lists them and reads into them.
    const script = `
      const pnp = require('pnpapi'); const fs = require('node:fs'); const path = require('node:path');
      const found = [];
      for (const locator of pnp.getAllLocators()) {
        const info = pnp.getPackageInformation(locator);
        if (!info || info.linkType !== 'HARD') continue;
        // Optional packages of other platforms are in the map but not installed.
        if (!fs.existsSync(path.join(info.packageLocation, 'package.json'))) continue;
        const manifest = JSON.parse(fs.readFileSync(path.join(info.packageLocation, 'package.json'), 'utf8'));
        found.push({ manifest, bindingGyp: fs.existsSync(path.join(info.packageLocation, 'binding.gyp')) });
      }
      process.stdout.write(JSON.stringify(found));`;
    const { stdout } = await run(i.node, ['--require', join(i.app, '.pnp.cjs'), '-e', script], {
      cwd: i.app,
      maxBuffer: 64 * 1024 * 1024,
    });
    return JSON.parse(stdout) as InstalledPackage[];
  }
  const found: InstalledPackage[] = [];
  const entries = readdirSync(join(i.app, 'node_modules'), { recursive: true }) as string[];
  for (const entry of entries) {
    if (!/(^|\/)((@[^/]+\/)?[^/@.][^/]*)\/package\.json$/.test(entry)) continue;
    if (!/(^|\/)node_modules\/(@[^/]+\/)?[^/]+\/package\.json$/.test(`node_modules/${entry}`)) continue;
    found.push({
      manifest: JSON.parse(readFileSync(join(i.app, 'node_modules', entry), 'utf8')) as InstalledPackage['manifest'],
      bindingGyp: existsSync(join(i.app, 'node_modules', dirname(entry), 'binding.gyp')),
    });
  }
  return found;
}

/** The installed packages that would run code when installed, by name; fails if it found no package at all. */
async function installScripts(i: Install): Promise<string[]> {
  const packages = await installedPackages(i);
  // aggmock and its dependencies: a listing that found nothing would prove nothing.
  expect(packages.map((p) => p.manifest.name)).toEqual(expect.arrayContaining(['aggmock', 'hono', '@pact-foundation/pact-core']));
  return [...new Set(packages.filter(runsOnInstall).map((p) => p.manifest.name ?? '?'))].sort();
}

/** The one line aggmock prints where it has no SQLite, and its exit code: for `serve`, and in the full matrix `wallet` and `demo`. */
async function expectSqliteAdvice(i: Install): Promise<void> {
  const commands = [
    ['serve', '--port', '0', '--db', ':memory:'],
    ['wallet', '--port', '0', '--db', ':memory:'],
    ['demo', '--port', '0', '--wallet-port', '0', '--db', ':memory:'],
  ];
  for (const args of FULL ? commands : commands.slice(0, 1)) {
    const cli = aggmock(i, args);
    expect(await cli.exited, cli.stderr()).toBe(2);
    const lines = cli.stderr().trim().split('\n');
    expect(lines, cli.stderr()).toHaveLength(1);
    expect(lines[0]).toMatch(/^aggmock: SQLite: better-sqlite3 is not installed\. On Node 20\.\d+\.\d+ aggmock/);
    expect(lines[0]).toContain('`npm install better-sqlite3@12`');
    expect(lines[0]).toContain('`npm rebuild better-sqlite3`');
    expect(lines[0]).toContain('`pnpm add better-sqlite3@12 --allow-build=better-sqlite3`');
  }
}

async function expectDemoDelivers(i: Install): Promise<void> {
  const cli = aggmock(i, ['demo', '--port', '0', '--wallet-port', '0', '--db', ':memory:']);
  try {
    const [, url] = await cli.waitFor(/listening on (http:\/\/\S+)/);
    await cli.waitFor(/bet +p\d+ +\d+\.\d\d {2}delivered/, 30_000);
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
  const wallet = aggmock(i, ['wallet', '--port', '0', '--db', ':memory:', '--test-endpoints']);
  try {
    const [, webhook] = await wallet.waitFor(/listening on (http:\/\/\S+\/callback\/webhook)/);
    const stateUrl = new URL('/__state', webhook).href;
    const reports = join(i.app, 'reports');
    const verify = aggmock(i, ['verify', webhook as string, '--state-url', stateUrl, '--report-dir', reports], { NO_COLOR: '1' });
    expect(await verify.exited, verify.stdout() + verify.stderr()).toBe(0);
    expect(verify.stdout()).toMatch(/PASSED: (\d+) passed, 0 failed, \d+ skipped/);
    expect(readFileSync(join(reports, 'junit.xml'), 'utf8')).toMatch(/<testsuites[^>]* failures="0"/);
  } finally {
    await wallet.stop('SIGTERM');
  }
}

/** `serve` with a file database: a catalog listing, then a callback triggered through the admin API and delivered. */
async function expectServeDelivers(i: Install): Promise<void> {
  const wallet = aggmock(i, ['wallet', '--port', '0', '--db', ':memory:']);
  try {
    const [, webhook] = await wallet.waitFor(/listening on (http:\/\/\S+\/callback\/webhook)/);
    const db = join(i.app, 'data', 'aggmock.db');
    const serve = aggmock(i, ['serve', '--port', '0', '--db', db, '--webhook', webhook as string]);
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
  it('ships the compiled CLI, Swagger UI with its licence, the contracts, the Pact child and the example dialect, and no tests or sources', () => {
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
        'docs/dialects/hub88.md',
        'examples/dialects/evoplay.json',
        'examples/dialects/evoplay-hooks.mjs',
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

const builtin = hasBuiltinSqlite();

describe(`installed with npm, run on this Node (${process.version})`, () => {
  let i: Install;
  beforeAll(async () => {
    i = await install('npm-here', 'npm', process.execPath, process.execPath);
  }, 300_000);

  it('installs with no install script anywhere in the tree and no warning about one', async () => {
    expect(await installScripts(i)).toEqual([]);
    expect(i.output).not.toMatch(/install-scripts|allowScripts/);
  });

  it.runIf(!builtin)(
    'exits 2 from serve (in the full matrix also wallet and demo) with one line on how to add better-sqlite3',
    () => expectSqliteAdvice(i),
    60_000,
  );

  describe(builtin ? 'with the built-in node:sqlite' : 'after `npm install better-sqlite3@12`', () => {
    beforeAll(async () => {
      if (!builtin) await addBuiltBetterSqlite(i);
    }, 300_000);

    it.runIf(!builtin)('has better-sqlite3 as the only package with an install script', async () => {
      expect(await installScripts(i)).toEqual(['better-sqlite3']);
    });

    it('runs `aggmock --help`', async () => {
      const cli = aggmock(i, ['--help']);
      expect(await cli.exited).toBe(0);
      expect(cli.stdout()).toMatch(/Usage: aggmock/);
      for (const command of ['serve', 'wallet', 'demo', 'verify', 'send', 'contracts', 'mcp'])
        expect(cli.stdout()).toContain(command);
    });

    it(
      'runs `aggmock demo` until the first delivered callback, serves /docs offline, and stops on SIGTERM',
      () => expectDemoDelivers(i),
      60_000,
    );
    it('runs `aggmock serve` with a file database: a listing and a delivered callback', () => expectServeDelivers(i), 60_000);
    it.runIf(FULL)(
      'runs `aggmock verify` against `aggmock wallet --test-endpoints`, with a JUnit report',
      () => expectVerifyPasses(i),
      120_000,
    );

    it("runs the wallet and verify (a Pact interaction and two checks) through `import … from 'aggmock'` in plain JavaScript", async () => {
      const script = `
        import { runVerify, startWallet, validateConfig, VERSION } from 'aggmock';
        const wallet = await startWallet({ config: validateConfig({}), dbPath: ':memory:', port: 0, testEndpoints: true });
        try {
          const outcome = await runVerify({
            webhookUrl: wallet.webhookUrl,
            stateUrl: wallet.url + '/__state',
            reportDir: false,
            only: ['pact:bet-accepted', 'idempotent-debit', 'rollback-restores'],
          });
          const { total, failed } = outcome.report.summary;
          console.log(JSON.stringify({ version: VERSION, exitCode: outcome.exitCode, total, failed }));
        } finally {
          await wallet.close();
        }`;
      const { stdout } = await run(i.node, ['--input-type=module', '-e', script], { cwd: i.app });
      const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
      expect(JSON.parse(stdout)).toEqual({ version, exitCode: 0, total: 3, failed: 0 });
    }, 60_000);
  });
});

describe.runIf(FULL && !onNode24)('installed with npm, run on Node 24 (built-in SQLite)', () => {
  let i: Install;
  beforeAll(async () => {
    i = await install('npm-node24', 'npm', node24(), node24());
  }, 300_000);

  it('installs with no install script anywhere in the tree and no warning about one', async () => {
    expect(await installScripts(i)).toEqual([]);
    expect(i.output).not.toMatch(/install-scripts|allowScripts/);
  });

  it('runs `aggmock demo` until the first delivered callback and serves /docs offline', () => expectDemoDelivers(i), 60_000);
  it('runs `aggmock serve` with a file database: a listing and a delivered callback', () => expectServeDelivers(i), 60_000);
  it(
    'runs `aggmock verify` against `aggmock wallet --test-endpoints`, with a JUnit report',
    () => expectVerifyPasses(i),
    120_000,
  );
});

describe.runIf(FULL)('installed with pnpm, run on Node 24 (built-in SQLite)', () => {
  let i: Install;
  beforeAll(async () => {
    // Exits 1 (ERR_PNPM_IGNORED_BUILDS) if any package in the tree wants a build approved.
    i = await install('pnpm-node24', 'pnpm', node24(), node24());
  }, 300_000);

  it('installs with no build to approve and no install script anywhere in the tree', async () => {
    expect(await installScripts(i)).toEqual([]);
    expect(i.output).not.toMatch(/IGNORED_BUILDS|approve-builds/);
  });

  it('runs `aggmock serve` with a file database: a listing and a delivered callback', () => expectServeDelivers(i), 60_000);
  it('runs `aggmock demo` until the first delivered callback', () => expectDemoDelivers(i), 60_000);
  it('runs `aggmock verify` against the reference wallet', () => expectVerifyPasses(i), 120_000);
});

describe.runIf(FULL)("installed with yarn 4 (Plug'n'Play, its defaults), run on Node 24 (built-in SQLite)", () => {
  let i: Install;
  beforeAll(async () => {
    i = await install('yarn-node24', 'yarn', node24(), node24());
  }, 300_000);

  it('installs with no build to run or approve and no install script anywhere in the tree', async () => {
    expect(await installScripts(i)).toEqual([]);
    // YN0007: a package "must be built"; YN0009: a build failed.
    expect(i.output).not.toMatch(/YN0007|YN0009|must be built/);
    expect(existsSync(join(i.app, 'node_modules'))).toBe(false);
  });

  it('runs `aggmock serve` with a file database: a listing and a delivered callback', () => expectServeDelivers(i), 60_000);
  it('runs `aggmock demo` until the first delivered callback and serves /docs offline', () => expectDemoDelivers(i), 60_000);
  it('runs `aggmock verify` against the reference wallet, the Pact verifier included', () => expectVerifyPasses(i), 120_000);
});

describe.runIf(FULL && !builtin)('installed with pnpm, run on Node 20 (no SQLite until better-sqlite3 is added)', () => {
  let i: Install;
  beforeAll(async () => {
    // pnpm 11 itself needs Node 22.13: it runs on Node 24, the package then on this Node.
    i = await install('pnpm-node20', 'pnpm', node24(), process.execPath);
  }, 300_000);

  it('installs with no build to approve, and serve, wallet and demo exit 2 with one line on how to add better-sqlite3', async () => {
    expect(await installScripts(i)).toEqual([]);
    await expectSqliteAdvice(i);
  }, 60_000);
});
