import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { onCleanup, runCleanups } from '../../src/callbacks/test-engine.ts';
import { validateConfig } from '../../src/config/index.ts';
import { startAggmock } from '../../src/runtime.ts';
import { openDatabase } from '../../src/storage/index.ts';
import { OperatorCallError } from '../dialects/operator-clients/kit.ts';
import { pragmaticClient } from '../dialects/operator-clients/pragmatic.ts';
import { OPERATOR_VENDORS } from '../dialects/operator-vendors.ts';
import type { ReceiverLogEntry } from '../dialects/receivers/receiver-kit.ts';
import { PLAYER, started } from '../dialects/vendor-table.ts';

/**
 * Free-round awards outlive a restart: `serve` restarted on the same database still has each award
 * with its rounds left. Pragmatic's own operator client (test/dialects/operator-clients) awards three
 * rounds, one is spun, the instance stops; the next instance on the same file reports the old play
 * link as ended by the restart (naming the award, the rounds left and Pragmatic's launch route),
 * and a new launch spins the two rounds left as Pragmatic's free-round calls to its independent
 * receiver, then paid spins. Rows this version cannot read are reported by id and not played, and
 * a create of the same id replaces one.
 */

const dir = mkdtempSync(join(tmpdir(), 'aggmock-awards-'));
const db = join(dir, 'aggmock.db');
afterAll(async () => {
  await runCleanups();
  rmSync(dir, { recursive: true, force: true });
});

const vendor = OPERATOR_VENDORS.find((v) => v.name === 'pragmatic');
if (!vendor) throw new Error('no pragmatic operator vendor');
const { credentials } = vendor.operator();
const client = (url: string) => pragmaticClient({ baseUrl: url, secureLogin: 'casino_one', secretKey: 'pp-operator-secret' });
const END = Math.floor(Date.now() / 1000) + 86_400;

async function serve(webhookUrl: string) {
  const warnings: { award?: string; problem?: string }[] = [];
  const logger = {
    warn: (fields: { award?: string; problem?: string }) => warnings.push(fields),
    info: () => {},
    error: () => {},
    debug: () => {},
    child: () => logger,
  };
  const aggmock = await startAggmock(
    validateConfig({
      port: 0,
      db,
      catalog: { providers: 2, games: 12 },
      callbacks: { profile: 'pragmatic', credentials: vendor?.wallet, webhookUrl },
      operator: { credentials },
    }),
    { logger: logger as never },
  );
  return { aggmock, warnings };
}

async function spin(url: string, session: string) {
  const res = await fetch(`${url}/play/${session}/spin`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ bet: 1 }),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as { bet: number; freeRound?: { awardId: string; left: number } };
}

const fields = (e: ReceiverLogEntry) => e.fields as Record<string, unknown>;

it('keeps each award with its rounds left across a restart; the old link says so; unreadable rows are reported, not played', async () => {
  const rx = await started(vendor.receiver());
  const first = await serve(rx.url);
  const game = first.aggmock.catalog.games.find((g) => g.minBetMinor <= 50 && g.maxBetMinor >= 100);
  if (!game) throw new Error('no game takes a 0.50 stake');
  const launch = async (url: string) => {
    const link = await client(url).launch({
      player: PLAYER.playerId,
      currency: 'EUR',
      gameId: game.id,
      mode: 'real',
      token: PLAYER.token as string,
      lobbyUrl: 'https://casino.example/lobby',
    });
    return new URL(link).pathname.split('/').pop() as string;
  };
  const award = (url: string, bonusCode: string) =>
    client(url).awardFreeSpins({
      bonusCode,
      player: PLAYER.playerId,
      currency: 'EUR',
      gameId: game.id,
      rounds: 3,
      totalBet: 0.5,
      startDate: END - 86_400,
      expirationDate: END,
    });
  await award(first.aggmock.url, 'FRB-kept');
  const oldSession = await launch(first.aggmock.url);
  expect((await spin(first.aggmock.url, oldSession)).freeRound).toEqual({ awardId: 'FRB-kept', left: 2 });
  await first.aggmock.close();

  // Rows another program (or a hand edit) left: each is reported by id and what is wrong, never played.
  const raw = openDatabase(db);
  raw.prepare('INSERT INTO free_round_awards (id, award) VALUES (?, ?)').run('FRB-not-json', '{players: oops');
  raw
    .prepare('INSERT INTO free_round_awards (id, award) VALUES (?, ?)')
    .run('FRB-no-players', JSON.stringify({ players: [], gameIds: [game.id], rounds: 5, createdAt: 1 }));
  raw
    .prepare('INSERT INTO free_round_awards (id, award) VALUES (?, ?)')
    .run('FRB-bad-left', JSON.stringify({ players: [PLAYER.playerId], gameIds: [game.id], rounds: 5, createdAt: 1 }));
  raw
    .prepare('INSERT INTO free_round_left (award_id, player, rounds_left) VALUES (?, ?, ?)')
    .run('FRB-bad-left', PLAYER.playerId, 9);
  raw.close();

  const second = await serve(rx.url);
  onCleanup(() => second.aggmock.close());
  const url = second.aggmock.url;
  const unreadable = second.aggmock.sessions.awards.unreadable;
  expect(unreadable.map((u) => u.id)).toEqual(['FRB-not-json', 'FRB-no-players', 'FRB-bad-left']);
  expect(unreadable[0]?.problem).toMatch(/award column is not JSON/);
  expect(unreadable[1]?.problem).toMatch(/^players: /);
  expect(unreadable[2]?.problem).toMatch(/expected 0 to 5 rounds left, got 9/);
  expect(second.warnings.filter((w) => w.award !== undefined).map((w) => w.award)).toEqual(unreadable.map((u) => u.id));
  // An unreadable award is unknown to the operator API: its cancel is Pragmatic's refusal.
  await expect(client(url).cancelFreeSpins('FRB-no-players')).rejects.toBeInstanceOf(OperatorCallError);

  // The old link: this instance never made that session, but the award it played still has rounds.
  const gone = await fetch(`${url}/play/${oldSession}`);
  expect(gone.status).toBe(410);
  const body = (await gone.json()) as { message: string; freeRound: unknown };
  expect(body.freeRound).toEqual({ awardId: 'FRB-kept', player: PLAYER.playerId, left: 2 });
  expect(body.message).toContain('ended when aggmock restarted');
  expect(body.message).toContain('POST /IntegrationService/v3/http/CasinoGameAPI/game/url/');
  const html = await fetch(`${url}/play/${oldSession}`, { headers: { accept: 'text/html' } });
  expect([html.status, await html.text()]).toEqual([410, expect.stringContaining('still has 2 rounds')]);
  // A link no award knows stays a plain 404.
  expect((await fetch(`${url}/play/${'0'.repeat(32)}`)).status).toBe(404);

  // A new launch plays the two rounds left as free rounds, then spins are paid again.
  const session = await launch(url);
  const spins = [await spin(url, session), await spin(url, session), await spin(url, session)];
  expect(spins.map((s) => s.freeRound)).toEqual([{ awardId: 'FRB-kept', left: 1 }, { awardId: 'FRB-kept', left: 0 }, undefined]);
  expect(spins.map((s) => s.bet)).toEqual([0, 0, 1]);
  const detail = JSON.stringify({ errors: rx.errors, log: rx.log.slice(-6) });
  expect(rx.errors, detail).toEqual([]);
  const free = rx.log.filter((e) => e.path === '/bet.html' && fields(e).bonusCode === 'FRB-kept');
  expect(free.map((e) => fields(e).amount)).toEqual(['0.00', '0.00', '0.00']);
  // Played out, the old link is a plain unknown session again.
  expect((await fetch(`${url}/play/${oldSession}`)).status).toBe(404);

  // Creating an unreadable id again replaces the row; a third start reads it and every count kept.
  await award(url, 'FRB-no-players');
  await second.aggmock.close();
  const third = await serve(rx.url);
  onCleanup(() => third.aggmock.close());
  expect(third.aggmock.sessions.awards.unreadable.map((u) => u.id)).toEqual(['FRB-not-json', 'FRB-bad-left']);
  expect(third.aggmock.sessions.awards.leftFor(PLAYER.playerId, game.id, 'EUR')).toEqual({ awardId: 'FRB-no-players', left: 3 });
  expect(third.aggmock.sessions.awards.get('FRB-kept')?.left.get(PLAYER.playerId)).toBe(0);
});
