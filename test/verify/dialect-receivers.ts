import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  type Credentials,
  DEV_RSA_PUBLIC_KEY,
  type Dialect,
  type Rendered,
  readReply,
  recogniseCall,
  signRequest,
  writeAmount,
  writeReply,
} from '../../src/dialects/index.ts';
import { startBlueOceanReceiver } from '../dialects/receivers/blueocean.ts';
import { startCaletaReceiver } from '../dialects/receivers/caleta.ts';
import { startEvolutionReceiver } from '../dialects/receivers/evolution.ts';
import { startGrooveReceiver } from '../dialects/receivers/groove.ts';
import { startHabaneroReceiver } from '../dialects/receivers/habanero.ts';
import { startHub88Receiver } from '../dialects/receivers/hub88.ts';
import { startHundredHpReceiver } from '../dialects/receivers/hundredhp.ts';
import { startPragmaticReceiver } from '../dialects/receivers/pragmatic.ts';
import type { ReceiverPlayer, VendorReceiver } from '../dialects/receivers/receiver-kit.ts';
import { startRedTigerReceiver } from '../dialects/receivers/redtiger.ts';
import { startSlotegratorReceiver } from '../dialects/receivers/slotegrator.ts';
import { startSoftswissReceiver } from '../dialects/receivers/softswiss.ts';

/*
 * The independent vendor receivers (test/dialects/receivers), each with the credentials aggmock's
 * dialect of it signs with by default, and two players verify can play: the judges of
 * `aggmock verify --profile <dialect>`.
 */

/** Session tokens long enough for every wire (Red Tiger wants 32 to 128 characters). */
export const RECEIVER_PLAYERS: ReceiverPlayer[] = [
  { playerId: 'player01', currency: 'EUR', balance: '1000.00', token: 'tok-player01-0123456789abcdef0123456789' },
  { playerId: 'player02', currency: 'EUR', balance: '500.00', token: 'tok-player02-0123456789abcdef0123456789' },
];

export interface DialectUnderTest {
  dialect: string;
  /** The credentials verify signs with (--credential), by the vendor's names. */
  credentials: Record<string, string>;
  start(players: ReceiverPlayer[]): Promise<VendorReceiver>;
}

export const DIALECTS_UNDER_TEST: DialectUnderTest[] = [
  {
    dialect: 'hub88',
    credentials: {},
    start: (players) => startHub88Receiver({ credentials: { publicKey: DEV_RSA_PUBLIC_KEY }, players }),
  },
  {
    dialect: 'pragmatic',
    credentials: { secretKey: 'pp-secret-1' },
    start: (players) => startPragmaticReceiver({ credentials: { secretKey: 'pp-secret-1' }, players }),
  },
  {
    dialect: 'caleta',
    credentials: {},
    start: (players) => startCaletaReceiver({ credentials: { publicKey: DEV_RSA_PUBLIC_KEY }, players }),
  },
  {
    dialect: 'evolution',
    credentials: { authToken: 'evo-token-1' },
    start: (players) => startEvolutionReceiver({ credentials: { authToken: 'evo-token-1' }, players }),
  },
  {
    dialect: 'softswiss',
    credentials: { authToken: 'ss-auth-token' },
    start: (players) => startSoftswissReceiver({ credentials: { authToken: 'ss-auth-token' }, players }),
  },
  {
    dialect: 'blueocean',
    credentials: { callerId: 'aggmock', callerPassword: 'bo-pass', salt: 'bo-salt' },
    start: (players) =>
      startBlueOceanReceiver({ credentials: { callerId: 'aggmock', callerPassword: 'bo-pass', salt: 'bo-salt' }, players }),
  },
  {
    dialect: '100hp',
    credentials: { secret: 'hp-secret' },
    start: (players) => startHundredHpReceiver({ credentials: { secret: 'hp-secret' }, players }),
  },
  {
    dialect: 'redtiger',
    credentials: { apiKey: 'rt-api-key-1' },
    start: (players) => startRedTigerReceiver({ credentials: { apiKey: 'rt-api-key-1' }, players }),
  },
  {
    dialect: 'slotegrator',
    credentials: { merchantId: 'aggmock-merchant-01', merchantKey: 'sg-merchant-key-01' },
    start: (players) =>
      startSlotegratorReceiver({
        credentials: { merchantId: 'aggmock-merchant-01', merchantKey: 'sg-merchant-key-01' },
        players,
      }),
  },
  {
    dialect: 'habanero',
    credentials: { passkey: 'hb-passkey-01', brandId: '3f6c2a4e-0b1d-4c8e-9a7f-5d2e1b0c9a88' },
    start: (players) =>
      startHabaneroReceiver({
        credentials: { passkey: 'hb-passkey-01', brandId: '3f6c2a4e-0b1d-4c8e-9a7f-5d2e1b0c9a88' },
        players,
      }),
  },
  // Groove's documentation names no credential for its calls to the casino.
  { dialect: 'groove', credentials: {}, start: (players) => startGrooveReceiver({ credentials: {}, players }) },
];

/** A request as it reaches the proxy, and what the proxy forwards instead. */
export interface ProxiedRequest {
  method: string;
  /** Path and query. */
  path: string;
  headers: Record<string, string>;
  body: string;
}

/** A planted bug: it may rewrite a request before the receiver sees it, and the receiver's reply before verify sees it. */
export interface PlantedBug {
  request?(req: ProxiedRequest): ProxiedRequest;
  reply?(req: ProxiedRequest, reply: { status: number; body: string }): { status: number; body: string };
}

/**
 * A small HTTP proxy on 127.0.0.1:0 in front of a receiver: the receiver stays as written, the
 * proxy makes the pair a faulty wallet.
 */
export async function startBuggyProxy(target: string, bug: PlantedBug): Promise<{ url: string; stop(): Promise<void> }> {
  const server = createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (c: Buffer) => chunks.push(c));
    incoming.on('end', () => {
      void (async () => {
        const headers: Record<string, string> = {};
        for (const [k, v] of Object.entries(incoming.headers))
          if (typeof v === 'string' && !['host', 'content-length', 'connection'].includes(k)) headers[k] = v;
        const received: ProxiedRequest = {
          method: incoming.method ?? 'POST',
          path: incoming.url ?? '/',
          headers,
          body: Buffer.concat(chunks).toString('utf8'),
        };
        const sent = bug.request ? bug.request(received) : received;
        const res = await fetch(`${target}${sent.path}`, {
          method: sent.method,
          headers: sent.headers,
          ...(sent.method === 'GET' ? {} : { body: sent.body }),
        });
        const answer = { status: res.status, body: await res.text() };
        const back = bug.reply ? bug.reply(sent, answer) : answer;
        outgoing.writeHead(back.status, { 'content-type': 'application/json' });
        outgoing.end(back.body);
      })().catch((error: unknown) => {
        outgoing.writeHead(502);
        outgoing.end(String(error));
      });
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/**
 * Signs a received request again, as the dialect signs, after the proxy changed it (or whatever
 * signature it came with): its fields are read back from the JSON body, the form or the query.
 */
export function resign(dialect: Dialect, credentials: Credentials, req: ProxiedRequest): ProxiedRequest {
  const recipe = dialect.signing;
  if (recipe.algorithm === 'none' || recipe.algorithm === 'scheme') return req;
  const place = recipe.place;
  const [path, query = ''] = req.path.split('?') as [string, string | undefined];
  const contentType = req.headers['content-type'] ?? '';
  const encoding = contentType.startsWith('application/json')
    ? 'json'
    : contentType.startsWith('application/x-www-form')
      ? 'form'
      : 'query';
  const strip = (name: string | undefined) => (pairs: [string, string][]) => pairs.filter(([k]) => k !== name);
  const own = 'field' in place ? place.field : 'query' in place ? place.query : undefined;
  let fields: Record<string, Rendered>;
  if (encoding === 'json') {
    const parsed = JSON.parse(req.body) as Record<string, Rendered>;
    if (own !== undefined) delete parsed[own];
    fields = parsed;
  } else {
    fields = Object.fromEntries(strip(own)([...new URLSearchParams(encoding === 'form' ? req.body : query)]));
  }
  const headers = { ...req.headers };
  delete headers['content-type'];
  if ('header' in place) delete headers[place.header.toLowerCase()];
  const signed = signRequest(dialect, { method: req.method as 'POST', path, encoding, headers, fields, query: {} }, credentials);
  // A query-string call keeps the query it came with (its static part first), only re-signed.
  return { method: req.method, path: signed.path, headers: signed.headers, body: signed.body ?? '' };
}

/**
 * verify's transaction ids in a request (verify-<run>-<n>, and the round a win opens with; where a
 * dialect caps ids and the process's sequence has grown long, `v` and hex digits of its hash, as
 * src/dialects/ids.ts fitId makes them), and its contracts' (ctx-<contract>-<run>).
 */
const VERIFY_ID = /verify-[a-z0-9]{6,}-\d+(?:-round)?|\bv[0-9a-f]{19,}(?:-round)?\b|ctx-[a-z-]+-[a-z0-9]{12,}/g;

/** A wallet that ignores idempotency: a request repeating transaction ids reaches the receiver with fresh ones. */
export function ignoresIdempotency(dialect: Dialect, credentials: Credentials): PlantedBug {
  const seen = new Set<string>();
  let fresh = 0;
  return {
    request(req) {
      const text = `${req.path} ${req.body}`;
      const ids = [...new Set(text.match(VERIFY_ID) ?? [])].sort();
      if (ids.length === 0) return req;
      const key = `${req.path.split('?')[0]} ${ids.join(' ')}`;
      if (!seen.has(key)) {
        seen.add(key);
        return req;
      }
      // A fresh id of the same length: a longer one could exceed a vendor's id limit (Red Tiger's 32) and be
      // refused for that instead, and a refused repeat moves no money, so the bug would not be planted.
      // Each id of the request gets a tag of its own, so two ids stay two.
      const swapped = new Map<string, string>();
      const fresher = (id: string) => {
        let to = swapped.get(id);
        if (to === undefined) {
          fresh += 1;
          const tagged = (tag: string) => `${id.slice(0, Math.max(1, id.length - tag.length))}${tag}`;
          // An id that already ends in the tag (a run id's random hex ending "d1") would come out
          // unchanged, a true repeat, and the bug would not be planted: then another letter.
          to = tagged(`d${fresh}`);
          if (to === id) to = tagged(`e${fresh}`);
          swapped.set(id, to);
        }
        return to;
      };
      const swap = (s: string) => s.replace(VERIFY_ID, fresher);
      return resign(dialect, credentials, { ...req, path: swap(req.path), body: swap(req.body) });
    },
  };
}

/** A wallet that lets any signature through: every request is signed again with the right keys before the receiver checks it. */
export function acceptsAnySignature(dialect: Dialect, credentials: Credentials): PlantedBug {
  return { request: (req) => resign(dialect, credentials, req) };
}

/** A wallet that answers a refusal for lack of funds with a success and the balance it last reported. */
export function overdraws(dialect: Dialect): PlantedBug {
  let last = 0;
  const funds = new Set([dialect.reply.codes.INSUFFICIENT_FUNDS ?? []].flat().map(String));
  return {
    reply(req, reply) {
      const read = readReply(dialect, { operation: 'bet', currency: 'EUR' }, { status: reply.status, text: reply.body });
      if (read.balance.kind === 'ok') last = read.balance.minor;
      if (read.verdict !== 'rejected') return reply;
      // A wire with no code of its own for it (100HP documents none): any refusal of a bet.
      const bet = dialect.operations.bet?.path ?? '';
      const refused =
        funds.size > 0 ? read.code !== undefined && funds.has(read.code) : bet !== '' && req.path.split('?')[0]?.endsWith(bet);
      if (!refused) return reply;
      const ok = writeReply(dialect, { operation: 'bet', currency: 'EUR' }, { accepted: true, balanceMinor: last }, (minor) =>
        writeAmount(dialect, 'EUR', minor),
      );
      return { status: ok.status, body: JSON.stringify(ok.body) };
    },
  };
}

/** The operation a request is, under the dialect (undefined when it is none of its calls). */
function operationOf(dialect: Dialect, req: ProxiedRequest) {
  const reading = recogniseCall(dialect, req, { currencyOf: () => 'EUR' });
  return reading.ok ? reading : undefined;
}

/** A success in the dialect's words for `operation`, with this balance. */
function success(dialect: Dialect, operation: 'endRound' | 'rollbackWin', balanceMinor: number) {
  const ok = writeReply(dialect, { operation, currency: 'EUR' }, { accepted: true, balanceMinor }, (minor) =>
    writeAmount(dialect, 'EUR', minor),
  );
  return { status: ok.status, body: JSON.stringify(ok.body) };
}

/** The balance a reply carries, read under the dialect as a reply to `operation`. */
function balanceIn(dialect: Dialect, operation: 'bet' | 'win' | 'rollbackWin', reply: { status: number; body: string }) {
  const read = readReply(dialect, { operation, currency: 'EUR' }, { status: reply.status, text: reply.body });
  return read.balance.kind === 'ok' ? read.balance.minor : undefined;
}

/** A wallet that answers an endRound of a round it already closed with an error ("round already closed"). */
export function refusesRepeatedEndRound(dialect: Dialect): PlantedBug {
  const closed = new Set<string>();
  return {
    reply(req, reply) {
      const call = operationOf(dialect, req);
      if (call?.operation !== 'endRound' || call.facts.roundId === undefined) return reply;
      if (!closed.has(call.facts.roundId)) {
        closed.add(call.facts.roundId);
        return reply;
      }
      const refused = writeReply(
        dialect,
        { operation: 'endRound', currency: 'EUR' },
        { accepted: false, refusal: 'INVALID_REQUEST' },
        (minor) => writeAmount(dialect, 'EUR', minor),
      );
      return { status: refused.status, body: JSON.stringify(refused.body) };
    },
  };
}

/** A wallet that acknowledges a rollback of a win and keeps paying it: the receiver never sees the rollbackWin. */
export function keepsTheWin(dialect: Dialect): PlantedBug {
  let last = 0;
  return {
    request(req) {
      // The rollbackWin goes to the receiver as a balance-neutral call it refuses harmlessly: an unknown path.
      return operationOf(dialect, req)?.operation === 'rollbackWin' ? { ...req, path: '/aggmock-dropped' } : req;
    },
    reply(req, reply) {
      if (req.path === '/aggmock-dropped') return success(dialect, 'rollbackWin', last);
      const call = operationOf(dialect, req);
      const balance =
        call && (call.operation === 'bet' || call.operation === 'win') ? balanceIn(dialect, call.operation, reply) : undefined;
      if (balance !== undefined) last = balance;
      return reply;
    },
  };
}

/** A wallet that takes a win back again on a repeated rollbackWin (it keys rollbacks by nothing): its reply says so. */
export function takesTheWinTwice(dialect: Dialect): PlantedBug {
  const seen = new Map<string, number>();
  return {
    reply(req, reply) {
      const call = operationOf(dialect, req);
      // A wire whose rollbackWin has no id of its own (Groove's reversewin) names it by the win.
      const key = call?.operation === 'rollbackWin' ? (call.facts.transactionId ?? call.facts.betTransactionId) : undefined;
      if (call === undefined || key === undefined) return reply;
      const balance = balanceIn(dialect, 'rollbackWin', reply);
      const first = seen.get(key);
      if (first === undefined) {
        if (balance !== undefined) seen.set(key, balance);
        return reply;
      }
      return success(dialect, 'rollbackWin', first - (call.facts.amountMinor ?? 0));
    },
  };
}
