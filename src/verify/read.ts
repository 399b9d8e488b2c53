import { rawTopLevelValue } from '../callbacks/reply.ts';
import { balancePaths, type Dialect, type ReadReply as DialectReadReply, type Operation } from '../dialects/index.ts';
import { isExactAmountLiteral } from '../money/index.ts';
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
  const written = writtenBalance(wire.dialect, operation, exchange);
  const exact =
    read.balance.kind === 'ok' && written?.literal !== undefined ? exactlyWritten(wire, exchange, written.literal) : undefined;
  return {
    status: read.status,
    verdict: read.verdict,
    ...(error === undefined ? {} : { error }),
    ...(read.code === undefined ? {} : { code: read.code }),
    ...(read.balance.kind === 'ok' ? { balanceMinor: read.balance.minor } : {}),
    ...(read.balance.kind === 'invalid'
      ? { rawBalance: read.balance.raw }
      : written?.value === undefined
        ? {}
        : { rawBalance: written.value }),
    ...(exact === undefined ? {} : { balanceExact: exact }),
    ...(read.token === undefined ? {} : { token: read.token }),
    accepted: read.verdict === 'accepted',
  };
}

/** The balance as the reply wrote it, where it is one member: its value, and its raw JSON text when it is a top-level one. */
function writtenBalance(
  dialect: Dialect,
  operation: Operation,
  exchange: Exchange,
): { value: unknown; literal?: string } | undefined {
  const paths = balancePaths(dialect, operation);
  const res = exchange.response;
  if (paths?.length !== 1 || !res) return undefined;
  const path = paths[0] as string;
  const value = valueAt(res.json, path.split('.'));
  const literal = path.includes('.') ? undefined : rawTopLevelValue(res.body, path);
  return { value, ...(literal === undefined ? {} : { literal }) };
}

/**
 * Whether a balance is written with no more decimals than the currency has (109.71, never
 * 109.71000000000001), judged on the reply's raw text; undefined on a wire that writes amounts at
 * another scale than the currency's (Hub88's × 100000), where the text says nothing about cents.
 */
function exactlyWritten(wire: VerifyWire, exchange: Exchange, literal: string): boolean | undefined {
  const currency = factsOf(exchange)?.currency ?? wire.currency;
  const codec = wire.dialect.amounts;
  if (codec.exponent !== undefined && codec.exponent !== wire.codec(currency).exponent) return undefined;
  return isExactAmountLiteral(literal, { format: codec.format, as: 'string', exponent: wire.codec(currency).exponent });
}
