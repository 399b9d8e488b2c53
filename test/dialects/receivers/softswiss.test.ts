// Requests built by hand from the SoftSwiss GCP / BGaming wire (wires.md §2.7; t1softxxx
// softswiss_seamless_service_api.php), signed here with HMAC-SHA256 hex of the raw body.
import { createHmac } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { VendorReceiver } from './receiver-kit.ts';
import { startSoftswissReceiver } from './softswiss.ts';

const AUTH_TOKEN = 'casino-auth-token';
let wallet: VendorReceiver;

beforeEach(async () => {
  wallet = await startSoftswissReceiver({
    credentials: { authToken: AUTH_TOKEN },
    players: [{ playerId: 'p1', currency: 'EUR', balance: '10.00' }],
  });
});
afterEach(() => wallet.stop());

async function post(path: string, body: unknown, sign?: string) {
  const raw = JSON.stringify(body);
  const res = await fetch(`${wallet.url}${path}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-request-sign': sign ?? createHmac('sha256', AUTH_TOKEN).update(raw).digest('hex'),
    },
    body: raw,
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const play = (actions: unknown[]) => ({
  user_id: 'p1',
  currency: 'EUR',
  game: 'acceptance:test',
  game_id: 'r1',
  finished: false,
  actions,
});

describe('SoftSwiss receiver', () => {
  it('answers a balance request (no actions) with the integer subunit balance', async () => {
    const reply = await post('/play', { user_id: 'p1', currency: 'EUR', game: 'acceptance:test' });
    expect(reply).toEqual({ status: 200, body: { balance: 1000 } });
    expect(wallet.errors).toEqual([]);
  });

  it('applies a bet and a win in one call and echoes each action with its tx_id', async () => {
    const reply = await post(
      '/play',
      play([
        { action: 'bet', action_id: 'a1', amount: 250 },
        { action: 'win', action_id: 'a2', amount: 100 },
      ]),
    );
    expect(reply.status).toBe(200);
    expect(reply.body.balance).toBe(850);
    expect(reply.body.game_id).toBe('r1');
    const transactions = reply.body.transactions as { action_id: string; tx_id: string }[];
    expect(transactions.map((t) => t.action_id)).toEqual(['a1', 'a2']);
    expect(transactions.every((t) => t.tx_id !== '')).toBe(true);
    expect(wallet.balanceOf('p1')).toBe('8.50');
    expect(wallet.errors).toEqual([]);
  });

  it('answers a duplicate bet with the first tx_id and moves no money', async () => {
    const first = await post('/play', play([{ action: 'bet', action_id: 'a1', amount: 300 }]));
    const again = await post('/play', play([{ action: 'bet', action_id: 'a1', amount: 300 }]));
    expect(again.body.transactions).toEqual(first.body.transactions);
    expect(again.body.balance).toBe(700);
    expect(wallet.balanceOf('p1')).toBe('7.00');
  });

  it("refuses a win reusing a bet's action_id, moving no money", async () => {
    await post('/play', play([{ action: 'bet', action_id: 'a1', amount: 100 }]));
    const reply = await post('/play', play([{ action: 'win', action_id: 'a1', amount: 500 }]));
    expect(reply.status).toBe(400);
    expect(wallet.balanceOf('p1')).toBe('9.00');
    expect(wallet.errors).toEqual([expect.stringContaining('action_id a1 was already used by a bet')]);
  });

  it('refuses a bet over the balance with 412 and code 100, charging nothing (not even the win beside it)', async () => {
    const reply = await post(
      '/play',
      play([
        { action: 'win', action_id: 'w0', amount: 5 },
        { action: 'bet', action_id: 'a1', amount: 1006 },
      ]),
    );
    expect(reply.status).toBe(412);
    expect(reply.body).toMatchObject({ code: 100, balance: 1000 });
    expect(wallet.balanceOf('p1')).toBe('10.00');
    expect(wallet.errors).toEqual([]);
  });

  it('rolls a bet back once, answers an unknown rollback with success and no money, and never charges the late bet', async () => {
    await post('/play', play([{ action: 'bet', action_id: 'a1', amount: 400 }]));
    const rollback = {
      user_id: 'p1',
      currency: 'EUR',
      game: 'acceptance:test',
      game_id: 'r1',
      actions: [{ action: 'rollback', action_id: 'rb1', original_action_id: 'a1' }],
    };
    expect((await post('/rollback', rollback)).body.balance).toBe(1000);
    const second = { ...rollback, actions: [{ action: 'rollback', action_id: 'rb2', original_action_id: 'a1' }] };
    expect((await post('/rollback', second)).body.balance).toBe(1000);
    const unknown = await post('/rollback', {
      ...rollback,
      actions: [{ action: 'rollback', action_id: 'rb3', original_action_id: 'late' }],
    });
    expect(unknown.status).toBe(200);
    expect(unknown.body.transactions).toEqual([expect.objectContaining({ action_id: 'rb3', tx_id: '' })]);
    const late = await post('/play', play([{ action: 'bet', action_id: 'late', amount: 500 }]));
    expect(late.status).toBe(200);
    expect(late.body.balance).toBe(1000);
    expect(wallet.balanceOf('p1')).toBe('10.00');
  });

  it('takes a rolled-back win back', async () => {
    await post('/play', play([{ action: 'win', action_id: 'w1', amount: 200 }]));
    const reply = await post('/rollback', {
      user_id: 'p1',
      currency: 'EUR',
      game: 'acceptance:test',
      game_id: 'r1',
      actions: [{ action: 'rollback', action_id: 'rb', original_action_id: 'w1' }],
    });
    expect(reply.body.balance).toBe(1000);
  });

  it('keeps the money when the win to take back is more than the balance (success, nothing moved)', async () => {
    await post('/play', play([{ action: 'win', action_id: 'w1', amount: 200 }]));
    await post('/play', play([{ action: 'bet', action_id: 'b1', amount: 1100 }]));
    const rollback = { user_id: 'p1', currency: 'EUR', game: 'acceptance:test', game_id: 'r1' };
    const reply = await post('/rollback', {
      ...rollback,
      actions: [{ action: 'rollback', action_id: 'rb', original_action_id: 'w1' }],
    });
    expect(reply).toMatchObject({ status: 200, body: { balance: 100 } });
    expect(wallet.balanceOf('p1')).toBe('1.00');
  });

  it('requires game and game_id once a call carries actions, but not on a balance request', async () => {
    const reply = await post('/play', {
      user_id: 'p1',
      currency: 'EUR',
      actions: [{ action: 'bet', action_id: 'a1', amount: 1 }],
    });
    expect(reply.status).toBe(400);
    expect(wallet.errors.join('\n')).toMatch(/game: required by the docs but missing/);
    expect(wallet.errors.join('\n')).toMatch(/game_id: required by the docs but missing/);
    expect(wallet.balanceOf('p1')).toBe('10.00');
  });

  it('refuses a bad signature with 403 and records it', async () => {
    const reply = await post('/play', play([{ action: 'bet', action_id: 'a1', amount: 1 }]), 'ab'.repeat(32));
    expect(reply.status).toBe(403);
    expect(wallet.balanceOf('p1')).toBe('10.00');
    expect(wallet.errors).toEqual([expect.stringContaining('X-REQUEST-SIGN does not match')]);
  });

  it('refuses a decimal amount and a rollback action on /play with 400, naming the fields', async () => {
    const reply = await post(
      '/play',
      play([
        { action: 'bet', action_id: 'a1', amount: 1.5 },
        { action: 'rollback', action_id: 'x', original_action_id: 'a1' },
      ]),
    );
    expect(reply.status).toBe(400);
    expect(wallet.errors.join('\n')).toMatch(/actions\[0\]\.amount: got number 1\.5; expected an integer/);
    expect(wallet.errors.join('\n')).toMatch(/actions\[1\]\.action: got "rollback"/);
    expect(wallet.balanceOf('p1')).toBe('10.00');
  });

  it('answers an unknown player with code 101 and an unknown path with 404', async () => {
    expect((await post('/play', { ...play([]), user_id: 'nobody' })).body).toMatchObject({ code: 101 });
    expect((await post('/freespins/issue', {})).status).toBe(404);
    expect(wallet.errors).toEqual([expect.stringContaining('not a SoftSwiss wallet route')]);
  });
});
