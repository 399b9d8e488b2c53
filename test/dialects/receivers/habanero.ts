/**
 * A careful Habanero seamless wallet, written from public integrations only (Habanero's own wallet
 * document is not public), to judge aggmock's Habanero wire.
 *
 * Sources:
 * - wendell1101/t1softxxx admin/application/controllers/habanero_service_api.php: the request kinds
 *   (playerdetailrequest, fundtransferrequest, queryrequest, configdetailrequest, endsession), the
 *   body `{type, dtsent, basegame, auth:{passkey, brandid, …}, fundtransferrequest:{token, accountid,
 *   gameinstanceid, friendlygameinstanceid, isretry, retrycount, isrefund, isrecredit, funds:{
 *   debitandcredit, fundinfo:[{transferid, amount, currencycode, gamestatemode,
 *   initialdebittransferid, …}], refund:{transferid, originaltransferid, amount, currencycode}}}}`,
 *   a negative fundinfo amount = debit, the reply `{fundtransferresponse:{status:{success, nofunds,
 *   successdebit, successcredit, message, autherror, refundstatus}, balance, currencycode,
 *   remotetransferid}}` at HTTP 200, refundstatus "2" "Original request never debited. So closing
 *   record.", a duplicate transferid = success with no second movement, a credit whose round has no
 *   debit = "Bet not exist", a recredit of a credit already made = success with no money.
 * - A Java Habanero integration (search index id 63244092787, com.nextgen.gameaggregator…habanero):
 *   `type` must be "fundtransferrequest", auth.passkey and auth.brandid are compared with the
 *   configured ones, the token is checked except on retries (isretry) and on expired-round
 *   settlements (gamestatemode 3), which are matched by accountid.
 *
 * What is unknown, and the lenient reading taken here:
 * - Paths: t1 gives each kind its own path, the body always names its kind in `type`; so any POST
 *   path is accepted and `type` routes.
 * - Amount precision: not stated; up to 8 fraction digits are kept exactly. Amounts are read as JSON
 *   numbers, or numeric strings.
 * - The token is checked only where both integrations check it: on a new debit that is not a retry
 *   and not an expired-round settlement. Credits, refunds and recredits settle by accountid.
 * - A credit with no initialdebittransferid (free spins, jackpots) is paid; one that names a debit
 *   this wallet never took is refused ("Bet not exist"), as both integrations do.
 *
 * Style 'B' (options.style): the token is checked on every fund transfer, as t1's transaction()
 * does (getPlayerByToken first), keeping the Java one's exemptions (isretry, gamestatemode 3).
 *
 * Planted bugs (options.bugs): ignores-credential (passkey, brandid), funds-before-duplicate,
 * forgetful-dedupe (transferids). playerdetailrequest names no player: no session takeover.
 */
import { describe, isObject, type JsonObject, parseJsonObject } from './json-fields.ts';
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

const SCALE = 8;
const GAME_STATE_EXPIRED = 3;

interface Transfer {
  transferId: string;
  playerId: string;
  /** Signed units: negative = debit, positive = credit. */
  units: number;
  walletId: string;
  gameInstanceId: string | undefined;
  refunded: boolean;
}

interface FundInfo {
  transferId: string;
  units: number;
  currency: string;
  gameStateMode: number | undefined;
  initialDebitTransferId: string | undefined;
  originalTransferId: string | undefined;
}

interface Status {
  success: boolean;
  nofunds: boolean;
  successdebit: boolean;
  successcredit: boolean;
  message: string;
  autherror: boolean;
  refundstatus: string | number;
}

/** Starts the wallet. credentials: `passkey` (auth.passkey), optionally `brandId` (auth.brandid when sent). */
export async function startHabaneroReceiver(options: ReceiverOptions): Promise<VendorReceiver> {
  const passkey = options.credentials.passkey;
  if (!passkey) throw new Error('habanero receiver: credentials.passkey is required');
  const brandId = options.credentials.brandId;
  const ledger = openingLedger(options.players, SCALE);
  const transfers = new Map<string, Transfer>();
  /** Debits refunded before they arrived: never charged. */
  const refundedBeforeArrival = new Set<string>();
  /** Refund transfer ids already answered. */
  const refunds = new Map<string, { walletId: string; status: Partial<Status> }>();
  let nextWalletId = 1;
  const style = options.style ?? 'A';
  const bugs = plantedBugs('habanero', options.bugs, ['ignores-credential', 'funds-before-duplicate', 'forgetful-dedupe']);
  const recall = new DedupeRecall(bugs.has('forgetful-dedupe'));

  const balanceOf = (playerId: string): string => {
    const player = ledger.get(playerId);
    if (!player) throw new Error(`habanero receiver: no player ${playerId}`);
    return unitsToDecimal(player.units, SCALE);
  };
  const money = (units: number) => Number(unitsToDecimal(units, SCALE));

  const handle = (request: ReceivedRequest, errors: string[]): HandledReply => {
    const where = `${request.method} ${request.path}`;
    const note = (problems: string[]) => {
      for (const problem of problems) errors.push(`${where}: ${problem}`);
    };
    if (request.method !== 'POST') {
      note([`method ${request.method}: Habanero posts JSON`]);
      return { status: 405, body: { error: 'POST only' }, fields: {} };
    }
    const parsed = parseJsonObject(request.rawBody);
    if ('problem' in parsed) {
      note([parsed.problem]);
      return { status: 400, body: { error: parsed.problem }, fields: {} };
    }
    const body = parsed.body;
    const problems: string[] = [];
    const kindProblems: string[] = [];
    const kind = requestKind(body, kindProblems);
    // Noted, but a body whose kind is still clear from what it carries is served.
    note(kindProblems);
    if (kind === undefined) return { status: 400, body: { error: kindProblems.join('; ') }, fields: body };
    const wrapper =
      kind === 'playerdetailrequest'
        ? 'playerdetailresponse'
        : kind === 'configdetailrequest'
          ? 'configdetailresponse'
          : 'fundtransferresponse';
    const reply = (status: Partial<Status>, extra: Record<string, unknown> = {}): HandledReply => ({
      status: 200,
      body: {
        [wrapper]: {
          status: {
            success: false,
            nofunds: false,
            successdebit: false,
            successcredit: false,
            message: '',
            autherror: false,
            refundstatus: 0,
            ...status,
          },
          ...extra,
        },
      },
      fields: body,
    });

    const authProblem = bugs.has('ignores-credential') ? undefined : checkAuth(body, passkey, brandId);
    if (authProblem) {
      note([authProblem]);
      return reply({ autherror: true, message: 'Invalid Passkey.' });
    }
    if (typeof body.dtsent !== 'string')
      problems.push(`dtsent: got ${describe(body.dtsent)}; expected the send time as a string`);

    const inner = body[kind];
    if (!isObject(inner)) {
      note([...problems, `${kind}: got ${describe(inner)}; expected the ${kind} object`]);
      return reply({ message: `${kind} missing` });
    }

    if (kind === 'playerdetailrequest') {
      const token = text(inner, 'token', `${kind}.`, problems);
      const player =
        token === undefined
          ? undefined
          : [...ledger.values()].find((p) => p.token !== undefined && constantTimeEqual(p.token, token));
      if (problems.length > 0) {
        note(problems);
        return reply({ message: problems.join('; ') });
      }
      if (!player) {
        note([`${kind}.token: ${describe(token)} is no session this wallet opened`]);
        return reply({ autherror: true, message: 'Invalid Auth Token.' });
      }
      return reply(
        { success: true },
        { accountid: player.playerId, accountname: player.playerId, balance: money(player.units), currencycode: player.currency },
      );
    }
    if (kind === 'queryrequest') {
      const transferId = text(inner, 'transferid', `${kind}.`, problems);
      const queried =
        inner.queryamount === undefined ? undefined : readUnits(inner.queryamount, `${kind}.queryamount`, problems, true);
      note(problems);
      const transfer = transferId === undefined ? undefined : transfers.get(transferId);
      const found = transfer !== undefined && (queried === undefined || queried === transfer.units);
      return reply(
        { success: found, message: found ? '' : 'Invalid TransferID.' },
        { remotetransferid: transfer?.walletId ?? null },
      );
    }
    if (kind === 'configdetailrequest' || kind === 'endsession') {
      note(problems);
      return reply({ success: true });
    }

    // fundtransferrequest
    const prefix = 'fundtransferrequest.';
    const token = text(inner, 'token', prefix, problems);
    const accountId = text(inner, 'accountid', prefix, problems, { optional: true });
    const gameInstanceId = text(inner, 'gameinstanceid', prefix, problems);
    const isRetry = flag(inner, 'isretry', prefix, problems);
    const isRefund = flag(inner, 'isrefund', prefix, problems);
    const isRecredit = flag(inner, 'isrecredit', prefix, problems);
    const funds = inner.funds;
    if (!isObject(funds)) problems.push(`${prefix}funds: got ${describe(funds)}; expected {debitandcredit, fundinfo[] | refund}`);
    const debitAndCredit = isObject(funds) ? flag(funds, 'debitandcredit', `${prefix}funds.`, problems) : false;
    const entries = isObject(funds) && !isRefund ? fundInfos(funds.fundinfo, problems) : undefined;
    const refund = isObject(funds) && isRefund ? refundInfo(funds.refund, problems) : undefined;
    if (problems.length > 0) {
      note(problems);
      return reply({ message: problems.join('; ') });
    }

    const player = accountId !== undefined ? ledger.get(accountId) : [...ledger.values()].find((p) => p.token === token);
    if (!player) {
      note([`${prefix}accountid: no player ${describe(accountId ?? token)} in this wallet`]);
      return reply({ autherror: true, message: 'Cannot find player.' });
    }
    const settles = (entries ?? []).some((entry) => entry.gameStateMode === GAME_STATE_EXPIRED);
    const debits = (entries ?? []).some((entry) => entry.units < 0);
    const tokenChecked = style === 'B' || debits;
    if (
      tokenChecked &&
      !isRetry &&
      !isRecredit &&
      !settles &&
      player.token !== undefined &&
      !constantTimeEqual(player.token, token ?? '')
    ) {
      note([`${prefix}token: ${describe(token)} is not the session this wallet opened for ${player.playerId}`]);
      return reply({ autherror: true, message: 'Invalid Auth Token.' });
    }
    const currency = refund?.currency ?? entries?.[0]?.currency;
    const foreign = [...(entries ?? []), ...(refund ? [refund] : [])].find((entry) => entry.currency !== player.currency);
    if (foreign) {
      note([
        `${prefix}funds: currencycode ${describe(foreign.currency)} on transfer ${foreign.transferId}; the player's wallet is in ${player.currency}`,
      ]);
      return reply({ message: 'Invalid currency.' });
    }
    const answer = (status: Partial<Status>, remote?: string) =>
      reply(status, {
        balance: money(player.units),
        currencycode: currency ?? player.currency,
        remotetransferid: remote ?? null,
      });
    const record = (entry: FundInfo): Transfer => {
      const transfer: Transfer = {
        transferId: entry.transferId,
        playerId: player.playerId,
        units: entry.units,
        walletId: `hb-${nextWalletId++}`,
        gameInstanceId,
        refunded: false,
      };
      transfers.set(entry.transferId, transfer);
      recall.note(entry.transferId);
      return transfer;
    };
    /** A transfer seen before: undefined when it is the same one (a retry), else the sentence. */
    const mismatch = (previous: Transfer, entry: FundInfo) =>
      previous.playerId === player.playerId && previous.units === entry.units
        ? undefined
        : `transferid ${entry.transferId} was first sent for ${previous.playerId} with ${unitsToDecimal(previous.units, SCALE)}; now ${player.playerId} with ${unitsToDecimal(entry.units, SCALE)}`;

    if (refund) {
      // A repeated refund gets the answer the first one got, with the balance of now.
      const previousRefund = refunds.get(refund.transferId);
      if (previousRefund) return answer(previousRefund.status, previousRefund.walletId);
      const original = refund.originalTransferId === undefined ? undefined : transfers.get(refund.originalTransferId);
      const walletId = `hb-${nextWalletId++}`;
      if (!original || original.playerId !== player.playerId) {
        if (refund.originalTransferId !== undefined) refundedBeforeArrival.add(refund.originalTransferId);
        const status = { success: true, refundstatus: '2', message: 'Original request never debited. So closing record.' };
        refunds.set(refund.transferId, { walletId, status });
        return answer(status, walletId);
      }
      if (original.units >= 0) {
        note([`${prefix}funds.refund.originaltransferid: ${original.transferId} is a credit; only a debit can be refunded`]);
        return answer({ message: 'Could Not Refund.' });
      }
      if (!original.refunded) {
        if (Math.abs(refund.units) !== -original.units) {
          note([
            `${prefix}funds.refund.amount: ${unitsToDecimal(Math.abs(refund.units), SCALE)} differs from debit ${original.transferId} (${unitsToDecimal(-original.units, SCALE)}); the debit's amount was returned`,
          ]);
        }
        original.refunded = true;
        player.units -= original.units;
      }
      refunds.set(refund.transferId, { walletId, status: { success: true, refundstatus: '1' } });
      return answer({ success: true, refundstatus: '1' }, walletId);
    }

    const list = entries ?? [];
    if (isRecredit) {
      let last: string | undefined;
      for (const entry of list) {
        const original = transfers.get(entry.originalTransferId ?? entry.transferId) ?? transfers.get(entry.transferId);
        if (original) {
          last = original.walletId;
          continue;
        }
        if (entry.units < 0) {
          note([`${prefix}funds.fundinfo: transfer ${entry.transferId} has a negative amount; a recredit only credits`]);
          return answer({ message: 'Could Not Recredit.' });
        }
        player.units += entry.units;
        last = record(entry).walletId;
      }
      return answer(
        { success: true, successcredit: true, message: 'Original request never credited, so we did the re-credit' },
        last,
      );
    }

    // A debit-and-credit call is one unit: checked whole first, then applied whole.
    if (bugs.has('funds-before-duplicate')) {
      const total = list.reduce((sum, entry) => sum + Math.min(entry.units, 0), 0);
      if (player.units + total < 0) return answer({ nofunds: true, message: 'Insufficient funds.' });
    }
    const fresh: FundInfo[] = [];
    let last: string | undefined;
    for (const entry of list) {
      const previous = recall.remembers(entry.transferId) ? transfers.get(entry.transferId) : undefined;
      if (!previous) {
        fresh.push(entry);
        continue;
      }
      const problem = mismatch(previous, entry);
      if (problem) {
        note([`${prefix}funds.fundinfo: ${problem}`]);
        return answer({ message: 'Invalid Transaction.' });
      }
      last = previous.walletId;
    }
    let units = player.units;
    const debitIds = new Set(list.filter((entry) => entry.units < 0).map((entry) => entry.transferId));
    for (const entry of fresh) {
      if (entry.units < 0 && refundedBeforeArrival.has(entry.transferId)) {
        return answer({ message: 'Transfer already refunded.' });
      }
      if (entry.units >= 0 && entry.initialDebitTransferId !== undefined) {
        const debit = transfers.get(entry.initialDebitTransferId);
        if (!debitIds.has(entry.initialDebitTransferId) && (!debit || debit.playerId !== player.playerId)) {
          note([
            `${prefix}funds.fundinfo: credit ${entry.transferId} names initialdebittransferid ${entry.initialDebitTransferId}, a debit this wallet never took`,
          ]);
          return answer({ message: 'Bet not exist' });
        }
      }
      units += entry.units;
      if (units < 0) return answer({ nofunds: true, message: 'Insufficient funds.' });
    }
    player.units = units;
    for (const entry of fresh) last = record(entry).walletId;
    return answer(
      {
        success: true,
        successdebit: debitAndCredit || list.some((entry) => entry.units < 0),
        successcredit: debitAndCredit || list.some((entry) => entry.units >= 0),
      },
      last,
    );
  };

  return startLoopbackReceiver(handle, balanceOf);
}

type Kind = 'playerdetailrequest' | 'fundtransferrequest' | 'queryrequest' | 'configdetailrequest' | 'endsession';
const KINDS: readonly Kind[] = [
  'playerdetailrequest',
  'fundtransferrequest',
  'queryrequest',
  'configdetailrequest',
  'endsession',
];

/** The request kind from `type`; a body without one is read by the object it carries (and noted). */
function requestKind(body: JsonObject, problems: string[]): Kind | undefined {
  if (typeof body.type === 'string' && KINDS.includes(body.type as Kind)) return body.type as Kind;
  const carried = KINDS.find((kind) => isObject(body[kind]));
  problems.push(`type: got ${describe(body.type)}; expected one of ${KINDS.join(', ')}`);
  return carried;
}

function checkAuth(body: JsonObject, passkey: string, brandId: string | undefined): string | undefined {
  const auth = body.auth;
  if (!isObject(auth) || typeof auth.passkey !== 'string') {
    return `auth.passkey: got ${describe(isObject(auth) ? auth.passkey : auth)}; expected the passkey agreed with Habanero`;
  }
  if (!constantTimeEqual(auth.passkey, passkey)) return 'auth.passkey: does not match the passkey agreed with Habanero';
  if (
    brandId !== undefined &&
    typeof auth.brandid === 'string' &&
    !constantTimeEqual(auth.brandid.toLowerCase(), brandId.toLowerCase())
  ) {
    return `auth.brandid: got ${describe(auth.brandid)}; expected this brand's id`;
  }
  return undefined;
}

function text(object: JsonObject, name: string, prefix: string, problems: string[], rule: { optional?: boolean } = {}) {
  const value = object[name];
  if (value === undefined || value === null || value === '') {
    if (!rule.optional) problems.push(`${prefix}${name}: required but missing; expected a non-empty string`);
    return undefined;
  }
  if (typeof value === 'string' && value.length <= 255) return value;
  if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
  problems.push(`${prefix}${name}: got ${describe(value)}; expected a string`);
  return undefined;
}

/** A boolean flag; absent = false (the integrations default it), "true"/"false" read as such. */
function flag(object: JsonObject, name: string, prefix: string, problems: string[]): boolean {
  const value = object[name];
  if (value === undefined || value === null) return false;
  if (typeof value === 'boolean') return value;
  if (value === 'true' || value === 'false') return value === 'true';
  problems.push(`${prefix}${name}: got ${describe(value)}; expected true or false`);
  return false;
}

/** A signed amount in major units (JSON number or numeric string) as integer units. */
function readUnits(value: unknown, name: string, problems: string[], signed: boolean): number | undefined {
  const literal =
    typeof value === 'number' && Number.isFinite(value) ? String(value) : typeof value === 'string' ? value : undefined;
  const match = literal === undefined ? null : /^(-?)(\d+(?:\.\d+)?)$/.exec(literal);
  const units = match ? decimalToUnits(match[2]!, SCALE) : undefined;
  if (!match || units === undefined || (match[1] && !signed)) {
    problems.push(
      `${name}: got ${describe(value)}; expected a ${signed ? 'signed ' : ''}decimal amount with at most ${SCALE} fraction digits`,
    );
    return undefined;
  }
  return match[1] ? -units : units;
}

function fundInfos(value: unknown, problems: string[]): FundInfo[] | undefined {
  const name = 'fundtransferrequest.funds.fundinfo';
  if (!Array.isArray(value) || value.length === 0) {
    problems.push(`${name}: got ${describe(value)}; expected a non-empty array of transfers`);
    return undefined;
  }
  const entries: FundInfo[] = [];
  for (const [index, item] of value.entries()) {
    const entry = transferEntry(item, `${name}[${index}].`, problems);
    if (entry) entries.push(entry);
  }
  return entries.length === value.length ? entries : undefined;
}

function refundInfo(value: unknown, problems: string[]): FundInfo | undefined {
  const entry = transferEntry(value, 'fundtransferrequest.funds.refund.', problems);
  if (entry && entry.originalTransferId === undefined) {
    problems.push('fundtransferrequest.funds.refund.originaltransferid: required but missing; expected the debit being refunded');
    return undefined;
  }
  return entry;
}

function transferEntry(item: unknown, prefix: string, problems: string[]): FundInfo | undefined {
  if (!isObject(item)) {
    problems.push(`${prefix.slice(0, -1)}: got ${describe(item)}; expected a transfer object`);
    return undefined;
  }
  const before = problems.length;
  const transferId = text(item, 'transferid', prefix, problems);
  const units = readUnits(item.amount, `${prefix}amount`, problems, true);
  const currency = text(item, 'currencycode', prefix, problems);
  const mode = item.gamestatemode;
  if (mode !== undefined && mode !== null && !(typeof mode === 'number' && Number.isInteger(mode))) {
    problems.push(`${prefix}gamestatemode: got ${describe(mode)}; expected an integer (0 continue, 1 start, 2 end, 3 expired)`);
  }
  const initialDebitTransferId = text(item, 'initialdebittransferid', prefix, problems, { optional: true });
  const originalTransferId = text(item, 'originaltransferid', prefix, problems, { optional: true });
  if (problems.length > before || transferId === undefined || units === undefined || currency === undefined) return undefined;
  return {
    transferId,
    units,
    currency,
    gameStateMode: typeof mode === 'number' ? mode : undefined,
    initialDebitTransferId,
    originalTransferId,
  };
}
