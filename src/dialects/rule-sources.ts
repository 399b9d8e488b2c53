import { z } from 'zod';

/*
 * Where each of a dialect's wallet rules comes from, as data (issue 32 item 1): the judge's table
 * (`rulesOf` in judge.ts) shows it, verify's report puts it beside a failure, and the dialect's
 * docs page lists it. A rule is the vendor's own (its document, its test tool, or an operator's
 * code where the vendor publishes none: a failure when broken) or unknown (aggmock accepts what
 * moves no money). What aggmock asks beyond the source is the rule's `safer` reading: a warning by
 * default, a failure under `aggmock verify --strict`.
 */

/** The rules a reply is judged by, one judge each in judge.ts. */
export const RULE_NAMES = [
  'repeat',
  'unknown-rollback',
  'reply-balance',
  'session-token',
  'stale-token',
  'refusal',
  'retry',
] as const;
export type RuleName = (typeof RULE_NAMES)[number];

/**
 * How a rule is known: `vendor` — the vendor's document or its own test tool (also as mirrored by a
 * third party); `third-party` — only operators' or aggregators' code; `unknown` — nothing found, so
 * aggmock accepts any answer that moves no money (for a refusal: any refusal code); `stated` — the
 * dialect file states it and records no vendor source (aggmock's own wires, a user's dialect file).
 */
export const RULE_GRADES = ['vendor', 'third-party', 'unknown', 'stated'] as const;
export type RuleGrade = (typeof RULE_GRADES)[number];

export const ruleSourceSchema = z.strictObject({
  source: z
    .string()
    .min(1)
    .describe('the document URL and section, or the third-party repository and path, or "unknown: <what aggmock accepts>"'),
  grade: z.enum(RULE_GRADES),
  safer: z
    .string()
    .min(1)
    .optional()
    .describe('what aggmock asks beyond the source, in one sentence: a warning by default, a failure under verify --strict'),
  relax: z
    .string()
    .min(1)
    .optional()
    .describe('how to relax a failure of this rule where the vendor allows it (shown in the failure\u2019s hint)'),
});
export type RuleSource = z.infer<typeof ruleSourceSchema>;

/** The stale-token rule of a wire none of whose replies hands over a new session token. */
export const noTokenHandedOver = (vendor: string): RuleSource => ({
  source: `unknown: no ${vendor} reply hands over a new session token, so none is ever replaced; aggmock judges no call carrying an old one`,
  grade: 'unknown',
});

export const ruleSourcesSchema = z
  .partialRecord(z.enum(RULE_NAMES), ruleSourceSchema)
  .default({})
  .describe('where each wallet rule comes from, and what aggmock asks beyond it (see docs/dialects.md)');
