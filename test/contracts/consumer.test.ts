import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { callbackBodySchemas } from '../../src/callbacks/events.ts';
import { configSchema, defaultConfig } from '../../src/config/index.ts';
import {
  CONTRACT_INTERACTIONS,
  type ContractInteraction,
  contractBody,
  type DeliveredInteraction,
  findInteraction,
  generateContracts,
  normalisePact,
  PACT_FILE_NAME,
  runConsumerInteractions,
  WRONG_SECRET,
} from '../../src/contracts/index.ts';
import { verifySignature } from '../../src/signing/index.ts';

/**
 * The consumer side of the contracts: aggmock's REAL callback engine sends each interaction's
 * callback to the Pact mock server, which fails the test if the request differs from the
 * contract; the engine must then read the mock's reply the way the rule says.
 */

const COMMITTED = new URL(`../../contracts/${PACT_FILE_NAME}`, import.meta.url);
const outDir = mkdtempSync(join(tmpdir(), 'aggmock-consumer-'));
afterAll(() => rmSync(outDir, { recursive: true, force: true }));

interface PactJson {
  interactions: {
    description: string;
    providerStates?: { name: string; params: Record<string, unknown> }[];
    request: { headers: Record<string, string[]>; body: { content: Record<string, unknown> } };
    response: { status: number; body: { content: Record<string, unknown> } };
  }[];
  metadata: Record<string, unknown>;
}

describe('contracts: aggmock (consumer) → integrator-webhook (provider), default configuration', () => {
  const config = defaultConfig();

  for (const interaction of CONTRACT_INTERACTIONS) {
    it(`${interaction.id}: ${interaction.rule}`, async () => {
      const seen: DeliveredInteraction[] = [];
      await runConsumerInteractions({ config, outDir, interactions: [interaction], onDelivered: (d) => seen.push(d) });
      expect(seen).toHaveLength(1);
      const { event } = seen[0] as DeliveredInteraction;
      // The body the engine put on the wire has exactly the documented fields.
      const schemas = callbackBodySchemas(config.callbacks);
      expect(() => schemas[event.kind]?.parse(JSON.parse(event.body))).not.toThrow();
      expect(schemas[event.kind]).toBeDefined();
      if (interaction.reply.accepted) {
        expect(event.status).toBe('delivered');
        expect(event.reply?.status).toBe(200);
        expect(typeof (event.reply?.body as { balance?: unknown } | undefined)?.balance).toBe('number');
      } else {
        expect(event.status).toBe('rejected');
        expect(event.reply).toMatchObject({ status: interaction.reply.status, body: { error: interaction.reply.error } });
        expect(event.attemptCount).toBe(1); // a 4xx is never retried
      }
    });
  }

  it('the committed contracts are exactly what these consumer tests generate (run `npm run contracts` if not)', () => {
    const generated = normalisePact(JSON.parse(readFileSync(join(outDir, PACT_FILE_NAME), 'utf8')));
    const committed = normalisePact(JSON.parse(readFileSync(COMMITTED, 'utf8')));
    expect(
      generated,
      'contracts/aggmock-integrator-webhook.json is stale: run `npx aggmock contracts --regenerate` (or `npm run contracts`) and commit it',
    ).toEqual(committed);
  });
});

describe('the committed pact file', () => {
  const pact = JSON.parse(readFileSync(COMMITTED, 'utf8')) as PactJson;
  const byDescription = (d: string) => pact.interactions.find((i) => i.description === d);

  it('holds one interaction per rule, with the provider states the reference wallet understands', () => {
    expect(pact.interactions.map((i) => i.description).sort()).toEqual(CONTRACT_INTERACTIONS.map((i) => i.description).sort());
    const rollback = byDescription('a ROLLBACK of an accepted DEBIT');
    expect(rollback?.providerStates).toEqual([
      { name: 'player p1 has balance 100.00', params: { playerId: 'p1', balance: 100 } },
      {
        name: 'transaction tx-contract-rollback was debited from player p1 for 10.00',
        params: { transactionId: 'tx-contract-rollback', playerId: 'p1', amount: 10 },
      },
    ]);
    expect(byDescription('a DEBIT for an unknown player')?.providerStates).toEqual([
      { name: 'player p404 does not exist', params: { playerId: 'p404' } },
    ]);
  });

  it('documents the exact default body and a real signature (pattern-matched) in every request', () => {
    const debit = byDescription('a DEBIT the balance covers');
    expect(debit?.request.body.content).toEqual({
      type: 'DEBIT',
      transactionId: 'tx-contract-debit',
      amount: 10,
      playerId: 'p1',
    });
    const header = debit?.request.headers['X-Signature']?.[0] as string;
    expect(header).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    // Signed over the wire bytes (the engine's key order); the pact file lists keys sorted.
    const body = contractBody(findInteraction('debit-accepted') as ContractInteraction, defaultConfig().callbacks);
    expect(JSON.parse(body)).toEqual(debit?.request.body.content);
    const now = Number(/t=(\d+)/.exec(header)?.[1]);
    expect(
      verifySignature({
        scheme: 'timestamped',
        secrets: ['aggmock-dev-secret'],
        payload: body,
        headers: { 'x-signature': header },
        now,
      }),
    ).toMatchObject({ secretIndex: 0 });
  });

  it('signs the bad-signature interaction with a secret the wallet does not know', () => {
    const bad = byDescription('a DEBIT signed with a secret the wallet does not know');
    const header = bad?.request.headers['X-Signature']?.[0] as string;
    const payload = contractBody(findInteraction('bad-signature') as ContractInteraction, defaultConfig().callbacks);
    const now = Number(/t=(\d+)/.exec(header)?.[1]);
    expect(() =>
      verifySignature({
        scheme: 'timestamped',
        secrets: ['aggmock-dev-secret'],
        payload,
        headers: { 'x-signature': header },
        now,
      }),
    ).toThrow(/No signature matches/);
    expect(
      verifySignature({ scheme: 'timestamped', secrets: [WRONG_SECRET], payload, headers: { 'x-signature': header }, now }),
    ).toBeTruthy();
    expect(bad?.response.status).toBe(401);
    expect(bad?.response.body.content).toEqual({ error: 'INVALID_SIGNATURE' });
  });

  it('carries no volatile metadata (library versions are normalised away)', () => {
    expect(pact.metadata).toEqual({ pactSpecification: { version: '4.0' } });
  });
});

describe('generateContracts for any configuration', () => {
  it('writes contracts for BET/WIN/REFUND, reference rollbacks, minor amounts and hmac-hex from the same definitions', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'aggmock-contracts-custom-'));
    try {
      const config = configSchema.parse({
        callbacks: {
          types: { debit: 'BET', credit: 'WIN', rollback: 'REFUND' },
          rollbackStyle: 'reference',
          amountFormat: 'minor',
          signing: { scheme: 'hmac-hex', headers: { signature: 'X-Hub-Signature' } },
        },
      });
      const path = await generateContracts({ config, outDir: dir });
      const pact = JSON.parse(readFileSync(path, 'utf8')) as PactJson;
      const rollback = pact.interactions.find((i) => i.description === 'a ROLLBACK of an accepted DEBIT');
      expect(rollback?.request.body.content).toEqual({
        type: 'REFUND',
        transactionId: 'tx-contract-rollback-reversal',
        amount: 1000,
        playerId: 'p1',
        referenceTransactionId: 'tx-contract-rollback',
      });
      expect(rollback?.request.headers['X-Hub-Signature']?.[0]).toMatch(/^[0-9a-f]{64}$/);
      expect(rollback?.response.body.content).toEqual({ balance: 10000 });
      // Same config, same bytes.
      const first = readFileSync(path, 'utf8');
      await generateContracts({ config, outDir: dir });
      expect(readFileSync(path, 'utf8')).toBe(first);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('writes the three Standard Webhooks headers for the standard-webhooks scheme', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'aggmock-contracts-sw-'));
    try {
      const config = configSchema.parse({ callbacks: { signing: { scheme: 'standard-webhooks' } } });
      const pact = JSON.parse(readFileSync(await generateContracts({ config, outDir: dir }), 'utf8')) as PactJson;
      const headers = pact.interactions[0]?.request.headers ?? {};
      expect(Object.keys(headers).sort()).toEqual(['Content-Type', 'webhook-id', 'webhook-signature', 'webhook-timestamp']);
      expect(headers['webhook-signature']?.[0]).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
