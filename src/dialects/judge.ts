import { jsonDepth } from '../http/body.ts';
import { MAX_JSON_DEPTH } from '../http/limits.ts';
import type { ExtraCurrencies } from '../money/index.ts';
import { jsonEqual, parseJsonOr } from '../shared/index.ts';
import { outcomesOf, type ReadReply, type ReplyText, readReply, statusIn } from './reply.ts';
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

/** The rules a reply is judged by. */
export const RULE_NAMES = ['repeat', 'unknown-rollback', 'reply-balance', 'session-token', 'refusal', 'retry'] as const;
export type RuleName = (typeof RULE_NAMES)[number];

/** One rule as a dialect reads it. */
export interface Rule {
  rule: RuleName;
  /** What a correct wallet's reply may be, in one sentence. */
  accepts: string;
  /** Where the rule comes from: the vendor's documentation (URL and section) or aggmock's own reading; absent: not recorded yet. */
  source?: string;
  /** True where aggmock asks for more than the vendor documents (a safer reading); absent: not recorded yet. */
  strict?: boolean;
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

function read(dialect: Dialect, context: ReplyContext, reply: ReplyText): ReadReply {
  return readReply(dialect, context, reply, { currencies: context.currencies });
}

/**
 * Whether a code says "already done" for a repeat (Evolution's BET_ALREADY_SETTLED, Groove's 110):
 * one of the dialect's ALREADY_SETTLED codes.
 */
export function isAlreadyProcessed(dialect: Dialect, code: string | undefined): boolean {
  return outcomesOf(dialect, code).includes('ALREADY_SETTLED');
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
  const a = read(dialect, context, first);
  const b = read(dialect, context, again);
  const current = rule === 'current-balance';
  const balanceOf = (r: ReadReply) => (r.balance.kind === 'ok' ? r.balance.minor : r.balance.kind);
  if (a.verdict === 'accepted' && b.verdict === 'rejected' && isAlreadyProcessed(dialect, b.code)) {
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
  return dialect.reply.duplicates === 'current-balance' ? 'current-balance' : 'first-reply';
}

/**
 * How a correct wallet answers a rollback of a transaction it never saw: the dialect's rule, or
 * where the vendor says neither, a refusal when the wire has a "not found" code for it. The
 * reference wallet answers so.
 */
export function unknownRollbackAnswer(dialect: Dialect): 'not-found' | 'acknowledge' {
  return dialect.reply.unknownRollback ?? (dialect.reply.codes.TRANSACTION_NOT_FOUND === undefined ? 'acknowledge' : 'not-found');
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

/** Whether a retry was asked by a code in an answer rather than by the status (the engine and verify retry those a few times). */
export function isRetryCode(dialect: Dialect, reply: Pick<ReadReply, 'verdict' | 'status' | 'code'>): boolean {
  return reply.verdict === 'retry' && statusIn(reply.status, dialect.reply.status.answer) && reply.code !== undefined;
}

const UNKNOWN_SOURCE = 'aggmock: the vendor documents no rule; this is what aggmock accepts';

/**
 * Every rule as the dialect reads it: what a correct wallet's reply may be. A later issue records
 * each rule's source and strictness per vendor; the rows that aggmock decides itself say so.
 */
export function rulesOf(dialect: Dialect): Rule[] {
  const duplicates = dialect.reply.duplicates;
  const already = dialect.reply.codes.ALREADY_SETTLED !== undefined;
  const unknown = unknownRollbackRule(dialect);
  const optional = (['authenticate', 'endRound'] as const).filter((op) => dialect.operations[op] !== undefined);
  const without = Object.entries(dialect.operations)
    .filter(([, def]) => def?.reply?.balance === false)
    .map(([op]) => op);
  const retryCodes = dialect.reply.retryCodes;
  return [
    {
      rule: 'repeat',
      accepts:
        (duplicates === 'same-reply'
          ? 'the first reply again: the same status and JSON, apart from what it echoes of its request'
          : duplicates === 'same-outcome'
            ? 'the same verdict, code and balance as the first reply; the message may differ'
            : "the same verdict and code as the first reply, with the balance as it is now (or the first reply's again)") +
        (already ? '; or the "already processed" code (ALREADY_SETTLED) after an acceptance' : ''),
      ...(duplicates === 'current-balance'
        ? { source: 'aggmock also accepts the first reply again: a wallet that stores its replies replays them', strict: false }
        : {}),
    },
    {
      rule: 'unknown-rollback',
      accepts:
        unknown === 'either'
          ? 'an acknowledgement with the balance unchanged, or the TRANSACTION_NOT_FOUND refusal'
          : unknown === 'acknowledge'
            ? 'an acknowledgement with the balance unchanged'
            : 'the TRANSACTION_NOT_FOUND refusal',
      ...(unknown === 'either' ? { source: UNKNOWN_SOURCE, strict: false } : {}),
    },
    {
      rule: 'reply-balance',
      accepts: `a balance in every accepted money and balance reply${without.length ? ` except ${without.join(', ')}` : ''}${optional.length ? `; ${optional.join(' and ')} may leave it out` : ''}`,
      ...(optional.length ? { source: UNKNOWN_SOURCE, strict: false } : {}),
    },
    {
      rule: 'session-token',
      accepts: (() => {
        const swaps = Object.entries(dialect.operations).filter(([, def]) => def?.reply?.token !== undefined);
        return swaps.length === 0
          ? 'no reply hands over a session token'
          : swaps.map(([op, def]) => `an accepted ${op} reply hands over the token at ${def?.reply?.token}`).join('; ');
      })(),
    },
    {
      rule: 'refusal',
      accepts: `a status outside ${[...dialect.reply.status.retry, ...dialect.reply.status.answer].join(', ')}, or an answer ${
        dialect.reply.code ? `whose ${dialect.reply.code} is a refusal code` : 'that signals an error'
      }${dialect.reply.success ? ` or whose ${dialect.reply.success.path} is not ${JSON.stringify(dialect.reply.success.equals)}` : ''}`,
    },
    {
      rule: 'retry',
      accepts: `a status in ${dialect.reply.status.retry.join(', ')}${retryCodes.length ? `, a retry code (${retryCodes.join(', ')})` : ''}, or an answer that is no JSON object`,
    },
  ];
}
