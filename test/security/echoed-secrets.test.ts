import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storedBody } from '../../src/callbacks/outbox.ts';
import { startTestReceiver, type TestReceiver } from '../../src/callbacks/test-receiver.ts';
import { validateConfig } from '../../src/config/index.ts';
import { type Aggmock, startAggmock } from '../../src/runtime.ts';
import { runVerify } from '../../src/verify/index.ts';

/**
 * L-1 (review 2026-11-27): a wallet that echoes the request back (common in error replies) had the
 * dialect's credentials written to the deliveries journal, the admin API and verify's JSON, JUnit
 * and HTML reports. Replies are now masked by name with the one rule (src/shared/secrets.ts) when
 * they are stored or reported; what the engine and the checks judge is the reply as received.
 */
const SECRETS = ['ECHO-SECRET-1', 'ECHO-TOKEN-2', 'ECHO-FORM-3', 'ECHO-HDR-4', 'ECHO-ESC-5'];
const echoReply = {
  balance: 100,
  echo: { secret: 'ECHO-SECRET-1', authToken: 'ECHO-TOKEN-2', nested: [{ apiKey: ['ECHO-TOKEN-2'] }] },
  note: 'invalid request: password=ECHO-FORM-3&player=p1',
  raw: '{"passkey":"ECHO-ESC-5","amount":1}',
};

describe('L-1: credentials a wallet echoes are masked where replies are kept and shown', () => {
  let wallet: TestReceiver;
  let aggmock: Aggmock;
  beforeAll(async () => {
    wallet = await startTestReceiver(() => ({ status: 200, body: echoReply, headers: { 'x-auth-token': 'ECHO-HDR-4' } }));
    aggmock = await startAggmock(
      validateConfig({ port: 0, db: ':memory:', callbacks: { webhookUrl: `${wallet.url}/cb`, retrySchedule: [0] } }),
    );
  });
  afterAll(async () => {
    await aggmock?.close();
    await wallet?.close();
  });

  it('the deliveries journal and admin API store the reply masked, and the balance is still judged', async () => {
    const res = await fetch(`${aggmock.url}/__admin/events?wait=true`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'debit', playerId: 'p1', amount: 1 }),
    });
    const text = await res.text();
    expect(res.status, text).toBeLessThan(300);
    const id = (JSON.parse(text) as { id?: number; event?: { id: number } }).id ?? JSON.parse(text).event?.id;
    const detail = await (await fetch(`${aggmock.url}/__admin/deliveries/${id}`)).text();
    const list = await (await fetch(`${aggmock.url}/__admin/deliveries`)).text();
    const page = await (await fetch(`${aggmock.url}/ui/deliveries`)).text();
    for (const shown of [detail, list, page]) for (const secret of SECRETS) expect(shown).not.toContain(secret);
    expect(detail).toContain('[masked]');
    expect(detail).toContain('"status":"delivered"');
    expect(JSON.parse(detail).delivery?.reply?.body?.balance ?? JSON.parse(detail).reply?.body?.balance).toBe(100);
  });

  it('the play page shows the wallet reply of a spin masked, with its balance', async () => {
    const launched = await fetch(`${aggmock.url}/getgameurl`, {
      method: 'POST',
      headers: { 'x-betnex-key': 'aggmock-dev-key', 'content-type': 'application/json' },
      body: JSON.stringify({
        username: 'p1',
        gameId: aggmock.catalog.games[0]?.id,
        money: 100,
        platform: 1,
        home_url: 'https://casino.example',
      }),
    });
    expect(launched.status).toBe(200);
    const id = ((await launched.json()) as { payload: { session_id: string } }).payload.session_id;
    const spun = await fetch(`${aggmock.url}/play/${id}/spin`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: aggmock.url },
      body: JSON.stringify({ bet: 1 }),
    });
    const text = await spun.text();
    expect(spun.status, text).toBe(200);
    for (const secret of SECRETS.slice(0, 2)) expect(text).not.toContain(secret);
    expect(text).toContain('[masked]');
    expect(text).toContain('"balance":100');
  });

  it('verify writes no echoed secret into report.json, junit.xml or report.html', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'aggmock-l1-'));
    try {
      const outcome = await runVerify({
        webhookUrl: `${wallet.url}/cb`,
        only: ['debit-applies', 'malformed-json'],
        reportDir: dir,
        timeoutMs: 3_000,
      });
      expect(outcome.report?.results.length).toBeGreaterThan(0);
      const exchanges = outcome.report?.results.flatMap((r) => r.exchanges) ?? [];
      expect(exchanges.some((x) => x.response?.body.includes('[masked]'))).toBe(true);
      for (const file of ['report.json', 'junit.xml', 'report.html']) {
        const text = readFileSync(join(dir, file), 'utf8');
        for (const secret of SECRETS) expect(text, `${file}: ${secret}`).not.toContain(secret);
      }
      const json = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8'));
      const response = json.results
        .flatMap((r: { exchanges: unknown[] }) => r.exchanges)
        .find((x: { response?: unknown }) => x.response).response;
      expect(response.headers['x-auth-token']).toBe('[masked]');
      expect(response.json.balance).toBe(100);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('keeps a reply that names no credential exactly as received, in any form', () => {
    for (const body of ['{"balance":100}', '<html>502 Bad Gateway</html>', 'status=ok&balance=1', '']) {
      expect(storedBody(body).text).toBe(body);
    }
    expect(storedBody('{"balance":1,"token":"T-6"}').text).toBe('{"balance":1,"token":"[masked]"}');
  });
});
