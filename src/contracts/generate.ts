import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { credentialsOf, dialectOf, signOptionsOf } from '../config/dialect.ts';
import type { AggmockConfig } from '../config/index.ts';
import { escapeRegExp } from '../dialects/call-routes.ts';
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
  SIGNATURE_CHARACTERS,
  type SignedRequest,
  type SignOptions,
  writeAmount,
  writeReply,
} from '../dialects/index.ts';
import { setAt } from '../shared/index.ts';
import { DEFAULT_HEADER_NAMES, type HeaderNames, type SigningScheme } from '../signing/index.ts';
import {
  CONSUMER,
  contractFacts,
  contractSessionToken,
  type DialectContract,
  dialectContracts,
  PACT_FILE_NAME,
  PROVIDER,
  refusalCodes,
} from './dialect.ts';

/*
 * The pact file of a dialect's contracts (Pact V4), written from data: each contract as the
 * dialect's real request (method, path, JSON/form/query, headers, signature by pattern, the run's
 * values by type) and the reply its rule requires (success or refusal codes, balance paths,
 * matched by pattern). The same bytes for the same dialect and credentials; no Pact library is
 * loaded to write it.
 */

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

/** What the dialect's signature looks like, in its encoding, whatever the key. */
export function signaturePattern(dialect: Dialect): string | undefined {
  const recipe = dialect.signing;
  if (!('place' in recipe)) return undefined;
  const prefix = 'header' in recipe.place && recipe.place.prefix ? escapeRegExp(recipe.place.prefix) : '';
  return `^${prefix}${SIGNATURE_CHARACTERS[recipe.encoding]}$`;
}

/** aggmock's header schemes: what each signature header looks like, whatever the secret (any number of them: rotation). */
const SCHEME_PATTERNS: Record<SigningScheme, Partial<Record<keyof HeaderNames, string>>> = {
  timestamped: { signature: String.raw`^t=\d+(,v1=[0-9a-f]{64})+$` },
  'hmac-hex': { signature: '^[0-9a-f]{64}(,[0-9a-f]{64})*$' },
  'standard-webhooks': {
    webhookId: String.raw`^\S+$`,
    webhookTimestamp: String.raw`^\d+$`,
    webhookSignature: '^v1,[A-Za-z0-9+/]{43}=( v1,[A-Za-z0-9+/]{43}=)*$',
  },
};

/** The signature headers of a dialect signed by aggmock's header schemes, each with its pattern (none for another recipe). */
function schemeHeaderPatterns(dialect: Dialect, signOptions: SignOptions): Record<string, string> {
  const recipe = dialect.signing;
  const keys = signOptions.scheme;
  if (recipe.algorithm !== 'scheme' || keys === undefined) return {};
  const names = { ...DEFAULT_HEADER_NAMES, ...keys.headerNames };
  const patterns = SCHEME_PATTERNS[recipe.scheme ?? keys.scheme];
  return Object.fromEntries(
    (Object.keys(patterns) as (keyof HeaderNames)[]).map((key) => [
      headerName(names[key].toLowerCase()),
      patterns[key] as string,
    ]),
  );
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
function pactRequest(
  dialect: Dialect,
  operation: Operation,
  req: SignedRequest,
  schemeHeaders: Record<string, string>,
): PactRequest {
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
  for (const [name, regex] of Object.entries(schemeHeaders)) headerRules[name] = rule({ match: 'regex', regex });
  const pattern = signaturePattern(dialect);
  const recipe = dialect.signing;
  if (pattern && 'place' in recipe) {
    const place = recipe.place;
    if ('header' in place) headerRules[headerName(place.header)] = rule({ match: 'regex', regex: pattern });
    else if ('query' in place) queryRules[place.query] = rule({ match: 'regex', regex: pattern });
    else body[memberPath([place.field])] = rule({ match: 'regex', regex: pattern });
  }
  const rules = Object.entries({ body, query: queryRules, header: headerRules }).filter(([, r]) => Object.keys(r).length > 0);
  if (rules.length > 0) out.matchingRules = Object.fromEntries(rules);
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
  // The constant members a wallet writes besides the outcome (Betnex's msg and handle) are never read: not required either.
  const { writes: _writes, ...read } = dialect.reply;
  const written = writeReply(
    { ...dialect, reply: { ...read, ...shape, echo: reply.accepted && !uncoded ? dialect.reply.echo : {} } },
    facts,
    answer,
    write,
  );
  if (!readsBalance) dropBalance(balances ?? [], written.body, op?.reply?.root);
  const token = reply.accepted ? op?.reply?.token : undefined;
  if (token !== undefined) setAt(written.body, op?.reply?.root ? `${op.reply.root}.${token}` : token, facts.sessionToken);
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
      regex: `^(${allowed.map((v) => escapeRegExp(String(v))).join('|')})$`,
    });
  }
  if (reply.accepted && !uncoded)
    for (const path of Object.values(rules.echo)) if (path) body[at(path)] = rule({ match: 'type' });
  const refusalStatus = reply.accepted ? undefined : rules.statuses[reply.refusal];
  const matchingRules: Record<string, Rules> = {
    header: { 'Content-Type': rule({ match: 'regex', regex: JSON_CONTENT_TYPE }) },
  };
  if (Object.keys(body).length > 0) matchingRules.body = body;
  // Replies are matched on any status the dialect reads a body from. A refusal the dialect answers with a
  // status of its own may come with any status of that class too (the default wire's 402 or another 4xx, or
  // 200 + {error}: the judge reads them all); a forged signature's own status (401) is that status only. A refusal the dialect has no code of its
  // own for (100HP's lack of funds) may come with any of its refusal statuses.
  const ownCode = !reply.accepted && rules.codes[reply.refusal] !== undefined;
  const refusalStatuses = reply.accepted || ownCode ? [] : [...new Set(Object.values(rules.statuses))].map(String);
  const exact = !reply.accepted && reply.refusal === 'INVALID_SIGNATURE' && refusalStatus !== undefined;
  if (!exact) {
    // The own status's whole class: the judge reads any 4xx but 408 and 429 as a final refusal, so a wallet
    // answering its lack of funds with 403 or 422 instead of the documented 402 is not broken.
    const own = refusalStatus === undefined ? [] : [`${String(refusalStatus)[0]}xx`];
    matchingRules.status = {
      $: { combine: 'OR', matchers: statusMatchers([...rules.status.answer, ...own, ...refusalStatuses]) },
    };
  }
  return {
    status: refusalStatus ?? written.status,
    headers: { 'Content-Type': ['application/json'] },
    body: { content: written.body, contentType: 'application/json', encoded: false },
    matchingRules,
  };
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
  const schemeHeaders = schemeHeaderPatterns(dialect, options.signOptions);
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
        params:
          dialect.session.token === 'none'
            ? s.params
            : { ...s.params, sessionToken: contractSessionToken(String(s.params.playerId ?? contract.call.playerId)) },
      })),
      request: pactRequest(dialect, contract.call.operation, request, schemeHeaders),
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
 * Writes the pact file (`<outDir>/aggmock-integrator-webhook.json`) of the callbacks settings:
 * their dialect (any: default, betnex, a profile file, a vendor's), credentials and currency; keys
 * sorted, so the same settings give the same bytes. Replaces an existing file. Needs no Pact
 * library (the file is data), so verify pays no import for it.
 *
 * @example generateContracts({ config: defaultConfig(), outDir: 'contracts' }) // 'contracts/aggmock-integrator-webhook.json'
 */
export function generateContracts(options: { config: AggmockConfig; outDir: string }): string {
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
