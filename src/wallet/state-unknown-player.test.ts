import { describe, expect, it } from 'vitest';
import { createWallet } from './index.ts';
import { applyProviderState } from './state.ts';
import { walletConfig } from './test-support.ts';

describe('applyProviderState for a player the wallet does not have', () => {
  const wallet = createWallet({ config: walletConfig(), dbPath: ':memory:' });

  it.each([
    { kind: 'player-session', playerId: 'nobody', token: 'tok-1' },
    { kind: 'transaction-debited', playerId: 'nobody', transactionId: 'tx-1', amountMinor: 100 },
  ] as const)('refuses $kind, naming the state that creates the player, and changes nothing', (state) => {
    expect(applyProviderState(wallet.store, state)).toEqual({
      ok: false,
      message: 'Player nobody does not exist; set "player nobody has balance <amount>" first.',
    });
    expect(wallet.store.balanceOf('nobody')).toBeUndefined();
    expect(wallet.store.playerOfToken('tok-1')).toBeUndefined();
  });

  it.each([
    [{ kind: 'player-session', playerId: 'p1', token: 'tok-2' } as const, 100_000],
    [{ kind: 'transaction-debited', playerId: 'p2', transactionId: 'tx-2', amountMinor: 250 } as const, 99_750],
    [{ kind: 'player-balance', playerId: 'new', balanceMinor: 500 } as const, 500],
  ])('applies %j for a player it has (or creates with a balance)', (state, balanceMinor) => {
    expect(applyProviderState(wallet.store, state)).toEqual({ ok: true, playerId: state.playerId, balanceMinor });
  });
});
