import { afterEach, describe, expect, it } from 'vitest';
import { operatorCredentials } from '../../src/aggregator/vendor/index.ts';
import { onCleanup, runCleanups } from '../../src/callbacks/test-engine.ts';
import { validateConfig } from '../../src/config/index.ts';
import { builtinOperatorApi } from '../../src/dialects/builtin/operator/index.ts';
import type { OperatorApi, OperatorRoute } from '../../src/dialects/operator.ts';
import { type OperatorValues, operatorRequest } from '../../src/dialects/operator-client.ts';
import { startAggmock } from '../../src/runtime.ts';
import { blueOceanClient } from '../dialects/operator-clients/blueocean.ts';

/**
 * A vendor's close-session call ends the player's open games: Pragmatic's CloseSession (of one game
 * when it names one) and Blue Ocean's logoutPlayer (sent by the independent Blue Ocean client). The
 * play page of a closed session answers 410; other players' and other games' sessions stay open.
 */

afterEach(runCleanups);

async function serve(name: string) {
  const aggmock = await startAggmock(
    validateConfig({
      port: 0,
      db: ':memory:',
      catalog: { providers: 1, games: 4 },
      callbacks: { profile: name, webhookUrl: 'http://127.0.0.1:9/' },
    }),
  );
  onCleanup(() => aggmock.close());
  const api = builtinOperatorApi(name) as OperatorApi;
  const credentials = operatorCredentials(api, {}, name);
  /** Sends the route's request; `without` leaves a required field out (the client signs what it sends). */
  const call = async (does: OperatorRoute['does'], values: OperatorValues, without?: string) => {
    const found = api.routes.find((r) => r.does === does) as OperatorRoute;
    const route = without ? { ...found, required: found.required.filter((f) => f !== without) } : found;
    const req = operatorRequest(api, route, values, credentials);
    const res = await fetch(`${aggmock.url}${req.path}`, {
      method: req.method,
      headers: req.headers,
      ...(req.body === undefined ? {} : { body: req.body }),
    });
    return (await res.json()) as Record<string, unknown>;
  };
  const launch = async (player: string, gameId: string) => {
    const reply = await call('launch', { player, gameId, currency: 'EUR', token: `tok-${player}-0123456789`, language: 'en' });
    const url = (reply.gameURL ?? reply.response) as string;
    return new URL(url).pathname.split('/').pop() as string;
  };
  const status = (id: string) => aggmock.sessions.lookup(id).status;
  return { aggmock, call, launch, status };
}

describe('Pragmatic CloseSession', () => {
  it("ends the player's sessions of the game it names, then all of them; other players keep theirs", async () => {
    const s = await serve('pragmatic');
    const [g1, g2] = s.aggmock.catalog.games;
    const a = await s.launch('p1', g1?.id as string);
    const b = await s.launch('p1', g2?.id as string);
    const other = await s.launch('p2', g1?.id as string);
    expect(await s.call('close-session', { player: 'p1', gameId: g1?.id as string })).toEqual({ error: '0', description: 'OK' });
    expect([s.status(a), s.status(b), s.status(other)]).toEqual(['expired', 'active', 'active']);
    const page = await fetch(`${s.aggmock.url}/play/${a}`, { headers: { accept: 'text/html' } });
    expect(page.status).toBe(410);
    await s.call('close-session', { player: 'p1' });
    expect([s.status(b), s.status(other)]).toEqual(['expired', 'active']);
  });

  it('refuses a call without externalPlayerId, and one naming an unknown game, closing nothing', async () => {
    const s = await serve('pragmatic');
    const game = s.aggmock.catalog.games[0] as { id: string };
    const open = await s.launch('p1', game.id);
    expect(await s.call('close-session', {}, 'externalPlayerId')).toEqual({
      error: '7',
      description: 'externalPlayerId is required',
    });
    expect((await s.call('close-session', { player: 'p1', gameId: 'vs0none' })).error).toBe('7');
    expect(s.status(open)).toBe('active');
  });
});

describe('Blue Ocean logoutPlayer', () => {
  it("ends the player's open games, sent by the independent Blue Ocean client", async () => {
    const s = await serve('blueocean');
    const game = s.aggmock.catalog.games[0] as { id: string };
    const open = await s.launch('p1', game.id);
    const client = blueOceanClient({
      baseUrl: `${s.aggmock.url}/blueocean`,
      apiLogin: 'aggmock-dev-login',
      apiPassword: 'aggmock-dev-secret',
    });
    await client.closeSession({ player: 'p1', playerPassword: 'pw', currency: 'EUR' });
    expect(s.status(open)).toBe('expired');
  });
});
