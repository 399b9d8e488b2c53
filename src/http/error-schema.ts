import { z } from '@hono/zod-openapi';

/**
 * Every aggregator API error, as JSON (never HTML): `{success:false, code, msg, message, errors?}`.
 * `code` repeats the HTTP status so clients that only read the body still see it; clients read
 * `message || msg`, so both carry the same sentence. The one definition: the OpenAPI documents
 * show it and errors.ts types ApiError's body from it (a type-only import, so servers that do
 * not document themselves do not load the OpenAPI library).
 */
export const apiErrorSchema = z
  .object({
    success: z.literal(false),
    code: z.number().int().openapi({ description: 'Non-zero; the HTTP status.' }),
    msg: z.string(),
    message: z.string(),
    error: z.string().openapi({ example: 'BAD_REQUEST' }),
    errors: z
      .array(
        z.object({ field: z.string(), message: z.string(), expected: z.string().optional(), received: z.unknown().optional() }),
      )
      .optional(),
  })
  .catchall(z.unknown())
  .openapi('Error');
