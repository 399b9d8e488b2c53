import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runVerifyCommand, type VerifyFlags } from '../../src/cli/commands/verify.ts';
import type { VendorReceiver } from '../dialects/receivers/receiver-kit.ts';
import { RECEIVER_PLAYERS } from './dialect-receivers.ts';
import { VENDORS, type VendorName } from './new-checks-kit.ts';

/*
 * Issue 32: verify twice against a wallet that rotates its session token on authenticate (style B
 * of Evolution, Pragmatic and Red Tiger). The first run's authenticate makes the launch token
 * stale, so the second run must start from the token the wallet handed over: `--tokens <file>`
 * reads it before the run and writes the new one back. Through the command, as a user runs it.
 */

const dir = mkdtempSync(join(tmpdir(), 'aggmock-chained-'));
const receivers: VendorReceiver[] = [];
afterAll(async () => {
  for (const r of receivers) await r.stop();
  rmSync(dir, { recursive: true, force: true });
});

const CHECKS = 'debit-applies,credit-applies';
const tokenFlags = Object.fromEntries(RECEIVER_PLAYERS.map((p) => [p.playerId, p.token as string]));

async function rotating(name: VendorName): Promise<VendorReceiver> {
  const v = VENDORS[name];
  const receiver = await v.start({
    credentials: 'receiverCredentials' in v ? v.receiverCredentials : v.credentials,
    players: RECEIVER_PLAYERS,
    style: 'B',
  });
  receivers.push(receiver);
  return receiver;
}

async function verify(name: VendorName, url: string, extra: VerifyFlags) {
  let out = '';
  const outcome = await runVerifyCommand(
    url,
    {
      dialect: name,
      credential: VENDORS[name].credentials,
      players: RECEIVER_PLAYERS.map((p) => p.playerId).join(','),
      token: tokenFlags,
      only: CHECKS,
      reports: false,
      ...extra,
    },
    { stdout: (t) => (out += t), stderr: (t) => (out += t), cwd: dir, env: {} },
  );
  return { outcome, out };
}

describe('verify twice against a wallet that rotates its session token', () => {
  it.each(['evolution', 'redtiger'] as const)('%s: chained with --tokens, the second run passes too', async (name) => {
    const receiver = await rotating(name);
    const file = `${name}-tokens.txt`;
    const first = await verify(name, receiver.url, { tokens: file });
    expect(first.outcome.exitCode, first.out).toBe(0);
    const handed = first.outcome.report?.sessionTokens?.handedOver ?? {};
    // The wallet rotated the main player's token on authenticate; the file now holds the new one.
    expect(handed.player01).toMatch(/^(evo-sid|rt)-[0-9a-f]{48}$/);
    expect(readFileSync(join(dir, file), 'utf8')).toContain(`player01=${handed.player01}\n`);
    expect(first.out).toContain(`Written to ${join(dir, file)}: run the next verify with --tokens`);

    const second = await verify(name, receiver.url, { tokens: file });
    expect(second.outcome.report?.firstCause?.summary, second.out).toBeUndefined();
    expect(second.outcome.report?.summary).toMatchObject({ failed: 0, blocked: 0, passed: 2 });
    // Rotated again: the file always holds the newest token, ready for a third run.
    const again = second.outcome.report?.sessionTokens?.handedOver.player01;
    expect(again).toBeDefined();
    expect(again).not.toBe(handed.player01);
    expect(readFileSync(join(dir, file), 'utf8')).toContain(`player01=${again}\n`);
  });

  it('without --tokens the second run is blocked by the session token, and both runs say how to chain', async () => {
    const receiver = await rotating('pragmatic');
    const first = await verify('pragmatic', receiver.url, {});
    expect(first.outcome.exitCode, first.out).toBe(0);
    const handed = first.outcome.report?.sessionTokens;
    expect(handed?.handedOver.player01).toMatch(/^pp-/);
    expect(handed?.nextRun).toContain(`--token player01=${handed?.handedOver.player01}`);
    expect(first.out).toMatch(/SESSION TOKENS: the wallet handed over new session tokens[\s\S]*Next run: --token player01=pp-/);

    const second = await verify('pragmatic', receiver.url, {});
    expect(second.outcome.exitCode).toBe(1);
    const cause = second.outcome.report?.firstCause;
    expect(cause?.kind).toBe('session-token');
    expect(cause?.fix).toMatch(/give verify --tokens <file> and it writes the tokens the wallet hands over/);
    expect(second.outcome.report?.summary).toMatchObject({ blocked: 2 });
  });

  it('refuses a bad tokens file before sending anything, naming the line (exit 2)', async () => {
    writeFileSync(join(dir, 'bad.txt'), 'player01=ok\nplayer02\n');
    const { outcome, out } = await verify('evolution', 'http://x.invalid/', { tokens: 'bad.txt' });
    expect(outcome.exitCode).toBe(2);
    expect(out).toMatch(/--tokens .*bad\.txt line 2: expected player=token such as p1=tok-123, got "player02"/);
  });
});
