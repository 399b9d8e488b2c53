import { balancePaths, type Dialect, type ReadReply as DialectReadReply, type Operation } from '../dialects/index.ts';
import { valueAt } from '../shared/index.ts';
import type { Exchange, ReadReply } from './client.ts';
import { factsOf } from './dialect-client.ts';
import type { VerifyWire } from './wire.ts';

/*
 * A wallet's reply as verify's checks read it: the dialect's reader (src/dialects/reply.ts) decides
 * the verdict, the code and the balance; here they are put in the checks' terms, with the balance
 * as the wallet wrote it (to show, and to judge its decimals on the raw text).
 */

/** A reply read under the dialect, as verify's checks read replies. */
export function readUnder(wire: VerifyWire, exchange: Exchange, read: DialectReadReply | undefined): ReadReply {
  if (!read) return { verdict: 'none', accepted: false };
  const error = read.outcome ?? read.code;
  const operation = (factsOf(exchange)?.operation ?? 'bet') as Operation;
  const raw = read.balance.kind === 'invalid' ? read.balance.raw : writtenBalance(wire.dialect, operation, exchange)?.value;
  // Whether the balance was written with no more decimals than the currency has: the dialect's reader decides.
  const exact = read.balance.kind === 'ok' ? read.balanceExact : undefined;
  return {
    status: read.status,
    verdict: read.verdict,
    ...(error === undefined ? {} : { error }),
    ...(read.code === undefined ? {} : { code: read.code }),
    ...(read.balance.kind === 'ok' ? { balanceMinor: read.balance.minor } : {}),
    ...(raw === undefined ? {} : { rawBalance: raw }),
    ...(exact === undefined ? {} : { balanceExact: exact }),
    ...(read.token === undefined ? {} : { token: read.token }),
    accepted: read.verdict === 'accepted',
  };
}

/** The balance as the reply wrote it, where it is one member, to show in messages. */
function writtenBalance(dialect: Dialect, operation: Operation, exchange: Exchange): { value: unknown } | undefined {
  const paths = balancePaths(dialect, operation);
  const res = exchange.response;
  if (paths?.length !== 1 || !res) return undefined;
  return { value: valueAt(res.json, (paths[0] as string).split('.')) };
}
