import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../cli/process.ts';

/**
 * The package as a user gets it: `npm pack`, installed from the tarball into an empty folder,
 * then the installed `aggmock` bin and `import('aggmock')` run there, outside this repository.
 */
const root = fileURLToPath(new URL('../..', import.meta.url));
const run = promisify(execFile);
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

interface PackResult {
  filename: string;
  files: { path: string }[];
}

describe('the npm package, installed into an empty folder', () => {
  const dir = mkdtempSync(join(tmpdir(), 'aggmock-package-'));
  const app = join(dir, 'app');
  const bin = join(app, 'node_modules', 'aggmock', 'bin', 'aggmock.js');
  let files: string[] = [];

  beforeAll(async () => {
    if (!existsSync(join(root, 'dist', 'cli', 'main.js'))) throw new Error('dist/ is missing: run `npm run build` first');
    // --ignore-scripts: `npm test` has just built dist/ (pretest), so prepare need not build it again.
    const { stdout } = await run(npm, ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], { cwd: root });
    const [packed] = JSON.parse(stdout) as PackResult[];
    if (!packed) throw new Error(`npm pack printed no result: ${stdout}`);
    files = packed.files.map((f) => f.path);

    mkdirSync(app);
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
    // The npm registry (or its cache) only. Install scripts are skipped: the one that matters,
    // better-sqlite3's, would compile SQLite for minutes where no prebuilt binary can be fetched;
    // the binary this repository's `npm ci` built for the same version and Node is copied instead.
    await run(npm, ['install', '--no-audit', '--no-fund', '--prefer-offline', '--ignore-scripts', join(dir, packed.filename)], {
      cwd: app,
    });
    reuseSqliteBinary(app);
  }, 300_000);

  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('ships the compiled CLI, the contracts and the Pact child, and no tests, test helpers or TypeScript sources', () => {
    expect(files).toEqual(
      expect.arrayContaining([
        'bin/aggmock.js',
        'dist/cli/main.js',
        'dist/index.js',
        'dist/index.d.ts',
        'dist/verify/pact-child.js',
        'browser/admin-client.js',
        'browser/deliveries.js',
        'browser/page-data.js',
        'contracts/aggmock-integrator-webhook.json',
        'contracts/openapi.json',
        'README.md',
        'docs/verify.md',
      ]),
    );
    expect(files.filter((f) => /\.test\.|(^|\/)test-[^/]*$|^src\/|^test\//.test(f))).toEqual([]);
    const manifest = JSON.parse(readFileSync(join(app, 'node_modules', 'aggmock', 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    expect(Object.keys(manifest.dependencies)).not.toContain('tsx');
  });

  it('runs `aggmock --help`', async () => {
    const cli = runCli(['--help'], {}, app, bin);
    expect(await cli.exited).toBe(0);
    expect(cli.stdout()).toMatch(/Usage: aggmock/);
    for (const command of ['serve', 'wallet', 'demo', 'verify', 'send', 'contracts']) expect(cli.stdout()).toContain(command);
  });

  it('runs `aggmock demo` until the first delivered callback, serves /docs offline, and stops on SIGTERM', async () => {
    const cli = runCli(['demo', '--port', '0', '--wallet-port', '0', '--db', ':memory:'], {}, app, bin);
    try {
      const [, url] = await cli.waitFor(/listening on (http:\/\/\S+)/);
      await cli.waitFor(/DEBIT +p\d+ +\d+\.\d\d {2}delivered/, 30_000);
      // /docs works from the installed package: Swagger UI's assets come from its dependencies.
      expect((await fetch(`${url}/docs/assets/swagger-ui-bundle.js`)).status).toBe(200);
      // The pages' scripts come from the package's browser/ folder, found relative to dist/.
      const script = await fetch(`${url}/assets/js/deliveries.js`);
      expect(script.status).toBe(200);
      expect(await script.text()).toContain("from './admin-client.js'");
    } finally {
      expect(await cli.stop('SIGTERM')).toBe(0);
    }
  }, 60_000);

  it('runs `aggmock verify` against `aggmock wallet --test-endpoints`, with a JUnit report', async () => {
    const wallet = runCli(['wallet', '--port', '0', '--db', ':memory:', '--test-endpoints'], {}, app, bin);
    try {
      const [, webhook] = await wallet.waitFor(/listening on (http:\/\/\S+\/callback\/webhook)/);
      const stateUrl = new URL('/__state', webhook).href;
      const reports = join(dir, 'reports');
      const verify = runCli(
        ['verify', webhook as string, '--state-url', stateUrl, '--report-dir', reports],
        { NO_COLOR: '1' },
        app,
        bin,
      );
      expect(await verify.exited, verify.stdout() + verify.stderr()).toBe(0);
      expect(verify.stdout()).toMatch(/PASSED: (\d+) passed, 0 failed, 0 skipped/);
      expect(readFileSync(join(reports, 'junit.xml'), 'utf8')).toMatch(/<testsuites[^>]* failures="0"/);
    } finally {
      await wallet.stop('SIGTERM');
    }
  }, 90_000);

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
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: app });
    const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
    expect(JSON.parse(stdout)).toEqual({ version, exitCode: 0, failed: 0 });
  }, 60_000);
});

/** better-sqlite3's native addon, as this repository's install built it, when the versions match. */
function reuseSqliteBinary(app: string): void {
  const versionOf = (base: string) =>
    (JSON.parse(readFileSync(join(base, 'node_modules', 'better-sqlite3', 'package.json'), 'utf8')) as { version: string })
      .version;
  if (versionOf(app) !== versionOf(root)) {
    throw new Error(`better-sqlite3 ${versionOf(app)} in the package differs from ${versionOf(root)} here: run npm ci`);
  }
  const addon = join('node_modules', 'better-sqlite3', 'build', 'Release');
  mkdirSync(join(app, addon), { recursive: true });
  copyFileSync(join(root, addon, 'better_sqlite3.node'), join(app, addon, 'better_sqlite3.node'));
}
