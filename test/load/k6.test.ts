import { afterAll, describe, expect, it } from 'vitest';
import { runCleanups } from '../../src/callbacks/test-engine.ts';
import {
  buildRequest,
  builtinDialect,
  type CallFacts,
  type Credentials,
  DEV_EC_PRIVATE_KEY,
  DEV_EC_PUBLIC_KEY,
  type Dialect,
  dialectSchema,
  readReply,
  verifyRequest,
} from '../../src/dialects/index.ts';
import { DEFAULT_MIX } from '../../src/load/index.ts';
import { k6Script } from '../../src/load/k6.ts';
import { PLAYER, started, VENDORS } from '../dialects/vendor-table.ts';
import { k6Scripts } from './k6-module.ts';

/**
 * k6 cannot run here, so the exported script is run under Node with k6's modules shimmed
 * (k6/crypto by node:crypto digests, WebCrypto is Node's own): its requests must be the very
 * requests aggmock builds — the same method, path, headers and body, byte for byte — and every
 * vendor's independent receiver must accept the calls it signs. ECDSA signatures are randomised:
 * the script's (WebCrypto's r‖s turned into DER) must verify where aggmock's does.
 */

const scripts = k6Scripts();
const scriptFor = scripts.scriptFor;
const dir = scripts.dir;
afterAll(async () => {
  await runCleanups();
  scripts.remove();
});

const T0 = Date.now() - 30_000;
function stepsOf(dialect: Dialect): CallFacts[] {
  const base = { playerId: PLAYER.playerId, currency: 'EUR', sessionToken: PLAYER.token, gameId: 'vs20fruitsw' };
  const steps: Omit<CallFacts, 'createdAt' | 'sentAt' | 'requestId'>[] = [
    ...(dialect.operations.authenticate ? [{ ...base, operation: 'authenticate' as const }] : []),
    ...(dialect.operations.balance ? [{ ...base, operation: 'balance' as const }] : []),
    { ...base, operation: 'bet', transactionId: 'k6tx0001', roundId: '7001', amountMinor: 1050 },
    {
      ...base,
      operation: 'win',
      transactionId: 'k6tx0002',
      betTransactionId: 'k6tx0001',
      roundId: '7001',
      amountMinor: 2500,
      roundClosed: true,
    },
    { ...base, operation: 'bet', transactionId: 'k6tx0003', roundId: '7002', amountMinor: 2000 },
    {
      ...base,
      operation: 'rollback',
      transactionId: 'k6rb0003',
      betTransactionId: 'k6tx0003',
      roundId: '7002',
      amountMinor: 2000,
    },
  ];
  return steps.map((s, i) => ({
    ...s,
    createdAt: T0 + i * 1000,
    sentAt: T0 + i * 1000 + 5,
    requestId: `5f0c${String(i).padStart(4, '0')}-aaaa-4bbb-8ccc-0123456789ab`,
  })) as CallFacts[];
}

describe('the k6 export builds and signs each call as aggmock does', () => {
  it.each(VENDORS.map((v) => [v.name, v] as const))(
    '%s: the same requests byte for byte, each accepted by the vendor receiver',
    async (name, vendor) => {
      const dialect = builtinDialect(name);
      const dev = Object.fromEntries(
        Object.entries(dialect.credentials).flatMap(([k, c]) => (c.default === undefined ? [] : [[k, c.default]])),
      );
      const credentials: Credentials = { ...dev, ...vendor.credentials };
      const script = await scriptFor(dialect, credentials);
      const rx = await started(vendor.receiver());
      let token = PLAYER.token;
      for (const step of stepsOf(dialect)) {
        const facts = { ...step, sessionToken: token };
        const ours = buildRequest(dialect, facts, credentials);
        const theirs = await script.buildRequest(facts);
        expect({ ...theirs, body: theirs.body ?? undefined }).toEqual({
          method: ours.method,
          path: ours.path,
          headers: ours.headers,
          body: ours.body,
        });
        const res = await fetch(`${rx.url}${theirs.path}`, {
          method: theirs.method,
          headers: theirs.headers,
          ...(theirs.body === undefined ? {} : { body: theirs.body }),
        });
        const reply = readReply(dialect, facts, { status: res.status, text: await res.text() });
        expect(reply.verdict, `${name} ${facts.operation}: ${reply.code ?? ''} ${reply.message ?? ''}`).toBe('accepted');
        if (reply.token) token = reply.token;
      }
      expect(rx.errors).toEqual([]);
    },
  );

  it('ECDSA (St8-style): WebCrypto r‖s becomes DER, which verifies where aggmock verifies; a raw r‖s would not', async () => {
    const hub88 = builtinDialect('hub88');
    const dialect = dialectSchema.parse({
      ...hub88,
      name: 'ecdsa-wire',
      credentials: { privateKey: { description: 'EC P-256', kind: 'private-key', default: DEV_EC_PRIVATE_KEY } },
      signing: {
        algorithm: 'ecdsa-sha256',
        key: 'privateKey',
        payload: { over: 'body' },
        encoding: 'base64',
        place: { header: 'X-Sign' },
      },
    });
    const script = await scriptFor(dialect, { privateKey: DEV_EC_PRIVATE_KEY });
    const facts = stepsOf(dialect).find((f) => f.operation === 'bet') as CallFacts;
    const req = await script.buildRequest(facts);
    const received = { method: req.method, path: req.path, headers: req.headers, body: req.body ?? '' };
    expect(verifyRequest(dialect, received, { privateKey: DEV_EC_PUBLIC_KEY })).toEqual({ ok: true });
    // The DER form starts with a SEQUENCE; 64 raw bytes would be refused.
    const der = Buffer.from(req.headers['x-sign'] as string, 'base64');
    expect(der[0]).toBe(0x30);
    const raw = Buffer.alloc(64, 7).toString('base64');
    expect(
      verifyRequest(dialect, { ...received, headers: { ...req.headers, 'x-sign': raw } }, { privateKey: DEV_EC_PUBLIC_KEY }).ok,
    ).toBe(false);
  });

  it('refuses a wire it cannot carry, saying why', () => {
    const profile = { ...builtinDialect('hub88'), signing: { algorithm: 'scheme' as const } };
    expect(() =>
      k6Script({
        dialect: profile,
        dialectName: 'default',
        credentials: {},
        url: 'http://x.invalid',
        schedule: { startRate: 1, stages: [{ durationMs: 1000, rate: 1 }] },
        players: ['p1'],
        mix: DEFAULT_MIX,
        stakeMinor: 100,
        currency: 'EUR',
        out: dir,
      }),
    ).toThrow("signs with aggmock's header schemes");
  });
});
