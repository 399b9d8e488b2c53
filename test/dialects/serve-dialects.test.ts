import { afterEach, describe, expect, it } from 'vitest';
import { onCleanup, runCleanups } from '../../src/callbacks/test-engine.ts';
import { readyMessage } from '../../src/cli/commands/serve.ts';
import { validateConfig } from '../../src/config/index.ts';
import { toMinor } from '../../src/money/index.ts';
import { startAggmock } from '../../src/runtime.ts';
import { PLAYER, started, VENDORS } from './vendor-table.ts';

/**
 * `aggmock serve --profile <vendor> --webhook <base URL>`: a launch with the operator's token and
 * spins on the play page go out as the vendor's calls, each carrying the session's token, and the
 * independent receiver accepts every one, its balance equal to what the spins' replies showed.
 */

afterEach(runCleanups);

describe.each(VENDORS)('aggmock serve --profile $name', ({ name, receiver, credentials }) => {
  it("launches with the operator's token and plays spins the vendor wallet accepts, every call carrying the token", async () => {
    const rx = await started(receiver());
    const aggmock = await startAggmock(
      validateConfig({
        port: 0,
        db: ':memory:',
        catalog: { providers: 2, games: 10 },
        callbacks: { profile: name, credentials, webhookUrl: rx.url },
      }),
    );
    onCleanup(() => aggmock.close());
    const game = aggmock.catalog.games.find((g) => g.minBetMinor <= 100 && g.maxBetMinor >= 100);
    const launch = await fetch(`${aggmock.url}/getgameurl`, {
      method: 'POST',
      headers: { 'x-betnex-key': 'aggmock-dev-key', 'content-type': 'application/json' },
      body: JSON.stringify({
        username: PLAYER.playerId,
        gameId: game?.id,
        money: 1000,
        platform: 1,
        home_url: 'https://casino.example',
        currency: 'EUR',
        token: PLAYER.token,
      }),
    });
    expect(launch.status).toBe(200);
    const session = ((await launch.json()) as { payload: { session_id: string } }).payload.session_id;
    expect(aggmock.sessions.lookup(session)).toMatchObject({ status: 'active', session: { token: PLAYER.token } });
    let balance: number | undefined;
    for (let i = 0; i < 4; i++) {
      const res = await fetch(`${aggmock.url}/play/${session}/spin`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ bet: 1 }),
      });
      const body = (await res.json()) as { outcome: string; balance?: number; steps: { status: string }[] };
      expect({ status: res.status, outcome: body.outcome }).toMatchObject({ status: 200 });
      expect(['win', 'lose'], JSON.stringify({ body, errors: rx.errors, log: rx.log.slice(-1) })).toContain(body.outcome);
      for (const step of body.steps) expect(step.status).toBe('delivered');
      balance = body.balance;
    }
    expect(rx.errors).toEqual([]);
    expect(rx.log.length).toBeGreaterThanOrEqual(4);
    // Each call carried the launch's token wherever the wire has a token field.
    for (const entry of rx.log) {
      const tokens = Object.values(entry.fields).filter((v) => typeof v === 'string' && v.startsWith('tok-'));
      expect(tokens.every((t) => t === PLAYER.token)).toBe(true);
    }
    // The deliveries inspector shows the first call as it was sent: method, path (and query) under the base URL, body.
    const inspected = (await (await fetch(`${aggmock.url}/__admin/deliveries/1`)).json()) as {
      attempts: { requestMethod?: string; requestPath?: string; requestBody: string }[];
    };
    const first = inspected.attempts[0];
    const sent = new URL(`${rx.url}${first?.requestPath ?? ''}`);
    expect({ method: first?.requestMethod ?? 'POST', path: sent.pathname }).toEqual({
      method: rx.log[0]?.method,
      path: rx.log[0]?.path,
    });
    expect(balance).toBeDefined();
    expect(toMinor(Number(rx.balanceOf(PLAYER.playerId)), 2)).toBe(toMinor(balance as number, 2));
  });
});

describe('the serve banner', () => {
  it("names the vendor dialect and the wallet's base URL instead of aggmock's header scheme", () => {
    const line = (profile: string) =>
      readyMessage(validateConfig({ callbacks: { profile, webhookUrl: 'http://127.0.0.1:9/' } }), 'http://127.0.0.1:4000')
        .split('\n')
        .find((l) => l.includes('callbacks'));
    expect(line('pragmatic')).toContain("http://127.0.0.1:9/ (the wallet's base URL), in the pragmatic dialect, signed md5");
    expect(line('default')).toContain('signed timestamped (HMAC-SHA256) in X-Signature');
  });
});
