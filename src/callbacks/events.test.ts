import { describe, expect, it } from 'vitest';
import { configSchema } from '../config/index.ts';
import { buildCallbackBody, type CallbacksConfig, enqueueRequestSchema } from './events.ts';

const callbacks = (input: Record<string, unknown> = {}): CallbacksConfig => configSchema.parse({ callbacks: input }).callbacks;

describe('buildCallbackBody', () => {
  it('sends exactly {type, transactionId, amount, playerId} in that order by default', () => {
    const body = buildCallbackBody(
      { kind: 'debit', transactionId: 'tx_1', amountMinor: 1050, playerId: 'p1', roundId: 'r1' },
      callbacks(),
    );
    expect(body).toBe('{"type":"DEBIT","transactionId":"tx_1","amount":10.5,"playerId":"p1"}');
  });

  it('sends a CREDIT with its own type string and whole amounts as integers', () => {
    expect(buildCallbackBody({ kind: 'credit', transactionId: 'tx_2', amountMinor: 2000, playerId: 'p2' }, callbacks())).toBe(
      '{"type":"CREDIT","transactionId":"tx_2","amount":20,"playerId":"p2"}',
    );
  });

  it('never carries float noise: 0.1 + 0.2 worth of cents is 0.3 on the wire', () => {
    const minor = 10 + 20; // 0.10 + 0.20 in minor units
    expect(buildCallbackBody({ kind: 'debit', transactionId: 't', amountMinor: minor, playerId: 'p' }, callbacks())).toContain(
      '"amount":0.3,',
    );
    expect(
      buildCallbackBody({ kind: 'debit', transactionId: 't', amountMinor: 1_000_000_07, playerId: 'p' }, callbacks()),
    ).toContain('"amount":1000000.07,');
  });

  it('sends minor units when amountFormat is "minor"', () => {
    expect(
      buildCallbackBody(
        { kind: 'debit', transactionId: 't', amountMinor: 1050, playerId: 'p' },
        callbacks({ amountFormat: 'minor' }),
      ),
    ).toBe('{"type":"DEBIT","transactionId":"t","amount":1050,"playerId":"p"}');
  });

  it('uses the configured type strings', () => {
    const cfg = callbacks({ types: { debit: 'BET', credit: 'WIN', rollback: 'REFUND' } });
    expect(JSON.parse(buildCallbackBody({ kind: 'debit', transactionId: 't', amountMinor: 1, playerId: 'p' }, cfg)).type).toBe(
      'BET',
    );
    expect(JSON.parse(buildCallbackBody({ kind: 'credit', transactionId: 't', amountMinor: 1, playerId: 'p' }, cfg)).type).toBe(
      'WIN',
    );
    expect(
      JSON.parse(
        buildCallbackBody(
          { kind: 'rollback', transactionId: 't', referenceTransactionId: 'd', amountMinor: 1, playerId: 'p' },
          cfg,
        ),
      ).type,
    ).toBe('REFUND');
  });

  it('sends an original-style ROLLBACK with the reversed DEBIT id as its transactionId', () => {
    const body = buildCallbackBody(
      { kind: 'rollback', transactionId: 'tx_debit', referenceTransactionId: 'tx_debit', amountMinor: 500, playerId: 'p1' },
      callbacks(),
    );
    expect(body).toBe('{"type":"ROLLBACK","transactionId":"tx_debit","amount":5,"playerId":"p1"}');
  });

  it('sends a reference-style ROLLBACK with a fresh transactionId and referenceTransactionId', () => {
    const body = buildCallbackBody(
      { kind: 'rollback', transactionId: 'tx_new', referenceTransactionId: 'tx_debit', amountMinor: 500, playerId: 'p1' },
      callbacks({ rollbackStyle: 'reference' }),
    );
    expect(body).toBe(
      '{"type":"ROLLBACK","transactionId":"tx_new","amount":5,"playerId":"p1","referenceTransactionId":"tx_debit"}',
    );
  });

  it('adds extra fields only when configured, in a fixed order, and only when known', () => {
    const cfg = callbacks({ extraFields: ['timestamp', 'currency', 'roundId', 'gameId'] });
    const body = buildCallbackBody(
      {
        kind: 'debit',
        transactionId: 't',
        amountMinor: 100,
        playerId: 'p',
        roundId: 'r9',
        createdAt: Date.UTC(2025, 0, 2, 3, 4, 5),
      },
      cfg,
    );
    expect(body).toBe(
      '{"type":"DEBIT","transactionId":"t","amount":1,"playerId":"p","roundId":"r9","currency":"EUR","timestamp":"2025-01-02T03:04:05.000Z"}',
    );
  });
});

describe('enqueueRequestSchema', () => {
  it('names the field, the value and what was expected', () => {
    const result = enqueueRequestSchema.safeParse({ kind: 'debit', playerId: '', amountMinor: 10.5 });
    expect(result.success).toBe(false);
    const fields = result.error?.issues.map((i) => i.path.join('.'));
    expect(fields).toEqual(expect.arrayContaining(['playerId', 'amountMinor']));
  });

  it('requires the reversed DEBIT on a rollback', () => {
    const result = enqueueRequestSchema.safeParse({ kind: 'rollback', playerId: 'p', amountMinor: 1 });
    expect(result.error?.issues[0]?.path).toEqual(['referenceTransactionId']);
  });
});
