import { z } from 'zod';
import { OPERATIONS, replyPath, scalar } from './schema-parts.ts';

/* How a dialect's replies read (reply.ts reads and writes them; judge.ts judges them): outcome codes, balances, statuses. */

/** Where a reply's balance is: one member, or the members that add up to it (cash + bonus). */
export const balanceSpec = z.union([replyPath, z.strictObject({ sum: z.array(replyPath).min(1).max(4) })]);
export type BalanceSpec = z.infer<typeof balanceSpec>;

/** aggmock's names for the answers a check can ask for; a dialect maps each to its own codes. */
export const OUTCOME_CODES = [
  'INVALID_SIGNATURE',
  'PLAYER_NOT_FOUND',
  'INSUFFICIENT_FUNDS',
  'TRANSACTION_NOT_FOUND',
  'INVALID_REQUEST',
  'WRONG_CURRENCY',
  'INVALID_TOKEN',
  'DUPLICATE_TRANSACTION',
  'ALREADY_SETTLED',
] as const;
export type OutcomeCode = (typeof OUTCOME_CODES)[number];

const codeList = z.union([scalar, z.array(scalar).min(1)]);
const unknownRollback = z.enum(['not-found', 'acknowledge']);

/** HTTP status classes: "2xx", a status ("412") or a range ("600-799"). */
const statusClass = z.string().regex(/^([1-9]xx|\d{3}|\d{3}-\d{3})$/, 'expected "2xx", "412" or "600-799"');

export const replySchema = z.strictObject({
  status: z
    .strictObject({
      retry: z.array(statusClass).default(['408', '429', '5xx']),
      answer: z.array(statusClass).default(['2xx']).describe('statuses whose body is read for the outcome'),
    })
    .prefault({})
    .describe('what the HTTP status means; any other status is a final refusal'),
  code: replyPath.optional().describe('where the outcome code is (status, error, error.code)'),
  ok: codeList.optional().describe('the code value(s) that mean success ("RS_OK", 0, "200"); absent: no code means success'),
  retryCodes: z.array(scalar).default([]).describe('code values that mean "try again" (Pragmatic 100)'),
  codes: z.partialRecord(z.enum(OUTCOME_CODES), codeList).default({}).describe('the wallet\u2019s code(s) for each outcome'),
  success: z
    .strictObject({
      path: replyPath,
      equals: scalar,
      otherwise: scalar
        .optional()
        .describe('what a refusal writes there (Evoplay: "error"); absent: the opposite of a boolean, else false'),
    })
    .optional()
    .describe('a success flag, when the wire has one'),
  balance: balanceSpec.default('balance').describe('where the balance is, or the members that add up to it (cash + bonus)'),
  message: z.array(replyPath).default(['message', 'description', 'msg']),
  echo: z
    .partialRecord(z.enum(['requestId', 'transactionId', 'playerId', 'currency']), replyPath)
    .default({})
    .describe('facts of the request the reply repeats'),
  statuses: z
    .partialRecord(z.enum(OUTCOME_CODES), z.number().int().min(200).max(799))
    .default({})
    .describe('the HTTP status a wallet answers each refusal with (default 200); the reference wallet writes them'),
  unknownRollback: unknownRollback
    .optional()
    .describe(
      'what a rollback of a transaction the wallet never saw is answered with: the TRANSACTION_NOT_FOUND refusal, or an acknowledgement with the balance unchanged (Caleta); absent: the vendor says neither, and either is correct',
    ),
  duplicates: z
    .enum(['same-reply', 'same-outcome', 'current-balance'])
    .default('same-reply')
    .describe(
      'what a repeated transaction gets: the first reply, the same outcome and balance, or success with the current balance',
    ),
  acknowledges: z
    .partialRecord(z.enum(OPERATIONS), codeList)
    .optional()
    .describe(
      'codes that acknowledge a repeat of an accepted call, per operation (Evolution: bet BET_ALREADY_EXIST, win BET_ALREADY_SETTLED); absent: the ALREADY_SETTLED codes',
    ),
  guessed: z
    .array(z.enum(OUTCOME_CODES))
    .default([])
    .describe('outcomes whose code aggmock guessed (the sources name none): any refusal passes, the code is a warning'),
  safer: z
    .strictObject({ duplicates: z.enum(['same-reply', 'same-outcome']).optional(), unknownRollback: unknownRollback.optional() })
    .default({})
    .describe('aggmock\u2019s safer readings beyond the vendor\u2019s text: warnings by default, failures under verify --strict'),
  balanceOnRejection: z
    .boolean()
    .default(true)
    .describe('whether a refusal carries the real balance (false: some wallets write 0 there, and it is not read)'),
  writes: z
    .strictObject({
      accepted: z.record(replyPath, scalar).optional(),
      rejected: z.record(replyPath, scalar).optional(),
    })
    .optional()
    .describe('constant members a wallet writes besides the outcome (Betnex: msg "success" and handle true); never read'),
});
export type ReplyRules = z.infer<typeof replySchema>;
