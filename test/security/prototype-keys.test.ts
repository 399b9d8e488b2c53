import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, validateConfig } from '../../src/config/load.ts';
import { applySettlement, emptyLedgerState } from '../../src/ledger/reducer.ts';
import { setAt, valueAt } from '../../src/shared/index.ts';
import { testApp } from '../api/helpers.ts';
import { BETNEX_PROFILE } from '../profiles/builtin-profiles.ts';

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

describe('profile files (L1)', () => {
  /** The betnex profile (it has reply.writes) as a file would hold it, changed by `edit`. */
  type ProfileFile = { reply: Record<string, unknown>; events: { debit: { body: Record<string, unknown> } } };
  const profileWith = (edit: (p: ProfileFile) => void) => {
    const profile = JSON.parse(JSON.stringify(BETNEX_PROFILE)) as ProfileFile;
    edit(profile);
    return JSON.parse(JSON.stringify(profile)) as Record<string, unknown>;
  };
  const refusal = (profile: Record<string, unknown>) => {
    try {
      validateConfig({ callbacks: { profile } });
    } catch (error) {
      return (error as Error).message;
    }
    return 'accepted';
  };
  afterEach(() => {
    expect(({} as Record<string, unknown>).error).toBeUndefined();
  });

  it.each(['__proto__.error', 'constructor.prototype.error', 'data.prototype'])(
    'refuses the reply.writes key %s, naming the field and the segment',
    (key) => {
      const message = refusal(profileWith((p) => (p.reply.writes = { accepted: { [key]: 'POLLUTED' } })));
      expect(message).toContain('callbacks.profile.reply.writes.accepted');
      expect(message).toMatch(/without the segment "(__proto__|constructor|prototype)"/);
    },
  );

  it.each(['__proto__.balance', 'data.constructor', 'prototype'])('refuses the reply path %s', (path) => {
    const message = refusal(profileWith((p) => (p.reply.balance = path)));
    expect(message).toContain('callbacks.profile.reply.balance');
    expect(message).toContain('without the segment');
  });

  it('refuses a body field called constructor', () => {
    const message = refusal(profileWith((p) => Object.assign(p.events.debit.body, { constructor: { const: 1 } })));
    expect(message).toContain('callbacks.profile.events.debit.body.constructor');
    expect(message).toContain('without the segment "constructor"');
  });

  it('still takes the built-in profiles as files', () => {
    expect(refusal(profileWith(() => {}))).toBe('accepted');
  });
});

describe('setAt and valueAt', () => {
  it('refuse to write through a prototype segment, and leave Object.prototype alone', () => {
    expect(() => setAt({}, '__proto__.polluted', 1)).toThrow(/"__proto__" is not allowed/);
    expect(() => setAt({}, 'a.constructor.prototype.polluted', 1)).toThrow(/not allowed/);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('read own members only', () => {
    expect(valueAt({ balance: 5 }, ['constructor'])).toBeUndefined();
    expect(valueAt({ a: {} }, ['a', 'toString'])).toBeUndefined();
    expect(valueAt(JSON.parse('{"__proto__":{"x":1}}'), ['__proto__', 'x'])).toBe(1);
    expect(valueAt({ list: [4, 5] }, ['list', 1])).toBe(5);
  });
});
