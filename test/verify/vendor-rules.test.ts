import { afterAll, describe, expect, it } from 'vitest';
import { runVerifyCommand } from '../../src/cli/commands/verify.ts';
import { configSchema } from '../../src/config/index.ts';
import { DEV_RSA_PUBLIC_KEY } from '../../src/dialects/index.ts';
import { runVerify, type VerifyOutcome } from '../../src/verify/index.ts';
import { startCaletaReceiver } from '../dialects/receivers/caleta.ts';
import { startEvolutionReceiver } from '../dialects/receivers/evolution.ts';
import { startHub88Receiver } from '../dialects/receivers/hub88.ts';
import type { VendorReceiver } from '../dialects/receivers/receiver-kit.ts';
import type { ReceiverStyle } from '../dialects/receivers/receiver-style.ts';
import { startSlotegratorReceiver } from '../dialects/receivers/slotegrator.ts';
import { type PlantedBug, RECEIVER_PLAYERS, startBuggyProxy } from './dialect-receivers.ts';
import { failures } from './helpers.ts';

/**
 * The rules the vendors document several ways (issue 32 item 1, 2): every alternative a vendor
 * allows passes, in both receiver styles; what aggmock asks beyond the vendor is a WARN, a FAIL
 * under --strict; a wallet that breaks the vendor's own rule fails. A few checks each, no
 * contracts, so the file stays cheap.
 */

const stops: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
});

async function started(receiver: Promise<VendorReceiver>): Promise<VendorReceiver> {
  const r = await receiver;
  stops.push(() => r.stop());
  return r;
}

async function proxied(target: string, bug: PlantedBug): Promise<string> {
  const proxy = await startBuggyProxy(target, bug);
  stops.push(() => proxy.stop());
  return proxy.url;
}

function verify(dialect: string, credentials: Record<string, string>, url: string, only: string[], strict = false) {
  return runVerify({
    webhookUrl: url,
    config: configSchema.parse({ callbacks: { dialect, credentials } }),
    players: RECEIVER_PLAYERS.map((p) => p.playerId),
    tokens: Object.fromEntries(RECEIVER_PLAYERS.map((p) => [p.playerId, p.token as string])),
    reportDir: false,
    only,
    ...(strict ? { strict: true } : {}),
  });
}

const statuses = (outcome: VerifyOutcome) => Object.fromEntries((outcome.report?.results ?? []).map((r) => [r.id, r.status]));

/** A reply body with one member replaced (the proxy's edits). */
const withMember = (body: string, member: string, value: unknown) => JSON.stringify({ ...JSON.parse(body), [member]: value });

describe('Evolution: "BET_ALREADY_EXIST or OK" for a repeated debit, "BET_ALREADY_SETTLED or OK" for a credit or cancel', () => {
  const creds = { authToken: 'evo-token-1' };
  const start = (style: ReceiverStyle) =>
    started(startEvolutionReceiver({ credentials: creds, players: RECEIVER_PLAYERS, style }));
  const only = ['idempotent-debit', 'idempotent-credit', 'duplicate-rollback', 'rollback-unknown'];

  it.each(['A', 'B'] as const)(
    'passes the style-%s wallet (OK, or the "already processed" codes) with no warning',
    async (style) => {
      const receiver = await start(style);
      // The contract's repeated bet too, on the style that answers it BET_ALREADY_EXIST.
      const ids = style === 'B' ? [...only, 'pact:duplicate-bet'] : only;
      const outcome = await verify('evolution', creds, receiver.url, ids);
      expect(statuses(outcome)).toEqual(Object.fromEntries(ids.map((id) => [id, 'pass'])));
      const debit = outcome.report?.results.find((r) => r.id === 'idempotent-debit');
      expect(debit?.vendorCases).toEqual(['Test_debitBetAlreadyExist']);
      expect(debit?.wireRule).toMatchObject({
        name: 'repeat',
        grade: 'vendor',
        source: expect.stringContaining('evo_integration_test.go'),
      });
    },
  );

  it("fails a wallet that answers a repeated debit with the credit's code, or a cancel of an unknown bet with OK", async () => {
    const receiver = await start('B');
    const url = await proxied(receiver.url, {
      reply: (req, reply) => {
        const status = (JSON.parse(reply.body) as { status?: string }).status;
        if (req.path.startsWith('/debit') && status === 'BET_ALREADY_EXIST')
          return { ...reply, body: withMember(reply.body, 'status', 'BET_ALREADY_SETTLED') };
        if (req.path.startsWith('/cancel') && status === 'BET_DOES_NOT_EXIST')
          return { ...reply, body: withMember(reply.body, 'status', 'OK') };
        return reply;
      },
    });
    const outcome = await verify('evolution', creds, url, ['idempotent-debit', 'rollback-unknown', 'pact:duplicate-bet']);
    expect(failures(outcome)).toEqual({
      'idempotent-debit': expect.stringMatching(/must get the first reply again/),
      'pact:duplicate-bet': expect.stringMatching(/does not match the contract/),
      'rollback-unknown': expect.stringMatching(/expected .*BET_DOES_NOT_EXIST/),
    });
    // The failure is read first, under the answer it failed on, with its rule's source.
    expect(outcome.report?.results.find((r) => r.id === 'idempotent-debit')?.hint).toMatch(
      /The vendor allows: a repeated debit may answer/,
    );
  });
});

describe('Caleta: a rollback of an unknown transaction, RS_OK (preferred) or RS_ERROR_TRANSACTION_DOES_NOT_EXIST', () => {
  const start = (style: ReceiverStyle) =>
    started(startCaletaReceiver({ credentials: { publicKey: DEV_RSA_PUBLIC_KEY }, players: RECEIVER_PLAYERS, style }));

  it('passes RS_OK; warns on the documented refusal (a failure only under --strict)', async () => {
    const a = await start('A');
    expect(statuses(await verify('caleta', {}, a.url, ['rollback-unknown']))).toEqual({ 'rollback-unknown': 'pass' });
    const b = await start('B');
    const warned = await verify('caleta', {}, b.url, ['rollback-unknown']);
    expect(statuses(warned)).toEqual({ 'rollback-unknown': 'warn' });
    expect(warned.exitCode).toBe(0);
    expect(warned.report?.summary.warned).toBe(1);
    expect(warned.report?.results[0]?.notes.join('\n')).toMatch(/^WARNING: .*RS_OK|success reply/m);
    const strict = await verify('caleta', {}, b.url, ['rollback-unknown'], true);
    expect(failures(strict)).toEqual({ 'rollback-unknown': expect.stringMatching(/a failure under --strict/) });
    expect(strict.report?.strict).toBe(true);
  });

  it('aggmock verify --strict says so on the console and fails the run', async () => {
    const b = await start('B');
    const flags = {
      dialect: 'caleta',
      players: RECEIVER_PLAYERS.map((p) => p.playerId).join(','),
      only: 'rollback-unknown',
      reports: false,
    };
    const token = Object.fromEntries(RECEIVER_PLAYERS.map((p) => [p.playerId, p.token as string]));
    const run = async (strict: boolean) => {
      const lines: string[] = [];
      const io = { stdout: (t: string) => lines.push(t), stderr: (t: string) => lines.push(t), env: {} };
      const outcome = await runVerifyCommand(b.url, { ...flags, token, ...(strict ? { strict } : {}) }, io);
      return { exitCode: outcome.exitCode, text: lines.join('') };
    };
    const lenient = await run(false);
    expect(lenient.exitCode).toBe(0);
    expect(lenient.text).toMatch(/^rollback-unknown +WARN /m);
    expect(lenient.text).toMatch(/WARNINGS: .*\n {2}- rollback-unknown: WARNING: /);
    expect(lenient.text).toMatch(/PASSED: 0 passed, 0 failed, 1 warned/);
    const strict = await run(true);
    expect(strict.exitCode).toBe(1);
    expect(strict.text).toMatch(/^rollback-unknown +FAIL /m);
  });

  it('fails another refusal code: only the two documented answers pass', async () => {
    const b = await start('B');
    const url = await proxied(b.url, {
      reply: (_req, reply) =>
        reply.body.includes('RS_ERROR_TRANSACTION_DOES_NOT_EXIST')
          ? { ...reply, body: withMember(reply.body, 'status', 'RS_ERROR_UNKNOWN') }
          : reply,
    });
    expect(failures(await verify('caleta', {}, url, ['rollback-unknown']))).toEqual({
      'rollback-unknown': expect.stringMatching(/RS_ERROR_TRANSACTION_DOES_NOT_EXIST/),
    });
  });
});

describe("Hub88: a repeat is RS_OK and moves no money; the first reply's balance again is aggmock's safer reading", () => {
  const start = (style: ReceiverStyle) =>
    started(startHub88Receiver({ credentials: { publicKey: DEV_RSA_PUBLIC_KEY }, players: RECEIVER_PLAYERS, style }));
  const only = ['idempotent-debit', 'idempotent-credit'];

  it('passes the wallet that replays its first reply (style B)', async () => {
    const b = await start('B');
    expect(statuses(await verify('hub88', {}, b.url, only))).toEqual({ 'idempotent-debit': 'pass', 'idempotent-credit': 'pass' });
  });

  it('warns on a wallet that answers a repeat with the balance as it is now, and fails it under --strict', async () => {
    const b = await start('B');
    // The receiver replays its first reply; the proxy makes it answer with the balance as it is now:
    // verify moved it by a CREDIT of 0.01 (1000 at Hub88's scale of 100000) between the two sends.
    const firsts = new Map<string, number>();
    const url = await proxied(b.url, {
      reply: (req, reply) => {
        if (!req.path.startsWith('/transaction/')) return reply;
        const id = (JSON.parse(req.body) as { transaction_uuid: string }).transaction_uuid;
        const balance = (JSON.parse(reply.body) as { balance: number }).balance;
        const first = firsts.get(id);
        if (first === undefined) firsts.set(id, balance);
        return first === undefined ? reply : { ...reply, body: withMember(reply.body, 'balance', first + 1000) };
      },
    });
    const outcome = await verify('hub88', {}, url, only);
    expect(statuses(outcome)).toEqual({ 'idempotent-debit': 'warn', 'idempotent-credit': 'warn' });
    expect(outcome.exitCode).toBe(0);
    const strict = await verify('hub88', {}, url, only, true);
    expect(Object.keys(failures(strict)).sort()).toEqual(['idempotent-credit', 'idempotent-debit']);
  });

  it('fails a wallet that charges a repeated bet again', async () => {
    const b = await start('B');
    // Every bet is sent twice, each with its own request_uuid: the wallet charges both.
    const url = await proxied(b.url, {
      request: (req) =>
        req.path === '/transaction/bet'
          ? {
              ...req,
              body: withMember(req.body, 'transaction_uuid', `${JSON.parse(req.body).transaction_uuid}-${Math.random()}`),
            }
          : req,
    });
    expect(failures(await verify('hub88', {}, url, ['idempotent-debit']))).toEqual({
      'idempotent-debit': expect.any(String),
    });
  });
});

describe('Slotegrator: refusal codes the sources never name are guessed, so any refusal passes', () => {
  const creds = { merchantId: 'aggmock-merchant-01', merchantKey: 'sg-merchant-key-01' };

  it("warns when an unknown player is refused with another code than aggmock's guess, and fails it under --strict", async () => {
    const receiver = await started(startSlotegratorReceiver({ credentials: creds, players: RECEIVER_PLAYERS }));
    const recoded = await proxied(receiver.url, {
      reply: (_req, reply) =>
        reply.body.includes('INTERNAL_ERROR')
          ? { ...reply, body: withMember(reply.body, 'error_code', 'PLAYER_UNKNOWN') }
          : reply,
    });
    expect(statuses(await verify('slotegrator', creds, receiver.url, ['unknown-player']))).toEqual({ 'unknown-player': 'pass' });
    expect(statuses(await verify('slotegrator', creds, recoded, ['unknown-player']))).toEqual({ 'unknown-player': 'warn' });
    expect(failures(await verify('slotegrator', creds, recoded, ['unknown-player'], true))).toEqual({
      'unknown-player': expect.stringMatching(/INTERNAL_ERROR/),
    });
  });
});
