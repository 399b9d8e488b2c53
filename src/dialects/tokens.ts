import { createHash } from 'node:crypto';
import type { Dialect } from './schema.ts';

/**
 * A session token aggmock mints (the development token, verify's made-up one) in the shape the
 * dialect's wallets validate: `base` padded with hex digits drawn from it (the same base, the same
 * token) up to the dialect's shortest token, and cut to its longest. Red Tiger's integrations refuse
 * a token shorter than 32 characters (valkyrie provider/redtiger/models.go, `validate:"min=32,max=128"`).
 */
export function sessionTokenFor(dialect: Pick<Dialect, 'session'> | undefined, base: string): string {
  const length = dialect?.session.tokenLength;
  if (length === undefined) return base;
  let token = base;
  if (token.length < length.min) {
    let pad = '';
    for (let n = 0; token.length + 1 + pad.length < length.min; n++)
      pad += createHash('sha256').update(`${base}:${n}`).digest('hex');
    token = `${token}-${pad}`.slice(0, Math.max(length.min, base.length));
  }
  return token.length > length.max ? token.slice(0, length.max) : token;
}
