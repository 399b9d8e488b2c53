import { z } from 'zod';

/*
 * How every list aggmock serves newest first is paged (the admin API's deliveries, discrepancies
 * and journaled requests; the request journal itself): one query shape, one cursor, one envelope.
 *
 * A page holds `limit` entries at most (100 unless asked, 1–1000). Its cursor is the id of its last
 * (oldest) entry, sent as the number `nextBefore` (null on the last page); the next page is asked
 * with `before=<nextBefore>` and holds the entries with a smaller id. Ids are positive integers, so
 * anything else given as `before` (`abc`, `0`, `-3`, `1.5`, a number past 2^53) did not come from a
 * page: a 400 naming `before`.
 */

/** Entries a page holds unless `limit` says otherwise, and the most it may ask. */
export const DEFAULT_PAGE_SIZE = 100;
export const MAX_PAGE_SIZE = 1000;

/**
 * A whole number in [min, max], from a query parameter (text) or JSON (a number); anything else
 * (`abc`, `1.5`, `0`, `1e400`) is refused saying what was expected.
 */
export function wholeNumber(min: number, max: number, what: string) {
  const error = `expected ${what}`;
  // One error a value: the first check it fails (1e20 is both not a safe integer and too large).
  return z.coerce.number({ error }).int({ error, abort: true }).min(min, { error, abort: true }).max(max, { error });
}

/** `limit`: a page's size. */
export const pageLimitSchema = wholeNumber(1, MAX_PAGE_SIZE, `an integer 1–${MAX_PAGE_SIZE}`).default(DEFAULT_PAGE_SIZE);

/** `before`: the cursor, an earlier page's `nextBefore`. */
export const cursorSchema = wholeNumber(
  1,
  Number.MAX_SAFE_INTEGER,
  'the nextBefore of an earlier page (a positive integer)',
).optional();

/** The paging parameters of a list's query, beside its filters: `z.object({ ...filters, ...PAGE_QUERY })`. */
export const PAGE_QUERY = { limit: pageLimitSchema, before: cursorSchema };

/** A page size asked by code rather than a query (a store's `limit`): the default when absent, else kept in 1–1000. */
export function pageSize(limit: number | undefined): number {
  return Math.min(Math.max(Math.trunc(limit ?? DEFAULT_PAGE_SIZE), 1), MAX_PAGE_SIZE);
}

/**
 * The cursor of the page after `entries`, a page read with `limit`: the last entry's id when the
 * page is full, or ended early (`truncated`: a store's byte cap), else null (the last page).
 */
export function nextBefore(entries: readonly { id: number }[] & { truncated?: boolean }, limit: number): number | null {
  const last = entries.at(-1);
  if (last === undefined) return null;
  return entries.length >= limit || entries.truncated === true ? last.id : null;
}

/**
 * A page's envelope: its entries under their name (newest first), then `extra` members (a total),
 * then `nextBefore`. Strict, like every admin answer.
 *
 * @example pageSchema('deliveries', deliverySchema) // {deliveries: [...], nextBefore: 41 | null}
 */
export function pageSchema<N extends string, T extends z.ZodType, X extends z.ZodRawShape = Record<never, never>>(
  name: N,
  entry: T,
  extra?: X,
) {
  return z.strictObject({
    [name]: z.array(entry).describe('newest first'),
    ...(extra ?? ({} as X)),
    nextBefore: z.number().int().nullable().describe('pass as `before` for the next page; null on the last page'),
  } as { [K in N]: z.ZodArray<T> } & X & { nextBefore: z.ZodNullable<z.ZodNumber> });
}
