/**
 * The Evolution operator client proven against the one published credential example (a licensee's
 * Basic header) and a loopback stand-in that authenticates the way the integrations in evolution.ts
 * show: the API token in the UA2 path, Basic casinoKey:apiToken on the lobby and render APIs.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { evolutionBasicAuth, evolutionClient } from './evolution.ts';
import { constantTimeEqual, type LoopbackVendor, OperatorCallError, type ReceivedCall, startLoopbackVendor } from './kit.ts';

const CASINO = 'casino000000001';
const TOKEN = 'api-token-123';

function evolutionStandIn(call: ReceivedCall) {
  const ua = /^\/ua\/v1\/([^/]+)(?:\/([^/]+))?$/.exec(call.path);
  if (call.method === 'POST' && ua) {
    if (ua[1] !== CASINO) return { status: 200, body: { errors: [{ code: 'G.1', message: `Unknown casino ${ua[1]}` }] } };
    if (!ua[2] || !constantTimeEqual(ua[2], TOKEN)) {
      // unknown: the HTTP status that carries a UA2 error; 200 + errors here (the client accepts any).
      return {
        status: 200,
        body: { errors: [{ code: 'G.2', message: `Provided ${ua[2] ?? ''} for casino ${CASINO} is incorrect` }] },
      };
    }
    const body = JSON.parse(call.rawBody.toString('utf8')) as {
      player: { session: { id: string } };
      config: { game: { table: { id: string } } };
    };
    return {
      status: 200,
      body: {
        entry: `/entry?params=${body.player.session.id}&table=${body.config.game.table.id}`,
        entryEmbedded: `/entry?params=${body.player.session.id}&embedded`,
      },
    };
  }
  if (call.headers.authorization !== evolutionBasicAuth(CASINO, TOKEN)) return { status: 401, body: { message: 'Unauthorized' } };
  if (call.path === `/api/lobby/v1/${CASINO}/state`) {
    return {
      status: 200,
      body: {
        tables: {
          vctlz20yfnmp1ylr: {
            tableId: 'vctlz20yfnmp1ylr',
            name: 'Lightning Roulette',
            gameType: 'roulette',
            videoSnapshot: { thumbnails: { L: 'https://x.invalid/l.jpg' } },
          },
        },
      },
    };
  }
  if (call.path === '/api/render/v1/details') {
    return { status: 200, body: `<html><body>round ${call.query.get('gameId')}</body></html>`, contentType: 'text/html' };
  }
  return { status: 404, body: { message: 'not found' } };
}

let vendor: LoopbackVendor;
beforeEach(async () => {
  vendor = await startLoopbackVendor(evolutionStandIn);
});
afterEach(async () => {
  await vendor.stop();
});

const client = (tamper?: 'wrong-key' | 'no-signature') =>
  evolutionClient({ baseUrl: vendor.url, casinoKey: CASINO, apiToken: TOKEN, tamper });

describe('evolution Basic credential (a licensee client\u2019s published header)', () => {
  it('encodes casino diyft40000000001 with token test123 as that client does', () => {
    expect(evolutionBasicAuth('diyft40000000001', 'test123')).toBe('Basic ZGl5ZnQ0MDAwMDAwMDAwMTp0ZXN0MTIz');
  });
});

describe('evolution operator client', () => {
  it('lists the lobby state tables with Basic auth', async () => {
    const tables = await client().listGames();
    expect(tables.map((t) => [t.tableId, t.gameType])).toEqual([['vctlz20yfnmp1ylr', 'roulette']]);
    expect(vendor.calls.at(-1)!.headers.authorization).toBe(evolutionBasicAuth(CASINO, TOKEN));
  });

  it('launches through UA2 with the session token as player.session.id and returns base + entry', async () => {
    const url = await client().launch({
      player: 'p-1',
      token: 'sid-777',
      currency: 'EUR',
      gameId: 'vctlz20yfnmp1ylr',
      mode: 'real',
    });
    expect(url).toBe(`${vendor.url}/entry?params=sid-777&table=vctlz20yfnmp1ylr`);
    const sent = JSON.parse(vendor.calls.at(-1)!.rawBody.toString('utf8'));
    expect(sent).toMatchObject({
      player: { id: 'p-1', currency: 'EUR', language: 'en', session: { id: 'sid-777' } },
      config: { game: { table: { id: 'vctlz20yfnmp1ylr' } }, channel: { wrapped: false } },
    });
    expect(typeof sent.uuid).toBe('string');
    expect(vendor.calls.at(-1)!.path).toBe(`/ua/v1/${CASINO}/${TOKEN}`);
  });

  it('returns the round render page', async () => {
    expect(await client().roundDetails({ round: 'r 1' })).toBe('<html><body>round r 1</body></html>');
  });

  it('is refused with G.2 when the API token is wrong or missing', async () => {
    for (const tamper of ['wrong-key', 'no-signature'] as const) {
      await expect(
        client(tamper).launch({ player: 'p', token: 't', currency: 'EUR', gameId: 'x', mode: 'real' }),
      ).rejects.toMatchObject({
        message: expect.stringContaining('G.2'),
      });
      const failure = await client(tamper)
        .listGames()
        .then(
          () => undefined,
          (error: unknown) => error,
        );
      expect(failure).toBeInstanceOf(OperatorCallError);
      expect(failure).toMatchObject({ status: 401 });
    }
  });

  it('refuses what no source documents: demo launch, and a tampered body (UA2 signs nothing)', async () => {
    await expect(client().launch({ player: 'p', token: 't', currency: 'EUR', gameId: 'x', mode: 'demo' })).rejects.toThrow(
      /demo/,
    );
    expect(() => evolutionClient({ baseUrl: vendor.url, casinoKey: CASINO, apiToken: TOKEN, tamper: 'tampered-body' })).toThrow(
      /no body signature/,
    );
  });
});
