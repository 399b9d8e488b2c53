import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LoadFlags, runLoadCommand } from '../../src/cli/commands/load.ts';
import type { LoadSummary } from '../../src/load/index.ts';
import { startEvolutionReceiver } from '../dialects/receivers/evolution.ts';
import type { VendorReceiver } from '../dialects/receivers/receiver-kit.ts';

/**
 * `aggmock load` with timeouts injected after the wallet applied a call, against an Evolution wallet
 * written from Evolution's docs that answers a repeat with BET_ALREADY_EXIST / BET_ALREADY_SETTLED
 * (style B; Evolution's wallet test tool accepts that or OK). The retry of an applied bet is answered
 * "already processed": the call counts as accepted (not a refusal) and the correctness verdict holds.
 */
const PLAYERS = ['player01', 'player02'];
const token = (player: string) => `tok-${player}-0123456789abcdef0123456789`;
const dir = mkdtempSync(join(tmpdir(), 'aggmock-load-ap-'));
let receiver: VendorReceiver;

beforeAll(async () => {
  receiver = await startEvolutionReceiver({
    credentials: { authToken: 'evo-token-1' },
    players: PLAYERS.map((playerId) => ({ playerId, currency: 'EUR', balance: '1000.00', token: token(playerId) })),
    style: 'B',
  });
});
afterAll(async () => {
  await receiver.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function load(flags: LoadFlags): Promise<{ code: number; summary: LoadSummary }> {
  let out = '';
  const code = await runLoadCommand(receiver.url, flags, {
    stdout: (t) => {
      out += t;
    },
    stderr: () => {},
    env: {},
    cwd: dir,
    tty: false,
  });
  return { code, summary: JSON.parse(out) as LoadSummary };
}

describe('aggmock load: a retry answered "already processed"', () => {
  it('counts as accepted, and the verdict stays exact', async () => {
    const { code, summary } = await load({
      dialect: 'evolution',
      credential: { authToken: 'evo-token-1' },
      token: 'tok-{player}-0123456789abcdef0123456789',
      players: PLAYERS.join(','),
      rate: '30',
      duration: '1500ms',
      seed: '7',
      // No deliberate duplicate rounds: their second bet is rightly refused BET_ALREADY_EXIST.
      mix: 'bet-win=60,bet-lose=30,rollback=10',
      fault: ['timeout@30%'],
      json: true,
      threshold: ['correctness'],
    });
    expect(summary.faults.timeouts).toBeGreaterThan(0);
    expect(summary.errors.retries).toBeGreaterThan(0);
    // The repeats of applied calls were answered with the "already processed" codes, not refused.
    const refusals = JSON.stringify(summary.errors);
    expect(refusals).not.toContain('BET_ALREADY_EXIST');
    expect(refusals).not.toContain('BET_ALREADY_SETTLED');
    expect(summary.correctness.violations).toEqual([]);
    expect(code).toBe(0);
    expect(receiver.errors).toEqual([]);
  });
});
