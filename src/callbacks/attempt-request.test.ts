import { describe, expect, it } from 'vitest';
import type { AggmockConfig } from '../config/index.ts';
import { verifySignature } from '../signing/index.ts';
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
 * An event keeps its request without a signature in a header; an attempt sends that request,
 * signed when it is sent (aggmock's header schemes), or as stored (a vendor recipe signs the
 * request alone). Either way it must be byte for byte the request a fresh rendering makes: an event
 * copied out of the engine's memory has no stored request, so attemptRequest renders and signs it afresh.
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

const lower = (headers: Record<string, string>) =>
  Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));

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

  it('is stored without its signature and signed when sent: in the second it was stored and later, each with its own time', () => {
    const config = configFor('http://x.invalid/cb', { signing: { scheme: 'timestamped' } });
    const event = newEvent(config);
    expect(event.request?.headers).toEqual({ 'content-type': 'application/json' });
    expect(event.request?.attempt).toBeUndefined();
    const inSecond = attemptRequest(event, config.callbacks, T0 + 700);
    expect(inSecond.headers['X-Signature']).toMatch(new RegExp(`^t=${Math.floor(T0 / 1000)},v1=[0-9a-f]{64}$`));
    const later = attemptRequest(event, config.callbacks, T0 + 2_000);
    expect(later.headers['X-Signature']).toMatch(new RegExp(`^t=${Math.floor(T0 / 1000) + 2},v1=[0-9a-f]{64}$`));
    expect(later.headers['X-Signature']).not.toBe(inSecond.headers['X-Signature']);
    expect([inSecond.body, later.body]).toEqual([event.body, event.body]);
    // Each verifies over the bytes sent, at its own second.
    for (const [sent, at] of [
      [inSecond, T0 + 700],
      [later, T0 + 2_000],
    ] as const) {
      const verified = verifySignature({
        scheme: 'timestamped',
        secrets: config.callbacks.signing.secrets,
        payload: sent.body,
        headers: lower(sent.headers),
        now: Math.floor(at / 1000),
      });
      expect(verified.timestamp).toBe(Math.floor(at / 1000));
      expect(() =>
        verifySignature({
          scheme: 'timestamped',
          secrets: config.callbacks.signing.secrets,
          payload: `${sent.body} `,
          headers: lower(sent.headers),
          now: Math.floor(at / 1000),
        }),
      ).toThrow();
    }
  });

  it('shows a vendor signature placed in a header only once sent (Hub88), and keeps one in the body (Pragmatic)', () => {
    const hub88 = configFor('http://x.invalid/cb', { profile: 'hub88' });
    const stored = newEvent(hub88);
    expect(Object.keys(stored.request?.headers ?? {}).map((h) => h.toLowerCase())).not.toContain('x-hub88-signature');
    expect(attemptRequest(stored, hub88.callbacks, T0).headers['x-hub88-signature']).toMatch(/^[A-Za-z0-9+/=]{40,}$/);
    const pragmatic = configFor('http://x.invalid/cb', { profile: 'pragmatic' });
    const form = newEvent(pragmatic);
    expect(form.body).toMatch(/(^|&)hash=[0-9a-f]{32}(&|$)/);
    expect(attemptRequest(form, pragmatic.callbacks, T0 + 61_000).body).toBe(form.body);
  });

  it('signs a Standard Webhooks call with the message id of its event, the same on every attempt', () => {
    const config = configFor('http://x.invalid/cb', { signing: { scheme: 'standard-webhooks' } });
    const event = newEvent(config);
    const sent = attemptRequest(event, config.callbacks, T0);
    expect(sent.headers['webhook-id']).toMatch(/^msg_[0-9a-f]{24}$/);
    expect(event.request?.headers['webhook-id']).toBeUndefined(); // stored unsigned
    expect(attemptRequest(event, config.callbacks, T0 + 5_000).headers['webhook-id']).toBe(sent.headers['webhook-id']);
    expect(Object.keys(sent.headers)).toEqual(Object.keys(fresh(event, config, T0).headers));
  });
});
