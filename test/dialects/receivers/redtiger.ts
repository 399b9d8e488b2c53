/**
 * A careful Red Tiger wallet, to judge a sender of Red Tiger's wallet calls. Red Tiger's API docs
 * are behind a login (valkyrie provider/redtiger/docs/index.md: "Requires login to access"), so
 * every rule here comes from the open-source integration that implements them.
 *
 * Sources (valkyrie-fnd/valkyrie @ fe49faae254f20311af90157952f9c365779768a, provider/redtiger/):
 * - router.go: POST /auth, /stake, /payout, /refund (and /promo/*, not modelled here);
 *   middleware.go: `Authorization: Basic <api key>` compared with the API key, else HTTP 401
 *   code 100; a configured recon token is refused on /stake (401, code 301) and accepted on payout
 *   and refund (reconciliation).
 * - models.go: BaseRequest {token (required, 32–128 chars), userId (≤36), casino (≤50), currency
 *   (≤8), ip}; transaction {id (≤32), stake|payout, stakePromo|payoutPromo, details, sources};
 *   game {type, key, version}; round {id (≤32), starts, ends}; promo; retry; Money is a decimal
 *   string with 2 decimals ("10.00"), jackpot money 6; replies {success, result{token, currency, id,
 *   stake|payout{cash, bonus}, balance{cash, bonus}}}, the refund's balance and currency beside
 *   `result`; errors HTTP 400 {success:false, error{message, code}}.
 * - errors.go: codes 100 API auth, 200 invalid input, 201 generic, 301 not authorized, 302 user not
 *   found, 303 banned, 304 insufficient funds, 305 invalid currency, 306 limited, 400 transaction
 *   not found, 401 duplicate transaction, 500 internal, 501 maintenance.
 * - test/integration_test.go: a repeated stake or payout id is 200 with the balance unchanged; an
 *   unknown userId or token is 301; a foreign currency is 305; a negative amount is 200; a stake
 *   above the balance is 304; a stake of 0 is fine; more stakes on a round are fine until a payout
 *   ended it, then refused; the refund carries the stake's transaction id and refunds the stake's
 *   amount whatever amount it states; a refund of an unknown id is 400; a second refund moves no
 *   money and succeeds.
 *
 * What is unknown, and the choice made (the most lenient a real wallet would accept):
 * - `Authorization: Basic <key>` is the documented form; valkyrie also accepts the bare key, and so
 *   does this wallet (no problem recorded).
 * - Money as a JSON number instead of a string: refused (code 200), since every source writes a
 *   string; more than 2 decimals is refused too.
 * - A payout needs no earlier stake (promo and jackpot payouts exist); a payout whose round.ends
 *   is true ends the round.
 * - A refund after a payout on its round is still applied.
 * - The reply's `result.id` is this wallet's own transaction id (valkyrie returns the PAM's).
 * - `stakePromo`/`payoutPromo` are promotional money this wallet does not hold: not moved; `bonus`
 *   is always "0.00". `country`/`language` are left out of the auth reply (the wallet has none).
 *
 * Style 'B' (options.style), a second correct wallet: /auth answers a fresh token in result.token
 * (wallet_service.go: "Use the new token returned by refresh session for subsequent calls", the
 * PAM's RefreshSession token), and the token /auth was called with is refused from then on (301).
 * Whether the PAM keeps the old token alive is unknown; B is the strict reading, A keeps it.
 * Both validate token lengths (32–128, models.go) and bind a token to its userId.
 *
 * Planted bugs (options.bugs): ignores-credential (the Authorization API key is not compared),
 * session-takeover (/auth with a known userId and a well-formed token never issued is accepted and
 * the token becomes that player's), funds-before-duplicate, forgetful-dedupe (transaction ids).
 */

import { FieldReader, type JsonObject, parseJsonObject } from './json-fields.ts';
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
import { DedupeRecall, plantedBugs, type ReceiverOptions, SessionBook } from './receiver-style.ts';

/** Red Tiger money is a decimal string with 2 decimals. */
const REDTIGER_SCALE = 2;
const TOKEN_LENGTH = { min: 32, max: 128 };

const PATHS = ['/auth', '/stake', '/payout', '/refund'] as const;
type RedTigerPath = (typeof PATHS)[number];

const CODE = {
  apiAuth: 100,
  invalidInput: 200,
  notAuthorized: 301,
  insufficientFunds: 304,
  invalidCurrency: 305,
  transactionNotFound: 400,
  duplicateTransaction: 401,
} as const;

interface RedTigerTransaction {
  kind: 'stake' | 'payout';
  walletId: string;
  playerId: string;
  round: string;
  amount: number;
  refunded: boolean;
}

export async function startRedTigerReceiver(options: ReceiverOptions): Promise<VendorReceiver> {
  const apiKey = options.credentials.apiKey;
  if (!apiKey) throw new Error('redtiger receiver: credentials.apiKey (sent as Authorization: Basic <api key>) is required');
  const reconToken = options.credentials.reconToken;
  const ledger = openingLedger(options.players, REDTIGER_SCALE);
  for (const player of ledger.values()) {
    if (player.token !== undefined && (player.token.length < TOKEN_LENGTH.min || player.token.length > TOKEN_LENGTH.max)) {
      throw new Error(
        `redtiger receiver: player ${player.playerId}'s token must be ${TOKEN_LENGTH.min}–${TOKEN_LENGTH.max} characters (Red Tiger's token length), got ${player.token.length}`,
      );
    }
  }
  const transactions = new Map<string, RedTigerTransaction>();
  const endedRounds = new Set<string>();
  let walletIds = 0;
  const style = options.style ?? 'A';
  const bugs = plantedBugs('redtiger', options.bugs, [
    'ignores-credential',
    'session-takeover',
    'funds-before-duplicate',
    'forgetful-dedupe',
  ]);
  const sessions = new SessionBook(options.players);
  const recall = new DedupeRecall(bugs.has('forgetful-dedupe'));

  const handle = (request: ReceivedRequest, errors: string[]): HandledReply => {
    const where = `${request.method} ${request.path}`;
    const parsed = parseJsonObject(request.rawBody);
    const fields = 'body' in parsed ? parsed.body : {};
    const refuse = (httpStatus: number, code: number, message: string): HandledReply => ({
      status: httpStatus,
      body: { success: false, error: { message, code } },
      fields,
    });
    if (request.method !== 'POST' || !(PATHS as readonly string[]).includes(request.path)) {
      errors.push(`${where}: not a Red Tiger wallet call; expected POST to one of ${PATHS.join(', ')}`);
      return refuse(404, CODE.invalidInput, `unknown path ${request.path}`);
    }
    const path = request.path as RedTigerPath;

    const authorization = request.headers.authorization ?? '';
    const presented = authorization.replace(/^Basic /i, '');
    if (!bugs.has('ignores-credential') && !constantTimeEqual(presented, apiKey)) {
      errors.push(
        `${where}: ${authorization === '' ? 'Authorization header missing' : 'Authorization does not carry the API key'}; Red Tiger sends Authorization: Basic <api key>`,
      );
      return refuse(401, CODE.apiAuth, 'API authentication error');
    }
    const contentType = request.headers['content-type'];
    if (!contentType || !/^application\/json\b/i.test(contentType)) {
      errors.push(`${where}: Content-Type is ${JSON.stringify(contentType ?? null)}; Red Tiger sends application/json`);
    }
    if ('problem' in parsed) {
      errors.push(`${where}: ${parsed.problem}`);
      return refuse(400, CODE.invalidInput, `Invalid input: ${parsed.problem}`);
    }
    const body = parsed.body;
    const read = new FieldReader();
    const token = read.string(body, 'token', { nonEmpty: true, maxLength: TOKEN_LENGTH.max });
    if (token !== undefined && token.length < TOKEN_LENGTH.min) {
      read.report('token', `got ${token.length} characters; expected ${TOKEN_LENGTH.min}–${TOKEN_LENGTH.max}`);
    }
    const userId = read.string(body, 'userId', { optional: true, maxLength: 36 });
    read.string(body, 'casino', { optional: true, maxLength: 50 });
    read.string(body, 'ip', { optional: true });
    const currency = read.string(body, 'currency', { optional: path === '/auth', nonEmpty: true, maxLength: 8 });
    let transactionId: string | undefined;
    let amount: number | undefined;
    let round: { id?: string; ends?: boolean } = {};
    if (path === '/auth') {
      read.string(body, 'channel', { optional: true, maxLength: 8 });
      read.string(body, 'affiliate', { optional: true, maxLength: 255 });
      read.string(body, 'extras', { optional: true });
    } else {
      const money = path === '/payout' ? 'payout' : 'stake';
      const transaction = read.object(body, 'transaction');
      if (transaction) {
        const inner = read.nested('transaction');
        transactionId = inner.string(transaction, 'id', { nonEmpty: true, maxLength: 32 });
        amount = readMoney(inner, transaction, money, REDTIGER_SCALE);
        readMoney(inner, transaction, `${money}Promo`, REDTIGER_SCALE, true);
        const details = inner.object(transaction, 'details', { optional: true });
        if (details) {
          readMoney(inner.nested('details'), details, 'game', REDTIGER_SCALE, true);
          readMoney(inner.nested('details'), details, 'jackpot', path === '/payout' ? 6 : REDTIGER_SCALE, true);
        }
        inner.object(transaction, 'sources', { optional: true });
      }
      const game = read.object(body, 'game');
      if (game) {
        const inner = read.nested('game');
        inner.string(game, 'type', { optional: true });
        inner.string(game, 'key', { nonEmpty: true, maxLength: 128 });
        inner.string(game, 'version', { optional: true, maxLength: 128 });
      }
      const roundObject = read.object(body, 'round');
      if (roundObject) {
        const inner = read.nested('round');
        round = {
          id: inner.string(roundObject, 'id', { nonEmpty: true, maxLength: 32 }),
          ends: inner.boolean(roundObject, 'ends', { optional: true }),
        };
        inner.boolean(roundObject, 'starts', { optional: true });
      }
      read.object(body, 'promo', { optional: true });
      read.object(body, 'jackpot', { optional: true });
      if (path === '/payout') read.boolean(body, 'retry', { optional: true });
    }
    if (read.problems.length > 0 || token === undefined) {
      for (const problem of read.problems) errors.push(`${where}: ${problem}`);
      return refuse(400, CODE.invalidInput, `Invalid input: ${read.problems.join('; ')}`);
    }

    // Who is playing: the token's owner; the recon token (payout and refund only) names the player by userId.
    const isRecon = reconToken !== undefined && constantTimeEqual(token, reconToken);
    if (isRecon && (path === '/stake' || path === '/auth')) return refuse(401, CODE.notAuthorized, 'Not authorized');
    if (
      path === '/auth' &&
      bugs.has('session-takeover') &&
      userId !== undefined &&
      ledger.has(userId) &&
      !sessions.owner(token)
    ) {
      sessions.adopt(token, userId);
    }
    const owner = isRecon ? userId : sessions.owner(token);
    const player = owner === undefined ? undefined : ledger.get(owner);
    if (!player || (userId !== undefined && userId !== player.playerId)) return refuse(400, CODE.notAuthorized, 'Not authorized');
    if (currency !== undefined && currency !== player.currency) {
      return refuse(400, CODE.invalidCurrency, `currency ${currency} is not the player's ${player.currency}`);
    }
    const balance = (): { cash: string; bonus: string } => ({
      cash: unitsToDecimal(player.units, REDTIGER_SCALE),
      bonus: '0.00',
    });

    if (path === '/auth') {
      const answered = style === 'B' ? sessions.rotate(token, player.playerId, 'rt') : token;
      return {
        status: 200,
        body: {
          success: true,
          result: {
            token: answered,
            currency: player.currency,
            userId: player.playerId,
            casino: body.casino,
            balance: balance(),
          },
        },
        fields,
      };
    }
    const id = transactionId as string;
    const units = amount as number;
    const roundId = round.id as string;
    const moneyReply = (kind: 'stake' | 'payout', walletId: string, moved: number): HandledReply => ({
      status: 200,
      body: {
        success: true,
        result: {
          token,
          currency: player.currency,
          id: walletId,
          [kind]: { cash: unitsToDecimal(moved, REDTIGER_SCALE), bonus: '0.00' },
          balance: balance(),
        },
      },
      fields,
    });

    if (path === '/refund') {
      const stake = transactions.get(id);
      if (stake?.kind !== 'stake' || stake.playerId !== player.playerId) {
        return refuse(400, CODE.transactionNotFound, `no stake ${id} for this player`);
      }
      if (!stake.refunded) {
        stake.refunded = true;
        player.units += stake.amount;
      }
      return {
        status: 200,
        body: {
          success: true,
          result: { token, id: stake.walletId, stake: { cash: unitsToDecimal(stake.amount, REDTIGER_SCALE), bonus: '0.00' } },
          balance: balance(),
          currency: player.currency,
        },
        fields,
      };
    }

    const kind = path === '/stake' ? 'stake' : 'payout';
    if (bugs.has('funds-before-duplicate') && kind === 'stake' && units > player.units) {
      return refuse(400, CODE.insufficientFunds, 'Insufficient funds');
    }
    const known = recall.remembers(id) ? transactions.get(id) : undefined;
    if (known) {
      const same = known.kind === kind && known.playerId === player.playerId && known.round === roundId && known.amount === units;
      return same
        ? moneyReply(kind, known.walletId, known.amount)
        : refuse(400, CODE.duplicateTransaction, `transaction ${id} was already used with other details`);
    }
    const roundKey = `${player.playerId}\u0000${roundId}`;
    if (kind === 'stake') {
      if (endedRounds.has(roundKey)) return refuse(400, CODE.invalidInput, 'Additional bet on game round not allowed');
      if (units > player.units) return refuse(400, CODE.insufficientFunds, 'Insufficient funds');
      player.units -= units;
    } else {
      player.units += units;
      if (round.ends) endedRounds.add(roundKey);
    }
    const walletId = `RT-W${++walletIds}`;
    transactions.set(id, { kind, walletId, playerId: player.playerId, round: roundId, amount: units, refunded: false });
    recall.note(id);
    return moneyReply(kind, walletId, units);
  };

  return startLoopbackReceiver(handle, (playerId) => {
    const player = ledger.get(playerId);
    if (!player) throw new Error(`redtiger receiver: no player ${JSON.stringify(playerId)}`);
    return unitsToDecimal(player.units, REDTIGER_SCALE);
  });
}

/** Money: a non-negative decimal string ("10.00") with at most `scale` decimals, as integer units. */
function readMoney(read: FieldReader, object: JsonObject, name: string, scale: number, optional = false): number | undefined {
  const value = read.string(object, name, { optional });
  if (value === undefined) return undefined;
  const units = decimalToUnits(value, scale);
  if (units === undefined)
    read.report(
      name,
      `got ${JSON.stringify(value)}; expected a non-negative decimal string with at most ${scale} decimals, e.g. "10.00"`,
    );
  return units;
}
