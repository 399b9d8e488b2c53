import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { onCleanup, runCleanups } from '../../src/callbacks/test-engine.ts';
import { validateConfig } from '../../src/config/index.ts';
import { startAggmock } from '../../src/runtime.ts';
import { caletaClient } from '../dialects/operator-clients/caleta.ts';
import { postSignedJson, rsaSha256Base64 } from '../dialects/operator-clients/kit.ts';
import { OPERATOR_VENDORS } from '../dialects/operator-vendors.ts';
import type { ReceiverLogEntry } from '../dialects/receivers/receiver-kit.ts';
import { PLAYER, started } from '../dialects/vendor-table.ts';

/**
 * Caleta's free-bet campaigns (OAS /api/freebet/campaigns/create and /list): an operator signing the
 * OAS's bodies itself creates a campaign from a prepaid, lists it, and makes a reward from it by
 * campaign_uuid alone; the reward takes the campaign's game, bet_count and bet_value and its rounds
 * are played as Caleta's free bets to the independent Caleta receiver. Bad input is refused the
 * vendor's way naming the field; every call is journaled; the OpenAPI document has both routes; a
 * restart on the same database keeps the campaign.
 */

const dir = mkdtempSync(join(tmpdir(), 'aggmock-campaigns-'));
afterAll(async () => {
  await runCleanups();
  rmSync(dir, { recursive: true, force: true });
});

const KEYS = generateKeyPairSync('rsa', { modulusLength: 2048 });
const vendor = OPERATOR_VENDORS.find((v) => v.name === 'caleta');
if (!vendor) throw new Error('no caleta operator vendor');

async function serve(webhookUrl: string) {
  const aggmock = await startAggmock(
    validateConfig({
      port: 0,
      db: join(dir, 'aggmock.db'),
      catalog: { providers: 2, games: 12 },
      callbacks: { profile: 'caleta', credentials: vendor?.wallet, webhookUrl },
      operator: {
        credentials: { publicKey: KEYS.publicKey.export({ type: 'spki', format: 'pem' }) as string, operatorId: '3' },
      },
    }),
  );
  onCleanup(() => aggmock.close());
  return aggmock;
}

/** A Games API call as the OAS describes it: JSON, RSA-SHA256 of the body in X-Auth-Signature. */
async function post(url: string, route: string, body: Record<string, unknown>) {
  const reply = await postSignedJson({
    url: `${url}/api${route}`,
    body,
    signatureHeader: 'X-Auth-Signature',
    sign: (text) => rsaSha256Base64(text, KEYS.privateKey),
  });
  return { status: reply.status, json: reply.json as Record<string, unknown> | Record<string, unknown>[] };
}

const fields = (e: ReceiverLogEntry) => e.fields as Record<string, unknown>;

it('creates and lists campaigns, makes a played reward from one, refuses bad input the vendor way, and keeps them across a restart', async () => {
  const rx = await started(vendor.receiver());
  let aggmock = await serve(rx.url);
  const url = aggmock.url;
  const game = aggmock.catalog.games.find((g) => g.minBetMinor <= 50 && g.maxBetMinor >= 100);
  if (!game) throw new Error('no game takes a 0.50 stake');
  expect(await post(url, '/freebet/campaigns/list', { operator_id: 3 })).toEqual({ status: 200, json: [] });

  const created = await post(url, '/freebet/campaigns/create', {
    name: 'Tasty campaign - 2 x 0.50 EUR',
    prepaid_uuid: game.id,
    currency: 'EUR',
    bet_value: 50_000,
    bet_count: 2,
    start_time: '2026-01-01T00:00:00Z',
    operator_id: 3,
  });
  expect(created.status).toBe(200);
  const campaign = created.json as Record<string, unknown>;
  expect(campaign).toMatchObject({
    name: 'Tasty campaign - 2 x 0.50 EUR',
    prepaid_uuid: game.id,
    game_id: aggmock.catalog.games.indexOf(game) + 1,
    currency: 'EUR',
    bet_value: 50_000,
    bet_count: 2,
    start_time: '2026-01-01T00:00:00',
  });
  expect(campaign.campaign_uuid).toMatch(/^aggmock-campaign-[0-9a-f]{16}$/);
  // A campaign that names no bet_count or bet_value takes the prepaid's (10 × 100000).
  const plain = await post(url, '/freebet/campaigns/create', { name: 'Plain', prepaid_uuid: game.id, campaign_uuid: 'c-plain' });
  expect(plain.json).toMatchObject({ campaign_uuid: 'c-plain', bet_value: 100_000, bet_count: 10 });
  const listed = await post(url, '/freebet/campaigns/list', { operator_id: 3 });
  expect((listed.json as Record<string, unknown>[]).map((c) => c.campaign_uuid)).toEqual([campaign.campaign_uuid, 'c-plain']);

  // Refused the vendor's way (Caleta's {error} with the OAS's statuses), naming the field; nothing recorded.
  const refusals = [
    [{ prepaid_uuid: game.id }, 400, 'name is required'],
    [{ name: 'x', prepaid_uuid: 'no-such-game' }, 404, 'Unknown game "no-such-game"'],
    [{ name: 'x', prepaid_uuid: game.id, bet_count: 0 }, 400, 'bet_count: expected a whole number from 1 to 10000'],
    [{ name: 'x', prepaid_uuid: game.id, bet_value: 'a lot' }, 400, 'bet_value'],
    [{ name: 'x', prepaid_uuid: game.id, start_time: 'soon' }, 400, 'start_time: expected Unix seconds or a date'],
  ] as const;
  for (const [body, status, message] of refusals) {
    const refused = await post(url, '/freebet/campaigns/create', { ...body, operator_id: 3 });
    expect([refused.status, (refused.json as { error?: string }).error], JSON.stringify(body)).toEqual([
      status,
      expect.stringContaining(message),
    ]);
  }
  expect(aggmock.sessions.awards.campaigns()).toHaveLength(2);
  const reward = (campaign_uuid: string) =>
    post(url, '/freebet/rewards/create', { user: PLAYER.playerId, sub_partner_id: 'sub-1', campaign_uuid, operator_id: 3 });
  expect(await reward('no-such-campaign')).toMatchObject({
    status: 404,
    json: { error: expect.stringContaining('campaign_uuid "no-such-campaign": no free-round campaign has this id') },
  });
  // A reward naming neither a prepaid nor a campaign has no game.
  const bare = await post(url, '/freebet/rewards/create', { user: PLAYER.playerId, sub_partner_id: 'sub-1', operator_id: 3 });
  expect([bare.status, (bare.json as { error?: string }).error]).toEqual([
    400,
    expect.stringContaining('prepaid_uuid is required'),
  ]);

  // A reward from the campaign: its game, bet_count and stake, played as Caleta's free bets.
  const made = await reward(campaign.campaign_uuid as string);
  expect(made).toMatchObject({ status: 200, json: { user: PLAYER.playerId, game_code: game.id, bet_count: 2 } });
  const rewardId = (made.json as { reward_uuid: string }).reward_uuid;
  expect(aggmock.sessions.awards.get(rewardId)).toMatchObject({ gameIds: [game.id], rounds: 2, bet: '0.50000' });
  const caleta = caletaClient({ baseUrl: url, operatorId: 3, privateKey: KEYS.privateKey, subPartnerId: 'sub-1' });
  const link = await caleta.launch({
    player: PLAYER.playerId,
    currency: 'EUR',
    gameId: game.id,
    mode: 'real',
    token: PLAYER.token as string,
    lobbyUrl: 'https://casino.example/lobby',
  });
  const spin = async () => {
    const res = await fetch(`${link}/spin`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ bet: 1 }),
    });
    return (await res.json()) as { bet: number; freeRound?: { left: number } };
  };
  const spins = [await spin(), await spin(), await spin()];
  expect(spins.map((s) => [s.bet, s.freeRound?.left])).toEqual([
    [0, 1],
    [0, 0],
    [1, undefined],
  ]);
  const detail = JSON.stringify({ errors: rx.errors, log: rx.log.slice(-4) });
  expect(rx.errors, detail).toEqual([]);
  expect(
    rx.log.filter((e) => e.path === '/wallet/bet' && fields(e).is_free === true && fields(e).reward_uuid === rewardId),
  ).toHaveLength(2);

  // Journaled by the vendor's route; documented in the operator OpenAPI.
  expect(aggmock.requests.count({ path: '/api/freebet/campaigns/create' })).toBe(2 + refusals.length);
  const openapi = (await (await fetch(`${url}/operator-openapi.json`)).json()) as { paths: Record<string, unknown> };
  expect(Object.keys(openapi.paths)).toEqual(
    expect.arrayContaining(['/api/freebet/campaigns/create', '/api/freebet/campaigns/list']),
  );

  // The campaigns outlive a restart on the same database.
  await aggmock.close();
  aggmock = await serve(rx.url);
  const again = await post(aggmock.url, '/freebet/campaigns/list', { operator_id: 3 });
  expect(again.json).toEqual(listed.json);
});
