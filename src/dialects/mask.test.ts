import { describe, expect, it } from 'vitest';
import {
  buildRequest,
  builtinDialect,
  type CallFacts,
  credentialMask,
  DEV_RSA_PRIVATE_KEY,
  MASKED_CREDENTIAL,
  maskedRequest,
} from './index.ts';

const facts: CallFacts = {
  operation: 'bet',
  playerId: 'player01',
  currency: 'EUR',
  transactionId: 'tx0001',
  roundId: 'r1',
  amountMinor: 1050,
  sessionToken: 'tok-player01-0123456789abcdef0123456789',
  requestId: 'req-1',
  createdAt: Date.UTC(2026, 10, 25, 12),
};

/** A request as built for the wire, and as kept and shown. */
function both(name: string, credentials: Record<string, string>) {
  const dialect = builtinDialect(name);
  const req = buildRequest(dialect, facts, credentials);
  const sent = { path: req.path, headers: req.headers, body: req.body ?? '' };
  return { sent, shown: maskedRequest(credentialMask(dialect, credentials), sent) };
}

describe('credentials in a request as kept and shown', () => {
  it("masks Blue Ocean's caller password in the query, percent-encoded as it travels, and keeps the caller id and the key", () => {
    const credentials = { callerId: 'casino-77', callerPassword: 'S3cr3t p@ss&word=1/ü', salt: 'NaCl-2026-salt' };
    const { sent, shown } = both('blueocean', credentials);
    // The wire carries the password (encoded), which is why it must not be kept.
    expect(new URLSearchParams(sent.path.split('?')[1]).get('callerPassword')).toBe(credentials.callerPassword);
    const query = new URLSearchParams(shown.path.split('?')[1]);
    expect(query.get('callerPassword')).toBe(MASKED_CREDENTIAL);
    expect(query.get('callerId')).toBe('casino-77');
    expect(query.get('key')).toBe(new URLSearchParams(sent.path.split('?')[1]).get('key'));
    expect(shown.path).not.toContain('S3cr3t');
    expect(shown.path).not.toContain(encodeURIComponent(credentials.callerPassword));
  });

  it("masks Red Tiger's API key in Authorization, keeping the scheme", () => {
    const { sent, shown } = both('redtiger', { apiKey: 'rt-live-9f8e7d6c5b4a' });
    expect(sent.headers.authorization ?? sent.headers.Authorization).toBe('Basic rt-live-9f8e7d6c5b4a');
    expect(shown.headers.authorization ?? shown.headers.Authorization).toBe(`Basic ${MASKED_CREDENTIAL}`);
    expect(shown.body).toBe(sent.body);
  });

  it("masks Habanero's passkey in the JSON body, escaped as JSON writes it, and keeps the brand id", () => {
    const credentials = { brandId: '3f6c2a4e-0b1d-4c8e-9a7f-5d2e1b0c9a88', passkey: 'hb "pass\\key" 01' };
    const { sent, shown } = both('habanero', credentials);
    expect(JSON.parse(sent.body).auth.passkey).toBe(credentials.passkey);
    expect(JSON.parse(shown.body).auth).toEqual({ brandid: credentials.brandId, passkey: MASKED_CREDENTIAL });
  });

  it("masks Evolution's auth token in the query and keeps Hub88's signature, made from a key it never sends", () => {
    const evo = both('evolution', { authToken: 'evo-token-5a4b3c2d1e' });
    expect(evo.sent.path).toContain('evo-token-5a4b3c2d1e');
    expect(evo.shown.path).toContain(`authToken=${MASKED_CREDENTIAL}`);
    const hub88 = both('hub88', { privateKey: DEV_RSA_PRIVATE_KEY });
    expect(hub88.sent.headers['x-hub88-signature']).toMatch(/^[A-Za-z0-9+/]+=*$/);
    expect(hub88.shown).toEqual(hub88.sent);
  });
});
