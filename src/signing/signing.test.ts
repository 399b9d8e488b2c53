import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  requestPayload,
  SignatureError,
  type SigningScheme,
  signedString,
  signPayload,
  toWhsec,
  verifySignature,
} from './index.ts';

interface Vectors {
  timestamped: Array<{ secret?: string; secrets?: string[]; timestamp: number; body: string; header: string }>;
  hmacHex: Array<{ secret: string; body: string; header: string }>;
  standardWebhooks: Array<{ secret: string; id: string; timestamp: number; body: string; headers: Record<string, string> }>;
  inboundRequests: Array<{
    secret: string;
    timestamp: number;
    method: string;
    pathQuery: string;
    body: string;
    signedString: string;
    header: string;
  }>;
}

// Computed independently with stripe-node, the standardwebhooks library and openssl.
const vectors: Vectors = JSON.parse(readFileSync(new URL('../../test/fixtures/signing-vectors.json', import.meta.url), 'utf8'));

function headerValue(line: string): string {
  return line.slice(line.indexOf(':') + 1).trim();
}

function refusal(fn: () => unknown): SignatureError {
  try {
    fn();
  } catch (error) {
    if (error instanceof SignatureError) return error;
    throw error;
  }
  throw new Error('expected the signature to be refused');
}

describe('signing vectors', () => {
  it.each(vectors.timestamped)('signs timestamped exactly like stripe-node (t=$timestamp)', (v) => {
    const secrets = v.secrets ?? [v.secret as string];
    const headers = signPayload({ scheme: 'timestamped', secrets, payload: v.body, timestamp: v.timestamp });
    expect(headers['X-Signature']).toBe(headerValue(v.header));
    const ok = verifySignature({
      scheme: 'timestamped',
      secrets,
      payload: v.body,
      headers: { 'x-signature': headerValue(v.header) },
      now: v.timestamp,
    });
    expect(ok.timestamp).toBe(v.timestamp);
  });

  it.each(vectors.hmacHex)('signs hmac-hex exactly like openssl ($header)', (v) => {
    const headers = signPayload({ scheme: 'hmac-hex', secrets: [v.secret], payload: v.body });
    expect(headers['X-Signature']).toBe(headerValue(v.header));
    expect(() =>
      verifySignature({
        scheme: 'hmac-hex',
        secrets: [v.secret],
        payload: v.body,
        headers: { 'X-Signature': headerValue(v.header) },
      }),
    ).not.toThrow();
  });

  it.each(vectors.standardWebhooks)('signs standard-webhooks exactly like the standardwebhooks library ($id)', (v) => {
    const headers = signPayload({
      scheme: 'standard-webhooks',
      secrets: [v.secret],
      payload: v.body,
      timestamp: v.timestamp,
      id: v.id,
    });
    expect(headers).toEqual(v.headers);
    const ok = verifySignature({
      scheme: 'standard-webhooks',
      secrets: [v.secret],
      payload: v.body,
      headers: v.headers,
      now: v.timestamp,
    });
    expect(ok).toMatchObject({ id: v.id, timestamp: v.timestamp, secretIndex: 0 });
  });

  it('treats a plain secret and its whsec_ form as the same key', () => {
    const v = vectors.standardWebhooks[0]!;
    expect(toWhsec('aggmock-dev-secret')).toBe(v.secret);
    const headers = signPayload({
      scheme: 'standard-webhooks',
      secrets: ['aggmock-dev-secret'],
      payload: v.body,
      timestamp: v.timestamp,
      id: v.id,
    });
    expect(headers).toEqual(v.headers);
  });

  it.each(vectors.inboundRequests)('signs inbound $method $pathQuery over <t>.<METHOD>.<path?query>.<body>', (v) => {
    const payload = requestPayload(v.method, v.pathQuery, v.body);
    expect(signedString('timestamped', payload, v.timestamp)).toBe(v.signedString);
    const headers = signPayload({ scheme: 'timestamped', secrets: [v.secret], payload, timestamp: v.timestamp });
    expect(headers['X-Signature']).toBe(headerValue(v.header));
  });
});

const schemes: SigningScheme[] = ['timestamped', 'hmac-hex', 'standard-webhooks'];
const body = '{"type":"DEBIT","transactionId":"tx-1","amount":10.5,"playerId":"p1"}';
const now = 1_763_800_000;

describe.each(schemes)('%s', (scheme) => {
  const sign = (secrets: string[], payload = body, timestamp = now) =>
    signPayload({ scheme, secrets, payload, timestamp, id: 'msg_1' });

  it('round-trips over string and byte payloads', () => {
    expect(verifySignature({ scheme, secrets: ['s1'], payload: body, headers: sign(['s1']), now }).secretIndex).toBe(0);
    const bytes = new TextEncoder().encode(body);
    expect(() => verifySignature({ scheme, secrets: ['s1'], payload: bytes, headers: sign(['s1']), now })).not.toThrow();
  });

  it('refuses a tampered body with NO_MATCHING_SIGNATURE and shows the string to sign', () => {
    const error = refusal(() =>
      verifySignature({ scheme, secrets: ['s1'], payload: body.replace('10.5', '1050'), headers: sign(['s1']), now }),
    );
    expect(error.reason).toBe('NO_MATCHING_SIGNATURE');
    expect(error.message).toMatch(/raw request body/);
    expect(error.signedString).toContain('1050');
  });

  it('refuses a signature made with the wrong secret', () => {
    expect(refusal(() => verifySignature({ scheme, secrets: ['s1'], payload: body, headers: sign(['other']), now })).reason).toBe(
      'NO_MATCHING_SIGNATURE',
    );
  });

  it('accepts any active secret during rotation and says which matched', () => {
    const headers = sign(['new-secret', 'old-secret']);
    expect(verifySignature({ scheme, secrets: ['old-secret'], payload: body, headers, now }).secretIndex).toBe(0);
    expect(verifySignature({ scheme, secrets: ['x', 'new-secret'], payload: body, headers, now }).secretIndex).toBe(1);
    const oldOnly = sign(['old-secret']);
    expect(
      verifySignature({ scheme, secrets: ['new-secret', 'old-secret'], payload: body, headers: oldOnly, now }).secretIndex,
    ).toBe(1);
  });

  it('refuses missing headers naming them', () => {
    const error = refusal(() => verifySignature({ scheme, secrets: ['s1'], payload: body, headers: {}, now }));
    expect(error.reason).toBe('MISSING_HEADER');
    expect(error.message).toMatch(
      scheme === 'standard-webhooks' ? /webhook-id, webhook-timestamp, webhook-signature/ : /X-Signature/,
    );
  });

  it('uses configured header names', () => {
    const headerNames = { signature: 'X-Casino-Sig', webhookId: 'x-id', webhookTimestamp: 'x-ts', webhookSignature: 'x-sig' };
    const headers = signPayload({ scheme, secrets: ['s1'], payload: body, timestamp: now, id: 'm', headerNames });
    expect(Object.keys(headers).every((h) => Object.values(headerNames).includes(h))).toBe(true);
    expect(
      verifySignature({ scheme, secrets: ['s1'], payload: body, headers: new Headers(headers), headerNames, now }).secretIndex,
    ).toBe(0);
    expect(refusal(() => verifySignature({ scheme, secrets: ['s1'], payload: body, headers, now })).reason).toBe(
      'MISSING_HEADER',
    );
  });
});

describe('timestamp tolerance', () => {
  for (const scheme of ['timestamped', 'standard-webhooks'] as const) {
    const headersAt = (t: number) => signPayload({ scheme, secrets: ['s1'], payload: body, timestamp: t, id: 'm' });

    it(`${scheme}: accepts exactly ±300 s and refuses one second beyond, on both sides`, () => {
      expect(() => verifySignature({ scheme, secrets: ['s1'], payload: body, headers: headersAt(now - 300), now })).not.toThrow();
      expect(() => verifySignature({ scheme, secrets: ['s1'], payload: body, headers: headersAt(now + 300), now })).not.toThrow();
      const old = refusal(() => verifySignature({ scheme, secrets: ['s1'], payload: body, headers: headersAt(now - 301), now }));
      expect(old.reason).toBe('TIMESTAMP_TOO_OLD');
      expect(old.message).toMatch(/301s old/);
      const future = refusal(() =>
        verifySignature({ scheme, secrets: ['s1'], payload: body, headers: headersAt(now + 301), now }),
      );
      expect(future.reason).toBe('TIMESTAMP_TOO_NEW');
    });

    it(`${scheme}: honours a configured tolerance`, () => {
      expect(() =>
        verifySignature({ scheme, secrets: ['s1'], payload: body, headers: headersAt(now - 31), now, toleranceSeconds: 30 }),
      ).toThrow(SignatureError);
    });
  }

  it('hmac-hex has no timestamp, so an old signature still verifies', () => {
    const headers = signPayload({ scheme: 'hmac-hex', secrets: ['s1'], payload: body });
    expect(() =>
      verifySignature({ scheme: 'hmac-hex', secrets: ['s1'], payload: body, headers, now: now + 10_000 }),
    ).not.toThrow();
  });
});

describe('malformed headers', () => {
  it('refuses a timestamped header without t= or v1= as MALFORMED_HEADER quoting it', () => {
    const error = refusal(() =>
      verifySignature({ scheme: 'timestamped', secrets: ['s1'], payload: body, headers: { 'x-signature': 'v1=abc' }, now }),
    );
    expect(error.reason).toBe('MALFORMED_HEADER');
    expect(error.message).toContain('"v1=abc"');
  });

  it('refuses a non-numeric webhook-timestamp', () => {
    const headers = { 'webhook-id': 'm', 'webhook-timestamp': 'yesterday', 'webhook-signature': 'v1,abc' };
    expect(
      refusal(() => verifySignature({ scheme: 'standard-webhooks', secrets: ['s1'], payload: body, headers, now })).reason,
    ).toBe('MALFORMED_HEADER');
  });

  it('accepts a GitHub-style sha256= prefix on hmac-hex', () => {
    const sig = signPayload({ scheme: 'hmac-hex', secrets: ['s1'], payload: body })['X-Signature'];
    expect(() =>
      verifySignature({ scheme: 'hmac-hex', secrets: ['s1'], payload: body, headers: { 'x-signature': `sha256=${sig}` } }),
    ).not.toThrow();
  });

  it('refuses to work without a secret', () => {
    expect(refusal(() => signPayload({ scheme: 'timestamped', secrets: [''], payload: body })).reason).toBe('NO_SECRET');
  });
});

describe('published Standard Webhooks vector', () => {
  // From the Standard Webhooks reference library's own tests ("sign function works").
  const key = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
  const id = 'msg_p5jXN8AQM9LWM0D4loKWxJek';
  const timestamp = 1614265330;
  const payload = '{"test": 2432232314}';
  const expected = 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=';

  it('produces the published signature', () => {
    const headers = signPayload({ scheme: 'standard-webhooks', secrets: [key], payload, timestamp, id });
    expect(headers['webhook-signature']).toBe(expected);
  });

  it('finds the valid v1 signature among several, ignoring other versions', () => {
    const headers = {
      'webhook-id': id,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': [
        'v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc=',
        'v2,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc=',
        expected,
      ].join(' '),
    };
    expect(() =>
      verifySignature({ scheme: 'standard-webhooks', secrets: [key], payload, headers, now: timestamp }),
    ).not.toThrow();
  });

  it('refuses a partial signature', () => {
    const headers = { 'webhook-id': id, 'webhook-timestamp': String(timestamp), 'webhook-signature': expected.slice(0, 8) };
    expect(() => verifySignature({ scheme: 'standard-webhooks', secrets: [key], payload, headers, now: timestamp })).toThrow(
      SignatureError,
    );
  });
});
