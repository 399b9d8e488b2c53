import { z } from 'zod';

/*
 * The small shapes every part of a dialect's schema uses (schema.ts, schema-signing.ts,
 * schema-reply.ts): the operations, scalars, the names of credentials and fields, reply paths.
 */

/** The calls an aggregator makes to a wallet. `bet`/`win`/`rollback` move money; the others read or close. */
export const OPERATIONS = [
  'authenticate',
  'balance',
  'bet',
  'win',
  'betWin',
  'rollback',
  'rollbackWin',
  'endRound',
  'promoWin',
] as const;
export type Operation = (typeof OPERATIONS)[number];

export const scalar = z.union([z.string(), z.number(), z.boolean()]);
export type Scalar = z.infer<typeof scalar>;

/** A name a vendor uses for a secret, a key or an id (`secretKey`, `privateKey`, `authToken`, `callerId`). */
export const credentialName = z.string().regex(/^[A-Za-z][A-Za-z0-9_]*$/, 'expected a name such as "secretKey"');

/** Keys a user writes that must never walk the prototype chain. */
export const SAFE_KEY = /^(?!(?:__proto__|prototype|constructor)$)[^\s]+$/;
export const fieldName = z
  .string()
  .min(1)
  .max(128)
  .regex(SAFE_KEY, 'expected a field name (not __proto__, prototype or constructor)');

/** A dotted path into the reply's JSON ("balance", "result.balance.cash"). */
export const replyPath = z
  .string()
  .max(128)
  .regex(/^[A-Za-z0-9_$-]+(\.[A-Za-z0-9_$-]+)*$/, 'expected a dotted path such as "balance" or "data.balance"')
  .refine((p) => !p.split('.').some((s) => ['__proto__', 'prototype', 'constructor'].includes(s)), {
    message: 'a path may not name __proto__, prototype or constructor',
  });
