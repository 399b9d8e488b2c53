/**
 * Wall time of a full `aggmock verify` (the preflight, every contract interaction through the Pact
 * Verifier and every stateful check) against the reference wallet on loopback. The wallet runs as its own process
 * (`aggmock wallet --test-endpoints`), as it would for a user. Three series:
 * - in-process `runVerify` with --state-url (exact balances) and with --players only;
 * - the whole CLI as a user runs it (`node bin/aggmock.js verify …`, the package's bin, process start included).
 * The target is under 5 s for every run (the slowest, not the median); run alone with `npm run bench -- verify`.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runVerify } from '../src/verify/index.ts';
import { type Benchmark, BIN, median, startProcess, stop, track } from './lib.ts';

const CLI_ROUNDS = 3;
const TARGET_MS = 5_000;

interface Stats {
  median: number;
  min: number;
  max: number;
  runs: number[];
}

function stats(runs: number[]): Stats {
  return { median: median(runs), min: Math.min(...runs), max: Math.max(...runs), runs };
}

async function startWalletProcess(): Promise<{ child: ChildProcess; url: string }> {
  const started = await startProcess(
    process.execPath,
    [BIN, 'wallet', '--port', '0', '--db', ':memory:', '--test-endpoints', '--log-level', 'silent'],
    /listening on (http:\/\/\S+)\/callback\/webhook/,
    { label: 'the wallet', timeoutMs: 20_000 },
  );
  return { child: started.child, url: started.match };
}

function runCliVerify(url: string, reportDir: string): Promise<{ ms: number; code: number | null }> {
  const t0 = performance.now();
  return new Promise((resolve) => {
    const child = track(
      spawn(
        process.execPath,
        [BIN, 'verify', `${url}/callback/webhook`, '--state-url', `${url}/__state`, '--report-dir', reportDir],
        {
          stdio: 'ignore',
        },
      ),
    );
    child.once('exit', (code) => resolve({ ms: performance.now() - t0, code }));
  });
}

const bench: Benchmark = {
  name: 'verify',
  description: `full aggmock verify against the reference wallet on loopback (target < ${TARGET_MS / 1000} s)`,
  async run({ rounds: ROUNDS }) {
    const wallet = await startWalletProcess();
    const reportDir = mkdtempSync(join(tmpdir(), 'aggmock-bench-verify-'));
    try {
      const series: Record<string, number[]> = {
        'in-process, --state-url': [],
        'in-process, --players': [],
        'CLI process, --state-url': [],
      };
      const counts: Record<string, string> = {};
      for (let round = 0; round < ROUNDS; round++) {
        for (const mode of ['state', 'players'] as const) {
          const t0 = performance.now();
          const outcome = await runVerify({
            webhookUrl: `${wallet.url}/callback/webhook`,
            ...(mode === 'state' ? { stateUrl: `${wallet.url}/__state` } : { players: ['p1', 'p2'] }),
            reportDir,
          });
          const ms = performance.now() - t0;
          if (outcome.exitCode !== 0)
            throw new Error(
              `verify failed against the reference wallet (${mode}): ${JSON.stringify(outcome.report?.summary ?? outcome.error)}`,
            );
          const s = outcome.report?.summary;
          if (s?.blocked !== 0) throw new Error(`verify blocked checks on the reference wallet (${mode}): ${JSON.stringify(s)}`);
          counts[mode] = `${s?.passed} passed, ${s?.skipped} skipped`;
          series[mode === 'state' ? 'in-process, --state-url' : 'in-process, --players']?.push(ms);
        }
      }
      for (let round = 0; round < CLI_ROUNDS; round++) {
        const { ms, code } = await runCliVerify(wallet.url, reportDir);
        if (code !== 0) throw new Error(`the CLI verify exited ${code}`);
        series['CLI process, --state-url']?.push(ms);
      }
      const data = Object.fromEntries(Object.entries(series).map(([k, v]) => [k, stats(v)]));
      const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
      const rows = Object.entries(data).map(
        ([k, v]) =>
          `| ${k} | ${v.runs.length} | ${s(v.median)} | ${s(v.min)} | ${s(v.max)} | ${v.max < TARGET_MS ? 'yes' : 'NO'} |`,
      );
      const markdown = [
        `| series | rounds | median | min | max | < ${TARGET_MS / 1000} s |`,
        '|---|---:|---:|---:|---:|:-:|',
        ...rows,
        '',
        `Checks: --state-url ${counts.state}; --players ${counts.players} (every contract interaction runs in both: without a state URL its states are realised through the webhook).`,
        'The wallet is `aggmock wallet --test-endpoints` in its own process; the Pact Verifier runs in a child process of verify.',
      ].join('\n');
      return { markdown, data: { targetMs: TARGET_MS, counts, series: data } };
    } finally {
      await stop(wallet.child);
      rmSync(reportDir, { recursive: true, force: true });
    }
  },
};

export default bench;
