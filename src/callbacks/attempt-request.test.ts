import { describe, expect, it } from 'vitest';
import type { AggmockConfig } from '../config/index.ts';
import { attemptRequest } from './call.ts';
import { FakeClock } from './clock.ts';
import { openDatabase } from './db.ts';
import type { StoredEvent } from './events.ts';
import { TransactionIdSequence } from './ids.ts';
import { NewEvents } from './new-events.ts';
import { seededRandom } from './random.ts';
import { SessionTokens } from './session-tokens.ts';
import { configFor } from './test-engine.ts';

/*
 * An attempt sends the request its event was stored with when it would sign the same, and signs
 * that request again (without rendering it) when only the signature's time or message id differs.
 * Either way it must be byte for byte the request a fresh rendering makes: an event copied out of
 * the engine's memory has no stored request, so attemptRequest renders and signs it afresh.
 */

const T0 = Date.parse('2026-11-28T00:00:00.250Z');

function newEvent(config: AggmockConfig): StoredEvent {
  const db = openDatabase(':memory:');
  const events = new NewEvents({
    cfg: config.callbacks,
    clock: new FakeClock(T0),
    random: seededRandom(1),
    ids: new TransactionIdSequence(db, config.seed),
    url: config.callbacks.webhookUrl,
    seed: config.seed,
    sessions: new SessionTokens(db),
  });
  const event = events.fromRequest({ kind: 'debit', playerId: 'p1', amountMinor: 1_234, roundId: 'r1', gameId: 'g1' });
  db.close();
  (event as StoredEvent).id = 7;
  return event as StoredEvent;
}

/** The request a fresh rendering makes: the same event, but not the object the engine keeps its stored request by. */
const fresh = (event: StoredEvent, config: AggmockConfig, at: number) => attemptRequest({ ...event }, config.callbacks, at);

const headers = { signature: 'X-Sig', webhookId: 'W-Id', webhookTimestamp: 'W-Ts', webhookSignature: 'W-Sig' };
const CASES: [string, Record<string, unknown>][] = [
  ['default, timestamped', { signing: { scheme: 'timestamped' } }],
  [
    'default, timestamped, two secrets and other header names',
    { signing: { scheme: 'timestamped', secrets: ['a', 'b'], headers } },
  ],
  ['default, hmac-hex', { signing: { scheme: 'hmac-hex' } }],
  ['default, standard-webhooks', { signing: { scheme: 'standard-webhooks' } }],
  ['default, standard-webhooks, other header names', { signing: { scheme: 'standard-webhooks', headers } }],
  ['betnex', { profile: 'betnex' }],
  ['hub88 (a vendor recipe)', { profile: 'hub88' }],
  ['pragmatic (a vendor recipe over the parameters)', { profile: 'pragmatic' }],
];

describe('the request of an attempt', () => {
  it.each(CASES)('is the freshly rendered one in the second it was stored and later (%s)', (_name, callbacks) => {
    const config = configFor('http://x.invalid/cb', callbacks);
    const event = newEvent(config);
    for (const at of [T0, T0 + 700, T0 + 1_000, T0 + 61_000]) {
      expect(attemptRequest(event, config.callbacks, at)).toEqual(fresh(event, config, at));
    }
  });

  it('carries its own time once its second is over, not the stored signature', () => {
    const config = configFor('http://x.invalid/cb', { signing: { scheme: 'timestamped' } });
    const event = newEvent(config);
    const stored = event.request?.headers['X-Signature'];
    expect(stored).toMatch(new RegExp(`^t=${Math.floor(T0 / 1000)},v1=[0-9a-f]{64}$`));
    expect(attemptRequest(event, config.callbacks, T0 + 700).headers['X-Signature']).toBe(stored);
    const later = attemptRequest(event, config.callbacks, T0 + 2_000);
    expect(later.headers['X-Signature']).toMatch(new RegExp(`^t=${Math.floor(T0 / 1000) + 2},v1=[0-9a-f]{64}$`));
    expect(later.body).toBe(event.body);
  });

  it('signs a Standard Webhooks call with the message id of its event, not the random one it was stored with', () => {
    const config = configFor('http://x.invalid/cb', { signing: { scheme: 'standard-webhooks' } });
    const event = newEvent(config);
    const sent = attemptRequest(event, config.callbacks, T0);
    expect(sent.headers['webhook-id']).toMatch(/^msg_[0-9a-f]{24}$/);
    expect(sent.headers['webhook-id']).not.toBe(event.request?.headers['webhook-id']);
    expect(attemptRequest(event, config.callbacks, T0 + 5_000).headers['webhook-id']).toBe(sent.headers['webhook-id']);
    expect(Object.keys(sent.headers)).toEqual(Object.keys(fresh(event, config, T0).headers));
  });
});
