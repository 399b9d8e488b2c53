/**
 * A careful Slotegrator GIS (APIgrator) seamless wallet, written from the vendor's public material
 * only, to judge aggmock's Slotegrator wire.
 *
 * Sources:
 * - https://softbet.io/docs/CUSTOMER-API.md: a reseller that states it is "byte-compatible with the
 *   Slotegrator GIS API": the four headers, HMAC-SHA1 (lowercase hex) over the merged params and
 *   headers sorted by key, values percent-encoded, ±5 minutes of clock skew.
 * - A Laravel SlotegratorClient (search index id 30834093897): verifySignature = ksort(params ∪
 *   {X-Merchant-Id, X-Timestamp, X-Nonce}), http_build_query, hash_hmac('sha1', …, merchantKey).
 * - A Node/Express integrator callback (id 52038676287) and a Next.js one (id 10801979360): the
 *   form-encoded callback, the fields per action (balance | bet | win | refund | rollback), the
 *   `{balance, transaction_id}` reply, `{error_code: INSUFFICIENT_FUNDS | INTERNAL_ERROR,
 *   error_description}` at HTTP 200, refund of an unknown bet = success with the balance unchanged,
 *   rollback entries `rollback_transactions[i][action|transaction_id|amount]` not found = skipped.
 *
 * What the material leaves open, and the lenient reading taken here:
 * - The exact canonical string: PHP http_build_query (keys encoded, spaces as '+' or, RFC 3986,
 *   '%20'; nested arrays in received order), SoftBet's (keys literal, values encodeURIComponent) and the Node
 *   integrator's (keys and values encodeURIComponent) differ only in escaping; every one of them
 *   is accepted, over top-level-sorted or fully flattened-sorted keys.
 * - The timestamp window: the Laravel client cites 30 s, SoftBet 5 min; the wider one is used.
 * - Single-use nonces: only SoftBet asks for them; GIS retries may reuse headers, so not enforced.
 * - The callback path: GIS posts to the one URL the operator configured, so any path is accepted.
 * - Amount precision: not stated; up to 8 fraction digits are kept exactly.
 * - What `rollback_transactions` in the rollback reply lists: the Next.js integrator echoes the
 *   vendor's transaction ids of the entries; so does this wallet.
 * - The session id is checked on bet only (the call that spends money), against the token the
 *   wallet issued at game init when the player has one.
 */
import { createHmac } from 'node:crypto';
import { describe, isObject, parseJsonObject } from './json-fields.ts';
import {
  constantTimeEqual,
  decimalToUnits,
  type HandledReply,
  openingLedger,
  type ReceivedRequest,
  type ReceiverPlayer,
  startLoopbackReceiver,
  unitsToDecimal,
  type VendorReceiver,
} from './receiver-kit.ts';
import { DedupeRecall, plantedBugs, type ReceiverOptions } from './receiver-style.ts';

export type { ReceiverPlayer, VendorReceiver };

/*
 * Style 'B' (options.style), a second correct wallet:
 * - the X-Timestamp window is the Laravel SlotegratorClient's 30 s (A takes SoftBet's 5 minutes);
 * - a repeated bet/win/refund gets the reply it got the first time (the balance then); A answers
 *   the same transaction_id with today's balance. unknown: the integrators' material says a repeat
 *   moves no money, not which balance it shows.
 * Planted bugs (options.bugs): funds-before-duplicate, forgetful-dedupe (transaction ids).
 * Slotegrator signs every callback (HMAC over form params, not JSON) and has no authenticate call,
 * so ignores-credential, reserialised-signature and session-takeover do not apply.
 */

/** Fraction digits the ledger keeps exactly. */
const SCALE = 8;
/** SoftBet's stated clock-skew allowance (the Laravel client's 30 s would refuse slow retries). */
const TIMESTAMP_WINDOW_SECONDS = 300;
const AUTH_HEADERS = ['X-Merchant-Id', 'X-Timestamp', 'X-Nonce'] as const;

type Action = 'balance' | 'bet' | 'win' | 'refund' | 'rollback';
const ACTIONS: readonly Action[] = ['balance', 'bet', 'win', 'refund', 'rollback'];

/** One key/value as it was sent (form) or flattened from JSON, in the order received. */
type Pair = readonly [key: string, value: string];

interface Transaction {
  action: Action;
  vendorId: string;
  walletId: string;
  playerId: string;
  /** Money moved by this transaction, in units (positive). */
  units: number;
  /** A bet refunded or rolled back, a win rolled back: reversed once, never twice. */
  reversed: boolean;
  /** For a rollback: the vendor ids echoed in its reply. */
  rolledBack?: string[];
}

/**
 * Starts the wallet. credentials: `merchantId` (compared with X-Merchant-Id) and `merchantKey`
 * (the HMAC-SHA1 secret), Slotegrator's own names.
 */
export async function startSlotegratorReceiver(
  options: ReceiverOptions & {
    /** The wallet's clock in epoch milliseconds, for the X-Timestamp window (default: the system clock). */
    now?: () => number;
  },
): Promise<VendorReceiver> {
  const now = options.now ?? Date.now;
  const merchantId = options.credentials.merchantId;
  const merchantKey = options.credentials.merchantKey;
  if (!merchantId || !merchantKey) {
    throw new Error('slotegrator receiver: credentials.merchantId and credentials.merchantKey are required');
  }
  const ledger = openingLedger(options.players, SCALE);
  const transactions = new Map<string, Transaction>();
  /** Bets refunded or rolled back before they arrived: a late bet must not be charged. */
  const cancelledBets = new Set<string>();
  let nextWalletId = 1;
  const style = options.style ?? 'A';
  const bugs = plantedBugs('slotegrator', options.bugs, ['funds-before-duplicate', 'forgetful-dedupe']);
  const recall = new DedupeRecall(bugs.has('forgetful-dedupe'));
  const windowSeconds = style === 'B' ? 30 : TIMESTAMP_WINDOW_SECONDS;
  /** Style B: the first reply body to each bet/win/refund. */
  const firstReplies = new Map<string, Record<string, unknown>>();

  const balanceOf = (playerId: string): string => {
    const player = ledger.get(playerId);
    if (!player) throw new Error(`slotegrator receiver: no player ${playerId}`);
    return unitsToDecimal(player.units, SCALE);
  };
  const balanceNumber = (units: number) => Number(unitsToDecimal(units, SCALE));

  const handle = (request: ReceivedRequest, errors: string[]): HandledReply => {
    const where = `${request.method} ${request.path}`;
    const refuse = (problems: string[], fields: Record<string, unknown>, code = 'INTERNAL_ERROR'): HandledReply => {
      for (const problem of problems) errors.push(`${where}: ${problem}`);
      return { status: 200, body: { error_code: code, error_description: problems.join('; ') }, fields };
    };

    if (request.method !== 'POST') {
      return refuse([`method ${request.method}: GIS callbacks are POST`], {});
    }
    const parsed = parseParams(request);
    if ('problem' in parsed) return refuse([parsed.problem], {});
    const { pairs, params } = parsed;

    const signatureProblem = verifySignature(request, pairs, {
      merchantId,
      merchantKey,
      nowSeconds: Math.floor(now() / 1000),
      windowSeconds,
    });
    if (signatureProblem) return refuse([signatureProblem], params);

    const problems: string[] = [];
    const read = new ParamReader(params, problems);
    const action = read.string('action') as Action | undefined;
    if (action !== undefined && !ACTIONS.includes(action)) {
      problems.push(`action: got ${describe(action)}; expected one of ${ACTIONS.join(', ')}`);
    }
    const playerId = read.string('player_id');
    const currency = read.string('currency');
    if (problems.length > 0 || action === undefined) return refuse(problems, params);
    const player = playerId === undefined ? undefined : ledger.get(playerId);
    if (!player) return refuse([`player_id: no player ${describe(playerId)} in this wallet`], params);
    if (currency !== player.currency) {
      return refuse([`currency: got ${describe(currency)}; the player's wallet is in ${player.currency}`], params);
    }
    const ok = (transactionId: string, extra: Record<string, unknown> = {}): HandledReply => ({
      status: 200,
      body: { balance: balanceNumber(player.units), transaction_id: transactionId, ...extra },
      fields: params,
    });

    if (action === 'balance') {
      return { status: 200, body: { balance: balanceNumber(player.units) }, fields: params };
    }

    const transactionId = read.string('transaction_id');
    const sessionId = read.string('session_id', { optional: true });
    read.string('game_uuid', { optional: true });
    read.string('round_id', { optional: true });

    if (action === 'rollback') {
      const entries = read.rollbackEntries();
      if (problems.length > 0 || transactionId === undefined || entries === undefined) return refuse(problems, params);
      const previous = transactions.get(`rollback:${transactionId}`);
      if (previous) {
        if (previous.playerId !== player.playerId) {
          return refuse([`transaction_id: rollback ${transactionId} was first sent for player ${previous.playerId}`], params);
        }
        return ok(previous.walletId, { rollback_transactions: previous.rolledBack });
      }
      for (const entry of entries) {
        const target = transactions.get(`${entry.action}:${entry.transactionId}`);
        if (!target || target.playerId !== player.playerId) {
          // Not found: skipped (GIS); a bet that arrives later must still not be charged.
          if (entry.action === 'bet') cancelledBets.add(entry.transactionId);
          continue;
        }
        if (target.reversed) continue;
        if (entry.units !== undefined && entry.units !== target.units) {
          errors.push(
            `${where}: rollback_transactions entry ${entry.transactionId}: amount ${unitsToDecimal(entry.units, SCALE)} differs from the ${entry.action} it reverses (${unitsToDecimal(target.units, SCALE)}); the stored amount was reversed`,
          );
        }
        target.reversed = true;
        // A bet comes back to the player; a win or refund is taken back (even below zero: the
        // aggregator's round is void and it resends the rollback until it is accepted).
        player.units += entry.action === 'bet' ? target.units : -target.units;
      }
      const walletId = `sg-${nextWalletId++}`;
      const rolledBack = entries.map((entry) => entry.transactionId);
      transactions.set(`rollback:${transactionId}`, {
        action,
        vendorId: transactionId,
        walletId,
        playerId: player.playerId,
        units: 0,
        reversed: false,
        rolledBack,
      });
      return ok(walletId, { rollback_transactions: rolledBack });
    }

    const units = read.amount('amount');
    const betTransactionId = action === 'refund' ? read.string('bet_transaction_id') : undefined;
    if (problems.length > 0 || transactionId === undefined || units === undefined) return refuse(problems, params);

    if (bugs.has('funds-before-duplicate') && action === 'bet' && player.units < units) {
      const refusal = { error_code: 'INSUFFICIENT_FUNDS', error_description: 'Not enough money to continue playing' };
      return { status: 200, body: refusal, fields: params };
    }
    const key = `${action}:${transactionId}`;
    const previous = recall.remembers(key) ? transactions.get(key) : undefined;
    if (previous) {
      const first = firstReplies.get(key);
      if (style === 'B' && first && previous.playerId === player.playerId && previous.units === units) {
        return { status: 200, body: first, fields: params };
      }
      // A repeat of a processed transaction: the same transaction id and the current balance (A).
      if (previous.playerId !== player.playerId || previous.units !== units) {
        return refuse(
          [
            `transaction_id: ${action} ${transactionId} was first sent for player ${previous.playerId} and amount ${unitsToDecimal(previous.units, SCALE)}; the repeat carries ${player.playerId} and ${unitsToDecimal(units, SCALE)}`,
          ],
          params,
        );
      }
      return ok(previous.walletId);
    }
    const record = (moved: number): string => {
      const walletId = `sg-${nextWalletId++}`;
      recall.note(key);
      transactions.set(key, {
        action,
        vendorId: transactionId,
        walletId,
        playerId: player.playerId,
        units: moved,
        reversed: false,
      });
      return walletId;
    };

    if (action === 'bet') {
      if (player.token !== undefined && sessionId !== undefined && !constantTimeEqual(sessionId, player.token)) {
        return refuse(
          [`session_id: ${describe(sessionId)} is not the session this wallet opened for ${player.playerId}`],
          params,
        );
      }
      if (cancelledBets.has(transactionId)) {
        // Refunded or rolled back before it arrived: never charged. Not the aggregator's fault (a race).
        return {
          status: 200,
          body: { error_code: 'INTERNAL_ERROR', error_description: 'bet already cancelled' },
          fields: params,
        };
      }
      if (player.units < units) {
        return {
          status: 200,
          body: { error_code: 'INSUFFICIENT_FUNDS', error_description: 'Not enough money to continue playing' },
          fields: params,
        };
      }
      player.units -= units;
      return remembered(ok(record(units)));
    }
    if (action === 'win') {
      player.units += units;
      return remembered(ok(record(units)));
    }
    // refund
    if (betTransactionId === undefined) return refuse(problems, params);
    const bet = transactions.get(`bet:${betTransactionId}`);
    if (!bet || bet.playerId !== player.playerId) {
      // GIS: a refund of a bet the wallet never took succeeds and moves nothing.
      cancelledBets.add(betTransactionId);
      return remembered(ok(record(0)));
    }
    if (bet.reversed) return remembered(ok(record(0)));
    if (units !== bet.units) {
      errors.push(
        `${where}: amount: refund ${unitsToDecimal(units, SCALE)} differs from bet ${betTransactionId} (${unitsToDecimal(bet.units, SCALE)}); the bet's amount was returned`,
      );
    }
    bet.reversed = true;
    player.units += bet.units;
    return remembered(ok(record(bet.units)));

    /** Keeps a first reply for style B's repeats. */
    function remembered(reply: HandledReply): HandledReply {
      firstReplies.set(key, reply.body as Record<string, unknown>);
      return reply;
    }
  };

  return startLoopbackReceiver(handle, balanceOf);
}

/** The callback's params as sent (for the signature) and as a tree (for reading). */
function parseParams(request: ReceivedRequest): { pairs: Pair[]; params: Record<string, unknown> } | { problem: string } {
  const type = String(request.headers['content-type'] ?? '').toLowerCase();
  const raw = request.rawBody;
  if (type.includes('application/json') || (!type.includes('urlencoded') && raw.toString('utf8').trimStart().startsWith('{'))) {
    // SoftBet: "We also accept JSON bodies; for signing purposes the keys are the same."
    const parsed = parseJsonObject(raw);
    if ('problem' in parsed) return parsed;
    const pairs: Pair[] = [];
    flatten(parsed.body, '', pairs);
    return { pairs, params: parsed.body };
  }
  if (!type.includes('application/x-www-form-urlencoded')) {
    return { problem: `content-type ${describe(type || undefined)}; expected application/x-www-form-urlencoded (or JSON)` };
  }
  const pairs = [...new URLSearchParams(raw.toString('utf8'))] as Pair[];
  return { pairs, params: unflatten(pairs) };
}

/** JSON -> the pairs a form would carry: rollback_transactions[0][action]=bet; true -> "1" as PHP writes it. */
function flatten(value: unknown, prefix: string, out: Pair[]): void {
  if (Array.isArray(value) || isObject(value)) {
    for (const [key, inner] of Object.entries(value)) flatten(inner, prefix ? `${prefix}[${key}]` : key, out);
    return;
  }
  if (value === null || value === undefined) return;
  out.push([prefix, typeof value === 'boolean' ? (value ? '1' : '0') : String(value)]);
}

/** Form pairs -> a tree, reading PHP's bracket notation (a[0][b]=c). */
function unflatten(pairs: readonly Pair[]): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  for (const [key, value] of pairs) {
    const match = /^([^[\]]+)((?:\[[^[\]]*\])*)$/.exec(key);
    const path = match ? [match[1]!, ...[...match[2]!.matchAll(/\[([^[\]]*)\]/g)].map((m) => m[1]!)] : [key];
    let node = root;
    for (const [index, segment] of path.entries()) {
      if (index === path.length - 1) {
        node[segment] = value;
      } else {
        let next = node[segment];
        if (!isObject(next)) {
          next = {};
          node[segment] = next;
        }
        node = next as Record<string, unknown>;
      }
    }
  }
  return root;
}

/** undefined when X-Sign is right, else the sentence saying what is wrong. */
function verifySignature(
  request: ReceivedRequest,
  pairs: readonly Pair[],
  {
    merchantId,
    merchantKey,
    nowSeconds,
    windowSeconds,
  }: { merchantId: string; merchantKey: string; nowSeconds: number; windowSeconds: number },
) {
  const header = (name: string) => {
    const value = request.headers[name.toLowerCase()];
    return Array.isArray(value) ? value[0] : value;
  };
  const missing = [...AUTH_HEADERS, 'X-Sign'].filter((name) => !header(name));
  if (missing.length > 0) return `headers ${missing.join(', ')}: required on every GIS callback but missing`;
  if (!constantTimeEqual(header('X-Merchant-Id')!, merchantId)) {
    return `X-Merchant-Id: got ${describe(header('X-Merchant-Id'))}; expected this merchant's id`;
  }
  const timestamp = header('X-Timestamp')!;
  if (!/^\d{1,12}$/.test(timestamp)) return `X-Timestamp: got ${describe(timestamp)}; expected unix seconds`;
  const skew = Math.abs(nowSeconds - Number(timestamp));
  if (skew > windowSeconds) {
    return `X-Timestamp: ${timestamp} is ${skew} s from the wallet's clock; expected within ${windowSeconds} s`;
  }
  const signed: Pair[] = [...pairs, ...AUTH_HEADERS.map((name) => [name, header(name)!] as const)];
  const given = header('X-Sign')!.toLowerCase();
  for (const text of canonicalStrings(signed)) {
    if (constantTimeEqual(given, createHmac('sha1', merchantKey).update(text).digest('hex'))) return undefined;
  }
  return 'X-Sign: does not match HMAC-SHA1(merchant key) of the params and X-Merchant-Id, X-Timestamp, X-Nonce sorted by key and query-encoded; was it computed over the params as sent?';
}

/** The canonical strings a GIS signer may have built (see the header comment): orders × escapings. */
function canonicalStrings(pairs: readonly Pair[]): string[] {
  const byteOrder = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  const topKey = (key: string) => key.split('[')[0]!;
  // PHP ksort sorts the top level only; a nested array keeps the order it came in.
  const topSorted = pairs
    .map((pair, index) => ({ pair, index }))
    .sort((a, b) => byteOrder(topKey(a.pair[0]), topKey(b.pair[0])) || a.index - b.index)
    .map(({ pair }) => pair);
  const flatSorted = [...pairs].sort((a, b) => byteOrder(a[0], b[0]));
  const php = (text: string) =>
    encodeURIComponent(text)
      .replace(/[!'()*~]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
      .replace(/%20/g, '+');
  // rawurlencode / PHP_QUERY_RFC3986: like urlencode but spaces as %20 and '~' literal.
  const rfc3986 = (text: string) =>
    encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  const escapings: ((pair: Pair) => string)[] = [
    ([key, value]) => `${php(key)}=${php(value)}`,
    ([key, value]) => `${rfc3986(key)}=${rfc3986(value)}`,
    ([key, value]) => `${key}=${encodeURIComponent(value)}`,
    ([key, value]) => `${encodeURIComponent(key)}=${encodeURIComponent(value)}`,
    ([key, value]) => `${key}=${value}`,
  ];
  const texts = new Set<string>();
  for (const order of [topSorted, flatSorted]) for (const escaping of escapings) texts.add(order.map(escaping).join('&'));
  return [...texts];
}

/** Reads GIS params (form strings, or JSON strings/numbers), one sentence per deviation. */
class ParamReader {
  constructor(
    private readonly params: Record<string, unknown>,
    readonly problems: string[],
  ) {}

  string(name: string, rule: { optional?: boolean } = {}): string | undefined {
    const value = this.params[name];
    if (value === undefined || value === '') {
      if (!rule.optional) this.problems.push(`${name}: required for this action but missing; expected a non-empty string`);
      return undefined;
    }
    if (typeof value === 'string' && value.length <= 255) return value;
    if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
    this.problems.push(`${name}: got ${describe(value)}; expected a string of at most 255 characters`);
    return undefined;
  }

  /** A non-negative decimal in major units ("10.50", or 10.5 in JSON), as integer units. */
  amount(name: string): number | undefined {
    const value = this.params[name];
    const text = typeof value === 'number' ? String(value) : value;
    if (typeof text !== 'string' || text === '') {
      this.problems.push(
        `${name}: ${value === undefined ? 'required but missing' : `got ${describe(value)}`}; expected a decimal amount such as "10.50"`,
      );
      return undefined;
    }
    const units = decimalToUnits(text, SCALE);
    if (units === undefined) {
      this.problems.push(
        `${name}: got ${describe(value)}; expected a non-negative decimal with at most ${SCALE} fraction digits`,
      );
    }
    return units;
  }

  /** rollback_transactions: [{action: bet|win|refund, transaction_id, amount}], at least one. */
  rollbackEntries(): { action: string; transactionId: string; units: number | undefined }[] | undefined {
    const value = this.params.rollback_transactions;
    const list = Array.isArray(value) ? value : isObject(value) ? Object.values(value) : undefined;
    if (!list || list.length === 0) {
      this.problems.push(
        `rollback_transactions: got ${describe(value)}; expected a non-empty list of {action, transaction_id, amount}`,
      );
      return undefined;
    }
    const entries: { action: string; transactionId: string; units: number | undefined }[] = [];
    for (const [index, entry] of list.entries()) {
      if (!isObject(entry)) {
        this.problems.push(`rollback_transactions[${index}]: got ${describe(entry)}; expected {action, transaction_id, amount}`);
        continue;
      }
      const nested = new ParamReader(entry, []);
      const action = nested.string('action');
      const transactionId = nested.string('transaction_id');
      const units = entry.amount === undefined ? undefined : nested.amount('amount');
      for (const problem of nested.problems) this.problems.push(`rollback_transactions[${index}].${problem}`);
      if (action !== undefined && !['bet', 'win', 'refund'].includes(action)) {
        this.problems.push(`rollback_transactions[${index}].action: got ${describe(action)}; expected bet, win or refund`);
        continue;
      }
      if (action !== undefined && transactionId !== undefined) entries.push({ action, transactionId, units });
    }
    return entries.length === list.length ? entries : undefined;
  }
}
