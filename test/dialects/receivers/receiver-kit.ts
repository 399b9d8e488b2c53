/**
 * What every vendor receiver shares and that has nothing vendor-specific in it: the loopback HTTP
 * server with a bounded body, exact decimal <-> integer conversion, and a constant-time compare.
 * Each vendor file (hub88.ts, pragmatic.ts, …) owns its wire: routes, encoding, signature, fields,
 * codes and ledger rules. node:http and node:crypto only, so a receiver judges aggmock without
 * sharing a line of code with it.
 */
import { timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceiverPlayer {
  /** The vendor's user id. */
  playerId: string;
  /** ISO 4217 code. */
  currency: string;
  /** Opening balance in major units, e.g. "1000.00". */
  balance: string;
  /** The session token the wallet issued at launch (vendors that carry one). */
  token?: string;
}

export interface ReceiverLogEntry {
  method: string;
  path: string;
  fields: Record<string, unknown>;
  status: number;
  reply: unknown;
}

export interface VendorReceiver {
  /** The wallet's base URL, e.g. http://127.0.0.1:PORT (the vendor's paths are appended to it). */
  url: string;
  /** Every problem the receiver found in a request, as text. Empty when all requests were as the docs say. */
  errors: string[];
  /** Every request it answered: the path, the parsed fields, the reply status and body. */
  log: ReceiverLogEntry[];
  /** The player's balance now, in major units as a decimal string ("990.00"). */
  balanceOf(playerId: string): string;
  stop(): Promise<void>;
}

/** A request as the vendor handler sees it: the raw body bytes are kept for signature checks. */
export interface ReceivedRequest {
  method: string;
  /** The path without the query string. */
  path: string;
  query: URLSearchParams;
  /** The query text as sent, without the '?': for vendors that sign the query string itself. */
  rawQuery: string;
  headers: IncomingMessage['headers'];
  rawBody: Buffer;
}

export interface HandledReply {
  status: number;
  body: unknown;
  /** The fields the handler parsed out of the request, for the log. */
  fields: Record<string, unknown>;
}

/** Bodies above this are refused before parsing: no real wallet callback comes near it. */
export const MAX_BODY_BYTES = 1024 * 1024;

/**
 * Listens on 127.0.0.1 on a free port and answers every request with `handle`. A body over
 * MAX_BODY_BYTES is answered 413 and recorded in `errors`; a handler that throws is answered 500
 * and recorded, so a receiver bug shows up as an error instead of a hung test.
 */
export async function startLoopbackReceiver(
  handle: (request: ReceivedRequest, errors: string[]) => HandledReply,
  balanceOf: (playerId: string) => string,
): Promise<VendorReceiver> {
  const errors: string[] = [];
  const log: ReceiverLogEntry[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let refused = false;
    req.on('data', (chunk: Buffer) => {
      if (refused) return;
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        refused = true;
        errors.push(`${req.method} ${req.url}: body over ${MAX_BODY_BYTES} bytes; refused without reading it`);
        res.writeHead(413, { 'content-type': 'application/json', connection: 'close' });
        res.end(JSON.stringify({ error: 'body too large' }));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (refused) return;
      const url = new URL(req.url ?? '/', 'http://receiver.invalid');
      const request: ReceivedRequest = {
        method: req.method ?? 'GET',
        path: url.pathname,
        query: url.searchParams,
        rawQuery: url.search.slice(1),
        headers: req.headers,
        rawBody: Buffer.concat(chunks),
      };
      let reply: HandledReply;
      try {
        reply = handle(request, errors);
      } catch (error) {
        errors.push(`${request.method} ${request.path}: the receiver itself failed: ${(error as Error).stack ?? error}`);
        reply = { status: 500, body: { error: 'receiver failure' }, fields: {} };
      }
      log.push({ method: request.method, path: request.path, fields: reply.fields, status: reply.status, reply: reply.body });
      res.writeHead(reply.status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(reply.body));
    });
    req.on('error', () => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    errors,
    log,
    balanceOf,
    stop: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

/**
 * "12.5" -> 1250 at scale 2, exactly (no float on the way). undefined when the text is not a plain
 * non-negative decimal with at most `scale` fraction digits, or does not fit a safe integer.
 */
export function decimalToUnits(text: string, scale: number): number | undefined {
  const match = /^(\d+)(?:\.(\d+))?$/.exec(text);
  if (!match) return undefined;
  const fraction = match[2] ?? '';
  if (fraction.length > scale) return undefined;
  const units = Number(match[1] + fraction.padEnd(scale, '0'));
  return Number.isSafeInteger(units) ? units : undefined;
}

/** 99000 at scale 2 -> "990.00"; at scale 5 -> "0.99": at least two fraction digits, more only when they are not zero. */
export function unitsToDecimal(units: number, scale: number): string {
  const sign = units < 0 ? '-' : '';
  const digits = String(Math.abs(units)).padStart(scale + 1, '0');
  const whole = digits.slice(0, digits.length - scale);
  let fraction = digits.slice(digits.length - scale);
  while (fraction.length > 2 && fraction.endsWith('0')) fraction = fraction.slice(0, -1);
  return `${sign}${whole}${fraction.length > 0 ? '.' : ''}${fraction}`;
}

/** Equal strings, compared in time that does not depend on where they first differ. */
export function constantTimeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/** The players by id with their opening balances converted to integer units; a bad fixture throws at once. */
export function openingLedger(
  players: readonly ReceiverPlayer[],
  scale: number,
): Map<string, ReceiverPlayer & { units: number }> {
  const ledger = new Map<string, ReceiverPlayer & { units: number }>();
  for (const player of players) {
    const units = decimalToUnits(player.balance, scale);
    if (units === undefined) {
      throw new Error(
        `player ${player.playerId}: balance ${JSON.stringify(player.balance)} is not a decimal with at most ${scale} fraction digits`,
      );
    }
    ledger.set(player.playerId, { ...player, units });
  }
  return ledger;
}
