import { performance } from 'node:perf_hooks';
import type { CallbacksConfig, EventKind } from '../callbacks/events.ts';
import { type ReplyVerdict, replyJson } from '../callbacks/reply.ts';
import { shownRequest } from '../config/index.ts';
import type { BonusKind, Credentials, Rendered, UnsignedRequest } from '../dialects/index.ts';
import { readBoundedText } from '../http/index.ts';

/*
 * verify's transport and recorder: sends one request as it was built (DialectClient builds and signs
 * every request) and keeps the exchange for the report, credentials masked.
 */

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

export interface SendOptions {
  /** false: no signature at all. */
  sign?: boolean;
  /** Signed with these secrets instead of the configured ones (aggmock's header schemes); keys the wallet does not know under a vendor's recipe. */
  secrets?: string[];
  /** Unix seconds of the signature (a stale one, say): aggmock's header schemes. */
  timestamp?: number;
  /** The amount is changed by 0.01 after signing (a tampered request), whatever the wire. */
  tamperAmount?: true;
  /** Carries the signature of this earlier request, wherever the wire places it (a replay). */
  replayOf?: { exchange: Exchange };
  /** Changes the rendered fields before signing (a wrong API key, an amount written finer than the currency). */
  edit?: (fields: Record<string, Rendered>) => void;
  /** Sends this body text instead of the rendered one, signed over it where the wire signs body bytes. */
  body?: (rendered: string) => string;
  /** Other forgeries of the request as built (dialect-client.ts DialectForgery): other credentials, a changed query, headers or fields. */
  forgery?: {
    credentials?: (real: Credentials) => Credentials;
    request?: (req: UnsignedRequest) => void;
  };
}

/** Sends requests to the wallet under test and records every exchange (the requests are built and signed by DialectClient). */
export class WebhookClient {
  readonly exchanges: Exchange[] = [];

  constructor(
    readonly webhookUrl: string,
    readonly callbacks: CallbacksConfig,
    private readonly timeoutMs: number,
  ) {}

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
      const res = await fetch(url, {
        method,
        headers,
        ...(method === 'GET' || method === 'HEAD' ? {} : { body }),
        signal: AbortSignal.timeout(this.timeoutMs),
        redirect: 'manual',
      });
      const { text, truncated } = await readBoundedText(res.body);
      exchange.response = {
        status: res.status,
        headers: Object.fromEntries(res.headers),
        body: text,
        json: replyJson(text),
        ...(truncated ? { truncated: true as const } : {}),
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

/** Whether fetch gave up because its AbortSignal timed out (or was aborted), by the error's name. */
function isTimeout(error: unknown): boolean {
  return error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
}

export function describeFetchError(error: unknown, timeoutMs: number): string {
  if (error instanceof Error) {
    if (isTimeout(error)) return `no answer within ${timeoutMs} ms (--timeout)`;
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
