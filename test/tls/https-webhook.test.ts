import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const run = (env: NodeJS.ProcessEnv, host?: string) =>
  promisify(execFile)(process.execPath, ['--import', 'tsx', 'test/tls/deliver-https.ts', ...(host ? [host] : [])], {
    cwd: root,
    env: { ...process.env, ...env },
  });

describe('callbacks to an https webhook', () => {
  it('are delivered over TLS, signed, when the webhook’s CA is trusted (NODE_EXTRA_CA_CERTS)', async () => {
    const { stdout } = await run({ NODE_EXTRA_CA_CERTS: 'test/fixtures/tls-test.crt' });
    const result = JSON.parse(stdout);
    expect(result.status).toBe('delivered');
    expect(result.reply).toEqual({ status: 200, body: { balance: 990 } });
    expect(result.received).toEqual([
      { verified: true, body: '{"type":"DEBIT","transactionId":"tx-tls","amount":10,"playerId":"p1"}' },
    ]);
  });

  it('are delivered to a host name (SNI) covered by the certificate', async () => {
    const { stdout } = await run({ NODE_EXTRA_CA_CERTS: 'test/fixtures/tls-test.crt' }, 'localhost');
    expect(JSON.parse(stdout).status).toBe('delivered');
  });

  it('are refused, never sent, when the certificate is not trusted', async () => {
    const { stdout } = await run({ NODE_EXTRA_CA_CERTS: '' });
    const result = JSON.parse(stdout);
    expect(result.status).toBe('failed');
    expect(result.error).toMatch(/certificate/i);
    expect(result.received).toEqual([]);
  });
});
