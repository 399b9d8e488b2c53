/**
 * A casino wallet for 100HP Gaming's Game flow API (v2.9.1), written from the vendor's
 * documentation, to judge aggmock's 100HP wire independently.
 *
 * Sources (vendor docs, provider.100hp.game):
 * - /withdrawal-money-27045087e0, /deposit-money-27045088e0, /rollback-money-27045090e0: paths,
 *   bodies {secret, sessionId, txId, amount, userId}, reply {userId, currency, balance, sessionId};
 *   "As a result of a loss, we will send amount = 0"; the rollback "cancels the last withdrawal";
 * - /general-api-provision-1930915m0: the secret compared for equality; amounts and balances with
 *   more than 2 decimal places are truncated to 2; the deposit uses the withdrawal's txId; a deposit
 *   after a rollback -> "Transaction already refunded"; a rollback after a deposit -> "Transaction
 *   already settled";
 * - /get-balance-27045084e0: POST /balance {sessionId, secret} -> {userId, currency, balance};
 *   604 Session not found;
 * - /http-status-codes-and-custom-error-codes-1941472m0: the HTTP status is the errCode, body
 *   {data:"", errCode, message}; 400 validation, 601 invalid secret, 605 transaction not found,
 *   608 transaction already refunded, 702 internal wallet error;
 * - research note wires.md §2.17.
 *
 * Unknown, chosen leniently (each marked "unknown:" below): the errCode for insufficient funds, an
 * unknown player and "already settled" (400 with a plain message here: no code for them was found);
 * the path and body of "Player authorization" (/auth, read like /balance: the player is found by
 * the launch sessionId; the reply adds sessionId); whether money calls must carry the launch session
 * (not checked: the docs' examples use other sessionIds there); whether /bonusWin carries the same fields as a deposit (it is read
 * so, with its own txId and no withdrawal); whether a repeated rollback is an error (it is answered
 * with the first reply, no money moved).
 *
 * Style 'B' (options.style), a second correct wallet: a repeated withdrawal, deposit or rollback is
 * answered with today's balance instead of its first reply. unknown: the docs do not say which
 * balance a repeat shows, only that a txId is processed once.
 *
 * Planted bugs (options.bugs): ignores-credential (the body's secret not compared),
 * session-takeover (/auth or /balance with a known userId and a sessionId never issued is accepted
 * and the session becomes that player's), funds-before-duplicate, forgetful-dedupe (txIds).
 */
import { FieldReader, type JsonObject, parseJsonObject } from './json-fields.ts';
import {
  constantTimeEqual,
  type HandledReply,
  openingLedger,
  type ReceivedRequest,
  startLoopbackReceiver,
  unitsToDecimal,
  type VendorReceiver,
} from './receiver-kit.ts';
import { DedupeRecall, plantedBugs, type ReceiverOptions, SessionBook } from './receiver-style.ts';

const SCALE = 2;
const ROUTES = ['/withdrawal', '/deposit', '/rollback', '/bonusWin', '/auth', '/balance'] as const;
type Route = (typeof ROUTES)[number];

interface Withdrawal {
  userId: string;
  amount: number;
  reply: JsonObject;
  deposit?: JsonObject;
  rollback?: JsonObject;
}

function failure(errCode: number, message: string, fields: JsonObject): HandledReply {
  return { status: errCode, body: { data: '', errCode, message }, fields };
}

/** "104.129" -> 10412: the docs say more than 2 places are truncated, not rounded. */
export function truncatedUnits(text: string): number | undefined {
  const match = /^(\d+)(?:\.(\d+))?$/.exec(text);
  if (!match) return undefined;
  const units = Number(match[1] + (match[2] ?? '').slice(0, SCALE).padEnd(SCALE, '0'));
  return Number.isSafeInteger(units) ? units : undefined;
}

/**
 * Starts the wallet on 127.0.0.1. `credentials.secret` is the key 100HP sends in every body.
 * @example const wallet = await startHundredHpReceiver({ credentials: { secret: 's' }, players });
 */
export async function startHundredHpReceiver(options: ReceiverOptions): Promise<VendorReceiver> {
  const secret = options.credentials.secret ?? '';
  if (secret === '') throw new Error('startHundredHpReceiver: credentials.secret is required');
  const ledger = openingLedger(options.players, SCALE);
  const withdrawals = new Map<string, Withdrawal>();
  const bonusWins = new Map<string, { userId: string; reply: JsonObject }>();
  const style = options.style ?? 'A';
  const bugs = plantedBugs('100hp', options.bugs, [
    'ignores-credential',
    'session-takeover',
    'funds-before-duplicate',
    'forgetful-dedupe',
  ]);
  const recall = new DedupeRecall(bugs.has('forgetful-dedupe'));
  const sessions = new SessionBook(options.players);

  function handle(request: ReceivedRequest, errors: string[]): HandledReply {
    const where = `${request.method} ${request.path}`;
    const route = request.path as Route;
    if (request.method !== 'POST' || !ROUTES.includes(route)) {
      errors.push(`${where}: not a 100HP wallet route; expected POST ${ROUTES.join(', ')}`);
      return failure(400, 'Unknown route', {});
    }
    const parsed = parseJsonObject(request.rawBody);
    if ('problem' in parsed) {
      errors.push(`${where}: ${parsed.problem}`);
      return failure(400, 'Validation error: body is not a JSON object', {});
    }
    const body = parsed.body;
    const given = body.secret;
    if (!bugs.has('ignores-credential') && (typeof given !== 'string' || !constantTimeEqual(given, secret))) {
      errors.push(`${where}: secret ${typeof given === 'string' ? 'is not the one 100HP was given' : 'is missing'}`);
      return failure(601, 'Invalid secret key', {});
    }
    const reader = new FieldReader();
    const sessionId = reader.string(body, 'sessionId', { nonEmpty: true });
    const bySession = route === '/auth' || route === '/balance';
    // The balance page's body is {sessionId, secret}: the player is found by the session there.
    const userId = reader.string(body, 'userId', { nonEmpty: true, optional: bySession });
    const moves = route === '/withdrawal' || route === '/deposit' || route === '/bonusWin';
    const txId = bySession ? undefined : reader.string(body, 'txId', { nonEmpty: true });
    const amountText = moves ? reader.string(body, 'amount', { nonEmpty: true }) : undefined;
    const amount = amountText === undefined ? undefined : truncatedUnits(amountText);
    if (amountText !== undefined && amount === undefined) {
      reader.report(
        'amount',
        `got ${JSON.stringify(amountText)}; expected a non-negative decimal string such as "100" or "10.50"`,
      );
    }
    const fields: JsonObject = { sessionId, userId, txId, amount: amountText };
    if (reader.problems.length > 0) {
      for (const problem of reader.problems) errors.push(`${where}: ${problem}`);
      return failure(400, `Validation error: ${reader.problems.join('; ')}`, fields);
    }
    let player = userId === undefined ? undefined : ledger.get(userId);
    if (bySession) {
      // The session the casino issued at launch names the player; 604 "Session not found" (the
      // balance page) otherwise, or when a userId sent beside it is someone else's.
      if (bugs.has('session-takeover') && userId !== undefined && ledger.has(userId) && !sessions.owner(sessionId as string)) {
        sessions.adopt(sessionId as string, userId);
      }
      const ownerId = sessions.owner(sessionId as string);
      const owner = ownerId === undefined ? undefined : ledger.get(ownerId);
      if (!owner || (userId !== undefined && owner.playerId !== userId)) return failure(604, 'Session not found', fields);
      player = owner;
    }
    // unknown: the errCode for an unknown player.
    if (!player) return failure(400, 'Player not found', fields);
    const ok = (): JsonObject => ({
      userId: player.playerId,
      currency: player.currency,
      balance: unitsToDecimal(player.units, SCALE),
      sessionId,
    });
    if (route === '/balance') {
      const { sessionId: _omitted, ...balance } = ok();
      return { status: 200, body: balance, fields };
    }
    // unknown: the authorization reply; the money calls' shape.
    if (route === '/auth') return { status: 200, body: ok(), fields };

    const id = txId as string;
    const withdrawal = recall.remembers(id) ? withdrawals.get(id) : undefined;
    /** A repeat's answer: the first reply (A) or today's balance (B). */
    const again = (first: JsonObject): HandledReply => ({ status: 200, body: style === 'B' ? ok() : first, fields });
    if (withdrawal && withdrawal.userId !== player.playerId) {
      errors.push(`${where}: txId ${id} belongs to player ${withdrawal.userId}, not ${player.playerId}`);
      return failure(605, 'Transaction not found', fields);
    }
    switch (route) {
      case '/withdrawal': {
        const short = (amount as number) > player.units;
        if (bugs.has('funds-before-duplicate') && short) return failure(400, 'Insufficient funds', fields);
        if (withdrawal) return again(withdrawal.reply);
        // unknown: the errCode for insufficient funds.
        if (short) return failure(400, 'Insufficient funds', fields);
        player.units -= amount as number;
        const reply = ok();
        withdrawals.set(id, { userId: player.playerId, amount: amount as number, reply });
        recall.note(id);
        return { status: 200, body: reply, fields };
      }
      case '/deposit': {
        if (!withdrawal) return failure(605, 'Transaction not found', fields);
        if (withdrawal.rollback) return failure(608, 'Transaction already refunded', fields);
        if (withdrawal.deposit) return again(withdrawal.deposit);
        player.units += amount as number;
        withdrawal.deposit = ok();
        return { status: 200, body: withdrawal.deposit, fields };
      }
      case '/rollback': {
        if (!withdrawal) return failure(605, 'Transaction not found', fields);
        // unknown: the errCode for "already settled".
        if (withdrawal.deposit) return failure(400, 'Transaction already settled', fields);
        if (withdrawal.rollback) return again(withdrawal.rollback);
        player.units += withdrawal.amount;
        withdrawal.rollback = ok();
        return { status: 200, body: withdrawal.rollback, fields };
      }
      default: {
        // /bonusWin: a credit of its own, outside any withdrawal.
        const known = bonusWins.get(id);
        if (known && known.userId === player.playerId) return again(known.reply);
        if (known || withdrawal) {
          errors.push(`${where}: txId ${id} was already used by another transaction`);
          return failure(400, `Validation error: txId ${id} already used`, fields);
        }
        player.units += amount as number;
        const reply = ok();
        bonusWins.set(id, { userId: player.playerId, reply });
        return { status: 200, body: reply, fields };
      }
    }
  }

  return startLoopbackReceiver(handle, (playerId) => {
    const player = ledger.get(playerId);
    if (!player) throw new Error(`unknown player ${playerId}`);
    return unitsToDecimal(player.units, SCALE);
  });
}
