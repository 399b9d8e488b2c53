import { describe, expect, it } from 'vitest';
import { startTestWallet } from './test-support.ts';

describe('concurrent callbacks (real HTTP, 50 at once)', () => {
  it('accepts exactly 20 of 50 parallel DEBITs of 50.00 against 1000.00 and ends at exactly 0', async () => {
    const { wallet, client } = await startTestWallet();
    try {
      const replies = await Promise.all(Array.from({ length: 50 }, (_, i) => client.debit('p1', `burst-${i}`, 50)));
      const accepted = replies.filter((r) => r.status === 200);
      const refused = replies.filter((r) => r.status === 402);
      expect(accepted).toHaveLength(20);
      expect(refused).toHaveLength(30);
      expect(refused.every((r) => r.body.error === 'INSUFFICIENT_FUNDS')).toBe(true);
      // Each accepted reply saw a different balance: no two bets were charged against the same one.
      expect(new Set(accepted.map((r) => r.body.balance)).size).toBe(20);
      expect(await client.balance('p1')).toBe(0);
    } finally {
      await wallet.close();
    }
  });

  it('keeps every player exact when 10 players each get 10 parallel DEBITs of 30.00', async () => {
    const { wallet, client } = await startTestWallet();
    try {
      const players = Array.from({ length: 10 }, (_, i) => `p${i + 1}`);
      const requests = players.flatMap((player) => Array.from({ length: 10 }, (_, i) => client.debit(player, `bet-${i}`, 30)));
      const replies = await Promise.all(requests);
      expect(replies.every((r) => r.status === 200)).toBe(true);
      for (const player of players) expect(await client.balance(player)).toBe(700);
    } finally {
      await wallet.close();
    }
  });

  it('charges a DEBIT sent 20 times in parallel exactly once, and every copy gets the same reply', async () => {
    const { wallet, client } = await startTestWallet();
    try {
      const replies = await Promise.all(Array.from({ length: 20 }, () => client.debit('p1', 'same', 10)));
      expect(new Set(replies.map((r) => `${r.status} ${r.text}`))).toEqual(new Set(['200 {"balance":990}']));
      expect(await client.balance('p1')).toBe(990);
    } finally {
      await wallet.close();
    }
  });
});
