import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
// Imported by package name, the way an integrator's TypeScript webhook imports it.
import { signPayload, verifySignature } from 'aggmock';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('..', import.meta.url));

describe("import { verifySignature } from 'aggmock'", () => {
  it('verifies what aggmock signs', () => {
    const body = '{"type":"DEBIT","transactionId":"tx-1","amount":1,"playerId":"p1"}';
    const headers = signPayload({ scheme: 'timestamped', secrets: ['aggmock-dev-secret'], payload: body });
    expect(verifySignature({ scheme: 'timestamped', secrets: ['aggmock-dev-secret'], payload: body, headers }).secretIndex).toBe(
      0,
    );
  });

  it('works from plain JavaScript on Node 20, with no TypeScript loader', async () => {
    const script = `
      import { signPayload, verifySignature, SignatureError } from 'aggmock';
      const body = '{"type":"CREDIT","transactionId":"tx-2","amount":2.5,"playerId":"p1"}';
      const headers = signPayload({ scheme: 'standard-webhooks', secrets: ['aggmock-dev-secret'], payload: body });
      const ok = verifySignature({ scheme: 'standard-webhooks', secrets: ['aggmock-dev-secret'], payload: body, headers });
      let reason;
      try { verifySignature({ scheme: 'standard-webhooks', secrets: ['other'], payload: body, headers }); } catch (e) { reason = e instanceof SignatureError && e.reason; }
      console.log(JSON.stringify({ secretIndex: ok.secretIndex, reason }));`;
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], { cwd: root });
    expect(JSON.parse(stdout)).toEqual({ secretIndex: 0, reason: 'NO_MATCHING_SIGNATURE' });
  });
});
