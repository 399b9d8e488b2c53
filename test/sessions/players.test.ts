import { InvalidArgumentError } from 'commander';
import { afterEach, describe, expect, it } from 'vitest';
import { seededRandom } from '../../src/callbacks/random.ts';
import { DEMO_SCHEDULE, demoSchedule, withDemoPlayers, withWallet } from '../../src/cli/commands/demo.ts';
import { collectToken, parsePlayers, scheduleFor } from '../../src/cli/commands/players.ts';
import { serveLayer } from '../../src/cli/commands/serve.ts';
import { configSchema, validateConfig } from '../../src/config/index.ts';
import { backgroundPlay, playPage } from '../../src/play/page.ts';
import { startAggmock } from '../../src/runtime.ts';
import { planScenario, runScenario, wireParamsOf } from '../../src/scenarios/index.ts';
import { startEvolutionReceiver } from '../dialects/receivers/evolution.ts';

/*
 * `demo` and `serve` take --players and --token as verify does (issue 32 item 3): the schedule plays
 * only those players, each player's calls carry its own token, and the play page says when the
 * schedule plays the same player in the background.
 */

const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
});

describe('--players and --token', () => {
  it('reads a count as p1…pn and a list as its ids', () => {
    expect(parsePlayers('3')).toEqual(['p1', 'p2', 'p3']);
    expect(parsePlayers(' 1001, 1002 ,1001')).toEqual(['1001', '1002']);
  });

  it.each(['0', '1001', '', 'a,,b', ','])('refuses %j, naming what it expects', (value) => {
    expect(() => parsePlayers(value)).toThrow(InvalidArgumentError);
    expect(() => parsePlayers(value)).toThrow(/expected a number of players/);
  });

  it('collects --token player=token, refusing one without a player or a token', () => {
    expect(collectToken('p2=b', collectToken('p1=a=1'))).toEqual({ p1: 'a=1', p2: 'b' });
    for (const bad of ['p1', '=tok', 'p1=']) expect(() => collectToken(bad)).toThrow(/expected player=token/);
  });

  it('puts the tokens into callbacks.sessionTokens beside --webhook', () => {
    const layer = serveLayer({ webhook: 'http://127.0.0.1:9/w', token: { p1: 'tok-1' } });
    expect(layer.callbacks).toEqual({ webhookUrl: 'http://127.0.0.1:9/w', sessionTokens: { p1: 'tok-1' } });
    expect(serveLayer({}).callbacks).toBeUndefined();
  });
});

describe('the schedule plays only the players it has', () => {
  it('keeps each entry’s players of the list; an entry naming none of them plays them all', () => {
    const out = scheduleFor(DEMO_SCHEDULE, ['p1', 'p9']);
    expect(new Set(out.flatMap((e) => e.players))).toEqual(new Set(['p1', 'p9']));
    expect(out.find((e) => e.scenario === 'bet-win')?.players).toEqual(['p1']);
    expect(out.find((e) => e.scenario === 'bet-lose')?.players).toEqual(['p1', 'p9']);
    expect(out.map((e) => e.scenario)).toEqual(DEMO_SCHEDULE.map((e) => e.scenario));
  });

  it('the demo: the reference wallet’s players by default, and --players opens the ones it lacks', () => {
    const base = validateConfig({ wallet: { players: { alice: 100, bob: 50 } } });
    const config = { ...base, schedule: demoSchedule(base) };
    const own = withDemoPlayers(config, undefined, true);
    expect(new Set(own.schedule.flatMap((e) => e.players))).toEqual(new Set(['alice', 'bob']));
    const named = withDemoPlayers(config, ['p1', 'p2'], true);
    expect(Object.keys(named.wallet.players).sort()).toEqual(['alice', 'bob', 'p1', 'p2']);
    expect(new Set(named.schedule.flatMap((e) => e.players))).toEqual(new Set(['p1', 'p2']));
    // Your own --webhook, no --players: the schedule as configured.
    expect(withDemoPlayers(config, undefined, false).schedule).toEqual(config.schedule);
  });
});

describe('each player plays with its own token', () => {
  it('scheduled scenarios of two players carry each player’s --token, through a wallet that binds tokens to players', async () => {
    const players = [
      { playerId: 'player01', currency: 'EUR', balance: '100.00', token: 'tok-player01-aaaaaaaaaaaaaaaaaaaa' },
      { playerId: 'player02', currency: 'EUR', balance: '100.00', token: 'tok-player02-bbbbbbbbbbbbbbbbbbbb' },
    ];
    const rx = await startEvolutionReceiver({ credentials: { authToken: 'evo-1' }, players });
    stops.push(() => rx.stop());
    const config = validateConfig({
      port: 0,
      db: ':memory:',
      callbacks: {
        profile: 'evolution',
        webhookUrl: rx.url,
        credentials: { authToken: 'evo-1' },
        retrySchedule: [0],
        jitter: 0,
        ...(serveLayer({ token: Object.fromEntries(players.map((p) => [p.playerId, p.token])) }).callbacks as object),
      },
    });
    const aggmock = await startAggmock(config);
    stops.push(() => aggmock.close());
    const rng = seededRandom(3);
    for (const p of players) {
      const plan = planScenario(
        'bet-win',
        { players: [p.playerId], amount: { min: 1, max: 2 }, ...wireParamsOf(config.callbacks) },
        rng,
        () => aggmock.engine.nextTransactionId(),
      );
      expect((await runScenario(aggmock.engine, plan)).ok).toBe(true);
    }
    expect(rx.errors).toEqual([]);
    const sidOf = (userId: string) => new Set(rx.log.filter((e) => e.fields.userId === userId).map((e) => e.fields.sid));
    expect(sidOf('player01')).toEqual(new Set([players[0]?.token]));
    expect(sidOf('player02')).toEqual(new Set([players[1]?.token]));
  });

  it('the demo’s reference wallet issues per-player development tokens (none shared)', () => {
    const callbacks = withWallet(configSchema.parse({ callbacks: { profile: 'evolution' } }).callbacks, 'http://127.0.0.1:9', [
      'p1',
      'p2',
    ]);
    expect(callbacks.sessionTokens.p1).not.toBe(callbacks.sessionTokens.p2);
  });
});

describe('the play page', () => {
  const session = {
    id: 's1',
    playerId: 'p1',
    gameId: 'g1',
    gameName: 'Game',
    provider: 'PGSOFT',
    currency: 'EUR',
    lang: 'en',
    homeUrl: 'https://casino.example.test/',
    balanceAtLaunchMinor: 1_000,
  } as unknown as Parameters<typeof playPage>[0];

  it('says when the schedule plays the same player in the background, and is silent otherwise', () => {
    const schedule = DEMO_SCHEDULE;
    const p1 = backgroundPlay(schedule, 'p1');
    expect(p1.map((e) => e.scenario)).toEqual(['bet-win']);
    const page = playPage(session, undefined, true, undefined, false, p1);
    expect(page).toContain('data-testid="background-play"');
    expect(page).toMatch(/The schedule is playing p1 in the background too \(bet-win every 2s\)/);
    expect(backgroundPlay(schedule, 'nobody')).toEqual([]);
    expect(playPage(session, undefined, true, undefined, false, [])).not.toContain('background-play');
  });
});
