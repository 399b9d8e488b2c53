/**
 * A casino wallet for Blue Ocean Gaming's seamless wallet, written from the vendor's documentation,
 * to judge aggmock's Blue Ocean wire independently.
 *
 * Sources (vendor docs, blueoceangaming.atlassian.net, space iGPPD):
 * - "Seamless wallet calls (balance, debit, credit, rollback)" (pageId 3070361626): request
 *   validation, key = sha1(SALT + query string without key), parameters not sorted, bad key answered
 *   {"status":"403","msg":"INCORRECT_KEY_VALIDATION"};
 * - "Seamless player debit callback" (pages/1209172004) and "8) seamless debit players balance
 *   callback" (pages/1209172092): the mandatory query fields of a debit, sizes, the example;
 * - "Seamless player rollback callback" (pages/1209172038): the original's amount is used, 404
 *   {"status":"404","msg":"transaction missing"}, 500 is retried;
 * - "7) seamless player balance callback", the credit
 *   and rollback callbacks, "3.4 seamless rollback transaction callback";
 * - research note wires.md §2.8, which summarises those pages.
 *
 * What it checks: GET on one URL with everything in the query; callerId/callerPassword; action
 * (balance|debit|credit|rollback); username; amount as a decimal with at most 2 places;
 * transaction_id; the key. Replies {"status":"200","balance":"300.00"} with strings, HTTP 200.
 *
 * Unknown, chosen leniently (each marked "unknown:" below): the reply for an unknown player and
 * for wrong caller credentials (status "403" with a msg here), the msg for insufficient funds,
 * whether the key is over the raw query text or a re-encoding of the parsed parameters (both are
 * accepted), whether the rollback of a credit takes the win back (it does here), and whether a
 * second rollback of the same transaction moves money (it does not; it answers 200 again).
 *
 * Style 'B' (options.style), a second correct wallet: the key is checked over the query text
 * exactly as received, the docs' literal rule (pageId 3070361626: sha1(SALT + query string without
 * key), "parameters not sorted"); A also accepts PHP's http_build_query rebuild of the parsed
 * pairs. Both answer a repeated transaction_id with its first reply, as the docs ask.
 *
 * Planted bugs (options.bugs): ignores-credential (callerId/callerPassword not compared; the key
 * still is), funds-before-duplicate, forgetful-dedupe (transaction ids), crashes-on-cut-request (a
 * missing parameter answered with a bare HTTP 500, not the documented "500" in a 200), crashes-on-malformed-param
 * (the same for an amount parameter that is no number). Blue Ocean has no
 * authenticate call, so no session to take over.
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
import { CRASH_REPLY, DedupeRecall, plantedBugs, type ReceiverOptions } from './receiver-style.ts';

const SCALE = 2;
const ACTIONS = ['balance', 'debit', 'credit', 'rollback'] as const;
const FLAGS = ['gameplay_final', 'is_freeround_bet', 'is_freeround_win', 'freeround_completed', 'is_jackpot_win', 'is_promo_win'];

interface StoredTransaction {
  kind: 'debit' | 'credit';
  amount: number;
  rolledBack: boolean;
  /** The reply given the first time: a repeated transaction_id gets it again. */
  reply: Record<string, string>;
}

/** PHP's http_build_query encoding (urlencode: space as '+', only A-Za-z0-9 and -_. left as is). */
function phpUrlencode(text: string): string {
  return encodeURIComponent(text)
    .replace(/[!'()*~]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%20/g, '+');
}

/** The query text the key covers: the raw query without its key pair, and PHP's rebuild of the parsed pairs. */
function signedForms(rawQuery: string, query: URLSearchParams): string[] {
  const raw = rawQuery
    .split('&')
    .filter((pair) => pair.length > 0 && pair.split('=')[0] !== 'key')
    .join('&');
  const rebuilt = [...query.entries()]
    .filter(([name]) => name !== 'key')
    .map(([name, value]) => `${phpUrlencode(name)}=${phpUrlencode(value)}`)
    .join('&');
  return raw === rebuilt ? [raw] : [raw, rebuilt];
}

function reply(body: Record<string, string>, fields: Record<string, unknown>): HandledReply {
  // The status travels in the body; the HTTP status is 200 as for any PHP json_encode answer.
  return { status: 200, body, fields };
}

/**
 * Starts the wallet on 127.0.0.1. Credentials by the vendor's names: callerId, callerPassword and
 * salt (the SALT KEY the casino gave Blue Ocean).
 * @example const wallet = await startBlueOceanReceiver({ credentials: { callerId, callerPassword, salt }, players });
 */
export async function startBlueOceanReceiver(options: ReceiverOptions): Promise<VendorReceiver> {
  const { callerId = '', callerPassword = '', salt = '' } = options.credentials;
  if (callerId === '' || callerPassword === '' || salt === '') {
    throw new Error('startBlueOceanReceiver: credentials.callerId, callerPassword and salt are all required');
  }
  const ledger = openingLedger(options.players, SCALE);
  /** By player and transaction_id: the docs say ids are unique per player. */
  const transactions = new Map<string, StoredTransaction>();
  const style = options.style ?? 'A';
  const bugs = plantedBugs('blueocean', options.bugs, [
    'ignores-credential',
    'funds-before-duplicate',
    'forgetful-dedupe',
    'crashes-on-cut-request',
    'crashes-on-malformed-param',
  ]);
  const recall = new DedupeRecall(bugs.has('forgetful-dedupe'));

  function handle(request: ReceivedRequest, errors: string[]): HandledReply {
    const where = `${request.method} ${request.path}`;
    const fields: Record<string, unknown> = Object.fromEntries(request.query.entries());
    delete fields.callerPassword;
    if (request.method !== 'GET') {
      errors.push(`${where}: Blue Ocean calls the wallet with GET and the query string; got ${request.method}`);
      return reply({ status: '500', msg: 'INTERNAL_ERROR' }, fields);
    }
    const query = request.query;
    const rawQuery = request.rawQuery;
    const key = query.get('key');
    const valid =
      key !== null &&
      signedForms(rawQuery, query)
        .slice(0, style === 'B' ? 1 : undefined)
        .some((text) =>
          constantTimeEqual(
            key.toLowerCase(),
            createHash('sha1')
              .update(salt + text)
              .digest('hex'),
          ),
        );
    if (!valid) {
      errors.push(
        `${where}: key ${key === null ? 'is missing' : 'does not match'}; expected sha1(salt + the query string without key, unsorted)`,
      );
      return reply({ status: '403', msg: 'INCORRECT_KEY_VALIDATION' }, fields);
    }
    for (const name of ['callerId', 'callerPassword', 'key']) {
      if (query.getAll(name).length > 1) errors.push(`${where}: ${name} appears more than once`);
    }
    // unknown: the reply for wrong caller credentials; a refusal like the bad key.
    if (
      !bugs.has('ignores-credential') &&
      (!constantTimeEqual(query.get('callerId') ?? '', callerId) ||
        !constantTimeEqual(query.get('callerPassword') ?? '', callerPassword))
    ) {
      errors.push(`${where}: callerId/callerPassword are not the ones the casino issued`);
      return reply({ status: '403', msg: 'INCORRECT_CALLER' }, fields);
    }
    const problems: string[] = [];
    const action = query.get('action');
    if (action === null || !(ACTIONS as readonly string[]).includes(action)) {
      problems.push(`action: got ${action === null ? 'nothing' : JSON.stringify(action)}; expected one of ${ACTIONS.join(', ')}`);
    }
    const username = query.get('username') ?? query.get('remote_id');
    if (!username) problems.push('username: required by the docs but missing or empty; expected the player id');
    for (const flag of FLAGS) {
      const value = query.get(flag);
      if (value !== null && value !== '0' && value !== '1')
        problems.push(`${flag}: got ${JSON.stringify(value)}; expected 0 or 1`);
    }
    let amount: number | undefined;
    let transactionId: string | undefined;
    if (action === 'debit' || action === 'credit' || action === 'rollback') {
      transactionId = query.get('transaction_id') ?? undefined;
      if (!transactionId) problems.push('transaction_id: required by the docs but missing or empty');
      // Mandatory on every money call, the rollback included ("Seamless player rollback callback").
      for (const name of ['session_id', 'gamesession_id']) {
        if (!query.get(name)) problems.push(`${name}: required by the docs for a ${action} but missing or empty`);
      }
      // The rollback's amount is ignored (the original's is used), so it is not checked.
      if (action !== 'rollback') {
        // Marked mandatory on the debit/credit pages (transaction_id's "32-70" is a size, not a
        // minimum: the page's own example id is 14 characters, so lengths are not checked).
        for (const name of ['round_id', 'gameplay_final']) {
          if (!query.get(name)) problems.push(`${name}: required by the docs for a ${action} but missing or empty`);
        }
        // Older pages name the game game_id, newer ones game_id_hash: either will do.
        if (!query.get('game_id_hash') && !query.get('game_id')) {
          problems.push(`game_id_hash: required by the docs for a ${action} (or game_id in older versions) but both are missing`);
        }
        const text = query.get('amount');
        amount = text === null ? undefined : decimalToUnits(text, SCALE);
        if (amount === undefined)
          problems.push(
            `amount: got ${text === null ? 'nothing' : JSON.stringify(text)}; expected a non-negative decimal with at most 2 places, e.g. 1.50`,
          );
      }
    }
    if (problems.length > 0) {
      for (const problem of problems) errors.push(`${where}: ${problem}`);
      if (bugs.has('crashes-on-cut-request') && problems.some((p) => p.includes('missing'))) return { ...CRASH_REPLY, fields };
      if (bugs.has('crashes-on-malformed-param') && problems.some((p) => /^amount: got "/.test(p)))
        return { ...CRASH_REPLY, fields };
      return reply({ status: '500', msg: `BAD_REQUEST: ${problems.join('; ')}` }, fields);
    }
    const player = ledger.get(username as string);
    // unknown: the docs list no code for an unknown player; a refusal ("403").
    if (!player) return reply({ status: '403', msg: 'PLAYER_NOT_FOUND' }, fields);
    const currency = query.get('currency');
    if (currency !== null && currency !== player.currency) {
      errors.push(`${where}: currency ${currency} is not the player's ${player.currency}`);
      return reply({ status: '403', msg: 'CURRENCY_MISMATCH' }, fields);
    }
    const balance = () => unitsToDecimal(player.units, SCALE);
    if (action === 'balance') return reply({ status: '200', balance: balance() }, fields);

    const id = `${player.playerId}\u0000${transactionId}`;
    if (bugs.has('funds-before-duplicate') && action === 'debit' && (amount as number) > player.units) {
      return reply({ status: '403', balance: balance(), msg: 'INSUFFICIENT_FUNDS' }, fields);
    }
    const stored = recall.remembers(id) ? transactions.get(id) : undefined;
    if (action === 'rollback') {
      if (!stored) return reply({ status: '404', msg: 'transaction missing' }, fields);
      if (!stored.rolledBack) {
        // A debit is given back; a credit (rolled back after a timeout) is taken back.
        player.units += stored.kind === 'debit' ? stored.amount : -stored.amount;
        stored.rolledBack = true;
      }
      return reply({ status: '200', balance: balance() }, fields);
    }
    if (stored) {
      if (stored.kind !== action) {
        errors.push(`${where}: transaction_id ${transactionId} was already used by a ${stored.kind}`);
        return reply({ status: '403', msg: 'TRANSACTION_ID_REUSED' }, fields);
      }
      return reply(stored.reply, fields);
    }
    const units = amount as number;
    if (action === 'debit' && units > player.units) {
      // unknown: the msg; the docs give debit answers 200, 403 (refused) and 500.
      return reply({ status: '403', balance: balance(), msg: 'INSUFFICIENT_FUNDS' }, fields);
    }
    player.units += action === 'debit' ? -units : units;
    const body = { status: '200', balance: balance() };
    transactions.set(id, { kind: action as 'debit' | 'credit', amount: units, rolledBack: false, reply: body });
    recall.note(id);
    return reply(body, fields);
  }

  return startLoopbackReceiver(handle, (playerId) => {
    const player = ledger.get(playerId);
    if (!player) throw new Error(`unknown player ${playerId}`);
    return unitsToDecimal(player.units, SCALE);
  });
}
