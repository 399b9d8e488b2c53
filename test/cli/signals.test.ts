import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/config/index.ts';
import { type RunningWallet, startWallet } from '../../src/wallet/index.ts';
import { stopsAnsweringAfter } from '../verify/helpers.ts';
import { runCli } from './process.ts';

/** PIDs whose parent is `pid`, from /proc (Linux). */
function childrenOf(pid: number): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((name) => {
      try {
        // Field 4 of /proc/<pid>/stat, after the command name in parentheses.
        return Number(readFileSync(`/proc/${name}/stat`, 'utf8').split(') ')[1]?.split(' ')[1]) === pid;
      } catch {
        return false; // it ended while we looked
      }
    })
    .map(Number);
}

const until = async (what: string, ok: () => boolean, ms = 15_000) => {
  const started = Date.now();
  while (!ok()) {
    if (Date.now() - started > ms) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
};

// Reads other processes through /proc: Linux only, where CI runs.
describe.skipIf(process.platform !== 'linux')('stopping aggmock stops every process it started', () => {
  let wallet: RunningWallet;
  const fronts: Awaited<ReturnType<typeof stopsAnsweringAfter>>[] = [];
  beforeAll(async () => {
    wallet = await startWallet({ config: validateConfig({}), dbPath: ':memory:', port: 0, testEndpoints: true });
  });
  afterAll(async () => {
    for (const front of fronts) await front.close();
    await wallet?.close();
  });

  it.each(['SIGTERM', 'SIGINT'] as const)(
    '%s to `aggmock verify` ends its Pact Verifier child too',
    async (signal) => {
      // The preflight's three balance reads are answered; then the webhook holds every request, so
      // the Pact Verifier child is busy waiting when the signal comes.
      const front = await stopsAnsweringAfter(wallet, 3);
      fronts.push(front);
      const cli = runCli(['verify', front.url, '--state-url', `${wallet.url}/__state`, '--no-reports', '--timeout', '30s']);
      const pid = cli.child.pid as number;
      let pact: number[] = [];
      await until('the Pact child runs', () => {
        pact = childrenOf(pid);
        return pact.length > 0;
      });
      process.kill(pid, signal);
      await cli.exited;
      await until('the Pact child is gone', () => pact.every((p) => !existsSync(`/proc/${p}`)), 5_000);
      expect(pact.filter((p) => existsSync(`/proc/${p}`))).toEqual([]);
    },
    40_000,
  );
});
