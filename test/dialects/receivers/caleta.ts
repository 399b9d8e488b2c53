/**
 * A careful Caleta Gaming wallet (Generic Seamless Wallet API 1.5), written from the vendor's docs
 * only, to judge a sender of Caleta's Wallet API calls.
 *
 * Sources:
 * - [P] Caleta's OpenAPI file "Caleta Gaming System API - Operator's Guide" 1.5, vendored in
 *   https://github.com/valkyrie-fnd/valkyrie/blob/fe49faae254f20311af90157952f9c365779768a/provider/caleta/caletagaming-caleta-gaming_system_api_operators_guide-1.5-oapi3.yaml
 *   (request signing, /wallet/* paths and bodies, money_amount ×100000, the `status` semantics, the
 *   token rules, the BET/WIN/ROLLBACK ERROR sections).
 * - [S] valkyrie-fnd/valkyrie provider/caleta/: auth_signature.go (PKCS#1 v1.5 over the raw body,
 *   standard base64), middleware.go (a bad signature is HTTP 200 RS_ERROR_INVALID_SIGNATURE),
 *   models.go (X-Msg-Timestamp layout), error.go and test/caleta_integration_test.go (rollback of an
 *   unknown transaction is RS_OK "Caleta prefers"; a duplicate id in another round is
 *   RS_ERROR_DUPLICATE_TRANSACTION; error replies carry no user/balance/currency).
 *
 * What the docs leave open, and the choice made (the most lenient a real wallet would accept):
 * - A missing required field: the OAS has WRONG_SYNTAX for undecodable JSON and WRONG_TYPES for a
 *   mistyped value; a missing field is answered RS_ERROR_WRONG_TYPES.
 * - `supplier_user` is required but "If value is NULL, the Operator can search for their own
 *   user_id": null is accepted, and the player is found by `token` (Caleta's bet has no `user`).
 * - /wallet/check "changes the initial token for a new one": the receiver issues a new token; the
 *   old one then answers RS_ERROR_TOKEN_EXPIRED on /wallet/bet only, as the OAS says, and stays
 *   valid for balance, win and rollback. An unknown token on /wallet/check (no error shape in the
 *   OAS) is answered HTTP 200 {status: RS_ERROR_INVALID_TOKEN}.
 * - Rollback of an unknown transaction: RS_OK, no money (valkyrie: "Caleta prefers that Valkyrie
 *   just returns OK"); the id is remembered so a late bet with it is not charged (answered
 *   RS_ERROR_TRANSACTION_ROLLED_BACK, an inference).
 * - Rollback of a win: the docs say Caleta only rolls back bets; it is recorded as a problem and
 *   answered RS_OK without moving money (an error status would be retried for ever).
 * - `is_free` bets are "usually credited to bonus wallets (if available)": this wallet has none, so
 *   a free bet moves no cash; a free bet's win is paid in cash.
 * - A win or rollback whose `round` differs from its bet's round contradicts "All transactions
 *   related to the same round will have the same value": recorded as a problem, still applied.
 * - Several wins may refer to one bet (multi-win rounds, "Sent win with amount 0").
 *
 * Style 'B' (options.style), a second correct wallet: a rollback of a transaction it never saw is
 * answered RS_ERROR_TRANSACTION_DOES_NOT_EXIST (no money), which the OAS's "ROLLBACK ERROR" section
 * lists among the statuses that end Caleta's retries; A answers RS_OK as valkyrie does. Both still
 * refuse the late bet. Both rotate the token on /wallet/check (the OAS requires it).
 *
 * Planted bugs (options.bugs): reserialised-signature, funds-before-duplicate, forgetful-dedupe
 * (transaction_uuid store), accepts-old-token (a bet with a token /wallet/check replaced is charged),
 * refuses-old-token-settlement (a win or rollback with such a token is RS_ERROR_TOKEN_EXPIRED, which the
 * OAS keeps for bets). Caleta signs every call (no static credential), and /wallet/check names
 * no player (no session to take over by guessing).
 */
import { randomUUID, verify as verifySignature } from 'node:crypto';
import { FieldReader, parseJsonObject } from './json-fields.ts';
import {
  type HandledReply,
  openingLedger,
  type ReceivedRequest,
  type ReceiverPlayer,
  startLoopbackReceiver,
  unitsToDecimal,
  type VendorReceiver,
} from './receiver-kit.ts';
import { DedupeRecall, plantedBugs, type ReceiverOptions, signedBytes } from './receiver-style.ts';

/** money_amount: "To convert real float value to integer we multiply it by 100000." */
const CALETA_SCALE = 5;

const PATHS = ['/wallet/check', '/wallet/balance', '/wallet/bet', '/wallet/win', '/wallet/rollback'] as const;
type CaletaPath = (typeof PATHS)[number];

/** X-Msg-Timestamp, e.g. `2023-01-17 08:13:17.985795+00:00` (valkyrie's layout 2006-01-02 15:04:05.999999-07:00). */
const MSG_TIMESTAMP = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d{1,9})?[+-]\d{2}:\d{2}$/;

interface CaletaTransaction {
  kind: 'bet' | 'win' | 'rollback';
  playerId: string;
  round: string;
  gameCode: string;
  amount: number;
  reference?: string;
  isFree: boolean;
  rolledBack: boolean;
  /** A rollback whose transaction this wallet never saw (style B answers its repeats DOES_NOT_EXIST again). */
  unknownTarget?: boolean;
}

export async function startCaletaReceiver(options: ReceiverOptions): Promise<VendorReceiver> {
  const publicKey = options.credentials.publicKey;
  if (!publicKey) throw new Error('caleta receiver: credentials.publicKey (the PEM that verifies X-Auth-Signature) is required');
  const ledger = openingLedger(options.players, CALETA_SCALE);
  /** token -> its player, and whether a newer token replaced it (/wallet/check). */
  const tokens = new Map<string, { playerId: string; current: boolean }>();
  for (const player of ledger.values()) {
    if (player.token) tokens.set(player.token, { playerId: player.playerId, current: true });
  }
  const transactions = new Map<string, CaletaTransaction>();
  /** References rolled back before their bet arrived. */
  const rolledBackUnknown = new Set<string>();
  const style = options.style ?? 'A';
  const bugs = plantedBugs('caleta', options.bugs, [
    'reserialised-signature',
    'funds-before-duplicate',
    'forgetful-dedupe',
    'accepts-old-token',
    'refuses-old-token-settlement',
  ]);
  const recall = new DedupeRecall(bugs.has('forgetful-dedupe'));

  const handle = (request: ReceivedRequest, errors: string[]): HandledReply => {
    const where = `${request.method} ${request.path}`;
    if (request.method !== 'POST' || !(PATHS as readonly string[]).includes(request.path)) {
      errors.push(`${where}: not a Caleta Wallet API call; expected POST to one of ${PATHS.join(', ')}`);
      return { status: 404, body: { error: `unknown path ${request.path}` }, fields: {} };
    }
    const path = request.path as CaletaPath;
    const parsed = parseJsonObject(request.rawBody);
    const fields = 'body' in parsed ? parsed.body : {};
    const requestUuid = typeof fields.request_uuid === 'string' ? fields.request_uuid : undefined;
    // Error replies carry only status and request_uuid (valkyrie's integration tests expect no user/balance).
    const refuse = (status: string): HandledReply => ({ status: 200, body: { status, request_uuid: requestUuid }, fields });
    // BalanceResponse: {user, status, request_uuid, currency, balance} with balance in ×100000 units.
    const ok = (playerId: string): HandledReply => {
      const owned = ledger.get(playerId) as ReceiverPlayer & { units: number };
      return {
        status: 200,
        body: { user: playerId, status: 'RS_OK', request_uuid: requestUuid, currency: owned.currency, balance: owned.units },
        fields,
      };
    };

    const signature = request.headers['x-auth-signature'];
    if (typeof signature !== 'string' || signature.length === 0) {
      errors.push(`${where}: X-Auth-Signature header missing; Caleta signs every Wallet API body with RSA-SHA256, base64`);
      return refuse('RS_ERROR_INVALID_SIGNATURE');
    }
    if (!signatureMatches(signedBytes(request.rawBody, bugs.has('reserialised-signature')), signature, publicKey)) {
      errors.push(
        `${where}: X-Auth-Signature does not verify with the operator's public key over the raw body (RSA-SHA256, PKCS#1 v1.5, standard base64). Was the body re-serialised after signing?`,
      );
      return refuse('RS_ERROR_INVALID_SIGNATURE');
    }
    const contentType = request.headers['content-type'];
    if (!contentType || !/^application\/json\b/i.test(contentType)) {
      errors.push(`${where}: Content-Type is ${JSON.stringify(contentType ?? null)}; the OAS sends application/json`);
    }
    if ('problem' in parsed) {
      errors.push(`${where}: ${parsed.problem}`);
      return refuse('RS_ERROR_WRONG_SYNTAX');
    }
    const body = parsed.body;
    const timestamp = request.headers['x-msg-timestamp'];
    if (timestamp !== undefined && path !== '/wallet/check' && path !== '/wallet/balance') {
      if (typeof timestamp !== 'string' || !MSG_TIMESTAMP.test(timestamp)) {
        errors.push(`${where}: X-Msg-Timestamp ${JSON.stringify(timestamp)} is not like "2023-01-17 08:13:17.985795+00:00"`);
        return refuse('RS_ERROR_WRONG_TYPES');
      }
    }
    const read = new FieldReader();
    const problemsOr = (status: string): HandledReply | undefined => {
      if (read.problems.length === 0) return undefined;
      for (const problem of read.problems) errors.push(`${where}: ${problem}`);
      return refuse(status);
    };

    if (path === '/wallet/check') {
      const token = read.string(body, 'token', { nonEmpty: true });
      const bad = problemsOr('RS_ERROR_WRONG_TYPES');
      if (bad || token === undefined) return bad ?? refuse('RS_ERROR_WRONG_TYPES');
      const owner = tokens.get(token);
      if (!owner) return { status: 200, body: { status: 'RS_ERROR_INVALID_TOKEN' }, fields };
      for (const entry of tokens.values()) if (entry.playerId === owner.playerId) entry.current = false;
      const fresh = randomUUID();
      tokens.set(fresh, { playerId: owner.playerId, current: true });
      return { status: 200, body: { token: fresh }, fields };
    }

    // Fields every other call carries (OAS wallet_*_body `required` lists).
    const token = read.string(body, 'token', { nonEmpty: true });
    read.string(body, 'request_uuid', { nonEmpty: true });
    read.string(body, 'game_code', { nonEmpty: true });
    read.integer(body, 'game_id', { optional: true });
    if (path !== '/wallet/rollback') read.string(body, 'supplier_user', { nullable: true });

    if (path === '/wallet/balance') {
      const bad = problemsOr('RS_ERROR_WRONG_TYPES');
      if (bad || token === undefined) return bad ?? refuse('RS_ERROR_WRONG_TYPES');
      const owner = tokens.get(token);
      if (!owner) return refuse('RS_ERROR_INVALID_TOKEN');
      return ok(owner.playerId);
    }

    const transactionUuid = read.string(body, 'transaction_uuid', { nonEmpty: true });
    const round = read.string(body, 'round', { nonEmpty: true });
    read.boolean(body, 'round_closed');
    const isFree = read.boolean(body, 'is_free', { optional: path === '/wallet/rollback' }) ?? false;
    let amount: number | undefined;
    let currency: string | undefined;
    let reference: string | undefined;
    if (path === '/wallet/bet' || path === '/wallet/win') {
      amount = read.integer(body, 'amount', { min: 0 });
      currency = read.string(body, 'currency', { nonEmpty: true });
      read.string(body, 'campaign_uuid', { optional: true });
      read.string(body, 'reward_uuid', { optional: true });
      read.string(body, 'bet', { optional: true });
    }
    if (path === '/wallet/win') read.integer(body, 'jackpot_win', { optional: true, min: 0 });
    if (path === '/wallet/win' || path === '/wallet/rollback') {
      reference = read.string(body, 'reference_transaction_uuid', { nonEmpty: true });
    }
    const user = path === '/wallet/rollback' ? read.string(body, 'user', { optional: true }) : undefined;
    const gameCode = body.game_code as string;
    const bad = problemsOr('RS_ERROR_WRONG_TYPES');
    if (bad || token === undefined || transactionUuid === undefined || round === undefined) {
      return bad ?? refuse('RS_ERROR_WRONG_TYPES');
    }
    const owner = tokens.get(token);
    if (!owner) return refuse('RS_ERROR_INVALID_TOKEN');
    const player = ledger.get(owner.playerId) as ReceiverPlayer & { units: number };

    // "RS_ERROR_DUPLICATE_TRANSACTION - when the same transaction_uuid appears but for a different
    // user, round and game, otherwise returns RS_OK" (and RS_OK "was already processed before").
    const kind = path === '/wallet/bet' ? 'bet' : path === '/wallet/win' ? 'win' : 'rollback';
    if (bugs.has('funds-before-duplicate') && kind === 'bet' && !isFree && (amount as number) > player.units) {
      return refuse('RS_ERROR_NOT_ENOUGH_MONEY');
    }
    const known = recall.remembers(transactionUuid) ? transactions.get(transactionUuid) : undefined;
    if (known) {
      const same =
        known.kind === kind &&
        known.playerId === owner.playerId &&
        known.round === round &&
        known.gameCode === gameCode &&
        (amount === undefined || known.amount === amount) &&
        known.reference === reference;
      if (!same) return refuse('RS_ERROR_DUPLICATE_TRANSACTION');
      return style === 'B' && known.unknownTarget ? refuse('RS_ERROR_TRANSACTION_DOES_NOT_EXIST') : ok(owner.playerId);
    }

    if (kind !== 'bet' && !owner.current && bugs.has('refuses-old-token-settlement')) return refuse('RS_ERROR_TOKEN_EXPIRED');
    if (kind === 'bet') {
      if (!owner.current && !bugs.has('accepts-old-token')) return refuse('RS_ERROR_TOKEN_EXPIRED');
      if (currency !== player.currency) return refuse('RS_ERROR_WRONG_CURRENCY');
      if (rolledBackUnknown.has(transactionUuid)) return refuse('RS_ERROR_TRANSACTION_ROLLED_BACK');
      const stake = isFree ? 0 : (amount as number);
      if (stake > player.units) return refuse('RS_ERROR_NOT_ENOUGH_MONEY');
      player.units -= stake;
      transactions.set(transactionUuid, {
        kind,
        playerId: owner.playerId,
        round,
        gameCode,
        amount: amount as number,
        isFree,
        rolledBack: false,
      });
      recall.note(transactionUuid);
      return ok(owner.playerId);
    }

    const bet = transactions.get(reference as string);
    const betOfPlayer = bet && bet.playerId === owner.playerId ? bet : undefined;
    if (kind === 'win') {
      if (currency !== player.currency) return refuse('RS_ERROR_WRONG_CURRENCY');
      if (betOfPlayer?.kind !== 'bet') {
        return refuse(
          rolledBackUnknown.has(reference as string) ? 'RS_ERROR_TRANSACTION_ROLLED_BACK' : 'RS_ERROR_TRANSACTION_DOES_NOT_EXIST',
        );
      }
      if (betOfPlayer.rolledBack) return refuse('RS_ERROR_TRANSACTION_ROLLED_BACK');
      if (betOfPlayer.round !== round) {
        errors.push(`${where}: round ${JSON.stringify(round)} differs from its bet's round ${JSON.stringify(betOfPlayer.round)}`);
      }
      player.units += amount as number;
      transactions.set(transactionUuid, {
        kind,
        playerId: owner.playerId,
        round,
        gameCode,
        amount: amount as number,
        reference,
        isFree,
        rolledBack: false,
      });
      recall.note(transactionUuid);
      return ok(owner.playerId);
    }

    // Rollback.
    if (user !== undefined && user !== owner.playerId) return refuse('RS_ERROR_INVALID_TOKEN');
    if (bet && bet.playerId !== owner.playerId) return refuse('RS_ERROR_INVALID_TOKEN');
    const record = (): void => {
      transactions.set(transactionUuid, {
        kind,
        playerId: owner.playerId,
        round,
        gameCode,
        amount: 0,
        reference,
        isFree,
        rolledBack: false,
      });
      recall.note(transactionUuid);
    };
    if (!betOfPlayer) {
      rolledBackUnknown.add(reference as string);
      record();
      (transactions.get(transactionUuid) as CaletaTransaction).unknownTarget = true;
      return style === 'B' ? refuse('RS_ERROR_TRANSACTION_DOES_NOT_EXIST') : ok(owner.playerId);
    }
    if (betOfPlayer.kind !== 'bet') {
      errors.push(
        `${where}: reference_transaction_uuid ${JSON.stringify(reference)} is a ${betOfPlayer.kind}; Caleta only rolls back bets`,
      );
      record();
      return ok(owner.playerId);
    }
    if (betOfPlayer.round !== round) {
      errors.push(`${where}: round ${JSON.stringify(round)} differs from its bet's round ${JSON.stringify(betOfPlayer.round)}`);
    }
    if (!betOfPlayer.rolledBack) {
      betOfPlayer.rolledBack = true;
      if (!betOfPlayer.isFree) player.units += betOfPlayer.amount;
    }
    record();
    return ok(owner.playerId);
  };

  return startLoopbackReceiver(handle, (playerId) => {
    const player = ledger.get(playerId);
    if (!player) throw new Error(`caleta receiver: no player ${JSON.stringify(playerId)}`);
    return unitsToDecimal(player.units, CALETA_SCALE);
  });
}

/** RSA-SHA256 (PKCS#1 v1.5) over the exact bytes received, signature in standard base64. */
function signatureMatches(rawBody: Buffer, signature: string, publicKey: string): boolean {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(signature)) return false;
  try {
    return verifySignature('sha256', rawBody, publicKey, Buffer.from(signature, 'base64'));
  } catch {
    return false;
  }
}
