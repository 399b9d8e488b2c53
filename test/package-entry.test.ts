// Imported by package name, the way an integrator's webhook imports it.
import { signPayload, verifySignature } from 'aggmock';
import { describe, expect, it } from 'vitest';

describe("import { verifySignature } from 'aggmock'", () => {
  it('verifies what aggmock signs', () => {
    const body = '{"type":"DEBIT","transactionId":"tx-1","amount":1,"playerId":"p1"}';
    const headers = signPayload({ scheme: 'timestamped', secrets: ['aggmock-dev-secret'], payload: body });
    expect(verifySignature({ scheme: 'timestamped', secrets: ['aggmock-dev-secret'], payload: body, headers }).secretIndex).toBe(
      0,
    );
  });
});
