import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { transactionIdAt } from '../../callbacks/ids.ts';
import { startStubWallet } from '../../ledger/test-wallet.ts';
import { verifySignature } from '../../signing/index.ts';
import { openDatabase } from '../../storage/index.ts';
import { registerSendCommand, runSend, type SendFlags } from './send.ts';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

const tmp = mkdtempSync(join(tmpdir(), 'aggmock-send-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function io(cwd = tmp) {
  const out: string[] = [];
  const err: string[] = [];
  return {
    io: { stdout: (t: string) => out.push(t), stderr: (t: string) => err.push(t), env: {}, cwd, retrySchedule: [0, 10] },
    out: () => out.join(''),
    err: () => err.join(''),
  };
}

async function wallet(options: Parameters<typeof startStubWallet>[0] = {}) {
  const w = await startStubWallet(options);
  cleanups.push(() => w.close());
  return w;
}

describe('aggmock send', () => {
  it('never sends the same transactionId twice across runs (each run has its own id namespace)', async () => {
    const w = await wallet();
    for (let i = 0; i < 2; i++)
      expect(await runSend('debit', { player: 'p1', amount: '1', to: w.url, seed: '42' }, io().io)).toBe(0);
    const [a, b] = w.received as { transactionId: string }[];
    expect(a?.transactionId).not.toBe(b?.transactionId);
  });

  it('sends one signed DEBIT, prints the request and the reply, and exits 0 when delivered', async () => {
    const w = await wallet();
    const t = io();
    const code = await runSend('debit', { player: 'p1', amount: '5', to: w.url, seed: '42' }, t.io);
    expect(code).toBe(0);
    const txId = (w.received[0] as { transactionId: string }).transactionId;
    // The first id of seed 42, in the namespace of send's fresh database.
    expect(txId).toMatch(new RegExp(`^tx_[a-z0-9]{6}_${transactionIdAt(42, 0).slice(3)}$`));
    const body = `{"type":"DEBIT","transactionId":"${txId}","amount":5,"playerId":"p1"}`;
    expect(w.received).toEqual([JSON.parse(body)]);
    const out = t.out();
    expect(out).toContain(`→ POST ${w.url}`);
    expect(out).toMatch(/X-Signature: t=\d+,v1=[0-9a-f]{64}/);
    expect(out).toContain(`  ${body}`);
    expect(out).toMatch(/← 200 \(\d+\.\d ms\)\n {2}\{"balance":995\}/);
    expect(out).toContain(`delivered: DEBIT ${txId} for p1, amount 5.00 (1 attempt)`);
    // The signature the wallet got verifies with the default dev secret.
    const headers = w.headers[0] as Record<string, string>;
    expect(() =>
      verifySignature({ scheme: 'timestamped', secrets: ['aggmock-dev-secret'], payload: body, headers }),
    ).not.toThrow();
  });

  it('signs with the given secrets and scheme, uses --tx, and prints JSON with --json', async () => {
    const w = await wallet();
    const t = io();
    const flags: SendFlags = {
      player: 'p2',
      amount: '10.50',
      tx: 'cli-1',
      to: w.url,
      secret: ['one', 'two'],
      scheme: 'hmac-hex',
      json: true,
    };
    expect(await runSend('CREDIT', flags, t.io)).toBe(0);
    const printed = JSON.parse(t.out());
    expect(printed.ok).toBe(true);
    expect(printed.event).toMatchObject({ kind: 'credit', transactionId: 'cli-1', status: 'delivered' });
    expect(printed.attempts[0].request).toMatchObject({
      method: 'POST',
      url: w.url,
      body: '{"type":"CREDIT","transactionId":"cli-1","amount":10.5,"playerId":"p2"}',
    });
    expect(printed.attempts[0].reply).toMatchObject({ status: 200, body: { balance: 1010.5 } });
    const headers = w.headers[0] as Record<string, string>;
    expect(() => verifySignature({ scheme: 'hmac-hex', secrets: ['two'], payload: printed.event.body, headers })).not.toThrow();
  });

  it('exits 1 when the wallet rejects the event, and says why', async () => {
    const w = await wallet();
    const t = io();
    expect(await runSend('debit', { player: 'p1', amount: '5000', to: w.url }, t.io)).toBe(1);
    expect(t.out()).toContain('← 400');
    expect(t.out()).toMatch(/rejected: DEBIT .* INSUFFICIENT_FUNDS/);
  });

  it('exits 1 after the short retry schedule when nobody answers, printing each attempt', async () => {
    const w = await wallet();
    await w.close();
    const t = io();
    expect(await runSend('debit', { player: 'p1', amount: '1', to: w.url }, t.io)).toBe(1);
    expect(t.out()).toContain('# attempt 2 of 2');
    expect(t.out()).toContain('← no reply');
    expect(t.out()).toMatch(/failed: DEBIT .*\(2 attempts\)/);
  });

  it('sends a ROLLBACK of a DEBIT given with --ref', async () => {
    const w = await wallet();
    await runSend('debit', { player: 'p1', amount: '3', tx: 'd-9', to: w.url }, io().io);
    const t = io();
    expect(await runSend('rollback', { player: 'p1', amount: '3', ref: 'd-9', to: w.url }, t.io)).toBe(0);
    expect(w.received.at(-1)).toEqual({ type: 'ROLLBACK', transactionId: 'd-9', amount: 3, playerId: 'p1' });
    expect(t.out()).toContain('{"balance":1000}');
  });

  it('exits 2 on usage errors, naming the flag and the expected form', async () => {
    const cases: Array<[string, SendFlags, RegExp]> = [
      ['debit', { player: 'p1', amount: 'five' }, /--amount: expected an amount in major units .* got "five"/],
      ['debit', { player: 'p1', amount: '1.005' }, /--amount/],
      ['debit', { player: 'p1' }, /--amount/],
      ['debit', { amount: '1' }, /--player/],
      [
        'refund',
        { player: 'p1', amount: '1' },
        /<type>: expected one of debit, credit, rollback \(or the configured types DEBIT, CREDIT, ROLLBACK\), got "refund"\./,
      ],
      ['rollback', { player: 'p1', amount: '1' }, /--ref/],
      ['debit', { player: 'p1', amount: '1', to: 'not a url' }, /callbacks\.webhookUrl/],
      ['debit', { player: 'p1', amount: '1', config: 'missing.json' }, /Config file not found/],
    ];
    for (const [type, flags, message] of cases) {
      const t = io();
      expect(await runSend(type, flags, t.io), JSON.stringify(flags)).toBe(2);
      expect(t.err()).toMatch(message);
    }
  });

  it('reads the config file and records the delivery in --db when given', async () => {
    const w = await wallet({ types: { debit: 'BET', credit: 'WIN', rollback: 'REFUND' } });
    const dir = mkdtempSync(join(tmp, 'project-'));
    writeFileSync(
      join(dir, 'aggmock.config.json'),
      JSON.stringify({ callbacks: { webhookUrl: w.url, types: { debit: 'BET', credit: 'WIN', rollback: 'REFUND' } } }),
    );
    const dbPath = join(dir, 'state', 'send.db');
    expect(await runSend('bet', { player: 'p1', amount: '2', db: dbPath }, io(dir).io)).toBe(0);
    expect(w.received[0]).toMatchObject({ type: 'BET', amount: 2 });
    const db = openDatabase(dbPath, { readonly: true });
    const row = db.prepare('SELECT status, source FROM callback_events').get();
    db.close();
    expect(row).toEqual({ status: 'delivered', source: 'cli:send' });
  });

  it('registers a `send` command whose action runs the send', async () => {
    const w = await wallet();
    const program = new Command('aggmock');
    const t = io();
    registerSendCommand(program, t.io);
    const send = program.commands.find((c) => c.name() === 'send');
    expect(send?.description()).toContain('ONE signed callback');
    expect(send?.helpInformation()).toContain('--amount <major>');
    const previous = process.exitCode;
    await program
      .parseAsync(['send', 'debit', '--player', 'p3', '--amount', '1.25', '--to', w.url, '--json'], { from: 'user' })
      .catch(() => {});
    const code = process.exitCode;
    process.exitCode = previous;
    expect(code).toBe(0);
    expect(w.received[0]).toMatchObject({ playerId: 'p3', amount: 1.25 });
    expect(JSON.parse(t.out()).event.status).toBe('delivered');
  });
});
