import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operatorCredentials } from '../../src/aggregator/vendor/index.ts';
import { validateConfig } from '../../src/config/index.ts';
import { builtinOperatorApi } from '../../src/dialects/builtin/operator/index.ts';
import type { OperatorApi, OperatorRoute } from '../../src/dialects/operator.ts';
import { type OperatorValues, operatorRequest } from '../../src/dialects/operator-client.ts';
import { startAggmock } from '../../src/runtime.ts';

/**
 * The routes beyond list and launch, where a vendor documents them: Slotegrator's lobby and free
 * spins, Blue Ocean's addFreeRounds and logoutPlayer, Pragmatic's round history and free rounds.
 * Each is checked the vendor's way (signature, required fields) and answered in the vendor's shape;
 * a request missing a required field is refused naming it.
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
  /** Sends the route's request; `without` leaves a required field out (the client signs what it sends). */
  const call = async (r: OperatorRoute, values: OperatorValues, without?: string) => {
    const sent = without ? { ...r, required: r.required.filter((f) => f !== without) } : r;
    const req = operatorRequest(api, sent, values, credentials);
    const res = await fetch(`${aggmock.url}${req.path}`, {
      method: req.method,
      headers: req.headers,
      ...(req.body === undefined ? {} : { body: req.body }),
    });
    const text = await res.text();
    return { status: res.status, text, json: text ? JSON.parse(text) : undefined, refusal: res.headers.get('x-aggmock-refusal') };
  };
  return { aggmock, route, call };
}

describe('Slotegrator: /games/lobby, /freespins/set and /freespins/cancel', () => {
  let s: Awaited<ReturnType<typeof serve>>;
  beforeAll(async () => {
    s = await serve('slotegrator');
  });
  afterAll(() => s.aggmock.close());

  it("answers a game's lobby with its one table, and refuses an unknown game and a missing currency", async () => {
    const game = s.aggmock.catalog.games[1] as { id: string; name: string };
    const lobby = s.route('/games/lobby');
    const ok = await s.call(lobby, { gameId: game.id, currency: 'EUR' });
    expect(ok.status).toBe(200);
    expect(ok.json.lobby).toMatchObject({ lobbyData: game.id, name: game.name, isOpen: true, technology: 'html5' });
    const unknown = await s.call(lobby, { gameId: 'no-such-game', currency: 'EUR' });
    expect(unknown.status).toBe(404);
    expect(unknown.json).toMatchObject({ name: expect.any(String), status: 404 });
    const missing = await s.call(lobby, { gameId: game.id }, 'currency');
    expect(missing.status).toBeGreaterThanOrEqual(400);
    expect(missing.refusal).toBe('currency is required');
  });

  it('records a free-spin campaign and its cancellation with 200 and no body, and refuses one without quantity', async () => {
    const game = s.aggmock.catalog.games[0] as { id: string };
    const award = { player: 'p1', currency: 'EUR', gameId: game.id, awardId: 'fs-1', rounds: '5', validUntil: '4102444800' };
    const set = await s.call(s.route('/freespins/set'), award);
    expect(set).toMatchObject({ status: 200, text: '' });
    expect((await s.call(s.route('/freespins/cancel'), { awardId: 'fs-1' })).status).toBe(200);
    const { rounds: _, ...noQuantity } = award;
    const missing = await s.call(s.route('/freespins/set'), { ...noQuantity, awardId: 'fs-2' }, 'quantity');
    expect(missing.status).toBeGreaterThanOrEqual(400);
    expect(missing.refusal).toBe('quantity is required');
  });
});

describe('Blue Ocean: addFreeRounds and logoutPlayer', () => {
  let s: Awaited<ReturnType<typeof serve>>;
  beforeAll(async () => {
    s = await serve('blueocean');
  });
  afterAll(() => s.aggmock.close());

  it('answers addFreeRounds with a freeround id of its own and logoutPlayer with error 0; a missing field is error 1', async () => {
    const award = { player: 'p1', gameId: '1', rounds: '5', validUntil: '2099-12-31' };
    const added = await s.call(s.route('/blueocean', 'addFreeRounds'), award);
    expect(added.json).toEqual({
      error: 0,
      response: { created: 1, freeround_id: expect.stringMatching(/^aggmock-award-[0-9a-f]{16}$/) },
    });
    const again = await s.call(s.route('/blueocean', 'addFreeRounds'), award);
    expect(again.json.response.freeround_id).not.toBe(added.json.response.freeround_id);
    expect((await s.call(s.route('/blueocean', 'logoutPlayer'), { player: 'p1' })).json).toEqual({ error: 0, response: true });
    const { validUntil: _, ...noValidTo } = award;
    const missing = await s.call(s.route('/blueocean', 'addFreeRounds'), noValidTo, 'validTo');
    expect(missing.json).toMatchObject({ error: 1, message: 'validTo is required' });
  });
});

describe('Pragmatic: OpenHistoryExtended and free rounds (FRB v2)', () => {
  let s: Awaited<ReturnType<typeof serve>>;
  beforeAll(async () => {
    s = await serve('pragmatic');
  });
  afterAll(() => s.aggmock.close());

  it("answers a round's history with the deliveries page of that round, and refuses one without roundId", async () => {
    const history = s.route('/HistoryAPI/OpenHistoryExtended/');
    const ok = await s.call(history, { player: 'p1', gameId: 'vs20olympgate', roundId: 'R-77' });
    expect(ok.json).toEqual({ error: '0', description: 'OK', url: `${s.aggmock.url}/ui/deliveries?round=R-77` });
    const missing = await s.call(history, { player: 'p1', gameId: 'vs20olympgate' }, 'roundId');
    expect(missing.json).toMatchObject({ error: '7', description: 'roundId is required' });
  });

  it('records a free-rounds bonus and its cancellation, and refuses one without rounds', async () => {
    const game = s.aggmock.catalog.games[0] as { id: string };
    const award = { player: 'p1', currency: 'EUR', gameId: game.id, awardId: 'B-1', rounds: '5', validUntil: '4102444800' };
    expect((await s.call(s.route('/FreeRoundsBonusAPI/v2/bonus/player/create'), award)).json).toEqual({
      error: '0',
      description: 'OK',
    });
    expect((await s.call(s.route('/FreeRoundsBonusAPI/v2/bonus/cancel/'), { awardId: 'B-1' })).json).toEqual({
      error: '0',
      description: 'OK',
    });
    const { rounds: _, ...noRounds } = award;
    const missing = await s.call(
      s.route('/FreeRoundsBonusAPI/v2/bonus/player/create'),
      { ...noRounds, awardId: 'B-2' },
      'rounds',
    );
    expect(missing.json).toMatchObject({ error: '7', description: 'rounds is required' });
  });
});

describe('a vendor launch on an exposed instance at its session cap', () => {
  it("is refused with aggmock's 503 naming launch.maxSessions, as /getgameurl is, and the open game stays", async () => {
    const own = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const aggmock = await startAggmock(
      validateConfig({
        port: 0,
        db: ':memory:',
        catalog: { providers: 1, games: 3 },
        publicUrl: 'https://demo.example.test',
        admin: { token: 'admin-tok-7f3e' },
        launch: { maxSessions: 1 },
        callbacks: { profile: 'hub88', webhookUrl: 'http://127.0.0.1:9/' },
        // Exposed: the operator's own key (the development one is refused there).
        operator: { credentials: { publicKey: own.publicKey.export({ type: 'spki', format: 'pem' }) as string } },
      }),
    );
    try {
      const api = builtinOperatorApi('hub88') as OperatorApi;
      const credentials = operatorCredentials(
        api,
        { publicKey: own.publicKey.export({ type: 'spki', format: 'pem' }) as string },
        'hub88',
      );
      const game = aggmock.catalog.games[0] as { id: string };
      const launch = async (player: string) => {
        const req = operatorRequest(
          api,
          api.routes.find((r) => r.does === 'launch') as OperatorRoute,
          { player, gameId: game.id, currency: 'EUR', token: `t-${player}` },
          credentials,
          { privateKey: own.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string },
        );
        return fetch(`${aggmock.url}${req.path}`, { method: req.method, headers: req.headers, body: req.body });
      };
      const first = await launch('p1');
      expect(first.status).toBe(200);
      const url = ((await first.json()) as { url: string }).url;
      const second = await launch('p2');
      expect(second.status).toBe(503);
      expect(await second.text()).toContain('launch.maxSessions');
      const id = new URL(url).pathname.split('/').pop() as string;
      expect(aggmock.sessions.lookup(id).status).toBe('active');
    } finally {
      await aggmock.close();
    }
  });
});
