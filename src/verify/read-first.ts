import { type Dialect, outcomesOf, type Rule, type RuleName, readReply, rulesOf } from '../dialects/index.ts';
import { cached } from '../shared/index.ts';
import type { Exchange } from './client.ts';
import { factsOf } from './dialect-client.ts';
import type { FailureGroup, ResultEntry, ResultStatus } from './report.ts';
import { suiteOf, uncoveredCases, vendorCasesOf } from './vendor-cases.ts';

/*
 * What a person reads first in verify's report (issue 32 item 6): beside each result the wire rule
 * it tries with that rule's source and strictness, and the vendor's own test case ids; the failures
 * grouped under the answer they share (a likely first cause: forty failures that all got
 * INVALID_SID are one problem); warnings (aggmock's safer readings) apart from failures.
 */

/** The wire rule (src/dialects/judge.ts) each check and contract interaction tries, where it tries one. */
export const RULE_OF_CHECK: Readonly<Record<string, RuleName>> = {
  'idempotent-debit': 'repeat',
  'idempotent-credit': 'repeat',
  'duplicate-changed-amount': 'repeat',
  'idempotent-later-retry': 'repeat',
  'duplicate-rollback': 'repeat',
  'duplicate-rollback-win': 'repeat',
  'concurrent-duplicates': 'repeat',
  'end-round-repeated': 'repeat',
  'pact:duplicate-bet': 'repeat',
  'rollback-unknown': 'unknown-rollback',
  'debit-applies': 'reply-balance',
  'credit-applies': 'reply-balance',
  'pact:balance': 'reply-balance',
  'pact:authenticate': 'session-token',
  'old-token-bet': 'stale-token',
  'old-token-settles': 'stale-token',
  'insufficient-funds': 'refusal',
  'pact:insufficient-funds': 'refusal',
  'unknown-player': 'refusal',
  'wrong-currency': 'refusal',
  'negative-amount': 'refusal',
  'missing-signature': 'refusal',
  'wrong-secret': 'refusal',
  'tampered-signature': 'refusal',
  'pact:bad-signature': 'refusal',
  'refused-debit-retried': 'retry',
  'malformed-json': 'retry',
};

const rulesByDialect = new WeakMap<Dialect, Rule[]>();
/** The dialect's rules, worked out once per dialect (every result of a run asks). */
function rulesFor(dialect: Dialect): Rule[] {
  return cached(rulesByDialect, dialect, rulesOf);
}

/** A check with a warning (aggmock's safer reading broken, a guessed code) and no failure ends WARN. */
export function statusWithWarnings(status: ResultStatus, notes: readonly string[], isWarning: (note: string) => boolean) {
  return status === 'pass' && notes.some(isWarning) ? 'warn' : status;
}

/**
 * A result with what to read beside it: the rule it tries and where that rule comes from, the
 * vendor's case ids it covers, and (a failure) the answer it likely failed on. Call it on the entry
 * as the check made it, before its exchanges are masked for display.
 */
export function withReadingAids(entry: ResultEntry, dialect: Dialect): ResultEntry {
  const ruleName = RULE_OF_CHECK[entry.id];
  const rule = ruleName === undefined ? undefined : rulesFor(dialect).find((r) => r.rule === ruleName);
  const cases = vendorCasesOf(dialect.name, entry.id);
  const cause = entry.status === 'fail' ? likelyCause(entry.exchanges, dialect) : undefined;
  const hint =
    entry.status === 'fail' && rule?.relax !== undefined && entry.hint !== undefined
      ? `${entry.hint} The vendor allows: ${rule.relax}.`
      : entry.hint;
  return {
    ...entry,
    ...(hint === undefined ? {} : { hint }),
    ...(rule === undefined
      ? {}
      : { wireRule: { name: rule.rule, source: rule.source, grade: rule.grade, ...(rule.safer ? { safer: rule.safer } : {}) } }),
    ...(cases.length ? { vendorCases: cases } : {}),
    ...(cause === undefined ? {} : { likelyCause: cause }),
  };
}

/**
 * The answer a failed check likely failed on: the first reply that was no acceptance (its refusal
 * code, under aggmock's name when it maps one, or its status), or no answer at all. Undefined when
 * every reply was an acceptance (the failure is about what they said: a balance, a second movement).
 */
export function likelyCause(exchanges: readonly Exchange[], dialect: Dialect): string | undefined {
  for (const x of exchanges) {
    const res = x.response;
    if (!res) return x.timedOut ? 'no answer within --timeout' : 'no answer (connection failed)';
    const facts = factsOf(x);
    const read = readReply(
      dialect,
      { operation: facts?.operation ?? 'bet', currency: facts?.currency ?? 'EUR' },
      { status: res.status, text: res.body },
    );
    if (read.verdict === 'accepted') continue;
    if (read.verdict === 'retry' || read.verdict === 'invalid')
      return `HTTP ${res.status}${read.code === undefined ? '' : ` ${read.code}`} (aggmock retries it)`;
    const named = outcomesOf(dialect, read.code);
    return `refused with ${read.code === undefined ? `HTTP ${res.status}` : read.code}${named.length ? ` (${named.join(' or ')})` : ''}`;
  }
  return undefined;
}

/** What an answer shared by several failures likely means, for the outcomes that stop a whole run. */
const MEANINGS: Record<string, string> = {
  INVALID_TOKEN:
    'the wallet refuses the session token: pass --token p=<token>, or check the token its authenticate reply hands over',
  INVALID_SIGNATURE: "the wallet refuses aggmock's signature or credential: check --secret / --credential",
  PLAYER_NOT_FOUND: 'the wallet does not know the player: check --players',
  WRONG_CURRENCY: "the players' currency differs: check --currency",
};

/**
 * The failures grouped by the answer they share, the largest group first; failures whose replies
 * were all acceptances are grouped by the rule they try. Blocked results are the first cause's.
 */
export function failureGroups(results: readonly ResultEntry[]): FailureGroup[] {
  const groups = new Map<string, string[]>();
  for (const r of results) {
    if (r.status !== 'fail') continue;
    const key = r.likelyCause ?? (r.wireRule ? `the ${r.wireRule.name} rule` : 'what the replies said (balances, movements)');
    groups.set(key, [...(groups.get(key) ?? []), r.id]);
  }
  return [...groups.entries()]
    .sort((a, b) => b[1].length - a[1].length)
    .map(([key, ids]) => {
      const meaning = ids.length > 1 ? Object.entries(MEANINGS).find(([code]) => key.includes(`${code}`))?.[1] : undefined;
      return { cause: meaning ? `${key}: ${meaning}` : key, ids };
    });
}

/** The report's reading aids for the whole run: strictness, the failure groups and the vendor's suite. */
export function readFirst(results: readonly ResultEntry[], dialect: Dialect, strict: boolean) {
  const suite = suiteOf(dialect.name);
  return {
    strict,
    failureGroups: failureGroups(results),
    ...(suite === undefined
      ? {}
      : { vendorSuite: { name: suite.name, source: suite.source, uncovered: uncoveredCases(dialect.name) } }),
  };
}
