import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { runLoadCommand } from '../../src/cli/commands/load.ts';
import { configSchema } from '../../src/config/index.ts';
import type { Verdict } from '../../src/load/index.ts';
import { startWallet } from '../../src/wallet/index.ts';

/**
 * The Artillery export, run for real by Artillery against the reference wallet: Artillery is
 * installed on demand into .bench-cache/ (never into the project's dependencies; 2.0.21, the last
 * line for Node 20; install scripts off, as no browser is needed), the processor imports the built
 * package (dist/), and the calls it records get the same verdict from `aggmock load --check`.
 *
 * It runs under `npm run test:exports` (AGGMOCK_EXPORT_RUNS=1), not `npm test`: the first install of
 * Artillery takes minutes and its run most of a minute on 2 cores, more than the suite's whole budget
 * allows. The k6 export's requests and signatures are checked under `npm test` (test/load/k6.test.ts).
 */
const RUN = process.env.AGGMOCK_EXPORT_RUNS === '1';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const ARTILLERY_HOME = join(ROOT, '.bench-cache', 'artillery');
const ARTILLERY = join(ARTILLERY_HOME, 'node_modules', 'artillery', 'bin', 'run');

function ensureArtillery(): void {
  if (existsSync(ARTILLERY)) return;
  mkdirSync(ARTILLERY_HOME, { recursive: true });
  if (!existsSync(join(ARTILLERY_HOME, 'package.json')))
    writeFileSync(join(ARTILLERY_HOME, 'package.json'), '{"private":true}\n');
  const r = spawnSync('npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts', 'artillery@2.0.21'], {
    cwd: ARTILLERY_HOME,
    encoding: 'utf8',
    timeout: 600_000,
  });
  if (r.status !== 0 || !existsSync(ARTILLERY))
    throw new Error(`npm install artillery@2.0.21 failed: ${(r.stderr || r.stdout).slice(-500)}`);
}

const dir = mkdtempSync(join(tmpdir(), 'aggmock-artillery-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const io = (out: string[]) => ({
  stdout: (t: string) => void out.push(t),
  stderr: (t: string) => void out.push(t),
  env: {},
  cwd: dir,
  tty: false,
});

describe.runIf(RUN)('aggmock load --export artillery', () => {
  it('Artillery runs the export against the reference wallet with 0 errors, and --check proves the calls correct', {
    timeout: 900_000,
  }, async () => {
    ensureArtillery();
    expect(existsSync(join(ROOT, 'dist', 'index.js')), 'build dist/ first: npx tsc -p tsconfig.build.json --noCheck').toBe(true);
    const players = ['p1', 'p2', 'p3'];
    const config = configSchema.parse({
      callbacks: { profile: 'pragmatic' },
      wallet: { currency: 'EUR', players: Object.fromEntries(players.map((p) => [p, 1000])) },
    });
    const wallet = await startWallet({ config, dbPath: ':memory:', port: 0 });
    try {
      const out: string[] = [];
      const code = await runLoadCommand(
        wallet.url,
        { dialect: 'pragmatic', rate: '5', duration: '3s', players: players.join(','), export: 'artillery', out: 'art' },
        io(out),
      );
      expect(code, out.join('')).toBe(0);
      const art = join(dir, 'art');
      expect(readFileSync(join(art, 'load.artillery.yml'), 'utf8')).toContain('function: "round"');
      // The processor imports the package by its name: this checkout, as npm would install it.
      mkdirSync(join(art, 'node_modules'), { recursive: true });
      symlinkSync(ROOT, join(art, 'node_modules', 'aggmock'), 'dir');
      const run = await new Promise<{ code: number | null; text: string }>((resolve) => {
        const child = spawn(process.execPath, [ARTILLERY, 'run', 'load.artillery.yml'], {
          cwd: art,
          env: { ...process.env, WALLET_URL: wallet.url, AGGMOCK_RECORD: 'calls.jsonl', ARTILLERY_DISABLE_TELEMETRY: 'true' },
        });
        let text = '';
        child.stdout.on('data', (d) => {
          text += d;
        });
        child.stderr.on('data', (d) => {
          text += d;
        });
        child.on('exit', (c) => resolve({ code: c, text }));
      });
      expect(run.code, run.text.slice(-2000)).toBe(0);
      expect(run.text).not.toMatch(/errors\.\w+/);
      const lines = readFileSync(join(art, 'calls.jsonl'), 'utf8').trim().split('\n');
      expect(lines.length).toBeGreaterThan(15);
      const judged: string[] = [];
      const check = await runLoadCommand(
        undefined,
        { dialect: 'pragmatic', check: join('art', 'calls.jsonl'), json: true, threshold: ['correctness'] },
        io(judged),
      );
      const verdict = JSON.parse(judged.join('')) as Verdict;
      expect(verdict.violations).toEqual([]);
      expect(verdict).toMatchObject({ ok: true, players: 3, reconciled: 3 });
      expect(check).toBe(0);
    } finally {
      await wallet.close();
    }
  });
});
