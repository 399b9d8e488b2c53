import { performance } from 'node:perf_hooks';
import type { HttpAnswer } from '../callbacks/dispatcher.ts';
import type { CallbacksConfig, EventKind } from '../callbacks/events.ts';
import { type ReplyVerdict, replyJson } from '../callbacks/reply.ts';
import { createTransport, type Transport } from '../callbacks/transport.ts';
import { shownRequest } from '../config/index.ts';
import type { BonusKind } from '../dialects/index.ts';

/*
 * verify's transport and recorder: sends one request as it was built (DialectClient builds and signs
 * every request) and keeps the exchange for the report, credentials masked. The bytes go out through
 * the callback engine's own HTTP client (callbacks/transport.ts), so verify reads a wallet's answer
 * exactly as the engine will — the same framing rules, the same 64 KiB limit — at a fifteenth of
 * fetch's cost per request.
 */

/** Connections per check: enough that a concurrency check's parallel requests really overlap. */
const MAX_SOCKETS = 256;

/** One HTTP request the harness sent and what came back, kept for the HTML report. */
export interface Exchange {
  /** What the step was for, e.g. "DEBIT 1.00 (first time)". */
  label: string;
  /** The body is '' for a request without one (a query-string GET). */
  request: { method: string; url: string; headers: Record<string, string>; body: string };
  /** Absent when no answer came (timeout, refused). */
  response?: {
    status: number;
    headers: Record<string, string>;
    /** At most MAX_REPLY_BYTES of it (see `truncated`). */
    body: string;
    /** The body as JSON; absent when it is not JSON or nests deeper than the JSON depth limit. */
    json: unknown;
    /** More came than MAX_REPLY_BYTES: the rest was not read. */
    truncated?: true;
  };
  error?: string;
  /** Set when no answer came within the timeout: what the run's timeout breaker counts. */
  timedOut?: true;
  latencyMs: number;
}

export interface CallbackSpec {
  kind: EventKind;
  playerId: string;
  amountMinor: number;
  /** DEBIT/CREDIT: its id. ROLLBACK: its own id in 'reference' style (the DEBIT's id in 'original' style). */
  transactionId: string;
  /** ROLLBACK: the DEBIT it reverses. */
  referenceTransactionId?: string;
  /** A whole round: the DEBIT's win, in the same callback (wires with bet and win fields). */
  winMinor?: number;
  /** Default: the configured currency. */
  currency?: string;
  roundId?: string;
  bonus?: { kind: BonusKind; id: string };
}

/** Sends requests to the wallet under test and records every exchange (the requests are built and signed by DialectClient). */
export class WebhookClient {
  readonly exchanges: Exchange[] = [];
  private readonly transport: Transport;

  constructor(
    readonly webhookUrl: string,
    readonly callbacks: CallbacksConfig,
    private readonly timeoutMs: number,
  ) {
    this.transport = createTransport({ maxSockets: MAX_SOCKETS, timeoutMs, keepHeaders: true });
  }

  /** Asks the provider-state URL for a state (not recorded: it is not the wallet's webhook). */
  postState(url: string, state: string, params: unknown): Promise<void> {
    return postState(this.transport, url, state, params, this.timeoutMs);
  }

  /** Closes the idle connections (the check is over); a later exchange opens new ones. */
  close(): void {
    this.transport.close();
  }

  /** Sends one request as given and records the exchange, credentials masked. */
  async exchange(label: string, request: Exchange['request']): Promise<Exchange> {
    const { method, url, headers, body } = request;
    const shown = shownRequest(this.callbacks, { path: url, headers, body });
    const exchange: Exchange = {
      label,
      request: { method, url: shown.path, headers: shown.headers, body: shown.body },
      latencyMs: 0,
    };
    const t0 = performance.now();
    try {
      const answer = await this.transport.post(url, headers, body, method);
      exchange.response = {
        status: answer.status,
        headers: answer.headers ?? {},
        body: answer.body,
        json: replyJson(answer.body),
        ...(answer.truncated ? { truncated: true as const } : {}),
      };
    } catch (error) {
      exchange.error = describeFetchError(error, this.timeoutMs);
      if (isTimeout(error)) exchange.timedOut = true;
    }
    exchange.latencyMs = Math.round((performance.now() - t0) * 100) / 100;
    this.exchanges.push(exchange);
    return exchange;
  }
}

/** The state URL's client outside a check (the Pact verifier's state handlers), one per timeout. */
const stateTransports = new Map<number, Transport>();

/** Asks a provider-state URL for a state outside a check. */
export function postStateOnce(url: string, state: string, params: unknown, timeoutMs: number): Promise<void> {
  let transport = stateTransports.get(timeoutMs);
  if (!transport) {
    transport = createTransport({ maxSockets: 8, timeoutMs, keepHeaders: true });
    stateTransports.set(timeoutMs, transport);
  }
  return postState(transport, url, state, params, timeoutMs);
}

/** POSTs {state, params, action: "setup"} to the state URL; throws an Error that says why when it did not answer or refused. */
async function postState(transport: Transport, url: string, state: string, params: unknown, timeoutMs: number): Promise<void> {
  let answer: HttpAnswer;
  try {
    const body = JSON.stringify({ state, params: params ?? {}, action: 'setup' });
    answer = await transport.post(url, { 'Content-Type': 'application/json' }, body);
  } catch (error) {
    throw new Error(`the state URL ${url} did not answer for state "${state}": ${describeFetchError(error, timeoutMs)}`);
  }
  if (answer.status < 200 || answer.status > 299) throw new Error(stateRefusal(url, state, answer));
}

/** Why the state URL refused a state, from its answer; a redirect is refused (it is never followed). */
export function stateRefusal(url: string, state: string, answer: HttpAnswer): string {
  const { status, body } = answer;
  const redirect =
    status >= 300 && status < 400
      ? ` (a redirect to ${answer.headers?.location ?? '(no Location)'}: aggmock never follows redirects; answer at the state URL itself)`
      : '';
  return `the state URL ${url} refused state "${state}" with HTTP ${status}${redirect}: ${body.slice(0, 300) || '(empty body)'}`;
}

/** Whether the request gave up waiting (the transport's timeout, or fetch's AbortSignal), by the error's name. */
function isTimeout(error: unknown): boolean {
  return error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
}

export function describeFetchError(error: unknown, timeoutMs: number): string {
  if (error instanceof Error) {
    if (isTimeout(error)) {
      // The transport says how far a partial answer got ("; only part of one came (…)").
      const partial = error.message.indexOf('; only part');
      return `no answer within ${timeoutMs} ms (--timeout)${partial < 0 ? '' : error.message.slice(partial)}`;
    }
    const own = (error as { code?: unknown }).code;
    if (typeof own === 'string') return error.message.startsWith(own) ? error.message : `${own}: ${error.message}`;
    type Cause = { code?: string; message?: string; errors?: Cause[] };
    const outer = (error as { cause?: Cause }).cause;
    // undici wraps the socket error; happy-eyeballs wraps several in an AggregateError.
    const cause = outer?.code ? outer : (outer?.errors?.find((e) => e.code) ?? outer);
    if (cause?.code) return `${cause.code}: ${cause.message || error.message}`;
    if (cause?.message) return `${error.message}: ${cause.message}`;
    return error.message;
  }
  return String(error);
}

/** How a wallet's answer reads under the wire's dialect, whatever went wrong with it. */
export interface ReadReply {
  status?: number;
  /** What the dialect's reader made of it; `none` when no answer came. */
  verdict: ReplyVerdict | 'none';
  /** A refusal's reason: aggmock's name for the wallet's code when the dialect maps one, else the code itself. */
  error?: string;
  /** The wallet's own code as it wrote it ("INSUFFICIENT_FUNDS", "403", "RS_ERROR_UNKNOWN"). */
  code?: string;
  /** `balance` from ANY reply that carries one, decoded to minor units; undefined when absent or unreadable. */
  balanceMinor?: number;
  /** The raw `balance` value, to show in messages. */
  rawBalance?: unknown;
  /** Whether the balance was written exactly (≤ the currency's decimals as written, or a whole number in `minor`). */
  balanceExact?: boolean;
  /** The verdict is `accepted`. */
  accepted: boolean;
  /** The session token the reply gives to use from then on (Caleta's authenticate). */
  token?: string;
}

/** One line about an exchange's outcome, for failure messages. */
export function describeOutcome(exchange: Exchange): string {
  if (!exchange.response) return `no answer (${exchange.error ?? 'unknown error'})`;
  const { body: text, truncated, status } = exchange.response;
  const body = text.length > 300 || truncated ? `${text.slice(0, 300)}…` : text;
  return `HTTP ${status} ${body || '(empty body)'}${truncated ? ' (a reply over 64 KiB: only its start was read)' : ''}`;
}
