/**
 * A careful Pragmatic Play operator wallet (Seamless Wallet API), written from Pragmatic Play's
 * Integration API Specification as integrators summarise it, to judge aggmock's Pragmatic wire.
 * Pragmatic calls the operator with POST https://{operator}/{method}.html, body
 * application/x-www-form-urlencoded, every call carrying `hash` = MD5 hex of the other parameters
 * sorted by name, joined as k=v&k=v, with the secret key appended (options.credentials.secretKey).
 * Replies are JSON with `error` (0 = success) and `description`.
 *
 * Sources (all [S], read as text; Pragmatic's PDF itself is not public):
 * - search-index id 61200119308: an integrator's structured summary of "Integration API
 *   Specification" (207 pp.): every method's parameters and which are required, the data types
 *   (userId String(100) case-sensitive, roundId Long, gameId String(32), reference String(32),
 *   amount Decimal(10,2) minimum 0.00, timestamp Unix milliseconds), the hash rule (§3.2, a
 *   mismatch is error 5), idempotency on `reference` ("a retry gets the player's actual balance"),
 *   refund: `reference` is the original bet's, a refund of a bet that is not found must do
 *   nothing and return 0 or a specific error; endRound may come several times and a closed round
 *   answers success; the refund reply has no balance; the error codes (§3.17).
 * - search-index id 53311382369: the same integrator's flow notes (reference = idempotency key,
 *   a retry of a processed request returns the current balance and moves no money; refund of an
 *   unknown bet: no money, success; bonusWin may carry 0.00).
 * - https://scribd.com/document/745866493/Pragmatic-integration-api-specification-old (v3.85
 *   change log): refund's amount, gameId, roundId, timestamp, roundDetails, bonusCode are optional.
 * - /work/shared/research/wires.md §2.5 (summary of the above).
 *
 * Unknown in the sources, and the choice made (the most lenient reading a real wallet would accept):
 * - Whether the hash skips parameters with an empty value, and whether "alphabetical" order is
 *   case-sensitive: every one of those readings is accepted.
 * - The expected providerId value: any non-empty string.
 * - Where the token is checked: authenticate (required there, it is how the player is found) and
 *   bet when it carries one. result, bonusWin, jackpotWin, refund, endRound, promoWin are paid
 *   whatever their token (they may come after the session, e.g. promoWin ~30 min late).
 * - result for a round without a bet (free rounds, bonus rounds): credited, not an error.
 * - result.promoWinAmount: added to cash on top of amount (the summary: it "must be added to cash").
 * - A refund whose amount differs from the bet, or whose userId is not the bet's: error 7, no money.
 * - A bet that arrives after a refund of its reference was answered "not found": charged as a new bet.
 * - A reused reference with other details (amount, user, round): recorded as a request error and
 *   answered as the first transaction (no money), since the rule is "only one transaction per reference".
 * - Unknown paths get HTTP 404 {error: 7}; the wallet serves the seven methods of the brief plus
 *   bonusWin and jackpotWin (money-moving calls Pragmatic documents the same way).
 *
 * Style 'B' (options.style), a second correct wallet (sources: the same summary, id 61200119308):
 * - §3.4: the launch token is "a one-time token we generate and pass to PP", and the authenticate
 *   reply's optional `token` is "the player token/session (can be configured to be returned in all
 *   later API calls)". B answers authenticate with a fresh session token; the launch token is then
 *   refused (error 4) on authenticate and bet, and bets must carry the new one. A answers the same token.
 * - §3.11: a refund whose bet is not found "must do nothing and return success (0) or a specific
 *   error code". B answers error 120 ("Internal server error, retry NOT required", §3.17, the one
 *   code whose refunds are not sent to reconciliation); which specific code is unknown. A answers 0.
 * Both styles answer a retried bet with the current balance (§3.6: "return the actual balance").
 * Planted bugs (options.bugs): funds-before-duplicate, forgetful-dedupe (references), crashes-on-cut-request,
 * crashes-on-malformed-param (an amount parameter that is no number: HTTP 500).
 * The hash signs a form (no JSON, no static credential) and authenticate names no player: no other applies.
 *
 * What goes into `errors`: problems with the request itself (hash, encoding, method, a missing or
 * malformed parameter, an unknown path or user, a token that is not the player's, a reused
 * reference with other details, a refund that does not match its bet). Refusals a correct caller
 * also meets (insufficient balance, refund of a bet the wallet never saw) are not errors.
 */
import { createHash } from 'node:crypto';
import {
  constantTimeEqual,
  decimalToUnits,
  type HandledReply,
  openingLedger,
  type ReceivedRequest,
  startLoopbackReceiver,
  unitsToDecimal,
  type VendorReceiver,
} from './receiver-kit.ts';
import { CRASH_REPLY, DedupeRecall, plantedBugs, type ReceiverOptions, SessionBook } from './receiver-style.ts';

export type { ReceiverPlayer, VendorReceiver } from './receiver-kit.ts';

/** Pragmatic amounts are Decimal(10,2): kept as integer cents inside. */
const SCALE = 2;

export const PragmaticError = {
  success: 0,
  insufficientBalance: 1,
  playerNotFound: 2,
  authenticationFailed: 4,
  invalidHash: 5,
  badParameters: 7,
} as const;

type Format = 'text' | 'decimal' | 'long' | 'millis' | 'currency';

interface ParamRule {
  format: Format;
  required: boolean;
  /** Longest value the spec allows, in characters. */
  max?: number;
}

const req = (format: Format, max?: number): ParamRule => ({ format, required: true, max });
const opt = (format: Format, max?: number): ParamRule => ({ format, required: false, max });

/** Shared column types of §3.3. */
const userId = req('text', 100);
const gameId = req('text', 32);
const roundId = req('long');
const reference = req('text', 32);
const amount = req('decimal');
const providerId = req('text');
const timestamp = req('millis');

const methods = {
  '/authenticate.html': { token: req('text'), providerId, gameId: opt('text', 32), ipAddress: opt('text') },
  '/balance.html': { providerId, userId, token: opt('text') },
  '/bet.html': {
    userId,
    gameId,
    roundId,
    amount,
    reference,
    providerId,
    timestamp,
    roundDetails: req('text', 4000),
    bonusCode: opt('text'),
    platform: opt('text'),
    language: opt('text'),
    jackpotContribution: opt('decimal'),
    jackpotId: opt('text'),
    jackpotDetails: opt('text'),
    token: opt('text'),
    ipAddress: opt('text'),
  },
  '/result.html': {
    userId,
    gameId,
    roundId,
    amount,
    reference,
    providerId,
    timestamp,
    roundDetails: req('text', 4000),
    bonusCode: opt('text'),
    platform: opt('text'),
    token: opt('text'),
    promoWinAmount: opt('decimal'),
    promoWinReference: opt('text', 32),
    promoCampaignID: opt('long'),
    promoCampaignType: opt('text'),
  },
  '/bonusWin.html': {
    userId,
    amount,
    reference,
    providerId,
    timestamp,
    bonusCode: req('text'),
    roundId: opt('long'),
    gameId: opt('text', 32),
    token: opt('text'),
    requestId: opt('text'),
    remainAmount: opt('text'),
  },
  '/jackpotWin.html': {
    providerId,
    timestamp,
    userId,
    gameId,
    roundId,
    jackpotId: req('text'),
    amount,
    reference,
    platform: opt('text'),
    token: opt('text'),
    jackpotDetails: opt('text'),
    balanceBeforeWin: opt('decimal'),
    balanceAfterWin: opt('decimal'),
  },
  '/endRound.html': {
    userId,
    gameId,
    roundId,
    providerId,
    bonusCode: opt('text'),
    platform: opt('text'),
    token: opt('text'),
    roundDetails: opt('text', 4000),
    win: opt('decimal'),
  },
  '/refund.html': {
    userId,
    reference,
    providerId,
    platform: opt('text'),
    amount: opt('decimal'),
    gameId: opt('text', 32),
    roundId: opt('long'),
    timestamp: opt('millis'),
    roundDetails: opt('text', 4000),
    bonusCode: opt('text'),
    token: opt('text'),
  },
  '/promoWin.html': {
    providerId,
    timestamp,
    userId,
    campaignId: req('long'),
    campaignType: req('text'),
    amount,
    currency: req('currency'),
    reference,
    roundId: opt('long'),
    gameId: opt('text', 32),
    dataType: opt('text'),
  },
} satisfies Record<string, Record<string, ParamRule>>;

type Method = keyof typeof methods;
type Params = Record<string, string>;

const formatProblems: Record<Format, (value: string) => string | undefined> = {
  text: (value) => (value === '' ? 'an empty value' : undefined),
  decimal: (value) =>
    decimalToUnits(value, SCALE) === undefined ? 'not a decimal ≥ 0.00 with at most 2 fraction digits (e.g. 10.50)' : undefined,
  long: (value) => (/^\d{1,19}$/.test(value) ? undefined : 'not a Long (digits only)'),
  millis: (value) => (/^\d{13}$/.test(value) ? undefined : 'not a Unix timestamp in milliseconds (13 digits; seconds have 10)'),
  currency: (value) => (/^[A-Z]{3}$/.test(value) ? undefined : 'not an ISO 4217 code'),
};

/** The first problem with the parameters, as a sentence naming the field, or undefined. */
function paramProblem(params: Params, rules: Record<string, ParamRule>): string | undefined {
  for (const [name, rule] of Object.entries(rules)) {
    const value = params[name];
    if (value === undefined) {
      if (rule.required) return `parameter ${name} is missing`;
      continue;
    }
    const problem = formatProblems[rule.format](value);
    if (problem) return `parameter ${name}=${JSON.stringify(value)} is ${problem}`;
    if (rule.max !== undefined && value.length > rule.max)
      return `parameter ${name} is ${value.length} characters; at most ${rule.max}`;
  }
  return undefined;
}

/**
 * The hashes a correct sender may have computed (§3.2): MD5 hex of the parameters other than
 * `hash`, sorted by name, as k=v joined with &, then the secret key. The sources leave open
 * whether empty values are skipped and whether the sort ignores case; each reading is one candidate.
 */
export function pragmaticHashCandidates(params: Params, secretKey: string): string[] {
  const entries = Object.entries(params).filter(([name]) => name !== 'hash');
  const orders = [
    (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0),
    (a: string, b: string) => a.toLowerCase().localeCompare(b.toLowerCase()),
  ];
  const candidates = new Set<string>();
  for (const order of orders) {
    for (const skipEmpty of [false, true]) {
      const text = entries
        .filter(([, value]) => !skipEmpty || value !== '')
        .sort(([a], [b]) => order(a, b))
        .map(([name, value]) => `${name}=${value}`)
        .join('&');
      candidates.add(
        createHash('md5')
          .update(text + secretKey)
          .digest('hex'),
      );
    }
  }
  return [...candidates];
}

/** One money transaction the wallet has processed, by kind and reference. */
interface StoredTransaction {
  transactionId: string;
  userId: string;
  units: number;
  roundId: string | undefined;
  /** For a bet: the refund that gave it back, once. */
  refundId?: string;
}

/**
 * Starts a Pragmatic Play operator wallet on 127.0.0.1. `credentials.secretKey` is the key shared
 * with Pragmatic that the hash is computed with.
 *
 * @example
 * const wallet = await startPragmaticReceiver({ credentials: { secretKey: 'testKey' }, players: [{ playerId: '421', currency: 'USD', balance: '100.00', token: '5v93mto7jr' }] });
 * // POST `${wallet.url}/bet.html` (form body with hash) …; then wallet.balanceOf('421'), wallet.errors
 */
export async function startPragmaticReceiver(options: ReceiverOptions): Promise<VendorReceiver> {
  const key = options.credentials.secretKey;
  if (!key) throw new Error('pragmatic receiver: credentials.secretKey (the key the MD5 hash is computed with) is required');
  const secretKey: string = key;
  const ledger = openingLedger(options.players, SCALE);
  /** Processed money transactions, keyed "kind reference". */
  const transactions = new Map<string, StoredTransaction>();
  /** Refunds of bets the wallet never saw, by the bet reference: answered with the same id again. */
  const refundsOfUnknown = new Map<string, string>();
  let nextTransaction = 0;
  const style = options.style ?? 'A';
  const bugs = plantedBugs('pragmatic', options.bugs, [
    'funds-before-duplicate',
    'forgetful-dedupe',
    'crashes-on-cut-request',
    'crashes-on-malformed-param',
  ]);
  const recall = new DedupeRecall(bugs.has('forgetful-dedupe'));
  const sessions = new SessionBook(options.players);
  const newTransactionId = () => `W${String(++nextTransaction).padStart(9, '0')}`;

  function handle(request: ReceivedRequest, errors: string[]): HandledReply {
    const where = `${request.method} ${request.path}`;
    const refuse = (code: number, text: string, fields: Params = {}, httpStatus = 200): HandledReply => {
      errors.push(`${where}: ${text}`);
      return { status: httpStatus, body: { error: code, description: text }, fields };
    };

    if (!Object.hasOwn(methods, request.path)) {
      return refuse(PragmaticError.badParameters, `unknown path; Pragmatic calls ${Object.keys(methods).join(', ')}`, {}, 404);
    }
    const method = request.path as Method;
    if (request.method !== 'POST')
      return refuse(PragmaticError.badParameters, 'method must be POST (parameters in the form body)');
    const contentType = String(request.headers['content-type'] ?? '');
    if (!/^application\/x-www-form-urlencoded\s*(;|$)/i.test(contentType)) {
      return refuse(
        PragmaticError.badParameters,
        `Content-Type is ${JSON.stringify(contentType)}; expected application/x-www-form-urlencoded`,
      );
    }
    if (request.query.size > 0)
      errors.push(
        `${where}: parameters in the query string (${[...request.query.keys()].join(', ')}); Pragmatic sends them in the form body`,
      );

    const form = new URLSearchParams(request.rawBody.toString('utf8'));
    const params: Params = {};
    for (const [name, value] of form) {
      if (Object.hasOwn(params, name)) return refuse(PragmaticError.badParameters, `parameter ${name} appears twice`, params);
      params[name] = value;
    }

    const hash = params.hash;
    if (hash === undefined || hash === '') return refuse(PragmaticError.invalidHash, 'parameter hash is missing', params);
    const matches = pragmaticHashCandidates(params, secretKey).some((candidate) =>
      constantTimeEqual(candidate, hash.toLowerCase()),
    );
    if (!matches) {
      return refuse(
        PragmaticError.invalidHash,
        'hash does not match MD5(sorted k=v&… of every other parameter + secretKey); was a parameter added, re-encoded or left out after hashing?',
        params,
      );
    }

    const problem = paramProblem(params, methods[method]);
    const missing = problem?.endsWith('is missing') === true;
    const crash =
      problem !== undefined &&
      ((bugs.has('crashes-on-cut-request') && missing) ||
        (bugs.has('crashes-on-malformed-param') && problem.startsWith('parameter amount=')));
    if (problem) return crash ? { ...CRASH_REPLY, fields: params } : refuse(PragmaticError.badParameters, problem, params);

    const body = answer(method, params, (text) => errors.push(`${where}: ${text}`));
    return { status: 200, body, fields: params };
  }

  /** The wallet's answer to a well-formed, correctly hashed call. `problem` records a request-side error. */
  function answer(method: Method, params: Params, problem: (text: string) => void): Record<string, unknown> {
    const failure = (code: number, description: string) => ({ error: code, description });

    if (method === '/authenticate.html') {
      const owner = sessions.owner(params.token as string);
      const player = owner === undefined ? undefined : ledger.get(owner);
      if (!player) {
        problem(`token ${JSON.stringify(params.token)} is not a session token this wallet issued`);
        return failure(PragmaticError.authenticationFailed, 'Player authentication failed');
      }
      return {
        userId: player.playerId,
        currency: player.currency,
        cash: cash(player.units),
        bonus: 0,
        token: style === 'B' ? sessions.rotate(params.token as string, player.playerId, 'pp') : params.token,
        error: 0,
        description: 'Success',
      };
    }

    const player = ledger.get(params.userId as string);
    if (!player) {
      problem(`userId ${JSON.stringify(params.userId)} is not a player of this wallet (userId is case-sensitive)`);
      return failure(PragmaticError.playerNotFound, 'Player not found');
    }
    const balance = () => ({ currency: player.currency, cash: cash(player.units), bonus: 0 });
    const success = (transactionId: string, extra: Record<string, unknown> = {}) => ({
      transactionId,
      ...balance(),
      ...extra,
      error: 0,
      description: 'Success',
    });

    switch (method) {
      case '/balance.html':
        return { ...balance(), error: 0, description: 'Success' };

      case '/endRound.html':
        // Moves no money; a repeated endRound of a closed round is a success too (the spec).
        return { cash: cash(player.units), bonus: 0, error: 0, description: 'Success' };

      case '/refund.html': {
        const bet = transactions.get(`bet ${params.reference}`);
        if (!bet && style === 'B') return failure(120, 'Bet not found; nothing refunded (no retry required)');
        if (!bet) {
          const earlier = refundsOfUnknown.get(params.reference as string) ?? newTransactionId();
          refundsOfUnknown.set(params.reference as string, earlier);
          return { transactionId: earlier, error: 0, description: 'Success' };
        }
        if (bet.userId !== player.playerId) {
          problem(`refund of reference ${params.reference} names userId ${player.playerId}, but the bet was ${bet.userId}'s`);
          return failure(PragmaticError.badParameters, 'Bad parameters: the bet belongs to another player');
        }
        const refundUnits = params.amount === undefined ? bet.units : decimalToUnits(params.amount, SCALE);
        if (refundUnits !== bet.units) {
          problem(`refund amount ${params.amount} is not the bet amount ${cash(bet.units)} of reference ${params.reference}`);
          return failure(PragmaticError.badParameters, 'Bad parameters: refund amount differs from the bet');
        }
        if (bet.refundId === undefined) {
          bet.refundId = newTransactionId();
          player.units += bet.units;
        }
        return { transactionId: bet.refundId, error: 0, description: 'Success' };
      }

      case '/promoWin.html':
        if (params.currency !== player.currency) {
          problem(`currency ${params.currency} is not ${player.playerId}'s currency ${player.currency}`);
          return failure(PragmaticError.badParameters, 'Bad parameters: currency');
        }
        return credit('promoWin', decimalToUnits(params.amount as string, SCALE) as number);

      case '/result.html': {
        const promo = params.promoWinAmount === undefined ? 0 : (decimalToUnits(params.promoWinAmount, SCALE) as number);
        return credit('result', (decimalToUnits(params.amount as string, SCALE) as number) + promo);
      }
      case '/bonusWin.html':
        return credit('bonusWin', decimalToUnits(params.amount as string, SCALE) as number);
      case '/jackpotWin.html':
        return credit('jackpotWin', decimalToUnits(params.amount as string, SCALE) as number);

      case '/bet.html': {
        const units = decimalToUnits(params.amount as string, SCALE) as number;
        if (bugs.has('funds-before-duplicate') && player.units < units) {
          return { ...failure(PragmaticError.insufficientBalance, 'Insufficient balance'), ...balance() };
        }
        const repeated = repeatOf('bet', units);
        if (repeated) return repeated;
        if (params.token !== undefined && player.token !== undefined && !sessions.belongsTo(params.token, player.playerId)) {
          problem(`token ${JSON.stringify(params.token)} is not the session token issued to ${player.playerId}`);
          return failure(PragmaticError.authenticationFailed, 'Player authentication failed');
        }
        if (player.units < units) return { ...failure(PragmaticError.insufficientBalance, 'Insufficient balance'), ...balance() };
        player.units -= units;
        const transactionId = newTransactionId();
        transactions.set(`bet ${params.reference}`, { transactionId, userId: player.playerId, units, roundId: params.roundId });
        recall.note(`bet ${params.reference}`);
        return success(transactionId, { usedPromo: 0 });
      }
    }

    /** Idempotency on reference: a processed transaction again gets its id and the current balance, and moves nothing. */
    function repeatOf(kind: string, units: number): Record<string, unknown> | undefined {
      const key = `${kind} ${params.reference}`;
      const known = recall.remembers(key) ? transactions.get(key) : undefined;
      if (!known) return undefined;
      const differences = [
        known.userId !== player!.playerId ? 'userId' : '',
        known.units !== units ? `amount ${cash(known.units)} vs ${params.amount}` : '',
        known.roundId !== params.roundId ? 'roundId' : '',
      ].filter(Boolean);
      if (differences.length > 0)
        problem(`reference ${params.reference} was already a ${kind} with other details (${differences.join(', ')})`);
      return success(known.transactionId, kind === 'bet' ? { usedPromo: 0 } : {});
    }

    function credit(kind: string, units: number): Record<string, unknown> {
      const repeated = repeatOf(kind, units);
      if (repeated) return repeated;
      player!.units += units;
      const transactionId = newTransactionId();
      transactions.set(`${kind} ${params.reference}`, {
        transactionId,
        userId: player!.playerId,
        units,
        roundId: params.roundId,
      });
      recall.note(`${kind} ${params.reference}`);
      return success(transactionId);
    }
  }

  return startLoopbackReceiver(handle, (playerId) => {
    const player = ledger.get(playerId);
    if (!player) throw new Error(`pragmatic receiver: no player ${playerId}`);
    return unitsToDecimal(player.units, SCALE);
  });
}

/** Cents as the JSON number Pragmatic's examples show (99999.99); exact, since cents/100 of a safe integer prints exactly. */
function cash(units: number): number {
  return Number(unitsToDecimal(units, SCALE));
}
