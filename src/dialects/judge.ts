import { jsonDepth } from '../http/body.ts';
import { MAX_JSON_DEPTH } from '../http/limits.ts';
import type { ExtraCurrencies } from '../money/index.ts';
import { jsonEqual, parseJsonOr } from '../shared/index.ts';
import { outcomesOf, type ReadReply, type ReplyText, readReply, statusIn } from './reply.ts';
import { RULE_NAMES, type RuleGrade, type RuleName, type RuleSource } from './rule-sources.ts';
import { type Dialect, MONEY_OPERATIONS, type Operation } from './schema.ts';

/*
 * One judge per vendor rule. Each rule a wallet's reply is held to is decided here, once, and asked
 * by the shadow ledger, `aggmock verify`, the contracts and the reference wallet alike, so the
 * four cannot disagree about what a correct wallet answers:
 * - repeat: does a repeat's reply agree with the first (same reply, same outcome, the current
 *   balance, or the vendor's "already processed" code)? — repeatAgrees;
 * - unknown-rollback: what a rollback of a transaction the wallet never saw may answer — unknownRollbackAccepts;
 * - reply-balance: which operations' replies must carry a balance — replyBalanceRule;
 * - session-token: whether a reply hands over a new session token — tokenHandedOver;
 * - refusal / retry: what counts as a final refusal and what as "try again" — isRefusal, isRetry.
 *
 * `rulesOf` lists each rule as the dialect reads it, as data, with where the rule comes from
 * (`source`) and whether aggmock holds a wallet to more than the vendor says (`strict`).
 */

export { RULE_GRADES, RULE_NAMES, type RuleGrade, type RuleName, type RuleSource } from './rule-sources.ts';

/** One rule as a dialect reads it: what passes, where that comes from, and what aggmock asks beyond it. */
export interface Rule {
  rule: RuleName;
  /** What a correct wallet's reply may be, in one sentence. */
  accepts: string;
  /** Where the rule comes from: the vendor's document (URL and section), third-party code (repository and path), or "unknown: …". */
  source: string;
  /** How it is known; `unknown` rules accept any answer that moves no money. */
  grade: RuleGrade;
  /** What aggmock asks beyond the source: a warning by default, a failure under `verify --strict`. */
  safer?: string;
  /** How to relax a failure where the vendor allows it. */
  relax?: string;
}

/** The call a reply answers: which operation, in which currency (and the configured extra currencies). */
export interface ReplyContext {
  operation: Operation;
  currency: string;
  currencies?: ExtraCurrencies | undefined;
}

/** What a repeat's reply was judged to be. */
export interface RepeatJudgement {
  /** Whether it agrees with the first reply by the dialect's rule. */
  agrees: boolean;
  /** Which reading of the rule it met (or, when it does not agree, the one it broke). */
  by: 'same-reply' | 'same-outcome' | 'current-balance' | 'acknowledged';
  /**
   * What its balance says: the first reply's again (old news, nothing about now), the balance as it
   * is now (a read like any other), or nothing.
   */
  balance: 'replayed' | 'current' | 'none';
}

/**
 * Whether a code says "already done" for a repeat of an accepted call (Evolution's BET_ALREADY_EXIST
 * for a debit, BET_ALREADY_SETTLED for a credit or cancel; Groove's 110): the dialect's
 * acknowledgement codes for that operation (`reply.acknowledges`), else its ALREADY_SETTLED codes.
 * Without an operation, any operation's acknowledgement counts.
 */
export function isAlreadyProcessed(dialect: Dialect, code: string | undefined, operation?: Operation): boolean {
  return code !== undefined && acknowledgementCodes(dialect, operation).includes(code);
}

/** The codes that acknowledge a repeat of an accepted call of this operation (any operation when absent), as text. */
export function acknowledgementCodes(dialect: Dialect, operation?: Operation): string[] {
  const byOperation = dialect.reply.acknowledges;
  const settled = dialect.reply.codes.ALREADY_SETTLED;
  const lists =
    byOperation === undefined ? [settled] : operation === undefined ? Object.values(byOperation) : [byOperation[operation]];
  return lists.flatMap((list) => (list === undefined ? [] : Array.isArray(list) ? list : [list])).map(String);
}

/**
 * The dialect as aggmock's safer readings beyond the vendor's text would have it (`reply.safer`:
 * Hub88's repeat with the first reply's balance, Caleta's preferred RS_OK for an unknown rollback),
 * or undefined when it has none. verify judges a reply by both: breaking only the safer one is a
 * warning, or a failure under `--strict`.
 */
export function saferDialect(dialect: Dialect): Dialect | undefined {
  const safer = dialect.reply.safer;
  if (safer.duplicates === undefined && safer.unknownRollback === undefined) return undefined;
  return { ...dialect, reply: { ...dialect.reply, ...safer, safer: {} } };
}

/**
 * Whether a repeated transaction's reply agrees with the first, by the dialect's `reply.duplicates`:
 * - `same-reply`: the same status and JSON (members in any order), apart from what each reply
 *   echoes of its own request (Hub88's request_uuid);
 * - `same-outcome`: the same verdict, code and balance; the message may differ (Betnex);
 * - `current-balance`: the same verdict and code, with the balance as it is now (Pragmatic,
 *   Groove, Habanero, Slotegrator); the first reply's balance again is accepted too (a wallet
 *   that stores its replies replays them; aggmock's lenient reading), and then says nothing about now;
 * - on any wire, a repeat of an accepted call answered with the vendor's "already processed"
 *   code (ALREADY_SETTLED) acknowledges it: it agrees when it carries no balance, or the balance
 *   the rule asks for.
 *
 * @example repeatAgrees(pragmatic, { operation: 'bet', currency: 'EUR' }, first, again).agrees
 */
export function repeatAgrees(dialect: Dialect, context: ReplyContext, first: ReplyText, again: ReplyText): RepeatJudgement {
  const rule = dialect.reply.duplicates;
  const a = readReply(dialect, context, first);
  const b = readReply(dialect, context, again);
  const current = rule === 'current-balance';
  const balanceOf = (r: ReadReply) => (r.balance.kind === 'ok' ? r.balance.minor : r.balance.kind);
  if (a.verdict === 'accepted' && b.verdict === 'rejected' && isAlreadyProcessed(dialect, b.code, context.operation)) {
    if (b.balance.kind !== 'ok') return { agrees: true, by: 'acknowledged', balance: 'none' };
    return {
      agrees: current || balanceOf(a) === balanceOf(b),
      by: 'acknowledged',
      balance: current ? 'current' : 'replayed',
    };
  }
  const sameOutcome = a.verdict === b.verdict && (a.verdict === 'accepted' || a.code === b.code);
  if (rule === 'current-balance') {
    const balance = b.balance.kind !== 'ok' ? 'none' : balanceOf(a) === balanceOf(b) ? 'replayed' : 'current';
    return { agrees: sameOutcome, by: rule, balance };
  }
  if (rule === 'same-outcome') return { agrees: sameOutcome && balanceOf(a) === balanceOf(b), by: rule, balance: 'replayed' };
  // What a reply echoes of its own request differs between two requests by design.
  const echoes = Object.values(dialect.reply.echo) as string[];
  const same =
    first.status === again.status && jsonEqual(withoutPaths(bodyOf(first), echoes), withoutPaths(bodyOf(again), echoes));
  return { agrees: same, by: rule, balance: 'replayed' };
}

function bodyOf(reply: ReplyText): unknown {
  // A body nested deeper than requests may be is compared as its text, as the reader reads it as no JSON.
  if (jsonDepth(reply.text) > MAX_JSON_DEPTH) return reply.text;
  return parseJsonOr(reply.text, reply.text);
}

/** A copy of a JSON body without the members at these dotted paths. */
function withoutPaths(body: unknown, paths: readonly string[]): unknown {
  if (paths.length === 0 || body === null || typeof body !== 'object' || Array.isArray(body)) return body;
  const copy: Record<string, unknown> = { ...(body as Record<string, unknown>) };
  for (const path of paths) {
    const [head, ...rest] = path.split('.');
    if (head === undefined || !Object.hasOwn(copy, head)) continue;
    if (rest.length === 0) delete copy[head];
    else copy[head] = withoutPaths(copy[head], [rest.join('.')]);
  }
  return copy;
}

/**
 * How a correct wallet answers a repeat so that {@link repeatAgrees} holds: its stored first reply
 * again, or, on a `current-balance` wire, the same outcome with the balance as it is now.
 */
export function repeatAnswer(dialect: Dialect): 'first-reply' | 'current-balance' {
  // A correct wallet meets aggmock's safer reading too (Hub88: the first reply again).
  return (dialect.reply.safer.duplicates ?? dialect.reply.duplicates) === 'current-balance' ? 'current-balance' : 'first-reply';
}

/**
 * How a correct wallet answers a rollback of a transaction it never saw: the dialect's rule, or
 * aggmock's safer reading of it (Caleta: RS_OK), or where neither says, a refusal when the wire has
 * a "not found" code for it. The reference wallet answers so.
 */
export function unknownRollbackAnswer(dialect: Dialect): 'not-found' | 'acknowledge' {
  const rule = dialect.reply.unknownRollback ?? dialect.reply.safer.unknownRollback;
  return rule ?? (dialect.reply.codes.TRANSACTION_NOT_FOUND === undefined ? 'acknowledge' : 'not-found');
}

/** What an answer to a rollback of an unknown transaction may be: exactly one of the two, or either. */
export function unknownRollbackRule(dialect: Dialect): 'not-found' | 'acknowledge' | 'either' {
  return dialect.reply.unknownRollback ?? 'either';
}

/**
 * Whether an answer to a rollback of a transaction the wallet never saw is one the dialect allows
 * (money aside: it must move none, which the balance rules judge): an acknowledgement, or the
 * TRANSACTION_NOT_FOUND refusal (any refusal on a wire without codes); where the vendor says which
 * (`reply.unknownRollback`), that one. A retry or garbage is never an answer.
 */
export function unknownRollbackAccepts(dialect: Dialect, reply: Pick<ReadReply, 'verdict' | 'code'>): boolean {
  const rule = unknownRollbackRule(dialect);
  if (reply.verdict === 'accepted') return rule !== 'not-found';
  if (reply.verdict !== 'rejected' || rule === 'acknowledge') return false;
  // Without a not-found code any refusal will do; on a wire with codes it must carry one.
  const notFound = dialect.reply.codes.TRANSACTION_NOT_FOUND;
  if (notFound === undefined) return Object.keys(dialect.reply.codes).length === 0 || reply.code !== undefined;
  return outcomesOf(dialect, reply.code).includes('TRANSACTION_NOT_FOUND');
}

/**
 * Whether an operation's acceptance must carry the balance: `required` for the money calls and the
 * balance call, `none` where the vendor documents the reply without one (Pragmatic's refund,
 * Caleta's check), `optional` for the others (authenticate, end of round: read when there, never
 * missed: many vendors document these replies without a balance, and none hides money).
 */
export function replyBalanceRule(dialect: Dialect, operation: Operation): 'required' | 'optional' | 'none' {
  if (dialect.operations[operation]?.reply?.balance === false) return 'none';
  return MONEY_OPERATIONS[operation] !== undefined || operation === 'balance' ? 'required' : 'optional';
}

/** The session token a reply hands over to use from then on (Caleta's authenticate), when it does: only an acceptance of an operation whose reply names one. */
export function tokenHandedOver(reply: Pick<ReadReply, 'verdict' | 'token'>): string | undefined {
  return reply.verdict === 'accepted' ? reply.token : undefined;
}

/** Whether a reply is a final refusal: a business "no", never retried (a 3xx/4xx, or an answer with an error code or a failed success flag). */
export function isRefusal(reply: Pick<ReadReply, 'verdict'>): boolean {
  return reply.verdict === 'rejected';
}

/**
 * Whether a reply asks to be tried again: a retry status (408, 429, 5xx), a retry code in an
 * answer (Pragmatic 100), or an answer that is no JSON object (nobody can tell if it was applied).
 */
export function isRetry(reply: Pick<ReadReply, 'verdict'>): boolean {
  return reply.verdict === 'retry' || reply.verdict === 'invalid';
}

/**
 * Whether a refusal to a retry means the call was applied: an earlier attempt of the same call got no
 * final answer (a timeout, a reset, a 5xx) and the wallet now answers with the dialect's "already
 * processed" code for the operation (Evolution's BET_ALREADY_EXIST to a bet). The money moved once,
 * with the earlier attempt. On a first attempt the same code answers a duplicate call, which moved
 * nothing, so it stays a refusal. The engine, the load generator and its verdict ask this.
 */
export function appliedEarlier(
  dialect: Dialect,
  reply: Pick<ReadReply, 'verdict' | 'code'>,
  operation: Operation | undefined,
  retried: boolean,
): boolean {
  return retried && reply.verdict === 'rejected' && isAlreadyProcessed(dialect, reply.code, operation);
}

/**
 * Whether the vendor sends this call again after this refusal: the call lists the codes that end it
 * (`reply.finalCodes`) and the wallet refused it, in an answer, with another code. Groove re-sends a
 * result on every code but success and a rollback on all but 102 and 110; Caleta a win or a rollback
 * on all but its final statuses. The engine and the load generator ask this; verify still reads the
 * refusal as one (the wallet's answer is the same, only the aggregator's next step differs).
 */
export function resentAfter(
  dialect: Dialect,
  reply: Pick<ReadReply, 'verdict' | 'status' | 'code'>,
  operation: Operation | undefined,
): boolean {
  const final = operation === undefined ? undefined : dialect.operations[operation]?.reply?.finalCodes;
  if (final === undefined || reply.verdict !== 'rejected' || reply.code === undefined) return false;
  if (!statusIn(reply.status, dialect.reply.status.answer)) return false;
  return !final.some((c) => String(c) === reply.code);
}

/**
 * Whether the vendor takes this answer as "maybe applied" and rolls the call back: a refusal by one of
 * the call's `reply.rolledBackOn` codes, or a reply that is no JSON object, on a call that lists such
 * codes. Caleta's OAS ("BET ERROR"): a bet answered RS_ERROR_UNKNOWN, RS_ERROR_TIMEOUT or with a reply
 * that cannot be decoded is ROLLED_BACK. The engine then ends the bet `failed` (its outcome unknown)
 * and sends its ROLLBACK.
 */
export function rolledBackAfter(
  dialect: Dialect,
  reply: Pick<ReadReply, 'verdict' | 'code'>,
  operation: Operation | undefined,
): boolean {
  const codes = operation === undefined ? undefined : dialect.operations[operation]?.reply?.rolledBackOn;
  if (codes === undefined) return false;
  if (reply.verdict === 'invalid') return true;
  return reply.verdict === 'rejected' && reply.code !== undefined && codes.some((c) => String(c) === reply.code);
}

/** Whether a retry was asked by a code in an answer rather than by the status (the engine and verify retry those a few times). */
export function isRetryCode(dialect: Dialect, reply: Pick<ReadReply, 'verdict' | 'status' | 'code'>): boolean {
  return reply.verdict === 'retry' && statusIn(reply.status, dialect.reply.status.answer) && reply.code !== undefined;
}

/** Where a rule comes from when the dialect records nothing: aggmock's own wires and user dialect files state their rules. */
const STATED: RuleSource = { source: 'stated by the dialect file (no vendor source recorded)', grade: 'stated' };

/** What aggmock accepts for a rule the vendor leaves unknown, in a few words (the unknown rules' source says so). */
const UNKNOWN_ACCEPTS: Record<RuleName, string> = {
  repeat: 'any answer that moves no money again',
  'unknown-rollback': 'an acknowledgement or a refusal, moving no money',
  'reply-balance': 'a reply with or without the balance where the vendor is silent',
  'session-token': 'the token it was given, or one the reply hands over',
  'stale-token': 'any answer to a call carrying a token the wallet replaced (it is not judged)',
  refusal: 'any refusal that moves no money',
  retry: 'the status classes retried everywhere (408, 429, 5xx)',
};

/** What a rule of the dialect accepts, in one sentence. */
function acceptsOf(dialect: Dialect, rule: RuleName): string {
  const reply = dialect.reply;
  switch (rule) {
    case 'repeat': {
      const acknowledged = reply.acknowledges
        ? Object.entries(reply.acknowledges)
            .map(([op, codes]) => `${op}: ${(Array.isArray(codes) ? codes : [codes]).join(' or ')}`)
            .join(', ')
        : reply.codes.ALREADY_SETTLED !== undefined
          ? 'ALREADY_SETTLED'
          : '';
      return (
        (reply.duplicates === 'same-reply'
          ? 'the first reply again: the same status and JSON, apart from what it echoes of its request'
          : reply.duplicates === 'same-outcome'
            ? 'the same verdict, code and balance as the first reply; the message may differ'
            : "the same verdict and code as the first reply, with the balance as it is now (or the first reply's again)") +
        (acknowledged ? `; or the "already processed" code (${acknowledged}) after an acceptance` : '')
      );
    }
    case 'unknown-rollback': {
      const unknown = unknownRollbackRule(dialect);
      return unknown === 'either'
        ? 'an acknowledgement with the balance unchanged, or the TRANSACTION_NOT_FOUND refusal'
        : unknown === 'acknowledge'
          ? 'an acknowledgement with the balance unchanged'
          : 'the TRANSACTION_NOT_FOUND refusal';
    }
    case 'reply-balance': {
      const optional = (['authenticate', 'endRound'] as const).filter(
        (op) => dialect.operations[op] !== undefined && replyBalanceRule(dialect, op) === 'optional',
      );
      const without = Object.keys(dialect.operations).filter((op) => replyBalanceRule(dialect, op as Operation) === 'none');
      return `a balance in every accepted money and balance reply${without.length ? `; none read from ${without.join(', ')}` : ''}${optional.length ? `; ${optional.join(' and ')} may leave it out` : ''}`;
    }
    case 'session-token': {
      const swaps = Object.entries(dialect.operations).filter(([, def]) => def?.reply?.token !== undefined);
      return swaps.length === 0
        ? 'no reply hands over a session token'
        : swaps.map(([op, def]) => `an accepted ${op} reply hands over the token at ${def?.reply?.token}`).join('; ');
    }
    case 'stale-token': {
      const { refusedOn, acceptedOn } = staleTokenRule(dialect);
      if (refusedOn.length === 0 && acceptedOn.length === 0) return 'a call with a token the wallet replaced is not judged';
      return [
        refusedOn.length ? `a refusal of ${refusedOn.join(', ')} carrying the token an authenticate reply replaced` : '',
        acceptedOn.length ? `an acceptance of ${acceptedOn.join(', ')} carrying it` : '',
      ]
        .filter(Boolean)
        .join('; ');
    }
    case 'refusal':
      return `a status outside ${[...reply.status.retry, ...reply.status.answer].join(', ')}, or an answer ${
        reply.code ? `whose ${reply.code} is a refusal code` : 'that signals an error'
      }${reply.success ? ` or whose ${reply.success.path} is not ${JSON.stringify(reply.success.equals)}` : ''}${
        reply.guessed.length ? `; for ${reply.guessed.join(', ')} any refusal (the code is aggmock's guess)` : ''
      }`;
    case 'retry': {
      const own = Object.entries(dialect.operations)
        .filter(([, def]) => def?.reply?.retryCodes !== undefined)
        .map(([op, def]) => `; on ${op}: ${def?.reply?.retryCodes?.join(', ') || 'none'}`)
        .join('');
      return `a status in ${reply.status.retry.join(', ')}${reply.retryCodes.length ? `, a retry code (${reply.retryCodes.join(', ')}${own})` : ''}, or an answer that is no JSON object`;
    }
  }
}

/**
 * What the vendor says of a session token the wallet replaced (an authenticate reply handed a new
 * one over): the calls that must be refused with it (Evolution: a debit with the old sid is
 * INVALID_SID) and those still accepted (Caleta: RS_ERROR_TOKEN_EXPIRED only on a bet). Judged only
 * where the dialect has an authenticate whose reply hands a token over.
 */
export function staleTokenRule(dialect: Dialect): { refusedOn: readonly Operation[]; acceptedOn: readonly Operation[] } {
  const rule = dialect.session.staleToken;
  if (rule === undefined || dialect.operations.authenticate?.reply?.token === undefined) return { refusedOn: [], acceptedOn: [] };
  const exists = (op: Operation) => dialect.operations[op] !== undefined;
  return { refusedOn: rule.refusedOn.filter(exists), acceptedOn: rule.acceptedOn.filter(exists) };
}

/** aggmock's safer reading of a rule that `reply.safer` sets, in one sentence. */
function saferOf(dialect: Dialect, rule: RuleName): string | undefined {
  const safer = dialect.reply.safer;
  if (rule === 'repeat' && safer.duplicates !== undefined)
    return safer.duplicates === 'same-reply'
      ? "the first reply again, the first reply's balance included"
      : "the same outcome with the first reply's balance";
  if (rule === 'unknown-rollback' && safer.unknownRollback !== undefined)
    return safer.unknownRollback === 'acknowledge'
      ? 'an acknowledgement with the balance unchanged (the refusal is a warning)'
      : 'the TRANSACTION_NOT_FOUND refusal (an acknowledgement is a warning)';
  return undefined;
}

/**
 * Every rule as the dialect reads it, one row per rule in RULE_NAMES: what a correct wallet's reply
 * may be, where that comes from (`dialect.rules`, else "stated by the dialect file"), and what
 * aggmock asks beyond the source (a warning by default, a failure under `verify --strict`). The
 * ledger, verify, the reference wallet and the contracts judge by the same dialect data; verify's
 * report and the dialect's docs page show this table.
 */
export function rulesOf(dialect: Dialect): Rule[] {
  return RULE_NAMES.map((rule) => {
    // A wire whose authenticate hands a new token over, with nothing said of the old one: unknown, nothing judged.
    const silentOnStale =
      rule === 'stale-token' &&
      dialect.session.staleToken === undefined &&
      dialect.operations.authenticate?.reply?.token !== undefined;
    const recorded = dialect.rules[rule] ?? (silentOnStale ? { source: 'unknown', grade: 'unknown' as const } : STATED);
    const safer = recorded.safer ?? saferOf(dialect, rule);
    const source =
      recorded.grade === 'unknown' && !recorded.source.startsWith('unknown')
        ? `unknown: ${recorded.source}`
        : recorded.grade === 'unknown' && recorded.source === 'unknown'
          ? `unknown: aggmock accepts ${UNKNOWN_ACCEPTS[rule]}`
          : recorded.source;
    return {
      rule,
      accepts: acceptsOf(dialect, rule),
      source,
      grade: recorded.grade,
      ...(safer === undefined ? {} : { safer }),
      ...(recorded.relax === undefined ? {} : { relax: recorded.relax }),
    };
  });
}
