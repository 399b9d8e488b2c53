import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { credentialsOf, dialectOf, signOptionsOf } from '../config/dialect.ts';
import type { AggmockConfig } from '../config/index.ts';
import {
  acknowledgementCodes,
  balancePaths,
  buildRequest,
  type CallFacts,
  type Credentials,
  credentialMask,
  type Dialect,
  type Fact,
  type Field,
  maskedRequest,
  type Operation,
  OUTCOME_CODES,
  type OutcomeCode,
  requestIdOf,
  roundIdOf,
  type Scalar,
  type SignedRequest,
  type SignOptions,
  writeAmount,
  writeReply,
} from '../dialects/index.ts';
import { balanceState, CONSUMER, type ContractState, debitedState, PACT_FILE_NAME, PROVIDER } from './interactions.ts';

/*
 * The contracts of a vendor dialect: the rules of aggmock's profile contracts (a bet the balance
 * covers, a win, a rollback, a repeated bet answered with the first reply, a refusal for lack of
 * funds, a forged signature refused) and the dialect's own reads (authenticate, balance), each
 * written as the dialect's real request (method, path, JSON/form/query, headers, signature by
 * pattern) and the reply its rules require (success or refusal codes, balance paths, matched by
 * pattern). The pact file is written from data, the same bytes for the same dialect and
 * credentials; `aggmock verify` replays it with the Pact Verifier, re-signing each request.
 */

/** The call one contract makes, before the run's ids, time and session token are set. */
export type ContractCall = Omit<CallFacts, 'createdAt' | 'requestId' | 'currency' | 'sessionToken'>;

export interface DialectContract {
  /** Stable id: `pact:<id>` in verify reports, `--only`/`--skip`. */
  id: string;
  rule: string;
  hint: string;
  /** The Pact interaction description (unique in a dialect's pact). */
  description: string;
  states: ContractState[];
  call: ContractCall;
  /** 'wrong-keys': signed with keys the wallet does not know. */
  signature: 'valid' | 'wrong-keys';
  /** It repeats the bet its provider state made: the reply must be that bet's first reply (its balance, exactly). */
  firstReply?: true;
  reply: { accepted: true; balanceMinor: number } | { accepted: false; refusal: OutcomeCode };
}

const P = 'p1';
const OPENING = 10_000;

/** The contract transaction ids: each appears in one contract only, so a request names its contract. */
export const DIALECT_CONTRACT_TX = {
  // Short: a run's suffix is added in players mode, and some wires cap ids (Pragmatic: 32 characters).
  bet: 'ctx-bet',
  winRound: 'ctx-win-bet',
  win: 'ctx-win',
  betWin: 'ctx-betwin',
  rollback: 'ctx-rb',
  rollbackOwn: 'ctx-rb-rev',
  duplicate: 'ctx-dup',
  insufficient: 'ctx-nofunds',
  badSignature: 'ctx-badsig',
} as const;

const T = DIALECT_CONTRACT_TX;
const bet = (transactionId: string, amountMinor: number): ContractCall => ({
  operation: 'bet',
  playerId: P,
  transactionId,
  amountMinor,
  roundId: roundIdOf(transactionId),
});

/** Every contract a dialect can have, in report order; `dialectContracts` keeps those its wire has. */
export const DIALECT_CONTRACTS: readonly DialectContract[] = [
  {
    id: 'authenticate',
    rule: "The authenticate call for a known player's session is accepted.",
    hint: 'Answer the authenticate call with the success value and the player (and balance) as the vendor documents.',
    description: 'the authenticate call of a known player',
    states: [balanceState(P, OPENING)],
    call: { operation: 'authenticate', playerId: P },
    signature: 'valid',
    reply: { accepted: true, balanceMinor: OPENING },
  },
  {
    id: 'balance',
    rule: 'The balance call is accepted with the balance, and moves no money.',
    hint: "Answer the balance call with the success value and the player's balance at the balance path.",
    description: 'the balance call of a known player',
    states: [balanceState(P, OPENING)],
    call: { operation: 'balance', playerId: P },
    signature: 'valid',
    reply: { accepted: true, balanceMinor: OPENING },
  },
  {
    id: 'bet-accepted',
    rule: 'A bet the balance covers is accepted with the balance after it.',
    hint: 'Subtract the amount in integer minor units and answer the success value with the balance after the bet.',
    description: 'a bet the balance covers',
    states: [balanceState(P, OPENING)],
    call: bet(T.bet, 1_000),
    signature: 'valid',
    reply: { accepted: true, balanceMinor: 9_000 },
  },
  {
    id: 'win-accepted',
    rule: 'A win that settles its bet is accepted with the balance after it.',
    hint: 'Add the amount to the round of the bet it names and answer the success value with the balance after the win.',
    description: 'a win that settles its bet',
    states: [balanceState(P, OPENING), debitedState(T.winRound, P, 0)],
    call: {
      operation: 'win',
      playerId: P,
      transactionId: T.win,
      betTransactionId: T.winRound,
      amountMinor: 2_550,
      roundId: roundIdOf(T.winRound),
      roundClosed: true,
    },
    signature: 'valid',
    reply: { accepted: true, balanceMinor: 12_550 },
  },
  {
    id: 'bet-win-accepted',
    rule: 'A bet and its win in one call are accepted with the balance after both.',
    hint: 'Apply the bet, then the win, in one database transaction, and answer with the balance after both.',
    description: 'a bet and its win in one call',
    states: [balanceState(P, OPENING)],
    call: { ...bet(T.betWin, 1_000), operation: 'betWin', winMinor: 2_550, roundClosed: true },
    signature: 'valid',
    reply: { accepted: true, balanceMinor: 11_550 },
  },
  {
    id: 'rollback-restores',
    rule: 'A rollback of an accepted bet gives its amount back.',
    hint: 'Find the bet the rollback names, add its amount back, mark it rolled back, and answer the success value with the balance.',
    description: 'a rollback of an accepted bet',
    states: [balanceState(P, OPENING), debitedState(T.rollback, P, 1_000)],
    call: {
      operation: 'rollback',
      playerId: P,
      transactionId: T.rollbackOwn,
      betTransactionId: T.rollback,
      amountMinor: 1_000,
      roundId: roundIdOf(T.rollback),
    },
    signature: 'valid',
    reply: { accepted: true, balanceMinor: OPENING },
  },
  {
    id: 'duplicate-bet',
    rule: 'A bet whose transaction was already applied gets the first reply again and moves no money.',
    hint: 'Look the transaction up by its id first; when it exists, answer its stored reply and move nothing.',
    description: 'a bet whose transaction was already applied',
    states: [balanceState(P, OPENING), debitedState(T.duplicate, P, 1_000)],
    call: bet(T.duplicate, 1_000),
    signature: 'valid',
    firstReply: true,
    reply: { accepted: true, balanceMinor: 9_000 },
  },
  {
    id: 'insufficient-funds',
    rule: "A bet larger than the balance is refused with the dialect's code for a lack of funds.",
    hint: "Check balance ≥ amount in the same database transaction; refuse with the vendor's insufficient-funds code.",
    description: 'a bet larger than the balance',
    states: [balanceState(P, 500)],
    call: bet(T.insufficient, 1_000),
    signature: 'valid',
    reply: { accepted: false, refusal: 'INSUFFICIENT_FUNDS' },
  },
  {
    id: 'bad-signature',
    rule: "A call signed with keys the wallet does not know is refused with the dialect's code for a bad signature.",
    hint: "Verify the signature as the vendor documents before anything else; refuse with the vendor's invalid-signature code.",
    description: 'a bet signed with keys the wallet does not know',
    states: [balanceState(P, OPENING)],
    call: bet(T.badSignature, 1_000),
    signature: 'wrong-keys',
    reply: { accepted: false, refusal: 'INVALID_SIGNATURE' },
  },
];

/** The codes a refusal may carry under the dialect: its own code(s), else any refusal code it has. */
export function refusalCodes(dialect: Dialect, refusal: OutcomeCode): Scalar[] {
  const listOf = (v: Scalar | Scalar[] | undefined) => (v === undefined ? [] : Array.isArray(v) ? v : [v]);
  const own = listOf(dialect.reply.codes[refusal]);
  if (own.length > 0) return own;
  return OUTCOME_CODES.flatMap((code) => listOf(dialect.reply.codes[code]));
}

/**
 * Why a contract does not apply to a dialect, or undefined when it does: the operation must
 * exist, a signature must be made to be forged, and a refusal must be recognisable (a code, a
 * success flag or an HTTP status of its own).
 */
export function contractNotApplicable(dialect: Dialect, contract: DialectContract): string | undefined {
  if (!dialect.operations[contract.call.operation]) return `the ${dialect.name} dialect has no ${contract.call.operation} call`;
  if (contract.signature === 'wrong-keys' && dialect.signing.algorithm === 'none')
    return `the ${dialect.name} dialect signs nothing (its credentials travel as they are)`;
  const reply = contract.reply;
  if (
    !reply.accepted &&
    refusalCodes(dialect, reply.refusal).length === 0 &&
    dialect.reply.success === undefined &&
    dialect.reply.statuses[reply.refusal] === undefined
  )
    return `the ${dialect.name} dialect has no way to tell a ${reply.refusal} refusal from an acceptance`;
  return undefined;
}

/** The contracts of a dialect, in report order. */
export function dialectContracts(dialect: Dialect): DialectContract[] {
  return DIALECT_CONTRACTS.filter((c) => contractNotApplicable(dialect, c) === undefined);
}

export function findDialectContract(description: string): DialectContract | undefined {
  return DIALECT_CONTRACTS.find((c) => c.description === description);
}

/** The session token a contract's example request carries (32+ characters: Red Tiger wants 32 to 128). */
export function contractSessionToken(playerId: string): string {
  return `aggmock-contract-session-${playerId}-0123456789abcdef`;
}

/** The facts of one contract's call, with the run's ids: what its request is built from (example or replay). */
export function contractFacts(
  contract: DialectContract,
  options: { currency: string; createdAt: number; sessionToken?: string; playerId?: string; id?: (contractId: string) => string },
): CallFacts {
  const id = options.id ?? ((x: string) => x);
  const c = contract.call;
  const base = {
    ...c,
    playerId: options.playerId ?? c.playerId,
    currency: options.currency,
    ...(c.transactionId === undefined ? {} : { transactionId: id(c.transactionId) }),
    ...(c.betTransactionId === undefined ? {} : { betTransactionId: id(c.betTransactionId) }),
    // A run's ids give the run's rounds, as the provider state's bet got (verify's roundIdOf).
    ...(c.roundId === undefined ? {} : { roundId: roundIdOf(id(c.betTransactionId ?? (c.transactionId as string))) }),
    sessionToken: options.sessionToken ?? contractSessionToken(options.playerId ?? c.playerId),
  };
  return { ...base, requestId: requestIdOf(base), createdAt: options.createdAt };
}

// ---- the pact file ----

type Matcher = { match: 'regex'; regex: string } | { match: 'type' } | { match: 'statusCode'; status: string | number[] };
type Rules = Record<string, { combine: 'AND' | 'OR'; matchers: Matcher[] }>;

const JSON_CONTENT_TYPE = String.raw`(?i)^\s*application/json\s*(;.*)?$`;
const BALANCE_TEXT = String.raw`^-?\d+(\.\d+)?$`;

/** Facts whose value is the run's (ids, time, tokens): matched by type in the request. */
const VOLATILE: ReadonlySet<Fact> = new Set<Fact>([
  'transactionId',
  'betTransactionId',
  'roundId',
  'timestamp',
  'timestampSeconds',
  'timestampMs',
  'sessionToken',
  'requestId',
  'nonce',
  'playerId',
  'amount',
  'betAmount',
]);

function volatile(field: Field): boolean {
  if ('from' in field) return (typeof field.from === 'string' ? [field.from] : field.from).some((f) => VOLATILE.has(f));
  if ('template' in field) return /\{(?!credential\.)[A-Za-z]+\}/.test(field.template);
  if ('json' in field) return volatile(field.json);
  return false;
}

/** A JSONPath for a member name: `$.name`, or `$['odd-name']`. */
function memberPath(keys: readonly string[]): string {
  return `$${keys.map((k) => (/^[A-Za-z_][A-Za-z0-9_]*$/.test(k) ? `.${k}` : `['${k.replaceAll("'", "\\'")}']`)).join('')}`;
}

function rule(...matchers: Matcher[]): Rules[string] {
  return { combine: 'AND', matchers };
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** What the dialect's signature looks like, in its encoding, whatever the key. */
export function signaturePattern(dialect: Dialect): string | undefined {
  const recipe = dialect.signing;
  if (!('place' in recipe)) return undefined;
  const prefix = 'header' in recipe.place && recipe.place.prefix ? escapeRegex(recipe.place.prefix) : '';
  const body = {
    hex: '[0-9a-f]+',
    HEX: '[0-9A-F]+',
    base64: '[A-Za-z0-9+/]+=*',
    base64url: '[A-Za-z0-9_-]+=*',
  }[recipe.encoding];
  return `^${prefix}${body}$`;
}

/** HTTP status classes of the dialect as Pact status matchers. */
function statusMatchers(classes: readonly string[]): Matcher[] {
  const named: Record<string, string> = {
    '1xx': 'information',
    '2xx': 'success',
    '3xx': 'redirect',
    '4xx': 'clientError',
    '5xx': 'serverError',
  };
  const exact: number[] = [];
  const out: Matcher[] = [];
  for (const c of classes) {
    const name = named[c];
    if (name) out.push({ match: 'statusCode', status: name });
    else if (c.includes('-')) {
      const [from, to] = c.split('-').map(Number) as [number, number];
      for (let s = from; s <= to; s++) exact.push(s);
    } else if (/^\d{3}$/.test(c)) exact.push(Number(c));
  }
  if (exact.length > 0) out.push({ match: 'statusCode', status: exact });
  return out;
}

interface PactRequest {
  method: string;
  path: string;
  query?: Record<string, string[]>;
  headers: Record<string, string[]>;
  body?: { content: unknown; contentType: string; encoded: false };
  matchingRules?: Record<string, Rules>;
}

/** The Pact request of a signed dialect request: its parts, with the signature and the run's values by pattern. */
function pactRequest(dialect: Dialect, operation: Operation, req: SignedRequest): PactRequest {
  const op = dialect.operations[operation];
  const [path = '', query = ''] = req.path.split(/\?(.*)/s) as [string, string | undefined];
  const out: PactRequest = { method: req.method, path: path === '' ? '/' : path, headers: {} };
  const queryPairs = [...new URLSearchParams(query)];
  if (queryPairs.length > 0) {
    out.query = {};
    for (const [k, v] of queryPairs) out.query[k] = [...(out.query[k] ?? []), v];
  }
  for (const [name, value] of Object.entries(req.headers)) out.headers[headerName(name)] = [value];
  const contentType = req.headers['content-type'];
  if (req.body !== undefined && contentType) {
    out.body = {
      content: contentType === 'application/json' ? JSON.parse(req.body) : req.body,
      contentType,
      encoded: false,
    };
  }
  const body: Rules = {};
  const queryRules: Rules = {};
  const headerRules: Rules = {};
  const encoding = op?.encoding ?? dialect.request.encoding;
  for (const [name, field] of Object.entries(op?.fields ?? {})) {
    if (!volatile(field)) continue;
    if (encoding === 'query') queryRules[name] = rule({ match: 'type' });
    else body[memberPath([name])] = rule({ match: 'type' });
  }
  for (const [name, field] of [...Object.entries(dialect.request.headers), ...Object.entries(op?.headers ?? {})]) {
    if (volatile(field)) headerRules[headerName(name)] = rule({ match: 'type' });
  }
  const pattern = signaturePattern(dialect);
  const recipe = dialect.signing;
  if (pattern && 'place' in recipe) {
    const place = recipe.place;
    if ('header' in place) headerRules[headerName(place.header)] = rule({ match: 'regex', regex: pattern });
    else if ('query' in place) queryRules[place.query] = rule({ match: 'regex', regex: pattern });
    else body[memberPath([place.field])] = rule({ match: 'regex', regex: pattern });
  }
  const rules: Record<string, Rules> = {};
  if (Object.keys(body).length > 0) rules.body = body;
  if (Object.keys(queryRules).length > 0) rules.query = queryRules;
  if (Object.keys(headerRules).length > 0) rules.header = headerRules;
  if (Object.keys(rules).length > 0) out.matchingRules = rules;
  return out;
}

/** "x-hub88-signature" → "X-Hub88-Signature": how a person writes a header name. */
function headerName(name: string): string {
  return name.replace(/(^|-)([a-z])/g, (_m, dash: string, c: string) => dash + c.toUpperCase());
}

/**
 * The reply a contract requires under the dialect: the example a correct wallet writes
 * (`writeReply`), with the balance matched as a number or decimal text, the outcome code as one of
 * the values the rule allows, echoed facts by type, the status by the dialect's classes.
 */
function pactResponse(dialect: Dialect, contract: DialectContract, facts: CallFacts) {
  const op = dialect.operations[facts.operation];
  const write = (minor: number) => writeAmount(dialect, facts.currency, minor);
  const reply = contract.reply;
  const answer = reply.accepted ? reply : { accepted: false as const, refusal: reply.refusal };
  // An authenticate reply need not carry the balance (Hub88's /user/info, Evolution's /check); a
  // refusal need not echo the request. What the rule does not require is left out of the example,
  // since Pact requires every member the example has.
  const balances = balancePaths(dialect, facts.operation);
  const readsBalance = reply.accepted && balances !== undefined && facts.operation !== 'authenticate';
  // A reply the operation reads without a code (Caleta's /wallet/check) is an object, nothing more.
  const uncoded = op?.reply?.code === false;
  const shape = uncoded ? { code: undefined, ok: undefined, success: undefined } : {};
  const written = writeReply(
    { ...dialect, reply: { ...dialect.reply, ...shape, echo: reply.accepted && !uncoded ? dialect.reply.echo : {} } },
    facts,
    answer,
    write,
  );
  if (!readsBalance) dropBalance(balances ?? [], written.body, op?.reply?.root);
  const token = reply.accepted ? op?.reply?.token : undefined;
  if (token !== undefined)
    setPath(written.body, [...(op?.reply?.root?.split('.') ?? []), ...token.split('.')], facts.sessionToken);
  const root = op?.reply?.root?.split('.') ?? [];
  const at = (path: string) => memberPath([...root, ...path.split('.')]);
  const rules = dialect.reply;
  const body: Rules = {};
  if (readsBalance) {
    for (const path of balances ?? []) body[at(path)] = rule({ match: 'regex', regex: BALANCE_TEXT });
  }
  if (token !== undefined) body[at(token)] = rule({ match: 'type' });
  const coded = rules.code !== undefined && !uncoded;
  const allowed = reply.accepted
    ? rules.ok === undefined
      ? []
      : [
          ...(Array.isArray(rules.ok) ? rules.ok : [rules.ok]),
          // A repeat may be acknowledged with the vendor's "already processed" code (Evolution's BET_ALREADY_EXIST).
          ...(contract.firstReply ? acknowledgementCodes(dialect, facts.operation) : []),
        ]
    : refusalCodes(dialect, reply.refusal);
  if (coded && allowed.length > 0 && allowed.every((v) => typeof v !== 'boolean')) {
    body[at(rules.code as string)] = rule({
      match: 'regex',
      regex: `^(${allowed.map((v) => escapeRegex(String(v))).join('|')})$`,
    });
  }
  if (reply.accepted && !uncoded)
    for (const path of Object.values(rules.echo)) if (path) body[at(path)] = rule({ match: 'type' });
  const refusalStatus = reply.accepted ? undefined : rules.statuses[reply.refusal];
  const matchingRules: Record<string, Rules> = {
    header: { 'Content-Type': rule({ match: 'regex', regex: JSON_CONTENT_TYPE }) },
  };
  if (Object.keys(body).length > 0) matchingRules.body = body;
  // A refusal the dialect answers with its own HTTP status is that status; the rest are any status the dialect reads a body from.
  // A refusal the dialect has no code of its own for (100HP's lack of funds) may come with any of its refusal statuses too.
  const ownCode = !reply.accepted && rules.codes[reply.refusal] !== undefined;
  const refusalStatuses = reply.accepted || ownCode ? [] : [...new Set(Object.values(rules.statuses))].map(String);
  if (refusalStatus === undefined)
    matchingRules.status = { $: { combine: 'OR', matchers: statusMatchers([...rules.status.answer, ...refusalStatuses]) } };
  return {
    status: refusalStatus ?? written.status,
    headers: { 'Content-Type': ['application/json'] },
    body: { content: written.body, contentType: 'application/json', encoded: false },
    matchingRules,
  };
}

function setPath(body: Record<string, unknown>, keys: readonly string[], value: unknown): void {
  let node = body;
  for (const key of keys.slice(0, -1)) {
    if (!node[key] || typeof node[key] !== 'object') node[key] = {};
    node = node[key] as Record<string, unknown>;
  }
  node[keys.at(-1) as string] = value;
}

/** Removes the balance members from a written reply (under its root member, when it has one). */
function dropBalance(paths: readonly string[], body: Record<string, unknown>, root: string | undefined): void {
  for (const path of paths) {
    const keys = [...(root?.split('.') ?? []), ...path.split('.')];
    let node: unknown = body;
    for (const key of keys.slice(0, -1))
      node = node && typeof node === 'object' ? (node as Record<string, unknown>)[key] : undefined;
    if (node && typeof node === 'object') delete (node as Record<string, unknown>)[keys.at(-1) as string];
  }
}

/** The moment every example is stamped with: the same bytes on every run. */
const EPOCH_MS = Date.parse('2025-01-01T00:00:00.000Z');

/** The example request of one contract (run values of the contract itself, at the contract epoch, valid keys). */
export function exampleRequest(
  dialect: Dialect,
  contract: DialectContract,
  credentials: Credentials,
  signOptions: SignOptions,
  currency: string,
): { facts: CallFacts; request: SignedRequest } {
  const facts = contractFacts(contract, { currency, createdAt: EPOCH_MS });
  return { facts, request: buildRequest(dialect, facts, credentials, { ...signOptions, timestamp: EPOCH_MS / 1000 }) };
}

/**
 * The pact of a dialect's contracts, as a Pact V4 file. The bad-signature example is signed with
 * the real keys (a key pair made for it would change the file on every run); the Verifier's
 * request filter signs it with keys the wallet does not know.
 */
export function dialectPact(options: {
  dialect: Dialect;
  credentials: Credentials;
  signOptions: SignOptions;
  currency: string;
}): Record<string, unknown> {
  const { dialect } = options;
  // The file is shown (verify's reports carry each interaction) and shared: secrets in it are masked;
  // verify's request filter makes each request again with the real ones.
  const mask = credentialMask(dialect, options.credentials);
  const interactions = dialectContracts(dialect).map((contract) => {
    const example = exampleRequest(dialect, contract, options.credentials, options.signOptions, options.currency);
    const { facts } = example;
    const shown = maskedRequest(mask, { ...example.request, body: example.request.body ?? '' });
    const request: SignedRequest = { ...shown, body: example.request.body === undefined ? undefined : shown.body };
    return {
      type: 'Synchronous/HTTP',
      description: contract.description,
      pending: false,
      providerStates: contract.states.map((s) => ({
        name: s.name,
        params: dialect.session.token === 'none' ? s.params : { ...s.params, sessionToken: contractSessionToken(P) },
      })),
      request: pactRequest(dialect, contract.call.operation, request),
      response: pactResponse(dialect, contract, facts),
    };
  });
  return {
    consumer: { name: CONSUMER },
    provider: { name: PROVIDER },
    interactions,
    metadata: { pactSpecification: { version: '4.0' }, aggmock: { dialect: dialect.name } },
  };
}

/**
 * Writes a vendor dialect's pact file (`<outDir>/aggmock-integrator-webhook.json`) for the
 * callbacks settings: their dialect, credentials and currency; keys sorted, so the same settings
 * give the same bytes. Needs no Pact library (the file is data), so verify pays no import for it.
 */
export function writeDialectContracts(options: { config: AggmockConfig; outDir: string }): string {
  const callbacks = options.config.callbacks;
  const pact = dialectPact({
    dialect: dialectOf(callbacks),
    credentials: credentialsOf(callbacks),
    signOptions: signOptionsOf(callbacks),
    currency: callbacks.currency,
  });
  mkdirSync(options.outDir, { recursive: true });
  const file = join(options.outDir, PACT_FILE_NAME);
  writeFileSync(file, `${JSON.stringify(sortKeys(pact), null, 2)}\n`);
  return file;
}

/** A value with its object keys sorted, for files whose bytes must not depend on insertion order. */
export function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, sortKeys((value as Record<string, unknown>)[k])]),
    );
  }
  return value;
}
