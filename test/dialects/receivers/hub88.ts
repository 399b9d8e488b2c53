/**
 * A careful Hub88 operator wallet (Seamless "Wallet API", operator side), written from Hub88's
 * documentation only, to judge aggmock's Hub88 wire. Hub88 calls the operator:
 *   POST /user/info, /user/balance, /transaction/bet, /transaction/win, /transaction/rollback
 * with a JSON body signed RSA-SHA256 by Hub88's private key, base64, in the X-Hub88-Signature
 * header; the operator verifies it with Hub88's public key (options.credentials.publicKey, PEM).
 *
 * Sources (P = Hub88's own text, S = an integrator's code or notes):
 * - P https://docs.hub88.io/developer-docs/operator-api-reference/wallet-api — the paths; the
 *   X-Hub88-Signature header ("RSA-SHA256 is used to sign the request body"); /user/info requires
 *   `user` and `request_uuid`; /user/balance carries user (omitted only in DEMO), token,
 *   request_uuid, game_code; "The Operator has to respond with the same request_uuid".
 * - P https://docs.hub88.io/developer-docs/operator-api-reference/operator-api-overview/seamless-wallet-response-statuses-operator-api
 *   — the RS_* statuses; NOT_ENOUGH_MONEY carries the actual balance; token validity must NOT be
 *   checked for wins and rollbacks; DUPLICATE_TRANSACTION only when a repeated transaction_uuid
 *   has a different reference, amount, currency, round, user or game; TRANSACTION_DOES_NOT_EXIST
 *   when the bet a win refers to cannot be found.
 * - P https://docs.hub88.io/developer-docs/operator-api-reference/transferwallet-api — "The amount
 *   of money displayed in integer (Int64) format … multiplied by 100000. Example: $3.56 is
 *   represented as 356000"; transaction_uuid must not be processed more than once.
 * - P https://docs.hub88.io/developer-docs/supplier-api-reference/wallet-api — the same fields seen
 *   from the supplier; reply example {"user","status":"RS_OK","request_uuid","currency","balance":100500};
 *   "requests with the same request_uuid … the response will be the same for all duplicate
 *   requests, excluding the … /user/balance call".
 * - S search-index id 29173837359 (a TypeScript operator's /transaction/bet route): the bet body and
 *   which fields it requires; id 62327819864 (research notes from docs.hub88.io): bet/win/rollback
 *   field lists, win and rollback carry reference_transaction_uuid.
 * - /work/shared/research/wires.md §2.1 (summary of the above).
 *
 * Unknown in the docs, and the choice made (the most lenient reading a real wallet would accept):
 * - Which bet/win/rollback fields are required: required here are the ones every source carries
 *   (user, transaction_uuid, request_uuid, supplier_transaction_id, and for bet/win amount,
 *   currency, game_code; token on bet; reference_transaction_uuid on win/rollback). round,
 *   round_closed, is_free, bet, reward_uuid, meta, … are optional but type-checked when present;
 *   fields the docs do not name are ignored.
 * - The status for an unknown user: the list has none; RS_ERROR_INVALID_TOKEN where a token is
 *   checked (bet, balance), RS_ERROR_UNKNOWN elsewhere.
 * - A win for a bet that was rolled back: RS_ERROR_TRANSACTION_DOES_NOT_EXIST (the bet no longer
 *   stands; the statuses page's sentence is cut in our copy after "wasn't processed").
 * - Rollback of a win: reverses the win (takes the money back) once.
 * - A bet that arrives after its rollback was refused as unknown: processed as a new bet.
 * - Whether `request_uuid`/`transaction_uuid` must be UUID-formatted: not checked (any non-empty string).
 * - Content-Type: application/json is required (the OpenAPI bodies are application/json).
 *
 * Style 'B' (options.style), a second correct wallet: a repeated transaction_uuid (same details, a
 * new request_uuid) is answered with the first reply it got (the balance then, RS_OK), the new
 * request_uuid echoed. The operator pages only say it "shouldn't be processed more than once"
 * (transferwallet-api, transaction_uuid); the supplier wallet-api page's "Request consistency" says
 * "the response will be the same for all duplicate requests". Style A answers the current balance.
 * Hub88 tokens are not rotated by any call (user/info carries no token), so both styles keep them.
 *
 * Planted bugs (options.bugs): reserialised-signature, funds-before-duplicate (a bet above the
 * balance is refused before either idempotency lookup), forgetful-dedupe (both the request_uuid
 * replies and the transaction_uuid store forget beyond the last 200). Hub88 signs every call, so
 * there is no static credential to ignore; /user/info carries no token, so no session to take over.
 *
 * What goes into `errors`: problems with the request itself (signature, encoding, a missing or
 * mistyped field, an unknown path or user, a token or currency that is not the player's, a reused
 * id with other details). Refusals a correct aggregator also meets (not enough money, rollback of a
 * bet the wallet never saw) are answered with their status but are not errors.
 */
import { createPublicKey, verify } from 'node:crypto';
import {
  type HandledReply,
  openingLedger,
  type ReceivedRequest,
  startLoopbackReceiver,
  unitsToDecimal,
  type VendorReceiver,
} from './receiver-kit.ts';
import { DedupeRecall, plantedBugs, type ReceiverOptions, signedBytes } from './receiver-style.ts';

export type { ReceiverPlayer, VendorReceiver } from './receiver-kit.ts';

/** Hub88 amounts are integers in 1/100000 of the currency unit. */
const SCALE = 5;

export type Hub88Status =
  | 'RS_OK'
  | 'RS_ERROR_UNKNOWN'
  | 'RS_ERROR_INVALID_TOKEN'
  | 'RS_ERROR_WRONG_CURRENCY'
  | 'RS_ERROR_NOT_ENOUGH_MONEY'
  | 'RS_ERROR_INVALID_SIGNATURE'
  | 'RS_ERROR_WRONG_SYNTAX'
  | 'RS_ERROR_WRONG_TYPES'
  | 'RS_ERROR_DUPLICATE_TRANSACTION'
  | 'RS_ERROR_TRANSACTION_DOES_NOT_EXIST';

type FieldType = 'string' | 'integer' | 'boolean' | 'object';

interface FieldRule {
  type: FieldType;
  required: boolean;
  /** null is an accepted value (the docs type it "string | null" or the sources send null). */
  nullable?: boolean;
}

const req = (type: FieldType, nullable = false): FieldRule => ({ type, required: true, nullable });
const opt = (type: FieldType): FieldRule => ({ type, required: false, nullable: true });

/** Fields a bet and a win share (wallet-api page; id 29173837359; id 62327819864). */
const moneyFields: Record<string, FieldRule> = {
  user: req('string'),
  transaction_uuid: req('string'),
  supplier_transaction_id: req('string'),
  request_uuid: req('string'),
  amount: req('integer'),
  currency: req('string'),
  game_code: req('string', true),
  round: opt('string'),
  round_closed: opt('boolean'),
  supplier_user: opt('string'),
  reward_uuid: opt('string'),
  is_free: opt('boolean'),
  is_supplier_promo: opt('boolean'),
  is_aggregated: opt('boolean'),
  bet: opt('string'),
  meta: opt('object'),
};

const routes = {
  '/user/info': { user: req('string'), request_uuid: req('string') },
  '/user/balance': { user: req('string'), request_uuid: req('string'), token: opt('string'), game_code: opt('string') },
  '/transaction/bet': { ...moneyFields, token: req('string') },
  // The token rides along on wins but is not validated there (statuses page).
  '/transaction/win': { ...moneyFields, token: opt('string'), reference_transaction_uuid: req('string') },
  '/transaction/rollback': {
    user: req('string'),
    transaction_uuid: req('string'),
    supplier_transaction_id: req('string'),
    request_uuid: req('string'),
    reference_transaction_uuid: req('string'),
    token: opt('string'),
    game_code: opt('string'),
    round: opt('string'),
    round_closed: opt('boolean'),
    amount: opt('integer'),
    currency: opt('string'),
    meta: opt('object'),
  },
} satisfies Record<string, Record<string, FieldRule>>;

type Path = keyof typeof routes;

/** One processed money transaction, as a careful wallet stores it (≥ 4 months at Hub88's request). */
interface StoredTransaction {
  kind: 'bet' | 'win' | 'rollback';
  transactionUuid: string;
  user: string;
  amount: number;
  currency: string | undefined;
  round: string | null | undefined;
  gameCode: string | null | undefined;
  reference: string | undefined;
  /** Set on a bet or win once a rollback has reversed it. */
  rolledBackBy?: string;
}

type Body = Record<string, unknown>;

function typeMatches(value: unknown, type: FieldType): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string' && value.length > 0;
    case 'integer':
      return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
    case 'boolean':
      return typeof value === 'boolean';
    case 'object':
      return typeof value === 'object' && value !== null && !Array.isArray(value);
  }
}

const typeNames: Record<FieldType, string> = {
  string: 'a non-empty string',
  integer: 'a non-negative integer (amount × 100000, e.g. 356000 for 3.56)',
  boolean: 'true or false',
  object: 'a JSON object',
};

/** The first problem with the body's fields, as a status and a sentence, or undefined when they are as the docs say. */
function fieldProblem(body: Body, rules: Record<string, FieldRule>): { status: Hub88Status; text: string } | undefined {
  for (const [name, rule] of Object.entries(rules)) {
    const value = body[name];
    if (value === undefined) {
      if (rule.required)
        return { status: 'RS_ERROR_WRONG_SYNTAX', text: `field ${name} is missing; expected ${typeNames[rule.type]}` };
      continue;
    }
    if (value === null && rule.nullable) continue;
    if (!typeMatches(value, rule.type)) {
      return {
        status: 'RS_ERROR_WRONG_TYPES',
        text: `field ${name} is ${JSON.stringify(value)}; expected ${typeNames[rule.type]}`,
      };
    }
  }
  return undefined;
}

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/**
 * Starts a Hub88 operator wallet on 127.0.0.1. `credentials.publicKey` is Hub88's public key (PEM)
 * the wallet verifies X-Hub88-Signature with.
 *
 * @example
 * const wallet = await startHub88Receiver({ credentials: { publicKey }, players: [{ playerId: 'john12345', currency: 'EUR', balance: '100.00', token: 't-1' }] });
 * // POST `${wallet.url}/transaction/bet` …; then wallet.balanceOf('john12345'), wallet.errors
 */
export async function startHub88Receiver(options: ReceiverOptions): Promise<VendorReceiver> {
  const pem = options.credentials.publicKey;
  if (!pem)
    throw new Error('hub88 receiver: credentials.publicKey (Hub88 public key, PEM) is required to verify X-Hub88-Signature');
  // Parsed once, so a bad PEM fails here and not as "invalid signature" on every request.
  const publicKey = createPublicKey(pem);
  const ledger = openingLedger(options.players, SCALE);
  const transactions = new Map<string, StoredTransaction>();
  /** Replies by path and request_uuid, with the body they answered: a repeated request gets the same reply. */
  const replies = new Map<string, { rawBody: string; body: Body }>();
  /** Style B: the first reply to each transaction_uuid. */
  const firstReplies = new Map<string, Body>();
  const style = options.style ?? 'A';
  const bugs = plantedBugs('hub88', options.bugs, ['reserialised-signature', 'funds-before-duplicate', 'forgetful-dedupe']);
  const recallRequests = new DedupeRecall(bugs.has('forgetful-dedupe'));
  const recallTransactions = new DedupeRecall(bugs.has('forgetful-dedupe'));

  function handle(request: ReceivedRequest, errors: string[]): HandledReply {
    const where = `${request.method} ${request.path}`;
    const refuse = (status: Hub88Status, text: string, fields: Body = {}, httpStatus = 200): HandledReply => {
      errors.push(`${where}: ${text}`);
      const requestUuid = typeof fields.request_uuid === 'string' ? fields.request_uuid : undefined;
      return { status: httpStatus, body: { status, request_uuid: requestUuid }, fields };
    };

    if (!Object.hasOwn(routes, request.path)) {
      return refuse('RS_ERROR_WRONG_SYNTAX', `unknown path; Hub88 calls only ${Object.keys(routes).join(', ')}`, {}, 404);
    }
    const path = request.path as Path;
    if (request.method !== 'POST') return refuse('RS_ERROR_WRONG_SYNTAX', 'method must be POST', {}, 405);

    const signature = request.headers['x-hub88-signature'];
    if (typeof signature !== 'string' || signature === '') {
      return refuse(
        'RS_ERROR_INVALID_SIGNATURE',
        'X-Hub88-Signature header is missing; expected base64 RSA-SHA256 of the raw body',
      );
    }
    if (!BASE64.test(signature)) {
      return refuse('RS_ERROR_INVALID_SIGNATURE', `X-Hub88-Signature ${JSON.stringify(signature.slice(0, 40))} is not base64`);
    }
    let signatureValid = false;
    try {
      const signed = signedBytes(request.rawBody, bugs.has('reserialised-signature'));
      signatureValid = verify('sha256', signed, publicKey, Buffer.from(signature, 'base64'));
    } catch {
      signatureValid = false;
    }
    if (!signatureValid) {
      return refuse(
        'RS_ERROR_INVALID_SIGNATURE',
        'X-Hub88-Signature does not verify with Hub88 public key over the raw body (was the body re-serialised after signing, or signed with another key?)',
      );
    }

    const contentType = String(request.headers['content-type'] ?? '');
    if (!/^application\/json\s*(;|$)/i.test(contentType)) {
      return refuse('RS_ERROR_WRONG_SYNTAX', `Content-Type is ${JSON.stringify(contentType)}; expected application/json`);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(request.rawBody.toString('utf8'));
    } catch {
      return refuse('RS_ERROR_WRONG_SYNTAX', 'body is not JSON');
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      return refuse('RS_ERROR_WRONG_SYNTAX', 'body is not a JSON object');
    }
    const body = parsed as Body;
    const problem = fieldProblem(body, routes[path]);
    if (problem) return refuse(problem.status, problem.text, body);

    const requestUuid = body.request_uuid as string;
    if (bugs.has('funds-before-duplicate') && path === '/transaction/bet') {
      const player = ledger.get(body.user as string);
      if (player && player.units < (body.amount as number)) {
        const refusal = { user: player.playerId, status: 'RS_ERROR_NOT_ENOUGH_MONEY', request_uuid: requestUuid };
        return { status: 200, body: { ...refusal, currency: player.currency, balance: player.units }, fields: body };
      }
    }
    const rawBody = request.rawBody.toString('utf8');
    const replyKey = `${path} ${requestUuid}`;
    const earlier = recallRequests.remembers(replyKey) ? replies.get(replyKey) : undefined;
    if (path !== '/user/balance' && earlier) {
      if (earlier.rawBody === rawBody) return { status: 200, body: earlier.body, fields: body };
      errors.push(`${where}: request_uuid ${requestUuid} was already used for a different request; each call carries its own`);
    }

    const transactionUuid = body.transaction_uuid as string | undefined;
    const firstTime =
      transactionUuid !== undefined && !(recallTransactions.remembers(transactionUuid) && transactions.has(transactionUuid));
    const reply = answer(path, body, (text) => errors.push(`${where}: ${text}`));
    if (firstTime && transactions.has(transactionUuid)) firstReplies.set(transactionUuid, reply);
    if (path !== '/user/balance') {
      replies.set(replyKey, { rawBody, body: reply });
      recallRequests.note(replyKey);
    }
    return { status: 200, body: reply, fields: body };
  }

  /** The wallet's answer to a well-formed, correctly signed request. `problem` records a request-side error. */
  function answer(path: Path, body: Body, problem: (text: string) => void): Body {
    const requestUuid = body.request_uuid as string;
    const userId = body.user as string;
    const player = ledger.get(userId);
    const reply = (status: Hub88Status, extra: Body = {}): Body => ({
      user: userId,
      status,
      request_uuid: requestUuid,
      ...extra,
    });
    const withBalance = (status: Hub88Status): Body => reply(status, { currency: player?.currency, balance: player?.units });

    const tokenChecked = path === '/transaction/bet' || path === '/user/balance';
    if (!player) {
      problem(`user ${JSON.stringify(userId)} is not a player of this wallet`);
      return reply(tokenChecked ? 'RS_ERROR_INVALID_TOKEN' : 'RS_ERROR_UNKNOWN');
    }
    if (path === '/user/info') return reply('RS_OK');
    if (path === '/user/balance') {
      if (body.token !== undefined && body.token !== null && player.token !== undefined && body.token !== player.token) {
        problem(`token ${JSON.stringify(body.token)} is not the session token issued to ${userId}`);
        return reply('RS_ERROR_INVALID_TOKEN');
      }
      return withBalance('RS_OK');
    }

    const transactionUuid = body.transaction_uuid as string;
    const kind = path === '/transaction/bet' ? 'bet' : path === '/transaction/win' ? 'win' : 'rollback';
    const incoming: StoredTransaction = {
      kind,
      transactionUuid,
      user: userId,
      amount: kind === 'rollback' ? 0 : (body.amount as number),
      currency: body.currency as string | undefined,
      round: body.round as string | null | undefined,
      gameCode: body.game_code as string | null | undefined,
      reference: body.reference_transaction_uuid as string | undefined,
    };

    // Idempotency by transaction_uuid: the same transaction again is acknowledged with the current
    // balance and moves nothing; the same id with other details is a duplicate (statuses page).
    const known = recallTransactions.remembers(transactionUuid) ? transactions.get(transactionUuid) : undefined;
    if (known) {
      const differences = sameTransactionDifferences(known, incoming);
      const first = firstReplies.get(transactionUuid);
      if (differences.length === 0)
        return style === 'B' && first ? { ...first, request_uuid: requestUuid } : withBalance('RS_OK');
      problem(
        `transaction_uuid ${transactionUuid} was already processed as a ${known.kind} with other details (${differences.join(', ')})`,
      );
      return withBalance('RS_ERROR_DUPLICATE_TRANSACTION');
    }

    if (kind === 'bet' && player.token !== undefined && body.token !== player.token) {
      problem(`token ${JSON.stringify(body.token)} is not the session token issued to ${userId}`);
      return reply('RS_ERROR_INVALID_TOKEN');
    }
    if (incoming.currency !== undefined && incoming.currency !== player.currency) {
      problem(`currency ${incoming.currency} is not the wallet currency ${player.currency} of ${userId}`);
      return withBalance('RS_ERROR_WRONG_CURRENCY');
    }

    if (kind === 'bet') {
      if (player.units < incoming.amount) return withBalance('RS_ERROR_NOT_ENOUGH_MONEY');
      player.units -= incoming.amount;
      remember(incoming);
      return withBalance('RS_OK');
    }

    const target = incoming.reference === undefined ? undefined : transactions.get(incoming.reference);
    const targetStands = target !== undefined && target.user === userId && target.rolledBackBy === undefined;
    if (kind === 'win') {
      if (!targetStands || target.kind !== 'bet') return withBalance('RS_ERROR_TRANSACTION_DOES_NOT_EXIST');
      player.units += incoming.amount;
      remember(incoming);
      return withBalance('RS_OK');
    }

    // Rollback: reverses the referenced bet (or win) once; a second rollback of it moves nothing.
    if (target !== undefined && target.user === userId && target.rolledBackBy !== undefined) {
      remember(incoming);
      return withBalance('RS_OK');
    }
    if (!targetStands || target.kind === 'rollback') return withBalance('RS_ERROR_TRANSACTION_DOES_NOT_EXIST');
    if (target.kind === 'win' && player.units < target.amount) return withBalance('RS_ERROR_NOT_ENOUGH_MONEY');
    player.units += target.kind === 'bet' ? target.amount : -target.amount;
    target.rolledBackBy = transactionUuid;
    remember(incoming);
    return withBalance('RS_OK');
  }

  /** Stores a processed transaction: the dedupe memory. */
  function remember(incoming: StoredTransaction): void {
    transactions.set(incoming.transactionUuid, incoming);
    recallTransactions.note(incoming.transactionUuid);
  }

  return startLoopbackReceiver(handle, (playerId) => {
    const player = ledger.get(playerId);
    if (!player) throw new Error(`hub88 receiver: no player ${playerId}`);
    return unitsToDecimal(player.units, SCALE);
  });
}

/** The details the statuses page lists for RS_ERROR_DUPLICATE_TRANSACTION that differ between two sendings of one transaction_uuid. */
function sameTransactionDifferences(known: StoredTransaction, incoming: StoredTransaction): string[] {
  const differences: string[] = [];
  if (known.kind !== incoming.kind) differences.push(`kind ${known.kind} vs ${incoming.kind}`);
  if (known.user !== incoming.user) differences.push('user');
  if (known.amount !== incoming.amount) differences.push(`amount ${known.amount} vs ${incoming.amount}`);
  if (known.currency !== incoming.currency) differences.push('currency');
  if ((known.round ?? null) !== (incoming.round ?? null)) differences.push('round');
  if ((known.gameCode ?? null) !== (incoming.gameCode ?? null)) differences.push('game_code');
  if (known.reference !== incoming.reference) differences.push('reference_transaction_uuid');
  return differences;
}
