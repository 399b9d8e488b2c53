import { describe, expect, it } from 'vitest';
import { configSchema } from '../../src/config/index.ts';
import { builtinDialect } from '../../src/dialects/index.ts';
import { judgeRun, parseMix, runLoad, type Sender } from '../../src/load/index.ts';

/**
 * Caleta's "BET ERROR" under load: a bet answered RS_ERROR_UNKNOWN, RS_ERROR_TIMEOUT or with no JSON
 * is ROLLED_BACK (the OAS's info.description; `rolledBackAfter`). The generator does what the engine
 * does: it sends the bet no more and rolls it back, and the verdict reads the bet as "maybe applied",
 * not as a refusal. A known refusal (RS_ERROR_NOT_ENOUGH_MONEY) is final: no rollback. The wallet is
 * a scripted Caleta wallet in memory (no network: it reads the request bodies the dialect renders).
 */

const config = configSchema.parse({ callbacks: { dialect: 'caleta' } });
const dialect = builtinDialect('caleta');

/**
 * How the scripted wallet answers a bet: `unknown` takes the money and answers RS_ERROR_UNKNOWN;
 * `refuse` takes none and answers RS_ERROR_NOT_ENOUGH_MONEY; the faulty ones break a rule the verdict
 * must catch: `refuse-but-take` takes the money on its refusal, `unknown-keep` takes it on "unknown"
 * and then acknowledges the rollback without giving it back.
 */
type BetScript = 'ok' | 'unknown' | 'timeout' | 'html' | 'refuse' | 'refuse-but-take' | 'unknown-keep';

interface Body {
  token?: string;
  supplier_user?: string;
  user?: string;
  transaction_uuid?: string;
  reference_transaction_uuid?: string;
  amount?: number;
  request_uuid?: string;
}

/** A Caleta wallet in memory: every odd bet (1st, 3rd, …) is answered by `script`, the others accepted. */
function caletaWallet(script: BetScript) {
  const balances = new Map<string, number>();
  const bets = new Map<string, { amount: number; state: 'taken' | 'none' | 'back' }>();
  const rolledBackTx = new Set<string>();
  const paths: string[] = [];
  let betCount = 0;
  const answer = (status: string, body: Body, player: string) => ({
    ok: true as const,
    status: 200,
    text: JSON.stringify({
      status,
      balance: balances.get(player),
      currency: 'EUR',
      user: player,
      request_uuid: body.request_uuid,
    }),
  });
  const sender: Sender = {
    async send(req) {
      const body = JSON.parse(req.body ?? '{}') as Body;
      const player = body.supplier_user ?? body.user ?? String(body.token).replace(/^.*-/, '');
      if (!balances.has(player)) balances.set(player, 100_000_000); // × 100000: 1000.00
      paths.push(`${req.path} ${body.transaction_uuid ?? ''}`.trim());
      const tx = body.transaction_uuid ?? '';
      const take = (amount: number) => balances.set(player, (balances.get(player) as number) - amount);
      if (req.path === '/wallet/check') return answer('RS_OK', { ...body, token: body.token }, player);
      if (req.path === '/wallet/bet') {
        const amount = Number(body.amount);
        if (rolledBackTx.has(tx)) return answer('RS_ERROR_TRANSACTION_ROLLED_BACK', body, player);
        const scripted = ++betCount % 2 === 1 ? script : 'ok';
        if (scripted === 'refuse') {
          bets.set(tx, { amount, state: 'none' });
          return answer('RS_ERROR_NOT_ENOUGH_MONEY', body, player);
        }
        take(amount);
        bets.set(tx, { amount, state: 'taken' });
        if (scripted === 'ok') return answer('RS_OK', body, player);
        if (scripted === 'refuse-but-take') return answer('RS_ERROR_NOT_ENOUGH_MONEY', body, player);
        if (scripted === 'html') return { ok: true, status: 200, text: '<html>502 Bad Gateway</html>' };
        if (scripted === 'unknown-keep') bets.set(tx, { amount, state: 'none' }); // forgets it took the money
        return answer(scripted === 'timeout' ? 'RS_ERROR_TIMEOUT' : 'RS_ERROR_UNKNOWN', body, player);
      }
      if (req.path === '/wallet/win') {
        take(-Number(body.amount));
        return answer('RS_OK', body, player);
      }
      if (req.path === '/wallet/rollback') {
        const ref = body.reference_transaction_uuid ?? '';
        const bet = bets.get(ref);
        if (bet?.state === 'taken') take(-bet.amount);
        if (bet) bet.state = 'back';
        else rolledBackTx.add(ref); // a tombstone: a late bet of it is refused
        return answer('RS_OK', body, player);
      }
      return answer('RS_OK', body, player);
    },
    close: async () => {},
  };
  return { sender, paths, balances };
}

async function run(script: BetScript) {
  const wallet = caletaWallet(script);
  const result = await runLoad({
    config,
    url: 'http://x.invalid/',
    players: ['p1', 'p2'],
    mix: parseMix('bet-win=1', dialect),
    stakeMinor: 100,
    currency: 'EUR',
    schedule: { startRate: 40, stages: [{ durationMs: 300, rate: 40 }] },
    sender: wallet.sender,
  });
  const verdict = judgeRun(dialect, result.records);
  const betTx = wallet.paths.filter((p) => p.startsWith('/wallet/bet ')).map((p) => p.split(' ')[1]);
  const rollbacks = wallet.paths.filter((p) => p.startsWith('/wallet/rollback '));
  return { result, verdict, betTx, rollbacks, paths: wallet.paths };
}

describe('aggmock load against a Caleta wallet that answers a bet "unknown"', () => {
  it.each(['unknown', 'timeout', 'html'] as const)(
    '%s: the bet is sent once, rolled back, and the verdict holds (the wallet took the money and gave it back)',
    async (script) => {
      const { result, verdict, betTx, rollbacks, paths } = await run(script);
      expect(betTx.length).toBeGreaterThanOrEqual(10);
      // Every odd bet was answered "unknown": each is sent once and rolled back; the others are won.
      const odd = betTx.filter((_, i) => i % 2 === 0);
      expect(new Set(betTx).size).toBe(betTx.length);
      expect(rollbacks).toEqual(odd.map((tx) => `/wallet/rollback ${tx}-rb`));
      expect(paths.filter((p) => p.startsWith('/wallet/win ')).length).toBe(betTx.length - odd.length);
      expect(result.stats.retries).toBe(0);
      expect(result.stats.errors[script === 'html' ? 'invalid' : 'rolledBack']).toBe(odd.length);
      expect(result.stats.refusals.size).toBe(0);
      expect(verdict.violations).toEqual([]);
      expect(verdict.undetermined).toEqual([]);
      expect(verdict.ok).toBe(true);
      expect(verdict.reconciled).toBe(2);
    },
  );

  it('a wallet that keeps the money of a bet it answered "unknown" and acknowledges the rollback: caught', async () => {
    const { verdict, rollbacks } = await run('unknown-keep');
    expect(rollbacks.length).toBeGreaterThan(0);
    expect(verdict.ok).toBe(false);
    // Judged with its rollback: neither "applied, then given back" nor "never applied" explains the balance.
    expect(verdict.violations.length).toBeGreaterThan(0);
    expect(verdict.violations[0]?.call).toMatch(/^rollback ld-\S+-rb of p\d/);
  });
});

describe('aggmock load against a Caleta wallet that refuses a bet with a known code', () => {
  it('RS_ERROR_NOT_ENOUGH_MONEY is final: no rollback, a refusal by its code, and the verdict holds', async () => {
    const { result, verdict, betTx, rollbacks } = await run('refuse');
    const refused = betTx.filter((_, i) => i % 2 === 0).length;
    expect(rollbacks).toEqual([]);
    expect(result.stats.refusals.get('RS_ERROR_NOT_ENOUGH_MONEY')).toBe(refused);
    expect(result.stats.errors.rolledBack).toBe(0);
    expect(verdict.ok).toBe(true);
  });

  it('a wallet that takes the money of a bet it refused: caught as a refused call that moved money', async () => {
    const { verdict, rollbacks } = await run('refuse-but-take');
    expect(rollbacks).toEqual([]);
    expect(verdict.ok).toBe(false);
    expect(verdict.violations.map((v) => v.cause)).toContain('rejected-moved-money');
  });
});
