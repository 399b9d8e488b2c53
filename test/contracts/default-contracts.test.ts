import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { credentialsOf, dialectOf, signOptionsOf } from '../../src/config/dialect.ts';
import { type AggmockConfig, configSchema, defaultConfig } from '../../src/config/index.ts';
import {
  type DialectContract,
  dialectContracts,
  exampleRequest,
  generateContracts,
  PACT_FILE_NAME,
} from '../../src/contracts/index.ts';
import { verifySignature } from '../../src/signing/index.ts';

/**
 * The contracts of aggmock's own wires, written by the one contract writer (src/contracts) like a
 * vendor dialect's: the committed pact file is the default wire's, its request bodies are the
 * default wire's bytes with real signatures, and any configuration of the default wire, Betnex and
 * a profile file get theirs from the same definitions.
 */

const COMMITTED = new URL(`../../contracts/${PACT_FILE_NAME}`, import.meta.url);
const outDir = mkdtempSync(join(tmpdir(), 'aggmock-default-contracts-'));
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

const read = (path: string | URL) => JSON.parse(readFileSync(path, 'utf8')) as PactJson;

function write(config: AggmockConfig, name: string): PactJson {
  return read(generateContracts({ config, outDir: join(outDir, name) }));
}

/** The bytes a contract's request carries under a configuration (the pact lists body members sorted). */
function wireBytes(config: AggmockConfig, contract: DialectContract): string {
  const c = config.callbacks;
  return exampleRequest(dialectOf(c), contract, credentialsOf(c), signOptionsOf(c), c.currency).request.body ?? '';
}

const contractOf = (config: AggmockConfig, id: string) =>
  dialectContracts(dialectOf(config.callbacks)).find((c) => c.id === id) as DialectContract;

describe('the committed contracts (the default wire)', () => {
  const config = defaultConfig();
  const pact = read(COMMITTED);
  const byDescription = (d: string) => pact.interactions.find((i) => i.description === d);

  it('are exactly what the contract writer writes (run `npm run contracts` if not)', () => {
    const path = generateContracts({ config, outDir: join(outDir, 'committed') });
    expect(
      readFileSync(path, 'utf8'),
      'contracts/aggmock-integrator-webhook.json is stale: run `npx aggmock contracts --regenerate` (or `npm run contracts`) and commit it',
    ).toBe(readFileSync(COMMITTED, 'utf8'));
  });

  it('hold one interaction per contract of the default dialect, with the provider states the reference wallet understands', () => {
    const contracts = dialectContracts(dialectOf(config.callbacks));
    expect(contracts.map((c) => c.id)).toEqual([
      'bet-accepted',
      'win-accepted',
      'rollback-restores',
      'duplicate-bet',
      'insufficient-funds',
      'bad-signature',
    ]);
    expect(pact.interactions.map((i) => i.description).sort()).toEqual(contracts.map((c) => c.description).sort());
    expect(byDescription('a rollback of an accepted bet')?.providerStates).toEqual([
      { name: 'player p1 has balance 100.00', params: { playerId: 'p1', balance: 100 } },
      {
        name: 'transaction ctx-rb was debited from player p1 for 10.00',
        params: { transactionId: 'ctx-rb', playerId: 'p1', amount: 10 },
      },
    ]);
  });

  it('document the exact default body and a real signature over its bytes in every request', () => {
    for (const contract of dialectContracts(dialectOf(config.callbacks))) {
      const interaction = byDescription(contract.description);
      const bytes = wireBytes(config, contract);
      expect(JSON.parse(bytes)).toEqual(interaction?.request.body.content);
      expect(Object.keys(JSON.parse(bytes))).toEqual(['type', 'transactionId', 'amount', 'playerId']);
      const header = interaction?.request.headers['X-Signature']?.[0] as string;
      expect(header).toMatch(/^t=1735689600,v1=[0-9a-f]{64}$/);
      const check = (secrets: string[], payload: string) => () =>
        verifySignature({ scheme: 'timestamped', secrets, payload, headers: { 'x-signature': header }, now: 1_735_689_600 });
      expect(check(['aggmock-dev-secret'], bytes)()).toMatchObject({ secretIndex: 0 });
      // Another secret, or one byte more, and the signature no longer matches.
      expect(check(['another-secret'], bytes)).toThrow(/No signature matches/);
      expect(check(['aggmock-dev-secret'], `${bytes} `)).toThrow(/No signature matches/);
    }
    expect(byDescription('a bet the balance covers')?.request.body.content).toEqual({
      type: 'DEBIT',
      transactionId: 'ctx-bet',
      amount: 10,
      playerId: 'p1',
    });
    expect(byDescription('a rollback of an accepted bet')?.request.body.content).toMatchObject({
      type: 'ROLLBACK',
      transactionId: 'ctx-rb',
    });
  });

  it('require the documented replies: {balance} on an acceptance, {error} with its status on a refusal', () => {
    expect(byDescription('a bet the balance covers')?.response).toMatchObject({
      status: 200,
      body: { content: { balance: 90 } },
    });
    expect(byDescription('a bet larger than the balance')?.response).toMatchObject({
      status: 402,
      body: { content: { error: 'INSUFFICIENT_FUNDS' } },
    });
    expect(byDescription('a bet signed with keys the wallet does not know')?.response).toMatchObject({
      status: 401,
      body: { content: { error: 'INVALID_SIGNATURE' } },
    });
  });
});

describe('the contracts of any configuration of aggmock’s wires', () => {
  it('BET/WIN/REFUND, reference rollbacks, minor amounts and hmac-hex: the same contracts in that wire, the same bytes twice', () => {
    const config = configSchema.parse({
      callbacks: {
        types: { debit: 'BET', credit: 'WIN', rollback: 'REFUND' },
        rollbackStyle: 'reference',
        amountFormat: 'minor',
        signing: { scheme: 'hmac-hex', headers: { signature: 'X-Hub-Signature' } },
      },
    });
    const pact = write(config, 'custom');
    const rollback = pact.interactions.find((i) => i.description === 'a rollback of an accepted bet');
    expect(rollback?.request.body.content).toEqual({
      type: 'REFUND',
      transactionId: 'ctx-rb-rev',
      amount: 1000,
      playerId: 'p1',
      referenceTransactionId: 'ctx-rb',
    });
    expect(rollback?.request.headers['X-Hub-Signature']?.[0]).toMatch(/^[0-9a-f]{64}$/);
    expect(rollback?.response.body.content).toEqual({ balance: 10000 });
    const first = readFileSync(join(outDir, 'custom', PACT_FILE_NAME), 'utf8');
    write(config, 'custom');
    expect(readFileSync(join(outDir, 'custom', PACT_FILE_NAME), 'utf8')).toBe(first);
  });

  it('the standard-webhooks scheme: its three headers in every request', () => {
    const config = configSchema.parse({ callbacks: { signing: { scheme: 'standard-webhooks' } } });
    const headers = write(config, 'sw').interactions[0]?.request.headers ?? {};
    expect(Object.keys(headers).sort()).toEqual(['Content-Type', 'Webhook-Id', 'Webhook-Signature', 'Webhook-Timestamp']);
    expect(headers['Webhook-Signature']?.[0]).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
  });

  it('Betnex: its round body with the API key, no forged-signature contract (it signs nothing), a refusal is success false', () => {
    const config = configSchema.parse({ callbacks: { dialect: 'betnex', apiKey: 'op-key-1' } });
    const pact = write(config, 'betnex');
    expect(pact.interactions.map((i) => i.description).sort()).toEqual(
      [
        'a bet the balance covers',
        'a bet larger than the balance',
        'a bet whose transaction was already applied',
        'a win that settles its bet',
      ].sort(),
    );
    const bet = contractOf(config, 'bet-accepted');
    const interaction = pact.interactions.find((i) => i.description === bet.description);
    expect(interaction?.request.body.content).toEqual(JSON.parse(wireBytes(config, bet)));
    expect(interaction?.request.body.content).toMatchObject({
      bet_amount: 10,
      win_amount: 0,
      serial_number: 'ctx-bet',
      api_key: 'op-key-1',
    });
    expect(Object.keys(interaction?.request.headers ?? {})).toEqual(['Content-Type']);
    expect(pact.interactions.find((i) => i.description === 'a bet larger than the balance')?.response.body.content).toEqual({
      success: false,
    });
  });

  it('a profile file: its own body, from the same definitions', () => {
    const profile = {
      name: 'acme',
      events: {
        debit: {
          type: 'BET',
          body: { kind: { from: 'type' }, id: { from: 'transactionId' }, user: { from: 'playerId' }, sum: { from: 'amount' } },
        },
        credit: {
          type: 'WIN',
          body: { kind: { from: 'type' }, id: { from: 'transactionId' }, user: { from: 'playerId' }, sum: { from: 'amount' } },
        },
      },
      amounts: { format: 'minor' },
    };
    const config = configSchema.parse({ callbacks: { dialect: profile } });
    const pact = write(config, 'acme');
    // No rollback in the file: no rollback contract.
    expect(pact.interactions.map((i) => i.description)).not.toContain('a rollback of an accepted bet');
    expect(pact.interactions.find((i) => i.description === 'a win that settles its bet')?.request.body.content).toEqual({
      kind: 'WIN',
      id: 'ctx-win',
      user: 'p1',
      sum: 2550,
    });
  });
});
