import { describe, expect, it } from 'vitest';
import { builtinDialect } from '../../src/dialects/index.ts';
import { staleTokenRule } from '../../src/dialects/judge.ts';
import { expectAllPass, expectCaught, reasonOf, statuses, verifyReceiver } from './new-checks-kit.ts';

/*
 * Issue 32: a session token the wallet replaced. Where the vendor retires it for bets (Evolution's
 * Test_checkUsingNewSID, Caleta's RS_ERROR_TOKEN_EXPIRED) a bet with it must be refused; where the
 * vendor checks the token on bets only (Caleta) a win or rollback with it is still paid. Proven on
 * the independent receivers: the correct ones pass in both styles, the planted bugs fail.
 */

const BET = ['old-token-bet'];
const SETTLES = ['old-token-settles'];

describe('the stale-token rule', () => {
  it('is the vendor’s where it has a source, and judges nothing elsewhere', () => {
    expect(staleTokenRule(builtinDialect('evolution'))).toEqual({ refusedOn: ['bet'], acceptedOn: [] });
    expect(staleTokenRule(builtinDialect('caleta'))).toEqual({ refusedOn: ['bet'], acceptedOn: ['win', 'rollback'] });
    for (const name of ['redtiger', 'pragmatic', 'hub88', 'default'])
      expect(staleTokenRule(builtinDialect(name))).toEqual({ refusedOn: [], acceptedOn: [] });
  });
});

describe('old-token-bet and old-token-settles', () => {
  it('pass the correct wallets that rotate their token (Evolution B, Caleta A and B)', async () => {
    expectAllPass(await verifyReceiver('evolution', BET, { style: 'B' }), BET);
    expectAllPass(await verifyReceiver('caleta', [...BET, ...SETTLES]), [...BET, ...SETTLES]);
    expectAllPass(await verifyReceiver('caleta', [...BET, ...SETTLES], { style: 'B' }), [...BET, ...SETTLES]);
  });

  it('are skipped, not failed, on a wallet that keeps its token (Evolution A), and not run where the vendor says nothing', async () => {
    const kept = await verifyReceiver('evolution', BET);
    expect(statuses(kept)).toEqual({ 'old-token-bet': 'skip' });
    expect(reasonOf(kept, 'old-token-bet')).toMatch(/handed no new session token over/);
    const silent = await verifyReceiver('redtiger', [...BET, ...SETTLES], { style: 'B' });
    expect(statuses(silent)).toEqual({ 'old-token-bet': 'skip', 'old-token-settles': 'skip' });
    expect(reasonOf(silent, 'old-token-bet')).toMatch(/^not run: the redtiger dialect says nothing of a bet/);
  });

  it.each(['evolution', 'caleta'] as const)('catch a %s wallet whose replaced token still places bets', async (name) => {
    expectCaught(
      await verifyReceiver(name, BET, { bug: 'accepts-old-token' }),
      BET,
      BET,
      /a bet with the token .*which the wallet replaced on authenticate: expected a refusal/,
    );
  });

  it('catches a Caleta wallet that refuses a win or rollback carrying the replaced token', async () => {
    expectCaught(
      await verifyReceiver('caleta', SETTLES, { bug: 'refuses-old-token-settlement' }),
      SETTLES,
      SETTLES,
      /a win of a bet carrying the session token the wallet replaced: expected an acceptance.*RS_ERROR_TOKEN_EXPIRED/,
    );
  });
});
