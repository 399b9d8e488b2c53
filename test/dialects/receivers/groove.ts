/**
 * A careful GrooveTech casino wallet (the casino side of Groove's Transaction API), written from
 * Groove's public documentation only, to judge aggmock's Groove wire.
 *
 * Sources (groove-docs.pages.dev and its mirror groove-reverse.pages.dev):
 * - /transaction-api/: one casino endpoint, HTTP GET, the operation in `request=`, JSON replies.
 * - /transaction-api/get-account, /get-balance, /wager, /result, /wager-and-result, /rollback,
 *   /rollback-on-result (request=reversewin), /rollback-on-rollback (request=rollbackrollback):
 *   the parameters, the casino's duties (session checks on getaccount/getbalance/wager only; a
 *   repeat of a transactionid = the original reply with status "Success - duplicate request", only
 *   the balance may differ; essential fields differing = 400 "Transaction parameter mismatch"; a
 *   result must match a wager of the round unless it is a free-round (frbid) result; only one
 *   "completed" result per round; a rollback of an unknown wager = 102, of a wager already in a
 *   result = 110, never 1000 on result or rollback).
 * - /appendix/: the codes (200 Success, 1 Technical error, 102, 110, 400, 409, 1000, 1003, 1006,
 *   1019, 1035); 110 also covers a negative amount, an unknown account and a bad gamestatus.
 * - /transaction-api/signature-validation: the optional X-Groove-Signature, HMAC-SHA256 of the
 *   query values concatenated in the order of their names, `request` left out, `nogsgameid` sorted
 *   as `gameid`.
 *
 * What the documentation leaves open, and the lenient reading taken here:
 * - Authentication is optional in Groove's own words: without credentials.securityKey every request
 *   is accepted (Groove deployments otherwise rely on IP allow-lists); with it, X-Groove-Signature
 *   is required. Its text encoding is not stated: hex (either case) or base64 is accepted, over the
 *   decoded values or the values as they appear in the URL, names sorted byte-wise or ignoring case.
 * - Which code a bad signature gets: 1003 "Authentication failed" (the appendix lists it for
 *   getaccount only; no other code fits).
 * - Malformed or missing parameters: 1 "Technical error" (Groove resends; 449 is for FRB calls).
 * - The path: the casino endpoint is one URL the casino chooses, so any path is accepted.
 * - Precision: Decimal(32,10); trailing zeros are ignored and up to 8 significant fraction digits
 *   are kept exactly.
 * - reversewin's transactionid names the result being reversed; rollbackrollback's names the wager
 *   whose rollback is reversed (the pages' examples reuse one id; nothing says otherwise).
 * - The fixture holds no address, so getaccount answers empty `city` and `country`.
 *
 * Style 'B' (options.style), a second correct wallet: a repeated transactionid gets the original
 * reply exactly, balances as they were then ("Success - duplicate request"); A gives today's
 * balances. The wager page allows both: the original reply, where "only the balance may differ".
 *
 * Planted bugs (options.bugs): session-takeover (getaccount with a known accountid and a
 * gamesessionid never issued is answered and the session becomes that player's),
 * funds-before-duplicate, forgetful-dedupe (transactionids), crashes-on-cut-request (a missing
 * parameter answered with a bare HTTP 500), crashes-on-malformed-param (an amount parameter that is no
 * number: HTTP 500). Groove names no static credential and
 * signs the query (not JSON), so ignores-credential and reserialised-signature do not apply.
 */
import { createHmac } from 'node:crypto';
import { describe } from './json-fields.ts';
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
import { CRASH_REPLY, DedupeRecall, plantedBugs, type ReceiverOptions, SessionBook } from './receiver-style.ts';

export type { ReceiverPlayer, VendorReceiver };

const SCALE = 8;
const API_VERSION = '1.2';

const CODES = {
  success: [200, 'Success'],
  duplicate: [200, 'Success - duplicate request'],
  technical: [1, 'Technical error'],
  wagerNotFound: [102, 'Wager not found'],
  notAllowed: [110, 'Operation not allowed'],
  mismatch: [400, 'Transaction parameter mismatch'],
  roundClosed: [409, 'Round closed or transaction ID exists'],
  notLoggedOn: [1000, 'Not logged on'],
  authFailed: [1003, 'Authentication failed'],
  outOfMoney: [1006, 'Out of money'],
} as const satisfies Record<string, readonly [number, string]>;
type Code = keyof typeof CODES;

const REQUESTS = [
  'getaccount',
  'getbalance',
  'wager',
  'result',
  'wagerandresult',
  'jackpot',
  'rollback',
  'reversewin',
  'rollbackrollback',
] as const;
type RequestName = (typeof REQUESTS)[number];

interface Wager {
  playerId: string;
  roundId: string;
  units: number;
  walletId: string;
  rolledBack: boolean;
}

interface Credit {
  playerId: string;
  roundId: string;
  units: number;
  walletId: string;
  reversed: boolean;
}

interface Round {
  wagers: string[];
  /** Some result of the round was received: its wagers can no longer be rolled back. */
  resulted: boolean;
  completed: boolean;
}

/** A processed transaction: what a repeat must carry to be "the same", and the reply to repeat. */
interface Processed {
  essentials: string;
  reply: Record<string, unknown>;
  /** The first answer with its balances (style B repeats it). */
  first: Record<string, unknown>;
}

/**
 * Starts the wallet. credentials: optionally `securityKey` (the key for X-Groove-Signature, which
 * then becomes mandatory).
 */
export async function startGrooveReceiver(options: ReceiverOptions): Promise<VendorReceiver> {
  const securityKey = options.credentials.securityKey || undefined;
  const ledger = openingLedger(options.players, SCALE);
  const wagers = new Map<string, Wager>();
  const credits = new Map<string, Credit>();
  const rounds = new Map<string, Round>();
  const processed = new Map<string, Processed>();
  /** Wagers whose rollback came first (answered 102): a late one must not be charged. */
  const rolledBackBeforeArrival = new Set<string>();
  let nextWalletId = 1;
  const style = options.style ?? 'A';
  const bugs = plantedBugs('groove', options.bugs, [
    'session-takeover',
    'funds-before-duplicate',
    'forgetful-dedupe',
    'crashes-on-cut-request',
    'crashes-on-malformed-param',
  ]);
  const recall = new DedupeRecall(bugs.has('forgetful-dedupe'));
  const sessions = new SessionBook(options.players);

  const balanceOf = (playerId: string): string => {
    const player = ledger.get(playerId);
    if (!player) throw new Error(`groove receiver: no player ${playerId}`);
    return unitsToDecimal(player.units, SCALE);
  };
  const money = (units: number) => Number(unitsToDecimal(units, SCALE));
  const roundOf = (playerId: string, roundId: string): Round => {
    const key = `${playerId}\u0000${roundId}`;
    let round = rounds.get(key);
    if (!round) {
      round = { wagers: [], resulted: false, completed: false };
      rounds.set(key, round);
    }
    return round;
  };

  const handle = (request: ReceivedRequest, errors: string[]): HandledReply => {
    const where = `${request.method} ${request.path}`;
    const fields = Object.fromEntries(request.query);
    const answer = (code: Code, body: Record<string, unknown> = {}): HandledReply => {
      const [number, status] = CODES[code];
      return { status: 200, body: { code: number, status, ...body, apiversion: API_VERSION }, fields };
    };
    const refuse = (code: Code, problems: string[], body: Record<string, unknown> = {}): HandledReply => {
      for (const problem of problems) errors.push(`${where}: ${problem}`);
      if (bugs.has('crashes-on-cut-request') && problems.some((p) => p.includes('required but missing')))
        return { ...CRASH_REPLY, fields };
      if (bugs.has('crashes-on-malformed-param') && problems.some((p) => p.includes('expected a decimal with at most')))
        return { ...CRASH_REPLY, fields };
      return answer(code, { message: problems.join('; '), ...body });
    };

    if (request.method !== 'GET') return refuse('technical', [`method ${request.method}: Groove calls the casino with GET`]);
    const repeated = [...new Set([...request.query.keys()].filter((name, index, all) => all.indexOf(name) !== index))];
    if (repeated.length > 0) return refuse('technical', [`parameters ${repeated.join(', ')}: sent more than once`]);
    if (securityKey) {
      const problem = verifySignature(request, securityKey);
      if (problem) return refuse('authFailed', [problem]);
    }

    const problems: string[] = [];
    const read = new QueryReader(request.query, problems);
    const name = read.string('request')?.toLowerCase() as RequestName | undefined;
    if (name !== undefined && !REQUESTS.includes(name)) {
      return refuse('technical', [
        `request: got ${describe(request.query.get('request'))}; expected one of ${REQUESTS.join(', ')}`,
      ]);
    }
    read.string('apiversion');
    const device = read.string('device');
    if (device !== undefined && device !== 'desktop' && device !== 'mobile') {
      problems.push(`device: got ${describe(device)}; expected desktop or mobile`);
    }
    const sessionId = read.string('gamesessionid', { maxLength: 64 });
    const accountId = read.string('accountid', { optional: name === 'getaccount', pattern: /^[0-9a-zA-Z]{1,60}$/ });
    if (name !== 'getaccount') read.gameId();
    if (problems.length > 0 || name === undefined) return refuse('technical', problems);

    if (
      name === 'getaccount' &&
      bugs.has('session-takeover') &&
      accountId !== undefined &&
      ledger.has(accountId) &&
      sessionId !== undefined &&
      !sessions.owner(sessionId)
    ) {
      sessions.adopt(sessionId, accountId);
    }
    const owner = accountId ?? (sessionId === undefined ? undefined : sessions.owner(sessionId));
    const player = owner === undefined ? undefined : ledger.get(owner);
    // Sessions are checked where Groove says so; results and rollbacks settle even after the session ended.
    const sessionChecked = name === 'getaccount' || name === 'getbalance' || name === 'wager' || name === 'wagerandresult';
    if (!player) {
      if (name === 'getaccount')
        return refuse('notLoggedOn', [`gamesessionid: ${describe(sessionId)} is no session of this casino`]);
      return refuse('notAllowed', [`accountid: no player ${describe(accountId)} in this casino`]);
    }
    if (sessionChecked && player.token !== undefined && !sessions.belongsTo(sessionId ?? '', player.playerId)) {
      return refuse('notLoggedOn', [
        `gamesessionid: ${describe(sessionId)} is not the session this casino opened for ${player.playerId}`,
      ]);
    }
    const balances = () => ({ balance: money(player.units), real_balance: money(player.units), bonus_balance: 0 });

    if (name === 'getaccount') {
      return answer('success', {
        accountid: player.playerId,
        city: '',
        country: '',
        currency: player.currency,
        gamesessionid: sessionId,
        ...balances(),
      });
    }
    if (name === 'getbalance') return answer('success', balances());

    const transactionId = read.string('transactionid', { maxLength: 255 });
    const roundId = read.string('roundid', {
      maxLength: 255,
      optional: name === 'rollback' || name === 'reversewin' || name === 'rollbackrollback',
    });
    const frbId = read.string('frbid', { optional: true }) ?? read.string('frbId', { optional: true });
    const betUnits = name === 'wager' || name === 'wagerandresult' ? read.amount('betamount') : undefined;
    const resultUnits = name === 'result' || name === 'wagerandresult' ? read.amount('result') : undefined;
    const amountUnits = name === 'jackpot' || name === 'reversewin' ? read.amount('amount') : undefined;
    const rollbackUnits =
      name === 'rollback' || name === 'rollbackrollback'
        ? (read.amount('rollbackAmount', { optional: true }) ?? read.amount('rollbackamount', { optional: true }))
        : undefined;
    const gameStatus = name === 'result' || name === 'wagerandresult' ? read.string('gamestatus') : undefined;
    if (gameStatus !== undefined && gameStatus !== 'completed' && gameStatus !== 'pending') {
      return refuse('notAllowed', [`gamestatus: got ${describe(gameStatus)}; expected completed or pending`]);
    }
    const negative = problems.find((problem) => problem.includes('is negative'));
    if (negative) return refuse('notAllowed', problems);
    if (problems.length > 0 || transactionId === undefined) return refuse('technical', problems);

    // Idempotency: one transactionid, one outcome, per kind of request.
    const essentials = [player.playerId, betUnits, resultUnits, amountUnits].join('|');
    const key = `${name}\u0000${transactionId}`;
    if (bugs.has('funds-before-duplicate') && betUnits !== undefined && player.units < betUnits) {
      return answer('outOfMoney', balances());
    }
    const earlier = recall.remembers(key) ? processed.get(key) : undefined;
    if (earlier) {
      if (earlier.essentials !== essentials) {
        return refuse('mismatch', [
          `transactionid ${transactionId}: a ${name} with this id was processed with other essential fields (accountid or amount)`,
        ]);
      }
      return answer('duplicate', style === 'B' ? earlier.first : { ...earlier.reply, ...balances() });
    }
    const done = (reply: Record<string, unknown>): HandledReply => {
      const first = { ...reply, ...balances() };
      processed.set(key, { essentials, reply, first });
      recall.note(key);
      return answer('success', first);
    };
    const walletId = () => `gr-${nextWalletId++}`;

    if (name === 'wager' || name === 'wagerandresult') {
      const round = roundOf(player.playerId, roundId!);
      if (round.completed) return refuse('roundClosed', [`roundid ${roundId}: the round already has its completed result`]);
      if ((wagers.has(transactionId) && recall.remembers(key)) || rolledBackBeforeArrival.has(transactionId)) {
        // Used by another request kind, or rolled back before it came: never charged.
        return answer('roundClosed', balances());
      }
      const units = betUnits!;
      const credit = resultUnits ?? 0;
      if (player.units < units) return answer('outOfMoney', balances());
      player.units += credit - units;
      const wagerId = walletId();
      wagers.set(transactionId, { playerId: player.playerId, roundId: roundId!, units, walletId: wagerId, rolledBack: false });
      round.wagers.push(transactionId);
      if (name === 'wager') return done({ accounttransactionid: wagerId, realmoneybet: money(units), bonusmoneybet: 0 });
      credits.set(transactionId, {
        playerId: player.playerId,
        roundId: roundId!,
        units: credit,
        walletId: wagerId,
        reversed: false,
      });
      round.resulted = true;
      round.completed = gameStatus === 'completed';
      return done({ walletTx: wagerId, realmoneybet: money(units), bonusmoneybet: 0, realMoneyWin: money(credit), bonusWin: 0 });
    }

    if (name === 'result' || name === 'jackpot') {
      const units = (resultUnits ?? amountUnits)!;
      const round = roundOf(player.playerId, roundId!);
      if (credits.has(transactionId)) return answer('roundClosed', balances());
      if (name === 'result') {
        const live = round.wagers.some((id) => !wagers.get(id)!.rolledBack);
        if (!live && frbId === undefined) {
          return refuse('notAllowed', [
            `roundid ${roundId}: no ${round.wagers.length > 0 ? 'wager left (all were rolled back)' : 'wager'} of ${player.playerId} in this round to settle; a result without a wager needs frbid`,
          ]);
        }
        if (round.completed) return refuse('roundClosed', [`roundid ${roundId}: the round already has its completed result`]);
        round.resulted = true;
        round.completed = gameStatus === 'completed';
      }
      player.units += units;
      const id = walletId();
      credits.set(transactionId, { playerId: player.playerId, roundId: roundId!, units, walletId: id, reversed: false });
      return done(name === 'result' ? { walletTx: id, realMoneyWin: money(units), bonusWin: 0 } : { walletTx: id });
    }

    if (name === 'rollback' || name === 'rollbackrollback') {
      const wager = wagers.get(transactionId);
      if (!wager) {
        if (name === 'rollback') rolledBackBeforeArrival.add(transactionId);
        return answer('wagerNotFound', balances());
      }
      if (wager.playerId !== player.playerId || (roundId !== undefined && wager.roundId !== roundId)) {
        return refuse('notAllowed', [
          `transactionid ${transactionId}: the wager belongs to ${wager.playerId}, round ${wager.roundId}`,
        ]);
      }
      if (rollbackUnits !== undefined && rollbackUnits !== wager.units) {
        errors.push(
          `${where}: rollbackAmount ${unitsToDecimal(rollbackUnits, SCALE)} differs from the wager's betamount ${unitsToDecimal(wager.units, SCALE)}; the wager's amount was used`,
        );
      }
      if (name === 'rollback') {
        if (roundOf(wager.playerId, wager.roundId).resulted) {
          return refuse('notAllowed', [`transactionid ${transactionId}: a result was already received for this wager's round`]);
        }
        if (!wager.rolledBack) {
          wager.rolledBack = true;
          player.units += wager.units;
        }
        return done({ accounttransactionid: walletId() });
      }
      if (wager.rolledBack) {
        if (player.units < wager.units) return answer('outOfMoney', balances());
        wager.rolledBack = false;
        player.units -= wager.units;
      }
      return done({ accounttransactionid: walletId() });
    }

    // reversewin: take back a result once.
    const credit = credits.get(transactionId);
    if (!credit || credit.playerId !== player.playerId) return answer('wagerNotFound', balances());
    if (amountUnits !== undefined && amountUnits !== credit.units) {
      errors.push(
        `${where}: amount ${unitsToDecimal(amountUnits, SCALE)} differs from the result it reverses (${unitsToDecimal(credit.units, SCALE)}); the result's amount was taken back`,
      );
    }
    if (!credit.reversed) {
      credit.reversed = true;
      // A sportsbook re-settles after a reversal: the round takes a new result. Taken even below zero.
      player.units -= credit.units;
      roundOf(credit.playerId, credit.roundId).completed = false;
    }
    return done({ accounttransactionid: walletId() });
  };

  return startLoopbackReceiver(handle, balanceOf);
}

/** undefined when X-Groove-Signature is right, else the sentence saying what is wrong. */
function verifySignature(request: ReceivedRequest, key: string): string | undefined {
  const header = request.headers['x-groove-signature'];
  const given = (Array.isArray(header) ? header[0] : header)?.trim();
  if (!given) return 'X-Groove-Signature: required (signature validation is enabled for this casino) but missing';
  const sortName = (name: string) => (name === 'nogsgameid' ? 'gameid' : name);
  const decoded = [...request.query].filter(([name]) => name !== 'request');
  const raw = request.rawQuery
    .split('&')
    .filter(Boolean)
    .map((part) => {
      const at = part.indexOf('=');
      return [decodeURIComponent(at < 0 ? part : part.slice(0, at)), at < 0 ? '' : part.slice(at + 1)] as const;
    })
    .filter(([name]) => name !== 'request');
  const orders = [
    (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0),
    (a: string, b: string) => (a.toLowerCase() < b.toLowerCase() ? -1 : a.toLowerCase() > b.toLowerCase() ? 1 : 0),
  ];
  for (const values of [decoded, raw]) {
    for (const order of orders) {
      const text = [...values]
        .sort((a, b) => order(sortName(a[0]), sortName(b[0])))
        .map(([, value]) => value)
        .join('');
      const digest = createHmac('sha256', key).update(text).digest();
      if (constantTimeEqual(given.toLowerCase(), digest.toString('hex')) || constantTimeEqual(given, digest.toString('base64'))) {
        return undefined;
      }
    }
  }
  return 'X-Groove-Signature: does not match HMAC-SHA256(security key) of the query values concatenated in the order of their names (request left out); was it computed over the values as sent?';
}

/** Reads query parameters, one sentence per deviation. */
class QueryReader {
  constructor(
    private readonly query: URLSearchParams,
    private readonly problems: string[],
  ) {}

  string(name: string, rule: { optional?: boolean; maxLength?: number; pattern?: RegExp } = {}): string | undefined {
    const value = this.query.get(name);
    if (value === null || value === '') {
      if (!rule.optional) this.problems.push(`${name}: required but missing; expected a non-empty value`);
      return undefined;
    }
    if (rule.maxLength !== undefined && value.length > rule.maxLength) {
      this.problems.push(`${name}: ${value.length} characters; expected at most ${rule.maxLength}`);
      return undefined;
    }
    if (rule.pattern && !rule.pattern.test(value)) {
      this.problems.push(`${name}: got ${describe(value)}; expected ${rule.pattern.source}`);
      return undefined;
    }
    return value;
  }

  /** gameid, or nogsgameid (getbalance names it so). */
  gameId(): string | undefined {
    const value = this.query.get('gameid') || this.query.get('nogsgameid');
    if (!value) this.problems.push('gameid: required but missing (nor nogsgameid); expected the Groove game id');
    return value ?? undefined;
  }

  /** A Decimal(32,10) amount in major units as integer units; "null" counts as absent where optional. */
  amount(name: string, rule: { optional?: boolean } = {}): number | undefined {
    const value = this.query.get(name);
    if (value === null || value === '' || (rule.optional && value === 'null')) {
      if (!rule.optional) this.problems.push(`${name}: required but missing; expected a decimal amount such as 10.50`);
      return undefined;
    }
    const match = /^(-?)(\d+)(?:\.(\d+))?$/.exec(value);
    if (match?.[1]) {
      this.problems.push(`${name}: ${value} is negative; expected an amount of 0 or more`);
      return undefined;
    }
    const units = match
      ? decimalToUnits(`${match[2]}${match[3] ? `.${match[3].replace(/0+$/, '') || '0'}` : ''}`, SCALE)
      : undefined;
    if (units === undefined) {
      this.problems.push(`${name}: got ${describe(value)}; expected a decimal with at most ${SCALE} significant fraction digits`);
    }
    return units;
  }
}
