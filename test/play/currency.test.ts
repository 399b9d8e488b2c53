import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/config/index.ts';
import { type Aggmock, startAggmock } from '../../src/runtime.ts';
import { type RunningWallet, startWallet } from '../../src/wallet/index.ts';

// A launch in yen: the page bets whole yen, the callbacks carry JPY, the wallet keeps yen.
describe('the play page in the launch currency', () => {
  let wallet: RunningWallet;
  let aggmock: Aggmock;
  const callbacks = { extraFields: ['currency' as const] };
  beforeAll(async () => {
    const base = validateConfig({
      port: 0,
      db: ':memory:',
      callbacks,
      wallet: { players: { yen: { balance: 10_000, currency: 'JPY' } } },
    });
    wallet = await startWallet({ config: base, dbPath: ':memory:', port: 0 });
    aggmock = await startAggmock(
      validateConfig({ port: 0, db: ':memory:', callbacks: { ...callbacks, webhookUrl: wallet.webhookUrl } }),
    );
  });
  afterAll(async () => {
    await aggmock?.close();
    await wallet?.close();
  });

  const game = () =>
    aggmock.catalog.games.find((g) => g.currencies.includes('JPY') && g.minBetMinor <= 100 && g.maxBetMinor >= 20_000)!;

  async function launch(username: string, currency: string): Promise<string> {
    const res = await fetch(`${aggmock.url}/getgameurl`, {
      method: 'POST',
      headers: { 'x-betnex-key': 'aggmock-dev-key', 'content-type': 'application/json' },
      body: JSON.stringify({
        username,
        gameId: game().id,
        money: 10_000,
        platform: 1,
        home_url: 'https://casino.example',
        currency,
      }),
    });
    expect(res.status).toBe(200);
    return ((await res.json()) as { payload: { session_id: string } }).payload.session_id;
  }
  const spin = (session: string, bet: number) =>
    fetch(`${aggmock.url}/play/${session}/spin`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ bet }),
    });

  it('writes bets with the currency’s decimals on the page', async () => {
    const html = await (
      await fetch(`${aggmock.url}/play/${await launch('yen', 'JPY')}`, { headers: { accept: 'text/html' } })
    ).text();
    expect(html).toMatch(/data-testid="bet" type="number" min="1" max="\d+" step="1" value="\d+"/);
    expect(html).toContain('"currency":"JPY","decimals":0');
  });

  it('sends the bet in yen with currency JPY, and the wallet takes whole yen from a yen player', async () => {
    const res = await spin(await launch('yen', 'JPY'), 150);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { bet: number; steps: Array<{ amount: number; reply: unknown }>; balance: number };
    expect(body.bet).toBe(150);
    expect(body.steps[0]).toMatchObject({ amount: 150, reply: { balance: 9850 } });
    const debit = aggmock.engine.outbox.list({ playerId: 'yen', limit: 10 }).find((e) => e.kind === 'debit');
    expect(JSON.parse(debit?.body ?? '{}')).toMatchObject({ type: 'DEBIT', amount: 150, currency: 'JPY' });
    expect(wallet.store.balanceOf('yen')).toBe(body.balance); // whole yen: the major unit is the minor unit
  });

  it('refuses a fraction of a yen, naming bet, and sends nothing', async () => {
    const before = aggmock.engine.outbox.list({ playerId: 'yen', limit: 100 }).length;
    const res = await spin(await launch('yen', 'JPY'), 1.5);
    expect(res.status).toBe(400);
    const body = (await res.json()) as { message: string; errors: Array<{ field: string }> };
    expect(body.message).toMatch(/bet: expected at most 0 decimals \(JPY\)/);
    expect(body.errors[0]?.field).toBe('bet');
    expect(aggmock.engine.outbox.list({ playerId: 'yen', limit: 100 }).length).toBe(before);
  });

  it('a launch in another currency than the player’s reaches the wallet as WRONG_CURRENCY and moves nothing', async () => {
    const before = wallet.store.balanceOf('yen');
    const res = await spin(await launch('yen', 'EUR'), 2);
    const body = (await res.json()) as { outcome: string; steps: Array<{ reply: unknown }> };
    expect(body.outcome).toBe('refused');
    expect(body.steps[0]?.reply).toMatchObject({ error: 'WRONG_CURRENCY' });
    expect(wallet.store.balanceOf('yen')).toBe(before);
  });
});
