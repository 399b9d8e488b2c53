/**
 * A casino wallet for the SoftSwiss Game Aggregator (GCP) / BGaming seamless API, written from the
 * vendor's wire as integrators implement it, to judge aggmock's SoftSwiss wire independently.
 *
 * Sources:
 * - research note wires.md §2.7 (SoftSwiss GCP and BGaming), which cites the open-source operator
 *   code wendell1101/t1softxxx: admin/application/controllers/softswiss_seamless_service_api.php,
 *   bgaming_seamless_service_api.php, submodules/game-lib/game_platform/game_api_bgaming_seamless.php
 *   (generateRequestSign), and admin/application/config/routes.php.
 *
 * What it checks: POST /play and POST /rollback (JSON); X-REQUEST-SIGN = HMAC-SHA256 hex of the raw
 * body keyed by the casino auth token; user_id, currency, actions[] (bet/win on /play, rollback on
 * /rollback) with string action_id and integer subunit amounts. Replies {balance, game_id,
 * transactions:[{action_id, tx_id, processed_at}]}; errors are non-2xx {code, message, balance?}.
 *
 * Unknown in the sources, chosen leniently (each marked "unknown:" below): the subunit exponent per
 * currency (2 for every currency here), whether `game` / `game_id` / `finished` are required on a
 * balance request (t1: optional there, required with actions), the HTTP status for an unknown player
 * (412 + 101 here), and whether a win needs a bet in the same round (t1 answers 404; nothing from
 * the vendor says so, so a lone win is paid here). A rollback of a win larger than the balance
 * succeeds without moving money, as t1 does.
 *
 * Style 'B' (options.style), a second correct wallet: a request whose actions were all processed
 * before gets the reply it got the first time (the balance then, the same tx_ids); A answers with
 * the stored tx_ids and today's balance. unknown: the sources only say a repeated action_id is not
 * processed again (t1 answers it from its stored transaction), not which balance the reply shows.
 *
 * Planted bugs (options.bugs): reserialised-signature (X-REQUEST-SIGN over JSON.stringify of the
 * parsed body), funds-before-duplicate (a bet above the balance is refused before the action_id
 * lookup), forgetful-dedupe (action ids). SoftSwiss signs its calls (no static credential) and has
 * no authenticate call (no session to take over).
 */
import { createHmac } from 'node:crypto';
import { FieldReader, isObject, type JsonObject, parseJsonObject } from './json-fields.ts';
import {
  constantTimeEqual,
  type HandledReply,
  openingLedger,
  type ReceivedRequest,
  startLoopbackReceiver,
  unitsToDecimal,
  type VendorReceiver,
} from './receiver-kit.ts';
import { DedupeRecall, plantedBugs, type ReceiverOptions, signedBytes } from './receiver-style.ts';

/** unknown: the sources say "subunits" without a per-currency table; cents for every currency here. */
const SCALE = 2;

interface StoredAction {
  kind: 'bet' | 'win' | 'rollback';
  userId: string;
  amount: number;
  txId: string;
  processedAt: string;
  /** A bet or win reversed by a rollback. */
  rolledBack: boolean;
}

type Action =
  | { kind: 'bet' | 'win'; actionId: string; amount: number }
  | { kind: 'rollback'; actionId: string; originalActionId: string };

function error(status: number, code: number, message: string, fields: JsonObject, balance?: number): HandledReply {
  return { status, body: balance === undefined ? { code, message } : { code, message, balance }, fields };
}

/**
 * Starts the wallet on 127.0.0.1. `credentials.authToken` is the casino auth token that keys
 * X-REQUEST-SIGN.
 * @example const wallet = await startSoftswissReceiver({ credentials: { authToken: 't' }, players });
 */
export async function startSoftswissReceiver(options: ReceiverOptions): Promise<VendorReceiver> {
  const authToken = options.credentials.authToken ?? '';
  if (authToken === '') throw new Error('startSoftswissReceiver: credentials.authToken is required (the casino auth token)');
  const ledger = openingLedger(options.players, SCALE);
  const actions = new Map<string, StoredAction>();
  /** Originals whose rollback came before them: a late bet is answered from the rollback, uncharged. */
  const rolledBackUnknown = new Map<string, StoredAction>();
  let nextTx = 1;
  const style = options.style ?? 'A';
  const bugs = plantedBugs('softswiss', options.bugs, ['reserialised-signature', 'funds-before-duplicate', 'forgetful-dedupe']);
  const recall = new DedupeRecall(bugs.has('forgetful-dedupe'));
  /** Style B: the first reply to each request, by its path, player and action ids. */
  const firstReplies = new Map<string, JsonObject>();

  function handle(request: ReceivedRequest, errors: string[]): HandledReply {
    const where = `${request.method} ${request.path}`;
    if (request.method !== 'POST' || (request.path !== '/play' && request.path !== '/rollback')) {
      errors.push(`${where}: not a SoftSwiss wallet route; expected POST /play or POST /rollback`);
      return error(404, 404, 'Not found', {});
    }
    const sign = request.headers['x-request-sign'];
    const signed = signedBytes(request.rawBody, bugs.has('reserialised-signature'));
    const expected = createHmac('sha256', authToken).update(signed).digest('hex');
    if (typeof sign !== 'string' || !constantTimeEqual(sign.toLowerCase(), expected)) {
      errors.push(
        `${where}: X-REQUEST-SIGN ${typeof sign === 'string' ? 'does not match' : 'is missing'}; expected the HMAC-SHA256 hex of the raw body keyed by the auth token`,
      );
      return error(403, 403, "Forbidden. (Request sign doesn't match)", {});
    }
    const parsed = parseJsonObject(request.rawBody);
    if ('problem' in parsed) {
      errors.push(`${where}: ${parsed.problem}`);
      return error(400, 400, 'Bad request', {});
    }
    const body = parsed.body;
    const reader = new FieldReader();
    const userId = reader.string(body, 'user_id', { nonEmpty: true });
    const currency = reader.string(body, 'currency', { nonEmpty: true });
    // t1's controller requires game and game_id (the round) once there are actions; a balance
    // request (no actions) may leave them out.
    const hasActions = Array.isArray(body.actions) && body.actions.length > 0;
    const game = reader.string(body, 'game', { optional: !hasActions, nonEmpty: true });
    const gameId = reader.string(body, 'game_id', { optional: !hasActions, nonEmpty: true });
    reader.boolean(body, 'finished', { optional: true });
    const list = readActions(body, request.path === '/play' ? ['bet', 'win'] : ['rollback'], reader);
    const fields: JsonObject = { user_id: userId, currency, game, game_id: gameId, actions: list };
    if (request.path === '/rollback' && list?.length === 0)
      reader.report('actions', 'empty; a rollback carries at least one action');
    if (reader.problems.length > 0 || userId === undefined || currency === undefined || list === undefined) {
      for (const problem of reader.problems) errors.push(`${where}: ${problem}`);
      return error(400, 400, `Bad request: ${reader.problems.join('; ')}`, fields);
    }
    const player = ledger.get(userId);
    // unknown: the status for code 101; 412 like the other business refusals.
    if (!player) return error(412, 101, 'Player is invalid', fields);
    if (player.currency !== currency) {
      errors.push(`${where}: currency ${currency} is not the player's ${player.currency}`);
      return error(400, 400, `Bad request: currency ${currency} is not the player's ${player.currency}`, fields, player.units);
    }
    if (bugs.has('funds-before-duplicate')) {
      const stakes = list.reduce((sum, action) => sum + (action.kind === 'bet' ? action.amount : 0), 0);
      if (stakes > player.units) return error(412, 100, 'Player has not enough funds to process an action', fields, player.units);
    }
    const known = (actionId: string) => (recall.remembers(actionId) ? actions.get(actionId) : undefined);
    const requestKey = `${request.path} ${userId} ${list.map((a) => a.actionId).join(' ')}`;
    const first = firstReplies.get(requestKey);
    if (style === 'B' && first && list.length > 0 && list.every((a) => known(a.actionId) !== undefined)) {
      return { status: 200, body: first, fields };
    }
    for (const action of list) {
      const stored = known(action.actionId);
      if (stored && stored.userId !== userId) {
        errors.push(`${where}: action_id ${action.actionId} was already used by player ${stored.userId}`);
        return error(400, 400, `Bad request: action_id ${action.actionId} belongs to another player`, fields, player.units);
      }
      // A retry repeats the action; the same action_id for another kind is a different action.
      if (stored && stored.kind !== action.kind) {
        errors.push(`${where}: action_id ${action.actionId} was already used by a ${stored.kind}, now sent as a ${action.kind}`);
        return error(400, 400, `Bad request: action_id ${action.actionId} is already a ${stored.kind}`, fields, player.units);
      }
    }

    // Apply on a copy: a request whose bet cannot be paid moves no money at all.
    let balance = player.units;
    const staged: { actionId: string; stored: StoredAction; fresh: boolean; reverse?: StoredAction }[] = [];
    const now = new Date().toISOString();
    for (const action of list) {
      const repeat = known(action.actionId) ?? staged.find((s) => s.actionId === action.actionId)?.stored;
      if (repeat) {
        staged.push({ actionId: action.actionId, stored: repeat, fresh: false });
        continue;
      }
      if (action.kind === 'rollback') {
        const original = actions.get(action.originalActionId);
        const stored: StoredAction = {
          kind: 'rollback',
          userId,
          amount: 0,
          txId: String(nextTx++),
          processedAt: now,
          rolledBack: false,
        };
        const reversible =
          original !== undefined &&
          original.userId === userId &&
          !original.rolledBack &&
          original.kind !== 'rollback' &&
          // t1 keeps the money (success, nothing moved) when a win to take back exceeds the balance.
          (original.kind === 'bet' || original.amount <= balance);
        if (original && reversible) {
          // A bet is credited back; a win is taken back.
          balance += original.kind === 'bet' ? original.amount : -original.amount;
          stored.amount = original.amount;
          staged.push({ actionId: action.actionId, stored, fresh: true, reverse: original });
        } else {
          // Unknown original: success, no money; remembered so a late bet is not charged.
          if (!original) rolledBackUnknown.set(action.originalActionId, { ...stored, txId: '' });
          staged.push({ actionId: action.actionId, stored: { ...stored, txId: original ? stored.txId : '' }, fresh: true });
        }
        continue;
      }
      const preempted = rolledBackUnknown.get(action.actionId);
      if (preempted) {
        staged.push({ actionId: action.actionId, stored: preempted, fresh: false });
        continue;
      }
      if (action.kind === 'bet') {
        if (action.amount > balance)
          return error(412, 100, 'Player has not enough funds to process an action', fields, player.units);
        balance -= action.amount;
      } else {
        balance += action.amount;
      }
      const stored: StoredAction = {
        kind: action.kind,
        userId,
        amount: action.amount,
        txId: String(nextTx++),
        processedAt: now,
        rolledBack: false,
      };
      staged.push({ actionId: action.actionId, stored, fresh: true });
    }
    player.units = balance;
    for (const entry of staged) {
      if (entry.fresh) {
        actions.set(entry.actionId, entry.stored);
        recall.note(entry.actionId);
      }
      if (entry.reverse) entry.reverse.rolledBack = true;
    }
    const reply: JsonObject = { balance };
    if (gameId !== undefined) reply.game_id = gameId;
    if (list.length > 0) {
      reply.transactions = staged.map((entry) => ({
        action_id: entry.actionId,
        tx_id: entry.stored.txId,
        processed_at: entry.stored.processedAt,
      }));
    }
    if (!firstReplies.has(requestKey)) firstReplies.set(requestKey, reply);
    return { status: 200, body: reply, fields };
  }

  const receiver = await startLoopbackReceiver(handle, (playerId) => {
    const player = ledger.get(playerId);
    if (!player) throw new Error(`unknown player ${playerId}`);
    return unitsToDecimal(player.units, SCALE);
  });
  return receiver;
}

/** actions[]: absent or empty is a balance request; each action must be one of `allowed`. */
function readActions(body: JsonObject, allowed: readonly string[], reader: FieldReader): Action[] | undefined {
  const raw = body.actions;
  if (raw === undefined) return [];
  if (!Array.isArray(raw)) {
    reader.report('actions', 'expected an array of actions');
    return undefined;
  }
  const out: Action[] = [];
  raw.forEach((item, index) => {
    const name = `actions[${index}]`;
    if (!isObject(item)) {
      reader.report(name, 'expected an object');
      return;
    }
    const inner = reader.nested(name);
    const kind = inner.string(item, 'action', { nonEmpty: true });
    const actionId = inner.string(item, 'action_id', { nonEmpty: true });
    if (kind !== undefined && !allowed.includes(kind)) {
      inner.report(
        'action',
        `got ${JSON.stringify(kind)}; expected ${allowed.map((a) => JSON.stringify(a)).join(' or ')} on this path`,
      );
      return;
    }
    if (kind === 'rollback') {
      const originalActionId = inner.string(item, 'original_action_id', { nonEmpty: true });
      if (actionId !== undefined && originalActionId !== undefined) out.push({ kind, actionId, originalActionId });
    } else if (kind === 'bet' || kind === 'win') {
      const amount = inner.integer(item, 'amount', { min: 0 });
      if (actionId !== undefined && amount !== undefined) out.push({ kind, actionId, amount });
    }
  });
  return out;
}
