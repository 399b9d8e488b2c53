import { z } from 'zod';
import { EVENT_KINDS, EVENT_STATUSES } from '../callbacks/events.ts';
import { MAX_ID_LENGTH, MAX_LIST_LENGTH } from '../http/limits.ts';
import { PAGE_QUERY, wholeNumber } from '../http/paging.ts';
import { DISCREPANCY_KINDS } from '../ledger/reducer.ts';

/** Wire shapes of the admin API (SPEC §6), defined once for the routes, the tests and docs. */

const text = (what: string) =>
  z
    .string({ error: `expected ${what} as a non-empty string` })
    .trim()
    .min(1, `expected ${what} as a non-empty string`)
    .max(MAX_ID_LENGTH, `expected ${what} of at most ${MAX_ID_LENGTH} characters`);

/** A query filter: an id, length-limited like every other. */
const filter = z.string().min(1).max(MAX_ID_LENGTH).optional();

/**
 * An amount in major units: a JSON number (10.5) or a string ("10.50"), at most 2 decimals.
 * Left as given here; the route turns it into minor units and names the field when it cannot.
 */
export const majorAmount = z.union([z.number(), z.string().max(32, 'expected an amount of at most 32 characters')], {
  error: 'expected an amount in major units, e.g. 10.5 or "10.50"',
});

export const triggerEventSchema = z.object({
  /**
   * debit | credit | rollback (any case) or the configured type strings (e.g. BET); on a vendor
   * dialect also a call its kind does not name: authenticate, balance, endRound, rollbackWin.
   */
  type: text(
    'the event type ("debit", "credit" or "rollback"; on a vendor dialect also "authenticate", "balance", "endRound" or "rollbackWin")',
  ),
  playerId: text('the player id'),
  amount: majorAmount.optional(),
  /** A whole round: the win that comes with this DEBIT, in the same callback (profiles with bet and win fields). */
  win: majorAmount.optional(),
  transactionId: text('the transaction id').optional(),
  referenceTransactionId: text('the transactionId of the DEBIT to reverse').optional(),
  roundId: text('the round id').optional(),
  gameId: text('the game id').optional(),
  currency: text('the currency code').optional(),
});

const amountRange = z
  .object({ min: z.number().positive(), max: z.number().positive() })
  .refine((r) => r.min <= r.max, { message: 'amount.min must not exceed amount.max' });

export const runScenarioSchema = z.object({
  players: z
    .array(text('a player id'))
    .min(1, 'expected at least one player id')
    .max(MAX_LIST_LENGTH, `expected at most ${MAX_LIST_LENGTH} player ids`)
    .optional(),
  /** A fixed bet (major units) or a range `{min, max}`. */
  amount: z
    .union([z.number().positive(), amountRange], {
      error: 'expected a positive amount such as 5 or a range {"min": 1, "max": 20}',
    })
    .optional(),
  size: z.number().int().min(1).max(10_000).optional(),
  rtp: z.number().min(0).max(1).optional(),
});

export const deliveriesQuerySchema = z.object({
  player: filter,
  /** debit | credit | rollback or a configured type string; checked by the route. */
  type: filter,
  status: z.enum(EVENT_STATUSES, { error: `expected one of ${EVENT_STATUSES.join(', ')}` }).optional(),
  group: filter,
  ...PAGE_QUERY,
});

export const discrepanciesQuerySchema = z.object({
  player: filter,
  kind: z.enum(DISCREPANCY_KINDS, { error: `expected one of ${DISCREPANCY_KINDS.join(', ')}` }).optional(),
  group: filter,
  ...PAGE_QUERY,
});

export const waitQuerySchema = z.object({
  wait: z
    .enum(['true', 'false', '1', '0', ''], { error: 'expected true or false' })
    .optional()
    .transform((v) => v === 'true' || v === '1' || v === ''),
  /** How long `wait=true` waits for settlement before answering 202 with the event as it stands (ms). */
  timeout: z.coerce.number().int().min(0).max(600_000).default(30_000),
});

/** A delivery's id (in a path), as the lists give it. */
export const eventIdSchema = wholeNumber(1, Number.MAX_SAFE_INTEGER, 'a delivery id (a positive integer)');
/** A journaled request's id (in a path), as the list gives it. */
export const requestIdSchema = wholeNumber(1, Number.MAX_SAFE_INTEGER, 'a request id (a positive integer)');

export { EVENT_KINDS };

const httpMethod = z
  .string()
  .regex(/^[A-Za-z]{1,16}$/, 'expected an HTTP method such as GET or POST')
  .optional();

/** `GET /__admin/requests`: the client's requests to the aggregator API, newest first. */
export const requestsQuerySchema = z.object({
  path: z.string().min(1).max(200).optional(),
  method: httpMethod,
  status: wholeNumber(100, 599, 'an HTTP status 100–599').optional(),
  /** A page: 100 by default, at most 1000; `before` the cursor. */
  ...PAGE_QUERY,
  /** `summary`: each entry without its headers, body and reply (GET /__admin/requests/:id has them). */
  view: z.enum(['full', 'summary'], { error: 'expected "full" or "summary"' }).default('full'),
});

const matchValue = z.union([z.string().max(1000), z.number(), z.boolean(), z.null()], {
  error: 'expected a string, number, boolean or null; name a nested field by its dotted path ("extras.vip": true)',
});

/** `POST /__admin/requests/count`: every given field must hold. */
export const requestMatcherSchema = z.strictObject({
  method: httpMethod,
  /** The route, with or without `/casino`. */
  path: z.string().min(1).max(200).optional(),
  status: z.number().int().min(100).max(599).optional(),
  query: z.record(z.string().min(1).max(200), z.string().max(1000)).optional(),
  /** JSON body fields by dotted path. */
  body: z.record(z.string().min(1).max(200), matchValue).optional(),
  headers: z.record(z.string().min(1).max(200), z.string().max(1000)).optional(),
  faultRule: z.string().min(1).max(64).optional(),
  authOk: z.boolean().optional(),
  /** true: only requests another site's page sent; false or left out: only the others. */
  crossSite: z.boolean().optional(),
});
