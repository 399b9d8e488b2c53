/**
 * An independent Evoplay seamless-wallet receiver (the casino side), written from Evoplay's integration
 * as public integrators read it — never from aggmock's implementation of the wire.
 *
 * Sources read (Evoplay publishes its API only to partners; these are the public readings of it):
 * - wendell1101/t1softxxx `admin/application/controllers/evoplay_seamless_service_api.php` (the operator's
 *   callback controller: field rules, error constants, scopes, idempotency) and
 *   `submodules/game-lib/game_platform/game_api_evoplay_seamless.php` (`getSignature`, `isValidCallbackSignature`,
 *   launch with `callback_version`).
 * - IqSoft `ProductGateway/Controllers/EvoplayController.cs` and `Models/Evoplay/BaseInput.cs` (C# wallet: signs
 *   `project*1*…*key`, rolls back by `data.refund_callback_id`, "Not enough money").
 * - A Laravel casino's `TGGController.php` (`getSignature` identical to t1's; replies with `scope`/`no_refund`;
 *   refund of an unknown bet answered "ok" with the balance unchanged; launch param `callback_version => 2`).
 * - A Laravel casino's `App/Services/Cassinos/Evoplay.php` (duplicate `callback_id` → "ok" with the current balance;
 *   refund looked up by `data.refund_callback_id`).
 * - aggmock research note `wires.md` §2.13 (summary of the t1 reading).
 *
 * Wire, as read there:
 * - One callback URL (this receiver: path `/`), the operation in the body field `name`: `init | bet | win | refund`.
 * - Body `token, callback_id, name, data, signature`; JSON or `application/x-www-form-urlencoded` with PHP
 *   brackets (`data[round_id]=…`), since t1 reads `$_POST` first and then a JSON body.
 * - bet/win `data: {round_id, action_id, final_action?, amount, currency, details}`;
 *   refund `data: {refund_round_id, refund_action_id, refund_callback_id, amount, currency, details}`;
 *   `details` is a JSON-encoded string whose `game.game_id` every integration reads.
 * - Reply `{status:"ok", data:{balance, currency}}`; refusal `{status:"error", error:{scope, no_refund, message}}`.
 *
 * Signature (t1 `getSignature`, TGG `getSignature`, IqSoft): `signature = md5(parts.join('*'))` with
 *   parts = [project, version, each body field except `signature` in body order…, secretKey], where a field that is
 *   an object/array is its scalar leaves, depth first, joined by ':' (PHP `array_walk_recursive`), and an empty one
 *   is ''. Scalars are PHP strings: true → "1", false/null → "", numbers as PHP 8 prints them (1.50 → "1.5").
 *   Example: project 1234, version 2, key s3cr3t, bet {token:"tok-alice", callback_id:"cb-1", name:"bet",
 *   data:{round_id:"r-1", action_id:"1", final_action:"0", amount:"10.00", currency:"EUR",
 *   details:'{"game":{"game_id":1001,"absolute_name":"slot_book"}}'}} signs
 *   `1234*2*tok-alice*cb-1*bet*r-1:1:0:10.00:EUR:{"game":{"game_id":1001,"absolute_name":"slot_book"}}*s3cr3t`
 *   → 71377fd86d9657aaf3205c2fa735dfe4.
 *
 * Credentials (Evoplay's names): `project` (the project id; also read as `projectId`/`project_id`), `secretKey`
 * (also `secret_key`/`key`), and optionally `version` (also `callback_version`).
 *
 * Unknown in the sources, and the lenient reading chosen (what a real wallet among them accepts):
 * - Which version goes into a callback's signature: t1 uses the launch's `callback_version` (default 2), IqSoft a
 *   literal 1. Without a `version` credential both 1 and 2 are accepted; with one, only it.
 * - Field order: t1 first signs the body as received, then retries a fixed order (token, callback_id, name, data with
 *   t1's per-name data order; IqSoft's win order differs). Any of these orders is accepted.
 * - HTTP status of a refusal: t1 answers 400, the other three 200; this receiver answers 200 and the body's `status`
 *   carries the outcome. Only an unknown path (404), another verb (405) and a body over 1 MiB (413) differ.
 * - GET with the same fields in the query is accepted (TGG's "callback_version 2 = POST" implies a version 1 that is
 *   not POST); any other encoding is refused.
 * - The token is the only player key in a callback (no user id), so it is checked on every call; tokens never
 *   expire here (IqSoft checks expiry on init/bet only). A player without a token is found by its `playerId`.
 * - Idempotency is by `callback_id` ("unique per callback"): a repeat answers "ok" with the current balance and
 *   moves nothing; a reused `callback_id` with a different operation, player or amount is refused.
 * - A win needs a bet of the same player in its `round_id` (t1 "Bet transaction not found or Round is not exist.");
 *   a win on a round whose bets were all refunded is refused (t1 "Transaction already processed by refund.").
 * - A refund restores the bet named by `refund_callback_id` once, by the bet's amount; a `data.amount`,
 *   `refund_round_id` or `refund_action_id` that disagrees with that bet is refused. A refund of an unknown bet is
 *   "ok" with the balance unchanged (t1, TGG, Laravel) and leaves a tombstone, so that bet, if it comes later, is
 *   answered "ok" without a charge.
 * - Scopes and `no_refund`: "Not enough money" is `scope:"user", no_refund:1` (all four); every other refusal uses
 *   t1's defaults `scope:"internal", no_refund:0` and t1's messages.
 * - Amounts are decimals (string or number) in major units with at most the currency's ISO decimals; a bet of 0
 *   (free spin) and a win of 0 are accepted.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceiverPlayer {
  playerId: string;
  currency: string;
  balance: string;
  token?: string;
}

export interface VendorReceiver {
  url: string;
  errors: string[];
  log: { method: string; path: string; fields: Record<string, unknown>; status: number; reply: unknown }[];
  balanceOf(playerId: string): string;
  stop(): Promise<void>;
}

const MAX_BODY_BYTES = 1024 * 1024;
const MAX_DEPTH = 16;
const NAMES = ['init', 'bet', 'win', 'refund'] as const;
type Name = (typeof NAMES)[number];
const DEFAULT_VERSIONS = ['1', '2'];
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/** The data orders the sources sign in, per operation; keys not listed keep their body order after these. */
const DATA_ORDERS: Record<Name, string[][]> = {
  init: [],
  bet: [['round_id', 'action_id', 'final_action', 'amount', 'currency', 'details']],
  win: [
    ['round_id', 'action_id', 'final_action', 'amount', 'currency', 'details'],
    ['round_id', 'amount', 'currency', 'action_id', 'final_action', 'details'],
  ],
  refund: [['refund_round_id', 'refund_action_id', 'refund_callback_id', 'amount', 'currency', 'details']],
};

/** t1's messages; "Not enough money" is the one every source shares. */
const REFUSALS = {
  insufficientFunds: { scope: 'user', no_refund: 1, message: 'Not enough money' },
  badSignature: { scope: 'internal', no_refund: 0, message: 'Invalid Signature' },
  unknownPlayer: { scope: 'internal', no_refund: 0, message: 'Player not found (Invalid Token) or Player is disabled' },
  unknownAction: { scope: 'internal', no_refund: 0, message: 'Invalid Callback Type' },
  betNotFound: { scope: 'internal', no_refund: 0, message: 'Bet transaction not found or Round is not exist.' },
  roundRefunded: { scope: 'internal', no_refund: 0, message: 'Transaction already processed by refund.' },
  transactionExists: { scope: 'internal', no_refund: 0, message: 'Transaction already exists' },
  invalidCurrency: { scope: 'internal', no_refund: 0, message: 'Invalid Currency' },
  invalidAmount: { scope: 'internal', no_refund: 0, message: 'Invalid Amount' },
  invalidRefundCallbackId: { scope: 'internal', no_refund: 0, message: 'Invalid Refund Callback ID' },
  invalidRefundRoundId: { scope: 'internal', no_refund: 0, message: 'Invalid Refund Round ID' },
  invalidRefundActionId: { scope: 'internal', no_refund: 0, message: 'Invalid Refund Action ID' },
  invalidData: { scope: 'internal', no_refund: 0, message: 'Invalid Data' },
  notFound: { scope: 'internal', no_refund: 0, message: 'Not Found' },
} as const;
type Refusal = { scope: string; no_refund: number; message: string };

const ZERO_DECIMALS = new Set([
  'BIF',
  'CLP',
  'DJF',
  'GNF',
  'ISK',
  'JPY',
  'KMF',
  'KRW',
  'PYG',
  'RWF',
  'UGX',
  'VND',
  'VUV',
  'XAF',
  'XOF',
  'XPF',
]);
const THREE_DECIMALS = new Set(['BHD', 'IQD', 'JOD', 'KWD', 'LYD', 'OMR', 'TND']);

function currencyDecimals(currency: string): number {
  if (ZERO_DECIMALS.has(currency)) return 0;
  return THREE_DECIMALS.has(currency) ? 3 : 2;
}

/** A non-negative decimal (string or JSON number) in minor units, or undefined when it has more decimals than allowed. */
function minorUnits(value: unknown, decimals: number): bigint | undefined {
  const text = typeof value === 'number' && Number.isFinite(value) ? String(value) : typeof value === 'string' ? value : '';
  const match = /^(\d{1,30})(?:\.(\d{1,30}))?$/.exec(text);
  if (!match) return undefined;
  const [, whole = '0', rawFraction = ''] = match;
  const fraction = rawFraction.replace(/0+$/, '');
  if (fraction.length > decimals) return undefined;
  return BigInt(whole) * 10n ** BigInt(decimals) + BigInt(fraction.padEnd(decimals, '0') || '0');
}

function majorUnits(minor: bigint, decimals: number): string {
  const sign = minor < 0n ? '-' : '';
  const digits = (minor < 0n ? -minor : minor).toString().padStart(decimals + 1, '0');
  return decimals === 0 ? `${sign}${digits}` : `${sign}${digits.slice(0, -decimals)}.${digits.slice(-decimals)}`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A scalar as PHP's string conversion writes it (implode / concatenation). */
function phpText(value: unknown): string {
  if (value === true) return '1';
  if (value === false || value === null || value === undefined) return '';
  return String(value);
}

/** PHP `array_walk_recursive`: the scalar leaves, depth first. */
function leaves(value: unknown, out: string[], depth: number): void {
  if (depth > MAX_DEPTH) throw new Error(`nested deeper than ${MAX_DEPTH} levels`);
  if (Array.isArray(value)) for (const item of value) leaves(item, out, depth + 1);
  else if (isRecord(value)) for (const item of Object.values(value)) leaves(item, out, depth + 1);
  else out.push(phpText(value));
}

/** One signed part: a scalar as PHP prints it, an object or array as its leaves joined by ':'. */
function signaturePart(value: unknown): string {
  if (!Array.isArray(value) && !isRecord(value)) return phpText(value);
  const out: string[] = [];
  leaves(value, out, 0);
  return out.join(':');
}

type Entries = [string, unknown][];

/** The entries named in `order` first (in that order), then the others in body order. */
function ordered(entries: Entries, order: string[]): Entries {
  return [
    ...order.flatMap((name) => entries.filter(([key]) => key === name)),
    ...entries.filter(([key]) => !order.includes(key)),
  ];
}

/** Every part list the sources sign for this body (deduplicated), without project, version and key. */
function signedBodies(fields: Record<string, unknown>): string[][] {
  const body: Entries = Object.entries(fields).filter(([key]) => key !== 'signature');
  const name = (NAMES as readonly unknown[]).includes(fields.name) ? (fields.name as Name) : undefined;
  const data = Object.hasOwn(fields, 'data') ? fields.data : undefined;
  const dataTexts = isRecord(data)
    ? [Object.entries(data), ...(name ? DATA_ORDERS[name] : []).map((order) => ordered(Object.entries(data), order))].map(
        (entries) => signaturePart(entries.map(([, value]) => value)),
      )
    : [signaturePart(data)];
  const canonical = ordered(
    body.filter(([key]) => ['token', 'callback_id', 'name', 'data'].includes(key)),
    ['token', 'callback_id', 'name', 'data'],
  );
  const candidates: string[][] = [];
  for (const top of [body, canonical]) {
    for (const dataText of dataTexts)
      candidates.push(top.map(([key, value]) => (key === 'data' ? dataText : signaturePart(value))));
  }
  // t1 rebuilds an init from token, callback_id and name only.
  if (name === 'init') candidates.push(canonical.filter(([key]) => key !== 'data').map(([, value]) => signaturePart(value)));
  return [...new Map(candidates.map((parts) => [JSON.stringify(parts), parts])).values()];
}

function md5(text: string): string {
  return createHash('md5').update(text, 'utf8').digest('hex');
}

function sameHex(expected: string, given: string): boolean {
  const a = Buffer.from(expected, 'utf8');
  const b = Buffer.from(given.toLowerCase(), 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}

/** PHP's `$_POST` / `$_GET` reading: `data[round_id]=1` nests, `a[]=x` appends. */
function parsePhpQuery(text: string): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  for (const [key, value] of new URLSearchParams(text)) {
    const match = /^([^[\]]+)((?:\[[^[\]]*\])*)$/.exec(key);
    const path = match ? [match[1]!, ...[...match[2]!.matchAll(/\[([^[\]]*)\]/g)].map((m) => m[1]!)] : [key];
    if (path.length > MAX_DEPTH) throw new Error(`field "${key}" is nested deeper than ${MAX_DEPTH} levels`);
    let node = root;
    path.forEach((segment, i) => {
      const slot = segment === '' ? String(Object.keys(node).length) : segment;
      if (FORBIDDEN_KEYS.has(slot)) throw new Error(`field name "${key}" is not allowed`);
      if (i === path.length - 1) node[slot] = value;
      else {
        if (!isRecord(node[slot])) node[slot] = {};
        node = node[slot] as Record<string, unknown>;
      }
    });
  }
  return root;
}

type Parsed = { fields: Record<string, unknown> } | { problem: string };

function parseRequest(method: string, contentType: string, body: string, query: string): Parsed {
  if (method === 'GET') {
    return query ? { fields: parsePhpQuery(query) } : { problem: 'GET without a query: the callback fields are missing' };
  }
  const media = contentType.split(';')[0]!.trim().toLowerCase();
  const looksJson = /^\s*\{/.test(body);
  if (media === 'application/json' || (media === '' && looksJson)) {
    let value: unknown;
    try {
      value = JSON.parse(body);
    } catch (error) {
      return { problem: `body is not valid JSON (${(error as Error).message}); expected a JSON object` };
    }
    return isRecord(value)
      ? { fields: value }
      : { problem: 'JSON body is not an object; expected {"token":…,"callback_id":…,"name":…}' };
  }
  if (media === 'application/x-www-form-urlencoded' || media === '') {
    if (looksJson) return { problem: 'content-type is form-urlencoded but the body is JSON; send content-type application/json' };
    return { fields: parsePhpQuery(body) };
  }
  return { problem: `content-type "${media}" is not accepted; expected application/json or application/x-www-form-urlencoded` };
}

function isId(value: unknown): boolean {
  return (
    (typeof value === 'string' && value.length > 0 && value.length <= 256) ||
    (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0)
  );
}

function credential(credentials: Record<string, string>, names: string[]): string | undefined {
  for (const name of names) if (typeof credentials[name] === 'string' && credentials[name] !== '') return credentials[name];
  return undefined;
}

interface Player {
  playerId: string;
  currency: string;
  decimals: number;
  token: string;
  balance: bigint;
}
interface Bet {
  playerId: string;
  roundId: string;
  actionId: string;
  amount: bigint;
  refunded: boolean;
}
interface Done {
  name: Name;
  playerId: string;
  amount: bigint;
}

/**
 * Start a careful Evoplay wallet on 127.0.0.1.
 *
 * @example
 * const wallet = await startEvoplayReceiver({ credentials: { project: '1234', secretKey: 's3cr3t' },
 *   players: [{ playerId: 'alice', currency: 'EUR', balance: '100.00', token: 'tok-alice' }] });
 * // POST wallet.url with {token, callback_id, name:"bet", data:{…}, signature}
 */
export async function startEvoplayReceiver(options: {
  credentials: Record<string, string>;
  players: ReceiverPlayer[];
}): Promise<VendorReceiver> {
  const project = credential(options.credentials, ['project', 'projectId', 'project_id']);
  const secretKey = credential(options.credentials, ['secretKey', 'secret_key', 'key']);
  const version = credential(options.credentials, ['version', 'callback_version']);
  if (!project) throw new Error('Evoplay receiver: credentials.project (the Evoplay project id) is required');
  if (!secretKey) throw new Error('Evoplay receiver: credentials.secretKey (the Evoplay secret key) is required');
  const versions = version ? [version] : DEFAULT_VERSIONS;

  const players = new Map<string, Player>();
  const byToken = new Map<string, Player>();
  for (const p of options.players) {
    const decimals = currencyDecimals(p.currency);
    const balance = minorUnits(p.balance, decimals);
    if (balance === undefined) {
      throw new Error(
        `Evoplay receiver: player ${p.playerId} balance "${p.balance}" is not a decimal with at most ${decimals} decimals`,
      );
    }
    const player: Player = { playerId: p.playerId, currency: p.currency, decimals, token: p.token ?? p.playerId, balance };
    players.set(p.playerId, player);
    byToken.set(player.token, player);
  }

  const errors: string[] = [];
  const log: VendorReceiver['log'] = [];
  const done = new Map<string, Done>();
  const bets = new Map<string, Bet>();
  const betsByRound = new Map<string, Bet[]>();
  const refundedBeforeBet = new Set<string>();

  const ok = (player: Player) => ({
    status: 'ok',
    data: { balance: majorUnits(player.balance, player.decimals), currency: player.currency },
  });
  const refuse = (refusal: Refusal) => ({ status: 'error', error: { ...refusal } });

  function verifySignature(fields: Record<string, unknown>): string | undefined {
    const given = String(fields.signature);
    let bodies: string[][];
    try {
      bodies = signedBodies(fields);
    } catch (error) {
      return `signature: cannot flatten the body (${(error as Error).message})`;
    }
    for (const parts of bodies) {
      for (const v of versions) {
        if (sameHex(md5([project, v, ...parts, secretKey].join('*')), given)) return undefined;
      }
    }
    const shown = [project, versions[versions.length - 1], ...bodies[0]!, '<secretKey>'].join('*');
    return `signature "${given}" matches no signed text; expected md5 of "${shown}" (fields in body order, objects as their leaves joined by ':', version ${versions.join(' or ')}) — is it signed with this project, version and secret key?`;
  }

  /** The problem with one data field, or undefined. */
  function checkData(
    name: Exclude<Name, 'init'>,
    data: Record<string, unknown>,
    player: Player,
  ): { problem: string; refusal: Refusal } | undefined {
    const ids = name === 'refund' ? ['refund_round_id', 'refund_action_id', 'refund_callback_id'] : ['round_id', 'action_id'];
    for (const field of ids) {
      if (!Object.hasOwn(data, field))
        return {
          problem: `${name}: data.${field} is missing`,
          refusal: { ...REFUSALS.invalidData, message: `Required ${field}` },
        };
      if (!isId(data[field])) {
        return {
          problem: `${name}: data.${field} is ${JSON.stringify(data[field])}; expected a non-empty id string`,
          refusal: REFUSALS.invalidData,
        };
      }
    }
    if (!Object.hasOwn(data, 'amount'))
      return { problem: `${name}: data.amount is missing`, refusal: { ...REFUSALS.invalidData, message: 'Required amount' } };
    if (minorUnits(data.amount, player.decimals) === undefined) {
      return {
        problem: `${name}: data.amount is ${JSON.stringify(data.amount)}; expected a non-negative decimal in major units with at most ${player.decimals} decimals for ${player.currency}`,
        refusal: REFUSALS.invalidAmount,
      };
    }
    if (!Object.hasOwn(data, 'currency'))
      return { problem: `${name}: data.currency is missing`, refusal: { ...REFUSALS.invalidData, message: 'Required currency' } };
    if (data.currency !== player.currency) {
      return {
        problem: `${name}: data.currency is ${JSON.stringify(data.currency)}; the player plays in ${player.currency}`,
        refusal: REFUSALS.invalidCurrency,
      };
    }
    if (Object.hasOwn(data, 'final_action') && ![0, 1, '0', '1', true, false].includes(data.final_action as never)) {
      return {
        problem: `${name}: data.final_action is ${JSON.stringify(data.final_action)}; expected 0 or 1`,
        refusal: REFUSALS.invalidData,
      };
    }
    if (!Object.hasOwn(data, 'details'))
      return { problem: `${name}: data.details is missing`, refusal: { ...REFUSALS.invalidData, message: 'Required details' } };
    if (typeof data.details !== 'string') {
      return {
        problem: `${name}: data.details is a ${Array.isArray(data.details) ? 'array' : typeof data.details}; expected a JSON-encoded string (wallets json_decode it)`,
        refusal: REFUSALS.invalidData,
      };
    }
    let details: unknown;
    try {
      details = JSON.parse(data.details);
    } catch {
      return {
        problem: `${name}: data.details ${JSON.stringify(data.details.slice(0, 80))} is not JSON; expected '{"game":{"game_id":…}}'`,
        refusal: REFUSALS.invalidData,
      };
    }
    const game = isRecord(details) ? details.game : undefined;
    if (!isRecord(game) || !isId(game.game_id)) {
      return {
        problem: `${name}: data.details has no game.game_id; expected '{"game":{"game_id":…,"absolute_name":…}}'`,
        refusal: { ...REFUSALS.invalidData, message: 'Required game_id' },
      };
    }
    return undefined;
  }

  function settle(
    name: Exclude<Name, 'init'>,
    callbackId: string,
    data: Record<string, unknown>,
    player: Player,
  ): { reply: unknown; problem?: string } {
    const amount = minorUnits(data.amount, player.decimals)!;
    const previous = done.get(callbackId);
    if (previous) {
      if (previous.name === name && previous.playerId === player.playerId && previous.amount === amount)
        return { reply: ok(player) };
      return {
        reply: refuse(REFUSALS.transactionExists),
        problem: `${name}: callback_id ${callbackId} was already used by a ${previous.name} of ${majorUnits(previous.amount, player.decimals)} for player ${previous.playerId}; expected a new callback_id per callback`,
      };
    }
    const roundKey = (roundId: string) => `${player.playerId}\u0000${roundId}`;

    if (name === 'bet') {
      const bet: Bet = {
        playerId: player.playerId,
        roundId: String(data.round_id),
        actionId: String(data.action_id),
        amount,
        refunded: false,
      };
      if (refundedBeforeBet.has(callbackId)) bet.refunded = true;
      else if (amount > player.balance) return { reply: refuse(REFUSALS.insufficientFunds) };
      else player.balance -= amount;
      bets.set(callbackId, bet);
      betsByRound.set(roundKey(bet.roundId), [...(betsByRound.get(roundKey(bet.roundId)) ?? []), bet]);
    } else if (name === 'win') {
      const roundBets = betsByRound.get(roundKey(String(data.round_id))) ?? [];
      if (roundBets.length === 0) {
        return {
          reply: refuse(REFUSALS.betNotFound),
          problem: `win ${callbackId}: round_id ${String(data.round_id)} has no bet for this player; a win settles a bet of its round`,
        };
      }
      if (roundBets.every((b) => b.refunded)) {
        return {
          reply: refuse(REFUSALS.roundRefunded),
          problem: `win ${callbackId}: round_id ${String(data.round_id)} was refunded; a refunded round takes no win`,
        };
      }
      player.balance += amount;
    } else {
      const betId = String(data.refund_callback_id);
      const bet = bets.get(betId);
      if (!bet) refundedBeforeBet.add(betId);
      else {
        const mismatch =
          bet.playerId !== player.playerId
            ? { refusal: REFUSALS.invalidRefundCallbackId, text: `names a bet of player ${bet.playerId}` }
            : bet.roundId !== String(data.refund_round_id)
              ? {
                  refusal: REFUSALS.invalidRefundRoundId,
                  text: `has refund_round_id ${String(data.refund_round_id)} but the bet is in round ${bet.roundId}`,
                }
              : bet.actionId !== String(data.refund_action_id)
                ? {
                    refusal: REFUSALS.invalidRefundActionId,
                    text: `has refund_action_id ${String(data.refund_action_id)} but the bet's action_id is ${bet.actionId}`,
                  }
                : bet.amount !== amount
                  ? {
                      refusal: REFUSALS.invalidAmount,
                      text: `refunds ${majorUnits(amount, player.decimals)} but the bet was ${majorUnits(bet.amount, player.decimals)}`,
                    }
                  : undefined;
        if (mismatch)
          return { reply: refuse(mismatch.refusal), problem: `refund ${callbackId} of bet ${betId} ${mismatch.text}` };
        if (!bet.refunded) {
          bet.refunded = true;
          player.balance += bet.amount;
        }
      }
    }
    done.set(callbackId, { name, playerId: player.playerId, amount });
    return { reply: ok(player) };
  }

  function answer(fields: Record<string, unknown>): { reply: unknown; problem?: string } {
    for (const field of ['token', 'callback_id', 'name', 'signature']) {
      if (!Object.hasOwn(fields, field) || fields[field] === '') {
        return {
          reply: refuse({ ...REFUSALS.invalidData, message: `Required ${field}` }),
          problem: `field ${field} is missing; every callback carries token, callback_id, name and signature`,
        };
      }
    }
    if (typeof fields.token !== 'string')
      return {
        reply: refuse(REFUSALS.invalidData),
        problem: `token is ${JSON.stringify(fields.token)}; expected the session token string`,
      };
    if (!isId(fields.callback_id))
      return {
        reply: refuse(REFUSALS.invalidData),
        problem: `callback_id is ${JSON.stringify(fields.callback_id)}; expected a non-empty id string`,
      };
    if (typeof fields.signature !== 'string')
      return {
        reply: refuse(REFUSALS.badSignature),
        problem: `signature is ${JSON.stringify(fields.signature)}; expected a 32-hex MD5 string`,
      };
    const badSignature = verifySignature(fields);
    if (badSignature) return { reply: refuse(REFUSALS.badSignature), problem: badSignature };
    const name = fields.name;
    if (typeof name !== 'string' || !(NAMES as readonly string[]).includes(name)) {
      return {
        reply: refuse(REFUSALS.unknownAction),
        problem: `name is ${JSON.stringify(name)}; expected one of ${NAMES.join(', ')}`,
      };
    }
    const player = byToken.get(fields.token);
    if (!player)
      return {
        reply: refuse(REFUSALS.unknownPlayer),
        problem: `${name}: token ${JSON.stringify(fields.token)} belongs to no player; expected the session token issued at launch`,
      };
    if (name === 'init') return { reply: ok(player) };
    const operation = name as Exclude<Name, 'init'>;
    if (!isRecord(fields.data)) {
      return {
        reply: refuse({ ...REFUSALS.invalidData, message: 'Required data' }),
        problem: `${operation}: data is ${JSON.stringify(fields.data)}; expected an object`,
      };
    }
    const bad = checkData(operation, fields.data, player);
    if (bad) return { reply: refuse(bad.refusal), problem: bad.problem };
    return settle(operation, String(fields.callback_id), fields.data, player);
  }

  function respond(res: ServerResponse, entry: VendorReceiver['log'][number]): void {
    log.push(entry);
    res.writeHead(entry.status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(entry.reply));
  }

  /** The log entry (with its reply) for one request; problems go to `errors`. */
  function route(req: IncomingMessage, raw: Buffer | undefined): VendorReceiver['log'][number] {
    const method = req.method ?? '';
    const target = new URL(req.url ?? '/', 'http://127.0.0.1');
    const path = target.pathname;
    const base = { method, path, fields: {} as Record<string, unknown> };
    if (path !== '/') {
      errors.push(`${method} ${path}: unknown path; Evoplay calls the one callback URL (path /)`);
      return { ...base, status: 404, reply: refuse(REFUSALS.notFound) };
    }
    if (method !== 'POST' && method !== 'GET') {
      errors.push(`${method} ${path}: Evoplay callbacks are POSTed (or GET with a query)`);
      return { ...base, status: 405, reply: refuse({ ...REFUSALS.invalidData, message: 'Invalid Method' }) };
    }
    if (!raw) {
      errors.push(`${method} ${path}: body over ${MAX_BODY_BYTES} bytes`);
      return { ...base, status: 413, reply: refuse(REFUSALS.invalidData) };
    }
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(raw);
    } catch {
      errors.push(`${method} ${path}: body is not UTF-8`);
      return { ...base, status: 200, reply: refuse(REFUSALS.invalidData) };
    }
    let parsed: Parsed;
    try {
      parsed = parseRequest(method, req.headers['content-type'] ?? '', text, target.search.slice(1));
    } catch (error) {
      parsed = { problem: (error as Error).message };
    }
    if ('problem' in parsed) {
      errors.push(`${method} ${path}: ${parsed.problem}`);
      return { ...base, status: 200, reply: refuse(REFUSALS.invalidData) };
    }
    const { reply, problem } = answer(parsed.fields);
    if (problem) errors.push(problem);
    return { ...base, fields: parsed.fields, status: 200, reply };
  }

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    req.on('error', () => res.destroy());
    req.on('end', () => respond(res, route(req, size <= MAX_BODY_BYTES ? Buffer.concat(chunks) : undefined)));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    errors,
    log,
    balanceOf(playerId: string): string {
      const player = players.get(playerId);
      if (!player) throw new Error(`Evoplay receiver: no player ${playerId}; players are ${[...players.keys()].join(', ')}`);
      return majorUnits(player.balance, player.decimals);
    },
    stop: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
