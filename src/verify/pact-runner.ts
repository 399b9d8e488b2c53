/**
 * The Pact Verifier side of `aggmock verify`, run in a child process (pact-child.ts): the Pact
 * core prints its report straight to the process's stdout from native code, so running it apart
 * keeps `--json` output and test logs clean. The parent reads the Verifier's JSON results, the
 * exchanges the request filter saw, and what went wrong with provider states.
 *
 * Provider states are handled here, not by the Pact core posting to the state URL: an
 * interaction without states then never sends an empty state, a state endpoint's refusal is kept
 * for the failure card, and without a state URL the states are realised through the webhook
 * itself (players mode), so every interaction runs either way.
 */
import '../contracts/no-tracking.ts';
import { readFileSync } from 'node:fs';
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
// The Verifier alone, not the package's index: that also loads the consumer DSL (GraphQL, Apollo,
// matchers, axios), about 0.4 s of CPU at each child's start that a verification never uses.
// (The package has no `exports` map, and its version is pinned with ~ in package.json.)
import { Verifier } from '@pact-foundation/pact/src/dsl/verifier/verifier.js';
import type { CallbacksConfig } from '../callbacks/events.ts';
import { credentialsOf, dialectOf, shownRequest, signOptionsOf } from '../config/dialect.ts';
import {
  contractFacts,
  contractSessionToken,
  type DialectContract,
  dialectContracts,
  WRONG_SECRET,
} from '../contracts/dialect.ts';
import { carriesSessionToken } from '../dialects/capabilities.ts';
import { buildRequest, type Dialect, readReply, roundIdOf, tokenHandedOver } from '../dialects/index.ts';
import { MAX_REPLY_BYTES } from '../http/index.ts';
import { toMinor } from '../money/index.ts';
import { messageOf, parseJsonOr } from '../shared/index.ts';
import { describeOutcome, type Exchange, postStateOnce } from './client.ts';
import { type BalanceProbe, CheckContext } from './context.ts';
import { joinUrl, wrongKeys } from './dialect-client.ts';

export interface PactRunnerInput {
  pactFile: string;
  /** Origin of the webhook, e.g. http://127.0.0.1:4001. */
  providerBaseUrl: string;
  /** The full webhook URL, and its path (and query), e.g. /callback/webhook. */
  webhookUrl: string;
  webhookPath: string;
  /** Provider states go here; absent: players mode. */
  stateUrl?: string;
  /** Players mode: states are realised through the webhook with these players and fresh ids. */
  players: string[];
  runId: string;
  callbacks: CallbacksConfig;
  timeoutMs: number;
  /** Players mode: how balances are read (the preflight's choice). */
  balanceProbe?: BalanceProbe;
  /** Players mode under a vendor dialect: the session token of each player (--token). */
  tokens?: Record<string, string>;
  resultFile: string;
  /**
   * The parent's hooks opt-in at the time of this run (`AGGMOCK_ALLOW_HOOKS=1`): a pooled child was
   * started with the environment of an earlier run, so the run says its own.
   */
  allowHooks?: boolean;
}

/** What the state handlers and the request filter are given of the run. */
type RunInput = Omit<PactRunnerInput, 'resultFile'>;

/** One request the filter forwarded and the reply that came back, keyed by the contract's transactionId. */
export interface PactExchange {
  request: Omit<Exchange['request'], 'method'> & { method?: string };
  /** As an Exchange's, and why the reply was not passed on to the Verifier as it came (a redirect, an oversized reply). */
  response?: Omit<NonNullable<Exchange['response']>, 'json'> & { refused?: string };
  /** What the reply broke that a Pact matcher cannot say (a repeat answered with another balance than the first reply's). */
  problem?: string;
}

export interface PactRunnerOutput {
  /** The Verifier's JSON report (`{errors, interactionResults, notices, output}`), when it ran. */
  report?: unknown;
  /** Why it could not run. */
  error?: string;
  /** The contract's transactionId (a vendor dialect's: its description) → what was sent and answered. */
  exchanges?: Record<string, PactExchange>;
  /** Provider state name → why setting it up failed. */
  stateErrors?: Record<string, string>;
  /** Players mode under a vendor dialect: the session tokens as they are after the run (an authenticate reply may swap one: Caleta). */
  tokens?: Record<string, string>;
}

export interface FilterRequest {
  path: string;
  url: string;
  body: unknown;
  headers: IncomingHttpHeaders;
}

/** What the state handlers learn and the request filter uses, for one run. */
interface RunState {
  exchanges: Record<string, PactExchange>;
  stateErrors: Record<string, string>;
  /** Players mode: the contract's player ids → the players (or fresh unknown ids) used instead. */
  playerMap: Map<string, string>;
  /** Players mode: balances read while setting states up, minor units. */
  balances: Map<string, number>;
  /** Players mode: the balance each provider state's DEBIT was answered with, by its transaction id (a repeat must get it again). */
  firstBalances: Map<string, number>;
  /**
   * Set once the webhook is seen not to answer within --timeout (a state's request timed out, or the
   * Verifier gave up on a forwarded request): the rest is answered at once with this reason instead
   * of each waiting the timeout out again.
   */
  silent?: string;
}

/** Whether the webhook went silent: a forwarded request that never got its reply. */
function noticeSilence(run: RunState, timeoutMs: number): string | undefined {
  if (run.silent === undefined && Object.values(run.exchanges).some((e) => e.response === undefined)) {
    run.silent = silenceReason(timeoutMs);
  }
  return run.silent;
}

function silenceReason(timeoutMs: number): string {
  return `not sent: the webhook stopped answering (no answer within ${timeoutMs} ms, --timeout) earlier in this run`;
}

/** Players mode: the id a contract's transaction id gets in this run, so a persistent wallet never sees it twice. */
export function runTransactionId(contractId: string, runId: string): string {
  return `${contractId}-${runId}`;
}

/**
 * Starts recording one exchange: the request now, the reply as the proxy writes it back (at most
 * MAX_REPLY_BYTES of it). Before the reply reaches the Rust Verifier, which follows redirects, a
 * 3xx is turned into a 502 that says why: aggmock's engine never follows one, so a webhook that
 * answers callbacks with redirects must not pass the contract. A reply announced over the limit
 * becomes a 502 too; a longer chunked one is cut there. `onReply` judges the reply when it is
 * whole, before it goes out (a judgement made later could miss the run's end).
 */
export function record(
  req: FilterRequest,
  body: string,
  res: ServerResponse,
  url: string,
  onReply?: (exchange: PactExchange) => void,
): PactExchange {
  const exchange: PactExchange = { request: { url, headers: flatHeaders(req.headers), body } };
  const chunks: Buffer[] = [];
  let kept = 0;
  let truncated = false;
  let refused: string | undefined;
  let original: { status: number; headers: Record<string, string> } | undefined;
  const write = res.write.bind(res) as (...args: unknown[]) => boolean;
  const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
  /** Runs before the first byte goes out, while status and headers can still change. */
  const decide = () => {
    if (original) return;
    original = { status: res.statusCode, headers: flatHeaders(res.getHeaders() as IncomingHttpHeaders) };
    const length = Number(res.getHeader('content-length'));
    if (res.statusCode >= 300 && res.statusCode < 400) {
      refused = `the webhook redirected to ${res.getHeader('location') ?? '(no Location)'} with HTTP ${res.statusCode}; aggmock never follows redirects: answer the callback itself`;
    } else if (length > MAX_REPLY_BYTES) {
      refused = `the webhook's reply is ${length} bytes; aggmock reads at most ${MAX_REPLY_BYTES} bytes of a reply`;
    }
    if (refused === undefined) return;
    for (const name of res.getHeaderNames()) res.removeHeader(name);
    res.statusCode = 502;
    res.setHeader('content-type', 'application/json');
  };
  const keep = (chunk: unknown): Buffer | undefined => {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk instanceof Uint8Array ? Buffer.from(chunk) : undefined;
    if (!buf || truncated) return undefined;
    const room = MAX_REPLY_BYTES - kept;
    const part = buf.length > room ? buf.subarray(0, room) : buf;
    if (buf.length > room) truncated = true;
    chunks.push(part);
    kept += part.length;
    return part;
  };
  let ended = false;
  const finish = (...args: unknown[]) => {
    if (ended) return res;
    ended = true;
    exchange.response = {
      status: original?.status ?? res.statusCode,
      headers: original?.headers ?? flatHeaders(res.getHeaders() as IncomingHttpHeaders),
      body: Buffer.concat(chunks).toString('utf8'),
      ...(truncated ? { truncated: true as const } : {}),
      ...(refused === undefined ? {} : { refused }),
    };
    // Judged now, before the reply goes out: once the Verifier has it, the run may end and read the exchange.
    onReply?.(exchange);
    return refused === undefined ? end(...args) : end(JSON.stringify({ error: 'AGGMOCK_REFUSED_REPLY', message: refused }));
  };
  res.write = ((chunk: unknown, ...rest: unknown[]) => {
    decide();
    const part = keep(chunk);
    if (refused !== undefined || ended) return true; // the rest of the reply is read and dropped
    if (truncated) {
      if (part && part.length > 0) write(part);
      finish();
      return true;
    }
    return write(chunk, ...rest);
  }) as typeof res.write;
  res.end = ((chunk?: unknown, ...rest: unknown[]) => {
    decide();
    if (chunk !== undefined && typeof chunk !== 'function') keep(chunk);
    return refused !== undefined || truncated || ended ? finish() : finish(chunk, ...rest);
  }) as typeof res.end;
  return exchange;
}

/** The context the provider states (and a vendor dialect's requests) are realised with in players mode. */
export function stateContext(input: RunInput): CheckContext {
  return new CheckContext(
    {
      webhookUrl: input.webhookUrl,
      callbacks: input.callbacks,
      players: input.players,
      timeoutMs: input.timeoutMs,
      maxLatencyMs: input.timeoutMs,
      concurrency: 2,
      // Its own id space: this process counts transaction ids from 1 again.
      runId: `${input.runId}-pact`,
      sessionTokens: new Map(Object.entries(input.tokens ?? {})),
      ...(input.balanceProbe === undefined ? {} : { balanceProbe: input.balanceProbe }),
    },
    'pact-states',
  );
}

/** The Pact proxy's own paths (provider states, messages): never a contract request. */
const PACT_PROXY_PATHS = new Set(['/_pactSetup', '/_pactMessage']);

/** Which contract a request the Verifier sends is: the one whose transaction ids it names, else the next read (authenticate, balance) not yet sent. */
function contractOfRequest(
  contracts: readonly DialectContract[],
  req: FilterRequest,
  sent: ReadonlySet<DialectContract>,
): DialectContract | undefined {
  const text = `${req.url} ${Buffer.isBuffer(req.body) ? req.body.toString('utf8') : JSON.stringify(req.body ?? '')}`;
  const names = (id: string) => new RegExp(`(^|[^A-Za-z0-9-])${id}([^A-Za-z0-9-]|$)`).test(text);
  return (
    // A rollback may name only the bet it reverses (Pragmatic's refund, Evolution's cancel).
    contracts.find((c) => [c.call.transactionId, c.call.betTransactionId].some((id) => id !== undefined && names(id))) ??
    contracts.find((c) => c.call.transactionId === undefined && !sent.has(c))
  );
}

/**
 * Every contract request, made again as the Verifier's proxy passes it, for every wire: built and signed by the dialect (`buildRequest`) from the contract's
 * call with a fresh time, so the signature covers exactly the bytes forwarded wherever the recipe
 * puts it (aggmock's header schemes, a header, a body field, a query parameter), Content-Length
 * included. The bad-signature contract is signed with keys (or a secret) the wallet does not know.
 * In players mode the call carries this run's player, ids and session token, and the refusal for
 * lack of funds asks for more than the balance read.
 */
export function dialectFilter(input: RunInput, run: RunState, ctx: CheckContext) {
  const callbacks = input.callbacks;
  const dialect: Dialect = dialectOf(callbacks);
  const credentials = credentialsOf(callbacks);
  const signOptions = signOptionsOf(callbacks);
  const contracts = dialectContracts(dialect);
  const sent = new Set<DialectContract>();
  const players = input.stateUrl === undefined;
  return (req: FilterRequest & { method: string }, res: ServerResponse, next: () => void) => {
    if (PACT_PROXY_PATHS.has(req.path)) {
      next();
      return;
    }
    const silent = noticeSilence(run, input.timeoutMs);
    if (silent !== undefined) return notSent(res, 504, silent);
    const contract = contractOfRequest(contracts, req, sent);
    if (!contract) {
      next();
      return;
    }
    sent.add(contract);
    void (async () => {
      const playerId = players
        ? (run.playerMap.get(contract.call.playerId) ?? (input.players[0] as string))
        : contract.call.playerId;
      const sessionToken = players ? await ctx.tokenOf(playerId) : contractSessionToken(playerId);
      const facts = contractFacts(contract, {
        currency: callbacks.currency,
        createdAt: Date.now(),
        playerId,
        sessionToken,
        ...(players ? { id: (x: string) => runTransactionId(x, input.runId) } : {}),
      });
      const balance = run.balances.get(playerId);
      if (players && contract.id === 'insufficient-funds' && balance !== undefined)
        facts.amountMinor = balance + (contract.call.amountMinor ?? 0);
      const wrong = contract.signature === 'wrong-keys';
      const keys = wrong ? wrongKeys(dialect, credentials) : credentials;
      // aggmock's header schemes: signed with a secret the wallet does not know.
      const scheme = wrong && signOptions.scheme ? { ...signOptions.scheme, secrets: [WRONG_SECRET] } : signOptions.scheme;
      const signed = buildRequest(dialect, facts, keys, { ...signOptions, scheme });
      const url = joinUrl(input.webhookUrl, signed.path);
      const target = new URL(url);
      for (const name of Object.keys(req.headers)) if (!KEPT_HEADERS.has(name)) delete req.headers[name];
      for (const [name, value] of Object.entries(signed.headers)) req.headers[name.toLowerCase()] = value;
      const body = signed.body ?? '';
      req.headers['content-length'] = String(Buffer.byteLength(body));
      req.body = Buffer.from(body, 'utf8');
      req.method = signed.method;
      req.url = `${target.pathname}${target.search}`;
      const swaps = players ? dialect.operations[facts.operation]?.reply?.token : undefined;
      // A repeat must get the first reply: the balance the provider state's bet was answered with.
      const first =
        contract.firstReply && facts.transactionId !== undefined
          ? players
            ? run.firstBalances.get(facts.transactionId)
            : contract.reply.accepted
              ? contract.reply.balanceMinor
              : undefined
          : undefined;
      const judge =
        swaps === undefined && first === undefined
          ? undefined
          : (exchange: PactExchange) => {
              const reply = exchange.response;
              if (!reply) return;
              const read = readReply(dialect, facts, { status: reply.status, text: reply.body });
              // The wallet's reply names the token to use from now on (Caleta's /wallet/check): keep it for the rest of the run.
              const handed = swaps === undefined ? undefined : tokenHandedOver(read);
              if (handed !== undefined) ctx.settings.sessionTokens?.set(playerId, handed);
              if (
                first !== undefined &&
                read.verdict === 'accepted' &&
                read.balance.kind === 'ok' &&
                read.balance.minor !== first
              )
                exchange.problem =
                  `the repeated bet was answered with balance ${ctx.money(read.balance.minor)}, but the first reply to ${facts.transactionId} ` +
                  `said ${ctx.money(first)}: a repeat must get the first reply again and move no money (was it applied twice?)`;
            };
      const exchange = record(req, body, res, url, judge);
      // Kept for the report: the dialect's secrets masked, as verify's own exchanges are.
      const shown = shownRequest(callbacks, { path: url, headers: exchange.request.headers, body });
      exchange.request = { method: signed.method, url: shown.path, headers: shown.headers, body: shown.body };
      run.exchanges[contract.description] = exchange;
      next();
    })().catch((error: unknown) =>
      notSent(res, 500, `aggmock could not make the ${contract.call.operation} request: ${messageOf(error)}`),
    );
  };
}

/** Answers the Verifier's request in the webhook's stead: aggmock did not send it on. */
function notSent(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify({ error: 'AGGMOCK_VERIFY_NOT_SENT', message }));
}

/** Headers of the Verifier's request kept when a dialect request is made again: the connection's own. */
const KEPT_HEADERS = new Set(['host', 'connection', 'accept-encoding', 'user-agent']);

/**
 * One handler per provider state the pact names. With a state URL: POSTs `{state, params,
 * action:"setup"}` there and keeps a refusal's message. Without: realises the state through the
 * webhook (a balance is read, an absent player is a fresh unknown id, a prior DEBIT is sent).
 */
export function stateHandlersFor(stateNames: readonly string[], input: RunInput, run: RunState, ctx = stateContext(input)) {
  const handlers: Record<string, (params: unknown) => Promise<void>> = {};
  for (const name of stateNames) {
    handlers[name] = async (params) => {
      try {
        const silent = input.stateUrl === undefined ? noticeSilence(run, input.timeoutMs) : undefined;
        if (silent !== undefined) throw new Error(silent);
        if (input.stateUrl !== undefined) await postStateOnce(input.stateUrl, name, params, input.timeoutMs);
        else await realiseState(ctx, name, (params ?? {}) as Record<string, unknown>, input, run);
      } catch (error) {
        if (ctx.client.exchanges.at(-1)?.timedOut) run.silent ??= silenceReason(input.timeoutMs);
        run.stateErrors[name] = messageOf(error);
        throw error;
      }
    };
  }
  return handlers;
}

async function realiseState(ctx: CheckContext, name: string, params: Record<string, unknown>, input: RunInput, run: RunState) {
  const contractPlayer = String(params.playerId ?? '');
  if (/does not exist/.test(name)) {
    run.playerMap.set(contractPlayer, `verify-ghost-${input.runId}-${contractPlayer}`);
    return;
  }
  const player = input.players[0] as string;
  run.playerMap.set(contractPlayer, player);
  if (typeof params.transactionId === 'string') {
    const amountMinor = toMinor(Number(params.amount)) ?? 0;
    const transactionId = runTransactionId(params.transactionId, input.runId);
    // In the round the contract's call names (contractFacts), so a wallet keying repeats by round sees the repeat.
    const step = await ctx
      .send(`state: ${name}`, { kind: 'debit', playerId: player, amountMinor, transactionId, roundId: roundIdOf(transactionId) })
      .then((sent) => ({ ...sent, transactionId }));
    if (!step.reply.accepted)
      throw new Error(`could not set up "${name}" through the webhook: the DEBIT got ${describeOutcome(step.exchange)}`);
    if (step.reply.balanceMinor !== undefined) run.firstBalances.set(step.transactionId, step.reply.balanceMinor);
    return;
  }
  run.balances.set(player, await ctx.readBalance(player));
}

export async function runPactVerifier(input: PactRunnerInput): Promise<PactRunnerOutput> {
  const run = emptyRunState();
  const ctx = stateContext(input);
  const tokens = carriesSessionToken(dialectOf(input.callbacks));
  const verifier = new Verifier({
    provider: 'integrator-webhook',
    providerBaseUrl: input.providerBaseUrl,
    pactUrls: [input.pactFile],
    logLevel: 'error',
    timeout: input.timeoutMs,
    stateHandlers: stateHandlersFor(stateNamesIn(input.pactFile), input, run, ctx) as never,
    requestFilter: dialectFilter(input, run, ctx) as never,
  });
  const done = (extra: Omit<PactRunnerOutput, 'exchanges' | 'stateErrors'>): PactRunnerOutput => ({
    ...extra,
    exchanges: run.exchanges,
    stateErrors: run.stateErrors,
    ...(tokens ? { tokens: Object.fromEntries(ctx.settings.sessionTokens ?? []) } : {}),
  });
  try {
    const json = await verifier.verifyProvider();
    return done({ report: parseReport(json) });
  } catch (error) {
    const message = messageOf(error);
    const report = parseReport(message);
    return done(report === undefined ? { error: message } : { report });
  }
}

function stateNamesIn(pactFile: string): string[] {
  const pact = JSON.parse(readFileSync(pactFile, 'utf8')) as {
    interactions: { providerStates?: { name: string }[] }[];
  };
  return [...new Set(pact.interactions.flatMap((i) => (i.providerStates ?? []).map((s) => s.name)))];
}

function emptyRunState(): RunState {
  return { exchanges: {}, stateErrors: {}, playerMap: new Map(), balances: new Map(), firstBalances: new Map() };
}

function flatHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : String(v)]),
  );
}

function parseReport(text: unknown): unknown {
  if (typeof text !== 'string') return text ?? undefined;
  return parseJsonOr(text, undefined);
}
