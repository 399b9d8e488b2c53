/**
 * Betnex callback receivers written the way the Betnex SDK README shows one (on bare node:http
 * with an express.json()-like body parser: invalid JSON is a 400 HTML page), using the SDK's own
 * helpers (./sdk.ts).
 *
 * - `readme`: the README's example as written: verifyCallback, find the user, one record per
 *   (provider, user, game_round) with its processed serial numbers, `balance += -bet + win` in
 *   JavaScript numbers. It never checks the balance covers the bet, nor the sign of an amount, nor
 *   the currency — real bugs verify must report, and nothing else.
 * - `careful`: the same flow done right: integer cents, amounts validated, currency and funds
 *   checked, serial_number idempotent per player with the first reply kept.
 *
 * `faults` plant one bug at a time in the careful receiver, so each Betnex-only check is shown to
 * catch what it is about.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { StartedWallet } from '../types.ts';
import { type BetnexCallback, calculateBalance, createCallbackResponse, verifyCallback } from './sdk.ts';

export type BetnexFault =
  | 'ignores-api-key'
  /** Checks the api_key only when the body has one. */
  | 'api-key-optional'
  | 'ignores-currency'
  | 'repeats-duplicates'
  | 'float-money'
  /** Bonus rounds (a `data.bonus_id`) skip the serial_number check: a repeated bonus win pays again. */
  | 'bonus-not-idempotent'
  /** A bet of 0 in a free-spin round is charged the default stake of 1.00. */
  | 'charges-free-spins'
  /** Reads a callback as a bet when it has one, else as a win: the win of a whole round is lost. */
  | 'bet-or-win';

export interface BetnexReceiverOptions {
  style: 'readme' | 'careful';
  apiKey?: string;
  /** Player → balance in major units; every player holds `currency`. */
  players: Record<string, number>;
  currency?: string;
  faults?: BetnexFault[];
}

export interface BetnexReceiver extends StartedWallet {
  /** Balances in minor units (rounded to the cent for the float-money styles). */
  balances(): Record<string, number>;
}

type Reply = ReturnType<typeof createCallbackResponse>;

interface User {
  /** `readme`: major units as a JavaScript number; `careful`: cents. */
  balance: number;
  currency: string;
  /** float-money only: the balance as the faulty wallet keeps it. */
  major?: number;
}

export async function startBetnexReceiver(options: BetnexReceiverOptions): Promise<BetnexReceiver> {
  const apiKey = options.apiKey ?? 'aggmock-dev-key';
  const currency = options.currency ?? 'EUR';
  const careful = options.style === 'careful';
  const users = new Map<string, User>(
    Object.entries(options.players).map(([id, major]) => [id, { balance: careful ? Math.round(major * 100) : major, currency }]),
  );
  const handle = careful ? carefulHandler(users, apiKey, new Set(options.faults ?? [])) : readmeHandler(users, apiKey);
  const server = createServer((req, res) => {
    void readJson(req).then(
      (body) => send(res, 200, JSON.stringify(handle(body))),
      () =>
        send(
          res,
          400,
          '<!DOCTYPE html><html><body><pre>SyntaxError: Unexpected end of JSON input</pre></body></html>',
          'text/html',
        ),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    webhookUrl: `${url}/api/betnex/callback`,
    balances: () => Object.fromEntries([...users].map(([id, u]) => [id, careful ? u.balance : Math.round(u.balance * 100)])),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The README's example handler, step by step. */
function readmeHandler(users: Map<string, User>, apiKey: string) {
  const rounds = new Map<string, { processed: Set<string>; betAmount: number; winAmount: number }>();
  return (body: unknown): Reply => {
    try {
      const callback = verifyCallback(body, apiKey);
      const username = callback.member_account.toLowerCase().trim();
      const betAmount = Number(callback.bet_amount);
      const winAmount = Number(callback.win_amount);
      const user = users.get(username);
      if (!user) return createCallbackResponse({ success: false, handle: false, msg: 'User not found' });
      const key = `${callback.game_provider}|${username}|${callback.game_round}`;
      const round = rounds.get(key) ?? { processed: new Set<string>(), betAmount: 0, winAmount: 0 };
      if (round.processed.has(callback.serial_number)) {
        return createCallbackResponse({ success: true, handle: true, money: user.balance, msg: 'Duplicate callback ignored' });
      }
      round.processed.add(callback.serial_number);
      round.betAmount += betAmount;
      round.winAmount += winAmount;
      rounds.set(key, round);
      user.balance += -betAmount + winAmount;
      return createCallbackResponse({ success: true, handle: true, money: user.balance, msg: 'Callback processed successfully' });
    } catch (error) {
      return createCallbackResponse({ success: false, handle: false, money: 0, msg: (error as Error).message });
    }
  };
}

/** The same flow, done right (or with one planted fault). */
function carefulHandler(users: Map<string, User>, apiKey: string, faults: Set<BetnexFault>) {
  const seen = new Map<string, Reply>();
  const refuse = (msg: string) => createCallbackResponse({ success: false, handle: false, msg });
  return (body: unknown): Reply => {
    let callback: BetnexCallback;
    try {
      const keyless = faults.has('api-key-optional') && isObject(body) && body.api_key === undefined;
      callback = verifyCallback(keyless ? { ...body, api_key: apiKey } : body, faults.has('ignores-api-key') ? null : apiKey);
    } catch (error) {
      return refuse((error as Error).message);
    }
    const username = callback.member_account.toLowerCase().trim();
    const user = users.get(username);
    if (!user) return refuse('User not found');
    const key = `${username}|${callback.serial_number}`;
    const first = seen.get(key);
    const bonus = bonusOf(callback.data);
    const skipsDuplicateCheck = faults.has('repeats-duplicates') || (faults.has('bonus-not-idempotent') && bonus !== undefined);
    if (first && !skipsDuplicateCheck) return first;
    const stake = cents(callback.bet_amount);
    const bet = stake === 0 && bonus?.type === 'free-spins' && faults.has('charges-free-spins') ? 100 : stake;
    const paid = cents(callback.win_amount);
    const win = faults.has('bet-or-win') && (bet ?? 0) > 0 ? 0 : paid;
    if (bet === undefined || win === undefined) return refuse('amounts must be 0 or more with at most 2 decimals');
    if (callback.currency_code !== user.currency && !faults.has('ignores-currency')) {
      return refuse(`currency ${callback.currency_code} is not the player's (${user.currency})`);
    }
    if (bet > user.balance) {
      // Kept, so a repeat of this serial_number gets this refusal again.
      const refusal = refuse('Insufficient balance');
      seen.set(key, refusal);
      return refusal;
    }
    let money: number;
    if (faults.has('float-money')) {
      // The SDK's calculateBalance on a balance kept as a JavaScript number.
      user.major = calculateBalance(user.major ?? user.balance / 100, bet / 100, win / 100);
      user.balance = Math.round(user.major * 100);
      money = user.major;
    } else {
      user.balance = user.balance - bet + win;
      money = user.balance / 100;
    }
    const reply = createCallbackResponse({ success: true, handle: true, money, msg: 'Success' });
    seen.set(key, reply);
    return reply;
  };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function bonusOf(data: unknown): { type?: unknown; id?: unknown } | undefined {
  if (data === null || typeof data !== 'object') return undefined;
  const { bonus_type: type, bonus_id: id } = data as Record<string, unknown>;
  return id === undefined ? undefined : { type, id };
}

/** A non-negative amount with at most 2 decimals, in cents; undefined otherwise. */
function cents(value: number | string): number | undefined {
  const text = String(value);
  if (!/^\d+(\.\d{1,2})?$/.test(text)) return undefined;
  const [whole = '0', frac = ''] = text.split('.');
  return Number(whole) * 100 + Number(frac.padEnd(2, '0'));
}

function readJson(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      // express.json(): no JSON content type → an empty body; broken JSON → 400.
      if (!/application\/json/i.test(req.headers['content-type'] ?? '')) return resolve({});
      try {
        resolve(text.length === 0 ? {} : JSON.parse(text));
      } catch (error) {
        reject(error);
      }
    });
    req.on('error', reject);
  });
}

function send(res: ServerResponse, status: number, body: string, type = 'application/json; charset=utf-8'): void {
  res.writeHead(status, { 'Content-Type': type, 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}
