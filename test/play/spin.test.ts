import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/config/index.ts';
import { type Aggmock, startAggmock } from '../../src/runtime.ts';
import { type RunningWallet, startWallet } from '../../src/wallet/index.ts';
import { expectApiError, testApp } from '../api/helpers.ts';

describe('POST /play/:session/spin', () => {
  let main: RunningWallet;
  let other: RunningWallet;
  let aggmock: Aggmock;
  beforeAll(async () => {
    const base = validateConfig({ port: 0, db: ':memory:' });
    main = await startWallet({ config: base, dbPath: ':memory:', port: 0 });
    other = await startWallet({ config: base, dbPath: ':memory:', port: 0 });
    aggmock = await startAggmock(validateConfig({ ...base, callbacks: { webhookUrl: main.webhookUrl } }));
  });
  afterAll(async () => {
    await aggmock?.close();
    await main?.close();
    await other?.close();
  });

  const game = () => aggmock.catalog.games.find((g) => g.minBetMinor <= 200 && g.maxBetMinor >= 200)!;

  async function launch(extra: Record<string, unknown> = {}): Promise<string> {
    const res = await fetch(`${aggmock.url}/getgameurl`, {
      method: 'POST',
      headers: { 'x-betnex-key': 'aggmock-dev-key', 'content-type': 'application/json' },
      body: JSON.stringify({
        username: 'p2',
        gameId: game().id,
        money: 1000,
        platform: 1,
        home_url: 'https://casino.example',
        ...extra,
      }),
    });
    return ((await res.json()) as { payload: { session_id: string } }).payload.session_id;
  }

  const spin = (session: string, body: unknown) =>
    fetch(`${aggmock.url}/play/${session}/spin`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  it('debits the bet from the session’s player and answers with each reply and the balance', async () => {
    const res = await spin(await launch(), { bet: 2 });
    expect(res.status).toBe(200);
    const body = (await res.json()) as {
      outcome: string;
      steps: Array<{ type: string; amount: number; status: string }>;
      balance: number;
      win: number;
    };
    expect(['win', 'lose']).toContain(body.outcome);
    expect(body.steps[0]).toMatchObject({ type: 'bet', amount: 2, status: 'delivered' });
    expect(body.steps).toHaveLength(body.outcome === 'win' ? 2 : 1);
    expect(Math.round(body.balance * 100)).toBe(main.store.balanceOf('p2'));
    expect(main.store.balanceOf('p2')).toBe(100_000 - 200 + Math.round(body.win * 100));
  });

  it('sends the callbacks of a session launched with callback_url to that URL, not the configured webhook', async () => {
    const before = main.store.balanceOf('p2');
    const res = await spin(await launch({ callback_url: other.webhookUrl }), { bet: 2 });
    expect(res.status).toBe(200);
    expect(main.store.balanceOf('p2')).toBe(before);
    expect(other.store.balanceOf('p2')).not.toBe(100_000);
  });

  it.each([
    [{ bet: 0 }, 'bet'],
    [{ bet: -1 }, 'bet'],
    [{ bet: 1.005 }, 'bet'],
    [{ bet: '2' }, 'bet'],
    [{}, 'bet'],
    [{ bet: 1_000_000 }, 'bet'],
  ])('answers %j with 400 naming the field and sends nothing', async (body, field) => {
    const delivered = aggmock.engine.outbox.counts().delivered;
    const res = await spin(await launch(), body);
    expect(res.status).toBe(400);
    const error = (await res.json()) as Record<string, unknown>;
    expectApiError(error, 400);
    expect((error.errors as Array<{ field: string }>)[0]!.field).toBe(field);
    expect(aggmock.engine.outbox.counts().delivered).toBe(delivered);
  });

  it('answers an unknown session with a JSON 404', async () => {
    const res = await spin('nope', { bet: 1 });
    expect(res.status).toBe(404);
    expectApiError((await res.json()) as Record<string, unknown>, 404);
  });

  it('answers 503 when no callback engine runs (the API alone)', async () => {
    const { app, catalog, sessions } = testApp();
    const session = sessions.create(
      {
        playerId: 'p1',
        gameId: catalog.games[0]!.id,
        gameName: 'x',
        provider: 'PGSOFT',
        currency: 'EUR',
        lang: 'en',
        platform: 1,
        homeUrl: 'https://x.test',
        balanceAtLaunchMinor: 0,
      },
      { expiresInSeconds: 60 },
    );
    const res = await app.request(`/play/${session.id}/spin`, {
      method: 'POST',
      body: '{"bet":1}',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(503);
    expectApiError((await res.json()) as Record<string, unknown>, 503);
  });
});

describe('POST /play/:session/spin under the betnex profile', () => {
  it('sends each spin as one callback carrying the bet and its win, and the balance agrees with the wallet', async () => {
    const callbacks = { profile: 'betnex' } as const;
    const wallet = await startWallet({ config: validateConfig({ callbacks }), dbPath: ':memory:', port: 0 });
    const aggmock = await startAggmock(
      validateConfig({ port: 0, db: ':memory:', seed: 3, callbacks: { ...callbacks, webhookUrl: wallet.webhookUrl } }),
    );
    try {
      const game = aggmock.catalog.games.find((g) => g.minBetMinor <= 100 && g.maxBetMinor >= 100 && (g.rtp ?? 0) > 90);
      const launched = await fetch(`${aggmock.url}/getgameurl`, {
        method: 'POST',
        headers: { 'x-betnex-key': 'aggmock-dev-key', 'content-type': 'application/json' },
        body: JSON.stringify({ username: 'p4', gameId: game?.id, money: 1000, platform: 1, home_url: 'https://casino.example' }),
      });
      const session = ((await launched.json()) as { payload: { session_id: string } }).payload.session_id;
      let wins = 0;
      for (let i = 0; i < 20 && wins === 0; i++) {
        const res = await fetch(`${aggmock.url}/play/${session}/spin`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ bet: 1 }),
        });
        const body = (await res.json()) as { outcome: string; steps: unknown[]; balance: number };
        expect(body.steps).toHaveLength(1);
        expect(Math.round(body.balance * 100)).toBe(wallet.store.balanceOf('p4'));
        if (body.outcome === 'win') wins++;
      }
      expect(wins).toBe(1);
      const rounds = aggmock.engine.outbox.list({ playerId: 'p4', limit: 50 });
      expect(rounds.every((e) => e.kind === 'debit')).toBe(true);
      const won = rounds.find((e) => (e.winMinor ?? 0) > 0);
      expect(JSON.parse(won?.body ?? '{}')).toMatchObject({ bet_amount: 1, win_amount: (won?.winMinor ?? 0) / 100 });
      expect(aggmock.ledger.discrepancies()).toEqual([]);
    } finally {
      await aggmock.close();
      await wallet.close();
    }
  });
});

describe('POST /play/:session/spin under the pragmatic dialect', () => {
  const callbacks = { profile: 'pragmatic' } as const;
  let wallet: RunningWallet;
  let aggmock: Aggmock;
  beforeAll(async () => {
    wallet = await startWallet({ config: validateConfig({ callbacks }), dbPath: ':memory:', port: 0 });
    aggmock = await startAggmock(
      validateConfig({ port: 0, db: ':memory:', seed: 5, callbacks: { ...callbacks, webhookUrl: wallet.webhookUrl } }),
    );
  });
  afterAll(async () => {
    await aggmock?.close();
    await wallet?.close();
  });

  async function launch(username: string, token: string): Promise<string> {
    const game = aggmock.catalog.games.find((g) => g.minBetMinor <= 100 && g.maxBetMinor >= 100);
    const res = await fetch(`${aggmock.url}/getgameurl`, {
      method: 'POST',
      headers: { 'x-betnex-key': 'aggmock-dev-key', 'content-type': 'application/json' },
      body: JSON.stringify({ username, gameId: game?.id, money: 1000, platform: 1, home_url: 'https://casino.example', token }),
    });
    return ((await res.json()) as { payload: { session_id: string } }).payload.session_id;
  }
  const spin = async (session: string) => {
    const res = await fetch(`${aggmock.url}/play/${session}/spin`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ bet: 1 }),
    });
    return (await res.json()) as { outcome: string; steps: Array<{ type: string; status: string }>; message?: string };
  };

  it('opens the game with authenticate and balance before the first bet, ends every round with endRound, and opens it once', async () => {
    const session = await launch('p5', 'aggmock-session-p5');
    const first = await spin(session);
    const types = first.steps.map((s) => s.type);
    expect(types.slice(0, 3)).toEqual(['authenticate', 'balance', 'bet']);
    expect(types.at(-1)).toBe('endRound');
    expect(first.steps.every((s) => s.status === 'delivered')).toBe(true);
    const second = await spin(session);
    expect(second.steps.map((s) => s.type)[0]).toBe('bet');
    expect(second.steps.map((s) => s.type).at(-1)).toBe('endRound');
    const sent = aggmock.engine.outbox.list({ playerId: 'p5', limit: 50 });
    expect(sent.every((e) => e.facts?.sessionToken === 'aggmock-session-p5')).toBe(true);
    expect(aggmock.ledger.discrepancies()).toEqual([]);
  });

  it('sends no bet when the wallet refuses the game opening (a token it never issued), and says why', async () => {
    const session = await launch('p6', 'a-token-the-wallet-never-issued');
    const before = wallet.store.balanceOf('p6');
    const refused = await spin(session);
    expect(refused.outcome).toBe('refused');
    expect(refused.steps.map((s) => [s.type, s.status])).toEqual([['authenticate', 'rejected']]);
    expect(refused.message).toMatch(/The game did not open: the wallet refused its authenticate call/);
    expect(aggmock.engine.outbox.list({ playerId: 'p6', limit: 50 }).map((e) => e.facts?.operation)).toEqual(['authenticate']);
    expect(wallet.store.balanceOf('p6')).toBe(before);
  });
});
