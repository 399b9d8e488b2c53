import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/load.ts';
import { applySettlement, emptyLedgerState } from '../../src/ledger/reducer.ts';
import { testApp } from '../api/helpers.ts';

/**
 * Keys that come from outside (a URL segment, an environment variable name, a player id) never
 * reach Object.prototype's members (security review L6): `constructor` is a name like any other.
 */

const PROTOTYPE_NAMES = ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf'];

describe('the docs assets route', () => {
  const { app } = testApp();

  it.each(PROTOTYPE_NAMES)('answers /docs/assets/%s with a 404 naming the known assets', async (name) => {
    const res = await app.request(`/docs/assets/${name}`);
    expect(res.status).toBe(404);
    expect(await res.text()).toContain('swagger-ui.css');
  });
});

describe('AGGMOCK_* environment names', () => {
  it.each(['AGGMOCK___proto__', 'AGGMOCK_hasOwnProperty', 'AGGMOCK_constructor', 'AGGMOCK_toString'])(
    'refuses %s as an unknown setting with a ConfigError, never a TypeError',
    (name) => {
      let thrown: unknown;
      try {
        loadConfig({ cwd: '/nonexistent-aggmock-dir', env: { [name]: 'x' } });
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(ConfigError);
      expect((thrown as Error).message).toContain(`${name} is no setting`);
    },
  );
});

describe('the shadow ledger', () => {
  it.each(PROTOTYPE_NAMES)('takes a player called %s as a player with no history', (playerId) => {
    const { state, discrepancies } = applySettlement(emptyLedgerState(), {
      id: 1,
      kind: 'debit',
      transactionId: 'tx_1',
      playerId,
      amountMinor: 500,
      source: 'manual',
      orderingKey: playerId,
      url: 'http://x.invalid/',
      body: '{}',
      status: 'delivered',
      attemptCount: 1,
      createdAt: 1,
      settledAt: 2,
      reply: { status: 200, body: { balance: 95 } },
    });
    expect(discrepancies).toEqual([]);
    expect(Object.hasOwn(state.players, playerId)).toBe(true);
    expect(Object.getPrototypeOf(state.players)).toBe(Object.prototype);
  });
});
