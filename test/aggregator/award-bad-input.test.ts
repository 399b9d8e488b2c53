import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operatorCredentials } from '../../src/aggregator/vendor/index.ts';
import { validateConfig } from '../../src/config/index.ts';
import { builtinOperatorApi } from '../../src/dialects/builtin/operator/index.ts';
import type { OperatorApi, OperatorRoute } from '../../src/dialects/operator.ts';
import { type OperatorValues, operatorRequest } from '../../src/dialects/operator-client.ts';
import { startAggmock } from '../../src/runtime.ts';

/**
 * A free-round award the vendor would not take is refused the vendor's way, naming the field, and
 * records nothing: a count, a stake or an end that does not read, a game list naming an unknown game.
 * Correct awards in the vendors' several styles (Unix seconds, a date, a list of games) are taken.
 */

async function serve(name: string) {
  const aggmock = await startAggmock(
    validateConfig({
      port: 0,
      db: ':memory:',
      catalog: { providers: 2, games: 5 },
      callbacks: { profile: name, webhookUrl: 'http://127.0.0.1:9/' },
    }),
  );
  const api = builtinOperatorApi(name) as OperatorApi;
  const credentials = operatorCredentials(api, {}, name);
  const route = (path: string, equals?: string) =>
    api.routes.find((r) => r.path === path && (equals === undefined || r.selector?.equals === equals)) as OperatorRoute;
  const call = async (r: OperatorRoute, values: OperatorValues) => {
    const req = operatorRequest(api, r, values, credentials);
    const res = await fetch(`${aggmock.url}${req.path}`, {
      method: req.method,
      headers: req.headers,
      ...(req.body === undefined ? {} : { body: req.body }),
    });
    const text = await res.text();
    return { status: res.status, json: text ? JSON.parse(text) : undefined, refusal: res.headers.get('x-aggmock-refusal') };
  };
  return { aggmock, route, call };
}

describe('Pragmatic FRB create', () => {
  let s: Awaited<ReturnType<typeof serve>>;
  beforeAll(async () => {
    s = await serve('pragmatic');
  });
  afterAll(() => s.aggmock.close());
  const create = () => s.route('/FreeRoundsBonusAPI/v2/bonus/player/create');
  const award = (over: OperatorValues): OperatorValues => ({
    player: 'p1',
    currency: 'EUR',
    gameId: (s.aggmock.catalog.games[0] as { id: string }).id,
    awardId: 'B-ok',
    rounds: '3',
    validUntil: '4102444800',
    betAmount: '0.20',
    ...over,
  });

  it.each([
    [{ rounds: 'ten' }, 'rounds: expected a whole number from 1 to 10000, got ten'],
    [{ rounds: '0' }, 'rounds: expected a whole number from 1 to 10000, got 0'],
    [{ betAmount: '-1' }, 'gameList.0.betValues.0.totalBet: expected a stake such as 0.20, got -1'],
    [{ validUntil: 'soon' }, 'expirationDate: expected Unix seconds or a date such as 2026-12-31T23:59:59Z, got soon'],
  ])('refuses %j with error 7 naming the field, recording nothing', async (over, message) => {
    const before = s.aggmock.sessions.awards.size;
    const reply = await s.call(create(), award({ ...over, awardId: `B-${message.length}` }));
    expect(reply.json).toEqual({ error: '7', description: message });
    expect(s.aggmock.sessions.awards.size).toBe(before);
  });

  it('refuses an unknown game and an unknown bonusCode to cancel', async () => {
    expect((await s.call(create(), award({ gameId: 'vs0nothing', awardId: 'B-x' }))).json.error).toBe('7');
    const cancel = await s.call(s.route('/FreeRoundsBonusAPI/v2/bonus/cancel/'), { awardId: 'B-never' });
    expect(cancel.json).toEqual({ error: '7', description: 'bonusCode "B-never": no free-round award has this id' });
  });

  it('takes an end as Unix seconds or as a date, and the stake of the game list', async () => {
    await s.call(create(), award({ awardId: 'B-secs' }));
    await s.call(create(), award({ awardId: 'B-date', validUntil: '2100-01-01T00:00:00Z' }));
    expect(s.aggmock.sessions.awards.get('B-secs')).toMatchObject({ validUntil: 4102444800000, bet: '0.20', rounds: 3 });
    expect(s.aggmock.sessions.awards.get('B-date')).toMatchObject({ validUntil: Date.parse('2100-01-01T00:00:00Z') });
  });
});

describe('Blue Ocean addFreeRounds with several games and players', () => {
  let s: Awaited<ReturnType<typeof serve>>;
  beforeAll(async () => {
    s = await serve('blueocean');
  });
  afterAll(() => s.aggmock.close());

  it('records every player and game of the comma lists, and refuses a list naming an unknown game', async () => {
    const games = s.aggmock.catalog.games;
    const added = await s.call(s.route('/blueocean', 'addFreeRounds'), {
      player: 'p1, p2',
      gameId: `1,${games[2]?.id}`,
      rounds: '4',
      validUntil: '2100-01-01',
    });
    const id = added.json.response.freeround_id as string;
    expect(s.aggmock.sessions.awards.get(id)).toMatchObject({
      players: ['p1', 'p2'],
      gameIds: [games[0]?.id, games[2]?.id],
      rounds: 4,
    });
    const before = s.aggmock.sessions.awards.size;
    const refused = await s.call(s.route('/blueocean', 'addFreeRounds'), {
      player: 'p1',
      gameId: '1,no-such-game',
      rounds: '4',
      validUntil: '2100-01-01',
    });
    expect(refused.json).toMatchObject({ error: 1, message: expect.stringContaining('no-such-game') });
    expect(s.aggmock.sessions.awards.size).toBe(before);
  });
});
