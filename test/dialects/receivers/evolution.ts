/**
 * A careful Evolution One Wallet, written from what is public of Evolution's wallet API, to judge a
 * sender of Evolution's wallet calls. Evolution's own spec is not public; every rule below comes
 * from an open-source integration that quotes it.
 *
 * Sources (valkyrie-fnd/valkyrie @ fe49faae254f20311af90157952f9c365779768a, provider/evolution/):
 * - router.go: POST {base}/check, /balance, /debit, /credit, /cancel, /promo_payout; middleware.go:
 *   query parameter `authToken` compared with the configured API token, else HTTP 401.
 * - model.go: RequestBase {sid, userId required; uuid}; currency (3 letters) on balance/debit/credit/
 *   cancel/promo_payout; game {id, type, details.table {id, vid}}; transaction {id, refId, amount};
 *   promoTransaction {type, id, amount, voucherId, remainingRounds}; replies {status, balance,
 *   bonus, uuid} and, for check, {status, sid, uuid}.
 * - controller_test.go, cases "… example from specs": the request and reply examples (amounts are
 *   JSON numbers such as 1.556179); an unparsable or invalid body is HTTP 400 INVALID_PARAMETER.
 * - errors.go: statuses OK, TEMPORARY_ERROR, UNKNOWN_ERROR, INVALID_SID, INSUFFICIENT_FUNDS,
 *   INVALID_TOKEN_ID (HTTP 401), INVALID_PARAMETER, BET_ALREADY_SETTLED, BET_DOES_NOT_EXIST.
 * - test/evo_integration_test.go ("A copy of Evo's licensee integration tests"): a repeated debit is
 *   "BET_ALREADY_EXIST or OK" and charged once; credit settles the debit with the same refId; credit
 *   or cancel of an unknown bet is BET_DOES_NOT_EXIST; a second credit, a cancel after a credit, a
 *   second cancel and a credit after a cancel are BET_ALREADY_SETTLED; a cancel carries the debit's
 *   own transaction id and refId; a userId the sid does not belong to is INVALID_SID (also on credit
 *   and cancel); INSUFFICIENT_FUNDS returns the unchanged balance; a zero credit is a loss.
 *
 * What is unknown, and the choice made (the most lenient a real wallet would accept):
 * - /check may return a new sid; this wallet returns the same one, so a sender that keeps using it
 *   is right either way.
 * - `uuid` is optional (valkyrie marks it omitempty) and echoed when present.
 * - A repeated debit (same transaction.id, refId, amount and user) is answered OK with the current
 *   balance; one that reuses the id or the refId with other details is BET_ALREADY_EXIST, no money.
 *   A repeated debit of a cancelled bet is BET_ALREADY_SETTLED.
 * - Amounts: a JSON number, at most 6 decimals (Valkyrie writes 6); a numeric string is refused.
 * - A currency other than the player's is INVALID_PARAMETER (HTTP 200, balance shown).
 * - The cancel's amount is not trusted: the debit's own amount is refunded.
 * - The wallet has no bonus money: `bonus` is always 0.
 *
 * Style 'B' (options.style), a second correct wallet; each difference is allowed by the same sources:
 * - /check answers a fresh sid and the sid it was asked with is then INVALID_SID on every call
 *   (evo_integration_test.go Test_checkUsingNewSID: "if a new SID returned after initialization,
 *   further requests storing old SID must be rejected"; wallet_service.go answers the PAM's
 *   RefreshSession token). Other sids of the same user stay valid (Test_... "separate bets placed
 *   within different sids and channels").
 * - A repeated debit (same id, refId, amount, user) is BET_ALREADY_EXIST with the current balance,
 *   charged once (Test_debitBetAlreadyExist: "BET_ALREADY_EXIST or OK").
 *
 * Planted bugs (options.bugs): ignores-credential (authToken not compared), session-takeover (/check
 * with a known userId and a sid never issued is OK and makes that sid the player's),
 * funds-before-duplicate, forgetful-dedupe (debit ids; see receiver-style.ts), accepts-old-token
 * (/check answers a new sid as style B does, and the sid it replaced still places debits).
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

/** Evolution's examples carry 6 decimals (1.556179). */
const EVOLUTION_SCALE = 6;

const PATHS = ['/check', '/balance', '/debit', '/credit', '/cancel', '/promo_payout'] as const;
type EvolutionPath = (typeof PATHS)[number];

interface EvolutionBet {
  playerId: string;
  id: string;
  refId: string;
  amount: number;
  state: 'open' | 'settled' | 'cancelled';
}

export async function startEvolutionReceiver(options: ReceiverOptions): Promise<VendorReceiver> {
  const authToken = options.credentials.authToken;
  if (!authToken) throw new Error('evolution receiver: credentials.authToken (the API token sent as ?authToken=) is required');
  const ledger = openingLedger(options.players, EVOLUTION_SCALE);
  const style = options.style ?? 'A';
  const bugs = plantedBugs('evolution', options.bugs, [
    'ignores-credential',
    'session-takeover',
    'funds-before-duplicate',
    'forgetful-dedupe',
    'accepts-old-token',
  ]);
  const sessions = new SessionBook(options.players);
  const recall = new DedupeRecall(bugs.has('forgetful-dedupe'));
  /** Debits by transaction.id, and the same debits by player + refId. */
  const debits = new Map<string, EvolutionBet>();
  const betsByRef = new Map<string, EvolutionBet>();
  const promoPayouts = new Set<string>();

  const handle = (request: ReceivedRequest, errors: string[]): HandledReply => {
    const where = `${request.method} ${request.path}`;
    if (request.method !== 'POST' || !(PATHS as readonly string[]).includes(request.path)) {
      errors.push(`${where}: not an Evolution wallet call; expected POST to one of ${PATHS.join(', ')}`);
      return { status: 404, body: { status: 'INVALID_PARAMETER' }, fields: {} };
    }
    const path = request.path as EvolutionPath;
    const parsed = parseJsonObject(request.rawBody);
    const fields = 'body' in parsed ? parsed.body : {};
    const uuid = typeof fields.uuid === 'string' ? fields.uuid : undefined;
    const reply = (httpStatus: number, status: string, units = 0): HandledReply => ({
      status: httpStatus,
      body: { status, balance: Number(unitsToDecimal(units, EVOLUTION_SCALE)), bonus: 0, uuid },
      fields,
    });

    const given = request.query.get('authToken');
    if (!bugs.has('ignores-credential') && (given === null || !constantTimeEqual(given, authToken))) {
      errors.push(
        `${where}: ${given === null ? 'authToken query parameter missing' : 'authToken query parameter does not match the API token'}; Evolution sends ?authToken=<API token> on every call`,
      );
      return reply(401, 'INVALID_TOKEN_ID');
    }
    const contentType = request.headers['content-type'];
    if (!contentType || !/^application\/json\b/i.test(contentType)) {
      errors.push(`${where}: Content-Type is ${JSON.stringify(contentType ?? null)}; Evolution sends application/json`);
    }
    if ('problem' in parsed) {
      errors.push(`${where}: ${parsed.problem}`);
      return reply(400, 'INVALID_PARAMETER');
    }
    const body = parsed.body;
    const read = new FieldReader();
    const sid = read.string(body, 'sid', { nonEmpty: true });
    const userId = read.string(body, 'userId', { nonEmpty: true });
    read.string(body, 'uuid', { optional: true });
    let currency: string | undefined;
    let transaction: { id?: string; refId?: string; units?: number } = {};
    let promo: { id?: string; units?: number } = {};
    if (path === '/check') {
      const channel = read.object(body, 'channel', { optional: true });
      if (channel) read.nested('channel').string(channel, 'type', { optional: true });
    } else {
      currency = read.string(body, 'currency', { nonEmpty: true });
      if (currency !== undefined && !/^[A-Z]{3}$/.test(currency)) {
        read.report('currency', `got ${JSON.stringify(currency)}; expected a 3-letter ISO 4217 code`);
      }
    }
    if (path === '/debit' || path === '/credit' || path === '/cancel') {
      readGame(read, body, false);
      const object = read.object(body, 'transaction');
      if (object) {
        const inner = read.nested('transaction');
        transaction = {
          id: inner.string(object, 'id', { nonEmpty: true }),
          refId: inner.string(object, 'refId', { nonEmpty: true }),
          units: readAmount(inner, object, 'amount'),
        };
      }
    }
    if (path === '/promo_payout') {
      readGame(read, body, true);
      const object = read.object(body, 'promoTransaction');
      if (object) {
        const inner = read.nested('promoTransaction');
        inner.string(object, 'type', { nonEmpty: true });
        inner.string(object, 'voucherId', { optional: true });
        inner.integer(object, 'remainingRounds', { optional: true, min: 0 });
        promo = { id: inner.string(object, 'id', { nonEmpty: true }), units: readAmount(inner, object, 'amount') };
      }
    }
    if (read.problems.length > 0 || sid === undefined || userId === undefined) {
      for (const problem of read.problems) errors.push(`${where}: ${problem}`);
      return reply(400, 'INVALID_PARAMETER');
    }

    // The sid must be one this wallet issued to this userId (evo_integration_test: INVALID_SID).
    const player = ledger.get(userId);
    if (path === '/check' && player && bugs.has('session-takeover') && sessions.owner(sid) === undefined) {
      sessions.adopt(sid, userId);
    }
    if (!player || !sessions.belongsTo(sid, userId)) return reply(200, 'INVALID_SID');
    if (path === '/check') {
      const keepsOld = bugs.has('accepts-old-token');
      const answered = style === 'B' || keepsOld ? sessions.rotate(sid, userId, 'evo-sid', keepsOld) : sid;
      return { status: 200, body: { status: 'OK', sid: answered, uuid }, fields };
    }
    if (currency !== player.currency) return reply(200, 'INVALID_PARAMETER', player.units);
    if (path === '/balance') return reply(200, 'OK', player.units);

    if (path === '/promo_payout') {
      const { id, units } = promo as { id: string; units: number };
      // "Payout the same promo again … First payout should affect balance, the second should not."
      if (!promoPayouts.has(id)) {
        promoPayouts.add(id);
        player.units += units;
      }
      return reply(200, 'OK', player.units);
    }

    const { id, refId, units } = transaction as { id: string; refId: string; units: number };
    const refKey = `${player.playerId}\u0000${refId}`;
    if (path === '/debit') {
      if (bugs.has('funds-before-duplicate') && units > player.units) return reply(200, 'INSUFFICIENT_FUNDS', player.units);
      const stored = debits.get(id);
      const known = stored && recall.remembers(id) ? stored : undefined;
      if (known) {
        const same = known.playerId === player.playerId && known.refId === refId && known.amount === units;
        if (!same) return reply(200, 'BET_ALREADY_EXIST', player.units);
        if (known.state === 'cancelled') return reply(200, 'BET_ALREADY_SETTLED', player.units);
        return reply(200, style === 'B' ? 'BET_ALREADY_EXIST' : 'OK', player.units);
      }
      if (!stored && betsByRef.has(refKey)) return reply(200, 'BET_ALREADY_EXIST', player.units);
      if (units > player.units) return reply(200, 'INSUFFICIENT_FUNDS', player.units);
      player.units -= units;
      const bet: EvolutionBet = { playerId: player.playerId, id, refId, amount: units, state: 'open' };
      debits.set(id, bet);
      betsByRef.set(refKey, bet);
      recall.note(id);
      return reply(200, 'OK', player.units);
    }

    if (path === '/credit') {
      const bet = betsByRef.get(refKey);
      if (!bet) return reply(200, 'BET_DOES_NOT_EXIST', player.units);
      if (bet.state !== 'open') return reply(200, 'BET_ALREADY_SETTLED', player.units);
      bet.state = 'settled';
      player.units += units;
      return reply(200, 'OK', player.units);
    }

    // Cancel: "use the same transId as for the original transaction" together with its refId.
    const bet = debits.get(id);
    if (!bet || bet.playerId !== player.playerId || bet.refId !== refId) return reply(200, 'BET_DOES_NOT_EXIST', player.units);
    if (bet.state !== 'open') return reply(200, 'BET_ALREADY_SETTLED', player.units);
    bet.state = 'cancelled';
    player.units += bet.amount;
    return reply(200, 'OK', player.units);
  };

  return startLoopbackReceiver(handle, (playerId) => {
    const player = ledger.get(playerId);
    if (!player) throw new Error(`evolution receiver: no player ${JSON.stringify(playerId)}`);
    return unitsToDecimal(player.units, EVOLUTION_SCALE);
  });
}

/** game {id (the round), type, details.table {id, vid}}; promo_payout's example sends "game": null. */
function readGame(read: FieldReader, body: JsonObject, nullable: boolean): void {
  const game = read.object(body, 'game', { nullable });
  if (!game) return;
  const inner = read.nested('game');
  inner.string(game, 'id', { nonEmpty: !nullable, optional: nullable });
  inner.string(game, 'type', { optional: true });
  const details = inner.object(game, 'details', { optional: true });
  if (!details) return;
  const table = inner.nested('details').object(details, 'table', { optional: true });
  if (!table) return;
  const tableReader = inner.nested('details').nested('table');
  tableReader.string(table, 'id', { optional: true });
  tableReader.string(table, 'vid', { optional: true });
}

/** A JSON number >= 0 with at most 6 decimals, as integer units; the spec examples send 1.556179. */
function readAmount(read: FieldReader, object: JsonObject, name: string): number | undefined {
  const value = read.number(object, name);
  if (value === undefined) return undefined;
  // String(n) of a parsed JSON number is its shortest exact form, e.g. 1.556179 -> "1.556179".
  const units = value >= 0 ? decimalToUnits(String(value), EVOLUTION_SCALE) : undefined;
  if (units === undefined) {
    read.report(name, `got ${value}; expected a non-negative amount with at most ${EVOLUTION_SCALE} decimals`);
  }
  return units;
}
