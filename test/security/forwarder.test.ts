import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestReceiver, type TestReceiver } from '../../src/callbacks/test-receiver.ts';
import { validateConfig } from '../../src/config/index.ts';
import { type Aggmock, startAggmock } from '../../src/runtime.ts';

/**
 * A launch's callback_url receives signed callbacks, so it is an allow-list (callbacks.allowedUrls),
 * never an open forwarder. Forbidden targets here never resolve (.invalid) or are loopback ports
 * outside the list; each test checks that nothing reached them.
 */
describe('callback_url allow-list (no open signing forwarder)', () => {
  let webhook: TestReceiver;
  let session: TestReceiver;
  let outsider: TestReceiver;
  let aggmock: Aggmock;
  let listed: Aggmock;

  beforeAll(async () => {
    webhook = await startTestReceiver(() => ({ status: 200, body: { balance: 100 } }));
    session = await startTestReceiver(() => ({ status: 200, body: { balance: 100 } }));
    outsider = await startTestReceiver(() => ({ status: 200, body: { balance: 100 } }));
    const base = { port: 0, db: ':memory:', catalog: { providers: 4, games: 40 } };
    aggmock = await startAggmock(validateConfig({ ...base, callbacks: { webhookUrl: `${webhook.url}/hook` } }));
    listed = await startAggmock(
      validateConfig({ ...base, callbacks: { webhookUrl: `${webhook.url}/hook`, allowedUrls: [`${session.url}/`] } }),
    );
  });
  afterAll(async () => {
    await aggmock?.close();
    await listed?.close();
    await Promise.all([webhook?.close(), session?.close(), outsider?.close()]);
  });

  const game = (server: Aggmock) => server.catalog.games.find((g) => g.minBetMinor <= 100 && g.maxBetMinor >= 100)!;
  const launch = (server: Aggmock, callbackUrl: string, extra: Record<string, unknown> = {}) =>
    fetch(`${server.url}/getgameurl`, {
      method: 'POST',
      headers: { 'x-betnex-key': 'aggmock-dev-key', 'content-type': 'application/json' },
      body: JSON.stringify({
        username: 'p1',
        gameId: game(server).id,
        money: 100,
        platform: 1,
        home_url: 'https://casino.example',
        callback_url: callbackUrl,
        ...extra,
      }),
    });
  const spin = (server: Aggmock, id: string) =>
    fetch(`${server.url}/play/${id}/spin`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ bet: 1 }),
    });

  it.each([
    ['a cloud metadata name', 'http://metadata.invalid/latest/meta-data'],
    ['an internal service', 'http://internal.invalid:8080/'],
  ])('refuses %s with a 400 naming callbacks.allowedUrls, and keeps no session', async (_what, target) => {
    const before = aggmock.sessions.size;
    const res = await launch(aggmock, target);
    expect(res.status).toBe(400);
    const body = (await res.json()) as { message: string; errors: Array<{ field: string; message: string }> };
    expect(body.message).toContain('callbacks.allowedUrls');
    expect(body.errors[0]).toMatchObject({ field: 'callback_url' });
    expect(aggmock.sessions.size).toBe(before);
  });

  it.each(['ftp://127.0.0.1/x', 'javascript:alert(1)', 'file:///etc/passwd'])(
    'refuses the non-http URL %s with a 400 (not a 500 on spin)',
    async (target) => {
      const res = await launch(aggmock, target);
      expect(res.status).toBe(400);
      expect(((await res.json()) as { errors: Array<{ field: string }> }).errors[0]?.field).toBe('callback_url');
    },
  );

  it("refuses aggmock's own address, so a launch cannot make it call its own /__admin/reset", async () => {
    const res = await launch(aggmock, `${aggmock.url}/__admin/reset`);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { message: string }).message).toContain('not aggmock itself');
  });

  it('with an explicit list, refuses a loopback port that is not on it and sends it nothing', async () => {
    const res = await launch(listed, `${outsider.url}/hook`);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { message: string }).message).toContain(`${session.url}/`);
    expect(outsider.requests).toHaveLength(0);
  });

  it('the UI launch form is held to the same list', async () => {
    const form = new URLSearchParams({
      gameId: game(aggmock).id,
      username: 'p1',
      money: '100',
      platform: '1',
      callback_url: 'http://metadata.invalid/',
    });
    const res = await fetch(`${aggmock.url}/ui/launch`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: aggmock.url },
      body: form.toString(),
      redirect: 'manual',
    });
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('callbacks.allowedUrls');
  });

  it("sends an allowed session's spins, replays and rollbacks to the session URL, not the default webhook", async () => {
    const res = await launch(listed, `${session.url}/session-hook`);
    expect(res.status).toBe(200);
    const id = ((await res.json()) as { payload: { session_id: string } }).payload.session_id;
    const spun = (await (await spin(listed, id)).json()) as { steps: Array<{ eventId: number; type: string }> };
    const debit = spun.steps.find((s) => s.type === 'bet')!;
    const hooked = webhook.requests.length;

    const admin = (path: string) =>
      fetch(`${listed.url}/__admin${path}?wait=true`, { method: 'POST', headers: { 'content-type': 'application/json' } });
    expect((await admin(`/deliveries/${debit.eventId}/replay`)).status).toBe(200);
    expect((await admin(`/deliveries/${debit.eventId}/rollback`)).status).toBe(200);

    const sent = session.requests.map((r) => `${r.path.split('/').at(-1)} ${JSON.parse(r.body).type}`);
    expect(sent.filter((p) => p === 'session-hook DEBIT')).toHaveLength(2);
    expect(sent).toContain('session-hook ROLLBACK');
    expect(webhook.requests.length).toBe(hooked);
  });
});
