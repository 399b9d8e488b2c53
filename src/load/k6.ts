import { createPrivateKey } from 'node:crypto';
import { codecOf, FACTS } from '../dialects/index.ts';
import { ExportError, type ExportOptions } from './export-options.ts';
import { K6_RUNTIME } from './k6-runtime.ts';
import { ROUND_KINDS } from './mix.ts';
import { scheduleLength } from './schedule.ts';

/**
 * `aggmock load --export k6`: a k6 script that plays the same round mix on the same schedule (a
 * `ramping-arrival-rate` scenario: open model, k6 counts what it cannot start as
 * `dropped_iterations`), builds and signs every call in the script (see k6-runtime.ts), and prints
 * each call as a run record line: `k6 run --log-format raw --console-output calls.jsonl load.k6.js`,
 * then `aggmock load --check calls.jsonl --dialect <name>`. k6-operator splits it by `parallelism`.
 */
export function k6Script(o: ExportOptions): string {
  const recipe = o.dialect.signing;
  if (recipe.algorithm === 'scheme')
    throw new ExportError(
      `--export k6: the ${o.dialect.name} wire signs with aggmock's header schemes; the k6 export speaks vendor dialects (--dialect hub88, softswiss, …)`,
    );
  if ('payload' in recipe && recipe.payload.over === 'hook')
    throw new ExportError(
      `--export k6: the ${o.dialect.name} dialect signs through a hooks module, which a k6 script cannot load`,
    );
  const codec = codecOf(o.dialect, o.currency);
  const amounts = {
    format: codec.format,
    as: codec.as,
    exponent: codec.exponent,
    shift: codec.exponent - codec.currencyExponent,
  };
  const credentials: Record<string, string> = {};
  const privateKeys: Record<string, string> = {};
  for (const [name, spec] of Object.entries(o.dialect.credentials)) {
    const value = o.credentials[name] ?? spec.default;
    if (value === undefined) continue;
    if (spec.kind === 'private-key') {
      privateKeys[name] = createPrivateKey(value).export({ type: 'pkcs8', format: 'der' }).toString('base64');
    } else credentials[name] = value;
  }
  // k6 stage targets are whole iterations per time unit: per minute keeps fractional rates.
  const perMinute = (rate: number) => Math.round(rate * 60);
  const stages = o.schedule.stages.map((s) => ({ duration: `${Math.round(s.durationMs)}ms`, target: perMinute(s.rate) }));
  const options = {
    scenarios: {
      rounds: {
        executor: 'ramping-arrival-rate',
        startRate: perMinute(o.schedule.startRate),
        timeUnit: '1m',
        preAllocatedVUs: 50,
        maxVUs: 2000,
        stages,
      },
    },
  };
  const weights = Object.fromEntries(ROUND_KINDS.map((k) => [k, o.mix[k]]));
  return `// Written by aggmock load --export k6 (dialect ${o.dialect.name}); ${scheduleLength(o.schedule) / 1000} s of rounds.
// Run:   k6 run --log-format raw --console-output calls.jsonl -e WALLET_URL=${o.url} load.k6.js
// Check: aggmock load --check calls.jsonl --dialect ${o.dialectName} --threshold correctness
// Scale out on Kubernetes with k6-operator (TestRun spec.parallelism: N); each runner plays its share of the arrivals.
// Every call is built and signed here (WebCrypto and k6/crypto) as aggmock builds it, and printed as one JSON line.
import http from 'k6/http';
import k6crypto from 'k6/crypto';
import exec from 'k6/execution';

export const options = ${JSON.stringify(options, null, 2)};

const BASE_URL = (__ENV.WALLET_URL || ${JSON.stringify(o.url)}).replace(/\\/$/, '');
const DIALECT = ${JSON.stringify(o.dialect)};
// Development credentials unless others were given at export: keep real secrets out of the script (use __ENV).
const CREDENTIALS = Object.assign(${JSON.stringify(credentials)}, __ENV.AGGMOCK_CREDENTIALS ? JSON.parse(__ENV.AGGMOCK_CREDENTIALS) : {});
const PRIVATE_KEYS = ${JSON.stringify(privateKeys)};
const AMOUNTS = ${JSON.stringify(amounts)};
const FACTS = ${JSON.stringify(FACTS)};
const PLAYERS = ${JSON.stringify(o.players)};
const CURRENCY = ${JSON.stringify(o.currency)};
const STAKE = ${o.stakeMinor};
const MIX = ${JSON.stringify(weights)};
const TOKEN = ${JSON.stringify(o.token ?? null)};
${K6_RUNTIME}
// ---- the rounds: as aggmock load plays them ----
let counter = 0;
function nextId() {
  counter += 1;
  return (exec.vu.idInTest || 0) * 10000000 + counter;
}
function tokenOf(data, player) {
  if (data && data.tokens && data.tokens[player]) return data.tokens[player];
  return TOKEN === null ? 'aggmock-session-' + player : TOKEN.split('{player}').join(player);
}

/** Sends one call, prints its record, and returns its reply. */
export async function call(facts, send) {
  const id = nextId();
  const sentAt = Date.now();
  const req = await buildRequest(Object.assign({}, facts, { sentAt }));
  const res = await (send || http.request)(req.method, BASE_URL + req.path, req.body === undefined ? null : req.body, { headers: req.headers, tags: { operation: facts.operation } });
  const answered = res && res.status > 0;
  const record = { id, facts, sentAt, attempts: 1 };
  if (answered) Object.assign(record, { answeredAt: Date.now(), status: res.status, text: String(res.body) });
  console.log(JSON.stringify(record));
  return record;
}

const at = (o, path) => path.split('.').reduce((v, k) => (v == null ? v : v[k]), o);
/** A bet's reply as an object, or undefined when it is no JSON. */
function betReply(record) {
  try {
    const root = DIALECT.operations.bet && DIALECT.operations.bet.reply && DIALECT.operations.bet.reply.root;
    const body = JSON.parse(record.text);
    return root ? at(body, root) : body;
  } catch (e) {
    return undefined;
  }
}
function accepted(record) {
  if (!record.status || !statusIn(record.status, DIALECT.reply.status.answer)) return false;
  const body = betReply(record);
  if (body == null) return false;
  if (DIALECT.reply.success && at(body, DIALECT.reply.success.path) !== DIALECT.reply.success.equals) return false;
  const code = DIALECT.reply.code ? at(body, DIALECT.reply.code) : undefined;
  if (DIALECT.reply.ok === undefined) return code === undefined || code === 0 || code === '' || code === false;
  const oks = [].concat(DIALECT.reply.ok).map(String);
  return oks.includes(String(code));
}
function statusIn(status, classes) {
  return classes.some((c) => {
    if (c.endsWith('xx')) return Math.floor(status / 100) === Number(c[0]);
    const [from, to] = c.split('-').map(Number);
    return status >= from && status <= (to === undefined ? from : to);
  });
}
/**
 * Whether a bet's outcome is unknown, so its round rolls it back as aggmock load does: no answer,
 * an answer asking for a retry (the script sends each call once), a reply that is no JSON, or a code
 * the vendor reads as "maybe applied" (the dialect's rolledBackOn: Caleta's RS_ERROR_UNKNOWN).
 */
function outcomeUnknown(record) {
  if (!record.status || statusIn(record.status, DIALECT.reply.status.retry)) return true;
  if (!statusIn(record.status, DIALECT.reply.status.answer)) return false;
  const body = betReply(record);
  if (body == null || typeof body !== 'object') return true;
  const code = DIALECT.reply.code ? at(body, DIALECT.reply.code) : undefined;
  // A dialect that reads acceptance by its code: a reply without one is unreadable.
  if (code === undefined) return DIALECT.reply.ok !== undefined && !DIALECT.reply.success;
  const own = (DIALECT.operations.bet && DIALECT.operations.bet.reply) || {};
  return (own.retryCodes || DIALECT.reply.retryCodes || []).concat(own.rolledBackOn || []).map(String).includes(String(code));
}

function facts(data, player, operation, extra) {
  return Object.assign({ operation, playerId: player, currency: CURRENCY, sessionToken: tokenOf(data, player), createdAt: Date.now(), requestId: requestIdOf(nextId()) }, extra);
}
function requestIdOf(n) {
  const h = ('000000000000' + n.toString(16)).slice(-12);
  return '6b360000-0000-4000-8000-' + h;
}

function pick() {
  let total = 0;
  for (const k in MIX) total += MIX[k];
  let at = Math.random() * total;
  for (const k in MIX) {
    at -= MIX[k];
    if (at < 0 && MIX[k] > 0) return k;
  }
  return 'bet-win';
}

export async function round(data, kind, player, send) {
  const ops = DIALECT.operations;
  if (kind === 'balance') return void (await call(facts(data, player, 'balance', {}), send));
  const n = nextId();
  const tx = 'ld-' + data.run + '-' + n;
  const roundId = String(data.roundBase + n);
  if (kind === 'promo') {
    return void (await call(facts(data, player, 'promoWin', { transactionId: tx, roundId, amountMinor: STAKE, roundClosed: true, bonus: { kind: 'free-spins', id: 'fs-' + tx } }), send));
  }
  const stake = STAKE + Math.floor(Math.random() * STAKE);
  const betFacts = facts(data, player, 'bet', { transactionId: tx, roundId, amountMinor: stake });
  const bet = await call(betFacts, send);
  if (kind === 'rollback' || outcomeUnknown(bet)) {
    return void (await call(facts(data, player, 'rollback', { transactionId: tx + '-rb', betTransactionId: tx, roundId, amountMinor: stake, roundClosed: true }), send));
  }
  if (!accepted(bet)) return;
  if (kind === 'duplicate') await call(Object.assign({}, betFacts, { requestId: requestIdOf(nextId()) }), send);
  if (kind === 'bet-lose' && ops.endRound) return void (await call(facts(data, player, 'endRound', { roundId, roundClosed: true }), send));
  await call(facts(data, player, 'win', { transactionId: tx + '-w', betTransactionId: tx, roundId, amountMinor: kind === 'bet-lose' ? 0 : 2 * stake, roundClosed: true }), send);
  if (kind !== 'bet-lose' && ops.endRound) await call(facts(data, player, 'endRound', { roundId, roundClosed: true }), send);
}

/** Each player's session first (its balance starts the history). */
export async function setup() {
  const data = { run: Date.now().toString(36).slice(-6), roundBase: (Date.now() % 1000000) * 10000000, tokens: {} };
  for (const player of PLAYERS) {
    if (DIALECT.operations.authenticate) {
      const r = await call(facts(data, player, 'authenticate', {}));
      const swap = DIALECT.operations.authenticate.reply && DIALECT.operations.authenticate.reply.token;
      if (swap && r.text) {
        try {
          const t = at(JSON.parse(r.text), swap);
          if (typeof t === 'string' && t !== '') data.tokens[player] = t;
        } catch (e) {}
      }
    }
    if (DIALECT.operations.balance) await call(facts(data, player, 'balance', {}));
  }
  return data;
}

export default async function (data) {
  await round(data, pick(), PLAYERS[Math.floor(Math.random() * PLAYERS.length)]);
}

/** The final balance read of every player: aggmock load --check reconciles it. */
export async function teardown(data) {
  const read = DIALECT.operations.balance ? 'balance' : DIALECT.operations.authenticate ? 'authenticate' : undefined;
  if (read) for (const player of PLAYERS) await call(facts(data, player, read, {}));
}
`;
}
