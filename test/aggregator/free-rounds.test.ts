import { generateKeyPairSync } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { onCleanup, runCleanups } from '../../src/callbacks/test-engine.ts';
import { validateConfig } from '../../src/config/index.ts';
import { startAggmock } from '../../src/runtime.ts';
import { blueOceanClient } from '../dialects/operator-clients/blueocean.ts';
import { caletaClient } from '../dialects/operator-clients/caleta.ts';
import { hub88Client } from '../dialects/operator-clients/hub88.ts';
import { OperatorCallError } from '../dialects/operator-clients/kit.ts';
import { pragmaticClient } from '../dialects/operator-clients/pragmatic.ts';
import { slotegratorClient } from '../dialects/operator-clients/slotegrator.ts';
import { softSwissClient } from '../dialects/operator-clients/softswiss.ts';
import { OPERATOR_VENDORS } from '../dialects/operator-vendors.ts';
import type { ReceiverLogEntry } from '../dialects/receivers/receiver-kit.ts';
import { PLAYER, started } from '../dialects/vendor-table.ts';

/**
 * Free rounds awarded through a vendor's operator API are played: the independent operator client
 * (written from the vendor's docs) awards rounds of one game to the player, the player's play page
 * of that game spins them as the vendor's free-round wallet calls (a bet of 0 naming the award, the
 * win paid) to the vendor's independent wallet receiver with no receiver error, counting down to
 * zero; then spins are paid again. A cancel stops the rest, an unknown game is refused the vendor's
 * way.
 */

afterEach(runCleanups);

const END = Math.floor(Date.now() / 1000) + 86_400;
const END_ISO = new Date(END * 1000).toISOString().slice(0, 19);

interface Award {
  id: string;
  gameId: string;
  rounds: number;
}

/** Each vendor: how its own client awards and cancels, and how its wallet call says a bet is a free one. */
interface FreeRoundVendor {
  name: string;
  award(url: string, award: Award): Promise<string>;
  cancel?(url: string, id: string): Promise<unknown>;
  /** The wallet's bet call of a free round (amount 0, the vendor's free marker naming the award). */
  freeBet(entry: ReceiverLogEntry, awardId: string): boolean;
  /** A paid bet call (a positive amount). */
  paidBet(entry: ReceiverLogEntry): boolean;
  /** What the vendor's free-round calls say of the rounds left, in order, when it says it (2 rounds played). */
  roundsLeft?(log: readonly ReceiverLogEntry[], awardId: string): unknown[];
}

const fields = (e: ReceiverLogEntry) => e.fields as Record<string, unknown>;

const VENDORS: FreeRoundVendor[] = [
  {
    name: 'hub88',
    award: async (url, a) => {
      const reward = await hub88(url).awardFreeSpins({
        user: PLAYER.playerId,
        prepaidUuid: a.gameId,
        rewardUuid: a.id,
        gameCode: a.gameId,
        currency: 'EUR',
        betValue: 50_000,
        betCount: a.rounds,
        endTime: END_ISO,
      });
      return String(reward.reward_uuid);
    },
    freeBet: (e, id) =>
      e.path === '/transaction/bet' && fields(e).amount === 0 && fields(e).is_free === true && fields(e).reward_uuid === id,
    paidBet: (e) => e.path === '/transaction/bet' && (fields(e).amount as number) > 0 && fields(e).is_free === false,
  },
  {
    name: 'caleta',
    award: async (url, a) => {
      const reward = await caleta(url).awardFreeSpins({
        user: PLAYER.playerId,
        prepaidUuid: a.gameId,
        rewardUuid: a.id,
        betValue: 50_000,
        betCount: a.rounds,
        endTime: END_ISO,
      });
      return String(reward.reward_uuid);
    },
    cancel: (url, id) => caleta(url).cancelFreeSpins(id),
    freeBet: (e, id) =>
      e.path === '/wallet/bet' && fields(e).amount === 0 && fields(e).is_free === true && fields(e).reward_uuid === id,
    paidBet: (e) => e.path === '/wallet/bet' && (fields(e).amount as number) > 0 && fields(e).is_free === false,
  },
  {
    name: 'pragmatic',
    award: async (url, a) => {
      await pp(url).awardFreeSpins({
        bonusCode: a.id,
        player: PLAYER.playerId,
        currency: 'EUR',
        gameId: a.gameId,
        rounds: a.rounds,
        totalBet: 0.5,
        startDate: END - 86_400,
        expirationDate: END,
      });
      return a.id;
    },
    cancel: (url, id) => pp(url).cancelFreeSpins(id),
    freeBet: (e, id) => e.path === '/bet.html' && fields(e).amount === '0.00' && fields(e).bonusCode === id,
    paidBet: (e) => e.path === '/bet.html' && Number(fields(e).amount) > 0 && fields(e).bonusCode === undefined,
  },
  {
    name: 'slotegrator',
    award: async (url, a) => {
      await sg(url).awardFreeSpins({
        freespinId: a.id,
        player: PLAYER.playerId,
        currency: 'EUR',
        gameId: a.gameId,
        quantity: a.rounds,
        validFrom: END - 86_400,
        validUntil: END,
        betId: 1,
      });
      return a.id;
    },
    cancel: (url, id) => sg(url).cancelFreeSpins(id),
    // freespin_id and quantity (rounds left): Slotegrator's Casino API Documentation v1.4.3, "Integrator Callbacks".
    freeBet: (e, id) =>
      fields(e).action === 'bet' &&
      Number(fields(e).amount) === 0 &&
      fields(e).type === 'freespin' &&
      fields(e).freespin_id === id &&
      /^\d+$/.test(String(fields(e).quantity)),
    paidBet: (e) =>
      fields(e).action === 'bet' &&
      Number(fields(e).amount) > 0 &&
      fields(e).type === 'bet' &&
      fields(e).freespin_id === undefined &&
      fields(e).quantity === undefined,
    // Each free round's bet, and its win when it won, name the campaign and the rounds left after it.
    roundsLeft: (log, id) => {
      const free = log.filter((e) => fields(e).type === 'freespin');
      expect(free.every((e) => fields(e).freespin_id === id)).toBe(true);
      return free.filter((e) => fields(e).action === 'bet').map((e) => fields(e).quantity);
    },
  },
  {
    name: 'blueocean',
    award: async (url, a) => {
      const reply = await bo(url).awardFreeSpins({
        title: 'welcome',
        players: [PLAYER.playerId],
        gameIds: [a.gameId],
        available: a.rounds,
        validTo: END_ISO.slice(0, 10),
        validFrom: '2026-01-01',
        currency: 'EUR',
      });
      const created = (reply as { response?: { freeround_id?: unknown }; freeround_id?: unknown }).response ?? reply;
      return String((created as { freeround_id?: unknown }).freeround_id);
    },
    freeBet: (e) => fields(e).action === 'debit' && Number(fields(e).amount) === 0 && fields(e).is_freeround_bet === '1',
    paidBet: (e) => fields(e).action === 'debit' && Number(fields(e).amount) > 0 && fields(e).is_freeround_bet === '0',
  },
  {
    name: 'softswiss',
    award: async (url, a) => {
      await ss(url).awardFreeSpins({
        issueId: a.id,
        player: PLAYER.playerId,
        currency: 'EUR',
        games: [a.gameId],
        quantity: a.rounds,
        validUntil: new Date(END * 1000).toISOString(),
      });
      return a.id;
    },
    cancel: (url, id) => ss(url).cancelFreeSpins(id),
    // SoftSwiss's wallet dialect has no free-spin field (docs/operator-apis.md): a free round is a bet of 0.
    freeBet: (e) => betActions(e).some((a) => a.kind === 'bet' && a.amount === 0),
    paidBet: (e) => betActions(e).some((a) => a.kind === 'bet' && a.amount > 0),
  },
];

function betActions(e: ReceiverLogEntry): { kind: string; amount: number }[] {
  const actions = fields(e).actions;
  return Array.isArray(actions) ? (actions as { kind: string; amount: number }[]) : [];
}

// The operator credentials of test/dialects/operator-vendors.ts; the RSA vendors' key pairs are this file's own.
const rsa = () => generateKeyPairSync('rsa', { modulusLength: 2048 });
const HUB88 = rsa();
const CALETA = rsa();
const pem = (pair: ReturnType<typeof rsa>) => pair.publicKey.export({ type: 'spki', format: 'pem' }) as string;
const hub88 = (url: string) => hub88Client({ baseUrl: url, operatorId: 7, privateKey: HUB88.privateKey });
const caleta = (url: string) =>
  caletaClient({ baseUrl: url, operatorId: 3, privateKey: CALETA.privateKey, subPartnerId: 'sub-1' });
const pp = (url: string) => pragmaticClient({ baseUrl: url, secureLogin: 'casino_one', secretKey: 'pp-operator-secret' });
const sg = (url: string) =>
  slotegratorClient({ baseUrl: `${url}/api/index.php/v1`, merchantId: 'merchant-77', merchantKey: 'sg-operator-key' });
const bo = (url: string) =>
  blueOceanClient({ baseUrl: `${url}/blueocean`, apiLogin: 'casino_bo', apiPassword: 'bo-operator-pass' });
const ss = (url: string) =>
  softSwissClient({ baseUrl: `${url}/softswiss`, casinoId: 'casino-ss', authToken: 'ss-operator-token' });

async function serve(name: string) {
  const vendor = OPERATOR_VENDORS.find((v) => v.name === name);
  if (!vendor) throw new Error(`no operator vendor ${name}`);
  const { credentials: shared, client } = vendor.operator();
  const credentials =
    name === 'hub88'
      ? { publicKey: pem(HUB88), operatorId: '7' }
      : name === 'caleta'
        ? { publicKey: pem(CALETA), operatorId: '3' }
        : shared;
  const rx = await started(vendor.receiver());
  const aggmock = await startAggmock(
    validateConfig({
      port: 0,
      db: ':memory:',
      catalog: { providers: 2, games: 12 },
      callbacks: { profile: name, credentials: vendor.wallet, webhookUrl: rx.url },
      operator: { credentials },
    }),
  );
  onCleanup(() => aggmock.close());
  const operator = name === 'hub88' ? hub88(aggmock.url) : name === 'caleta' ? caleta(aggmock.url) : client(aggmock.url);
  return { rx, aggmock, operator };
}

interface SpinReply {
  outcome: string;
  bet: number;
  win: number;
  freeRound?: { awardId: string; left: number };
  steps: { kind: string; status: string }[];
}

async function spin(url: string, session: string): Promise<SpinReply> {
  const res = await fetch(`${url}/play/${session}/spin`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ bet: 1 }),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as SpinReply;
}

describe.each(VENDORS)('free rounds awarded through $name', (vendor) => {
  it('are played on the play page as free-round wallet calls, counting down to zero; an unknown game is refused', async () => {
    const { rx, aggmock, operator } = await serve(vendor.name);
    const game = aggmock.catalog.games.find((g) => g.minBetMinor <= 50 && g.maxBetMinor >= 100);
    if (!game) throw new Error('no game takes a 0.50 stake');
    const awardId = await vendor.award(aggmock.url, { id: `award-${vendor.name}-1`, gameId: game.id, rounds: 2 });
    const url = await operator.launch({
      player: PLAYER.playerId,
      currency: 'EUR',
      gameId: game.id,
      mode: 'real',
      token: PLAYER.token as string,
      lobbyUrl: 'https://casino.example/lobby',
    });
    const session = new URL(url).pathname.split('/').pop() as string;
    const page = await (await fetch(url, { headers: { accept: 'text/html' } })).text();
    expect(page).toContain('2 free rounds left');

    const first = await spin(aggmock.url, session);
    const second = await spin(aggmock.url, session);
    expect([first.freeRound, second.freeRound]).toEqual([
      { awardId, left: 1 },
      { awardId, left: 0 },
    ]);
    expect([first.bet, second.bet]).toEqual([0, 0]);
    const paid = await spin(aggmock.url, session);
    expect(paid.freeRound).toBeUndefined();
    expect(paid.bet).toBe(1);

    const detail = JSON.stringify({ errors: rx.errors, log: rx.log.slice(-6) });
    expect(rx.errors, detail).toEqual([]);
    expect(rx.log.filter((e) => vendor.freeBet(e, awardId)).length, detail).toBe(2);
    expect(rx.log.filter((e) => vendor.paidBet(e)).length, detail).toBe(1);
    if (vendor.roundsLeft) expect(vendor.roundsLeft(rx.log, awardId), detail).toEqual(['1', '0']);
    for (const reply of [first, second, paid]) for (const step of reply.steps) expect(step.status, detail).toBe('delivered');

    // An award for a game the catalog does not have is refused the vendor's way, and nothing is recorded.
    const before = aggmock.sessions.awards.size;
    const refused = await vendor.award(aggmock.url, { id: `award-${vendor.name}-x`, gameId: 'no-such-game', rounds: 1 }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(refused).toBeInstanceOf(OperatorCallError);
    expect(aggmock.sessions.awards.size).toBe(before);
  });

  it.runIf(vendor.cancel !== undefined)('stop when cancelled: the next spin is paid', async () => {
    const { rx, aggmock, operator } = await serve(vendor.name);
    const game = aggmock.catalog.games.find((g) => g.minBetMinor <= 50 && g.maxBetMinor >= 100);
    if (!game) throw new Error('no game takes a 0.50 stake');
    const awardId = await vendor.award(aggmock.url, { id: `award-${vendor.name}-2`, gameId: game.id, rounds: 3 });
    const url = await operator.launch({
      player: PLAYER.playerId,
      currency: 'EUR',
      gameId: game.id,
      mode: 'real',
      token: PLAYER.token as string,
      lobbyUrl: 'https://casino.example/lobby',
    });
    const session = new URL(url).pathname.split('/').pop() as string;
    expect((await spin(aggmock.url, session)).freeRound).toEqual({ awardId, left: 2 });
    await vendor.cancel?.(aggmock.url, awardId);
    const after = await spin(aggmock.url, session);
    expect(after.freeRound).toBeUndefined();
    expect(after.bet).toBe(1);
    expect(aggmock.sessions.awards.get(awardId)?.cancelledAt).toBeTypeOf('number');
    expect(rx.errors).toEqual([]);
    // A cancel of an award that does not exist is refused the vendor's way.
    const unknown = await vendor.cancel?.(aggmock.url, 'no-such-award').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(unknown).toBeInstanceOf(OperatorCallError);
  });
});

describe('the prepaids a reward is made from (Hub88, Caleta)', () => {
  it.each(['hub88', 'caleta'])(
    '%s lists one prepaid per game, named by the game, whose bet_count a reward takes',
    async (name) => {
      const { aggmock } = await serve(name);
      const client = name === 'hub88' ? hub88(aggmock.url) : caleta(aggmock.url);
      const prepaids = await client.listPrepaids();
      expect(prepaids).toHaveLength(aggmock.catalog.games.length);
      const game = aggmock.catalog.games[3] as { id: string };
      expect(prepaids[3]).toMatchObject({ prepaid_uuid: game.id, bet_value: 100000, bet_count: 10 });
      // No bet_count in the reward: the prepaid's 10 rounds.
      const reward = await client.awardFreeSpins({ user: PLAYER.playerId, prepaidUuid: game.id, rewardUuid: `r-${name}` });
      expect(reward).toMatchObject({ reward_uuid: `r-${name}`, user: PLAYER.playerId, bet_count: 10, status: 'FRS_ACTIVE' });
      expect(aggmock.sessions.awards.get(`r-${name}`)).toMatchObject({ gameIds: [game.id], rounds: 10, bet: '1.00' });
    },
  );
});
