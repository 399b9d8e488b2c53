/**
 * The callback helpers of the public Betnex SDK (`@betnex/sdk`: verifyCallback,
 * createCallbackResponse, calculateBalance), re-implemented here from its README and published
 * behaviour, because the package is not on the npm registry this project installs from. Same
 * rules, same messages: every listed field required and non-empty, bet/win numeric, the rest
 * strings, `api_key` equal to the operator's key; the response `{success, msg, handle, money}`
 * with `money: 0` when none is given.
 */

export class BetnexError extends Error {
  override readonly name = 'BetnexError';
}

/** The fields verifyCallback requires, in the order the SDK's README documents them (then `data`). */
export const REQUIRED_FIELDS = [
  'bet_amount',
  'win_amount',
  'member_account',
  'game_uid',
  'game_round',
  'serial_number',
  'currency_code',
  'api_key',
  'game_name',
  'game_provider',
] as const;

const STRING_FIELDS = REQUIRED_FIELDS.filter((f) => f !== 'bet_amount' && f !== 'win_amount');

export interface BetnexCallback {
  valid: true;
  bet_amount: number | string;
  win_amount: number | string;
  member_account: string;
  game_uid: string;
  game_round: string;
  serial_number: string;
  currency_code: string;
  api_key: string;
  game_name: string;
  game_provider: string;
  data?: unknown;
}

/** Throws a BetnexError naming the first wrong field; returns the payload with `valid: true`. */
export function verifyCallback(payload: unknown, expectedApiKey: string | null = null): BetnexCallback {
  if (!payload || typeof payload !== 'object') throw new BetnexError('Callback payload is required');
  const p = payload as Record<string, unknown>;
  for (const field of REQUIRED_FIELDS) {
    if (p[field] === undefined || p[field] === null || p[field] === '') throw new BetnexError(`${field} is required`);
  }
  if (Number.isNaN(Number(p.bet_amount))) throw new BetnexError('bet_amount must be numeric');
  if (Number.isNaN(Number(p.win_amount))) throw new BetnexError('win_amount must be numeric');
  for (const field of STRING_FIELDS) {
    if (typeof p[field] !== 'string') throw new BetnexError(`${field} must be a string`);
  }
  if (expectedApiKey && String(p.api_key) !== String(expectedApiKey)) throw new BetnexError('Invalid callback api_key');
  return { valid: true, ...(p as Omit<BetnexCallback, 'valid'>) };
}

export function createCallbackResponse({
  success = true,
  money = 0,
  msg = 'Callback processed successfully',
  handle = true,
}: {
  success?: boolean;
  money?: number;
  msg?: string;
  handle?: boolean;
} = {}) {
  return { success, msg, handle, money: Number(money) };
}

/** newBalance = currentBalance − betAmount + winAmount, in JavaScript numbers (as the SDK does). */
export function calculateBalance(current: number | string, bet: number | string, win: number | string): number {
  return Number(current) - Number(bet) + Number(win);
}
