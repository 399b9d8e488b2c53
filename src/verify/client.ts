import { performance } from 'node:perf_hooks';
import { readingOf } from '../callbacks/call.ts';
import { buildCallbackBody, type CallbacksConfig, type EventKind } from '../callbacks/events.ts';
import { judgeReply, type ReplyVerdict, replyJson } from '../callbacks/reply.ts';
import { shownRequest } from '../config/index.ts';
import { readBoundedText } from '../http/index.ts';
import { type BonusKind, signCallback, wireOf } from '../profiles/index.ts';
import { valueAt } from '../shared/index.ts';
import { VERSION } from '../version.ts';

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
  /** false: no signature headers at all. */
  sign?: boolean;
  /** Sign with these secrets instead of the configured ones. */
  secrets?: string[];
  /** Unix seconds of the signature (a stale one, say). */
  timestamp?: number;
  /** Sends these bytes instead of the signed body (a tampered request). */
  sentBody?: string;
  /** Sends these headers of an earlier request, signatures and all, instead of signing this body (a replay). */
  replayHeaders?: Record<string, string>;
  /** The amount is changed by 0.01 after signing (a tampered request), whatever the wire. */
  tamperAmount?: true;
  /** Carries the signature of this earlier request (its headers, or a vendor dialect's signature wherever it is placed). */
  replayOf?: { exchange: Exchange };
}

/**
 * Sends signed callbacks to the webhook under test, built and signed exactly as aggmock's engine
 * builds and signs them (same body builder, same signing module), and records every exchange.
 */
export class WebhookClient {
  readonly exchanges: Exchange[] = [];

  constructor(
    readonly webhookUrl: string,
    readonly callbacks: CallbacksConfig,
    private readonly timeoutMs: number,
  ) {}

  /** The body bytes aggmock would send for this callback. */
  body(spec: CallbackSpec): string {
    return buildCallbackBody({ ...spec, createdAt: Date.now() }, this.callbacks);
  }

  /** Sends one callback, signed unless told otherwise. */
  callback(label: string, spec: CallbackSpec, options: SendOptions = {}): Promise<Exchange> {
    return this.post(label, this.body(spec), options);
  }

  /** Sends raw body bytes (malformed JSON, say), signed over those bytes unless told otherwise. */
  async post(label: string, body: string, options: SendOptions = {}): Promise<Exchange> {
    const headers: Record<string, string> = options.replayHeaders ?? {
      'Content-Type': 'application/json',
      'User-Agent': `aggmock/${VERSION} (verify)`,
      ...(options.sign === false
        ? {}
        : signCallback(wireOf(this.callbacks), this.callbacks.signing, body, {
            ...(options.secrets === undefined ? {} : { secrets: options.secrets }),
            ...(options.timestamp === undefined ? {} : { timestamp: options.timestamp }),
          })),
    };
    const sent = options.sentBody ?? body;
    return this.exchange(label, { method: 'POST', url: this.webhookUrl, headers, body: sent });
  }

  /** Sends one request as given and records the exchange (a vendor dialect's call, say), credentials masked. */
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

/** How a wallet's answer reads, whatever went wrong with it (judged by the one reply judge). */
export interface ReadReply {
  status?: number;
  /** What the judge made of it; `none` when no answer came. */
  verdict: ReplyVerdict | 'none';
  /** The `error` code of a rejection (under a vendor dialect, aggmock's name for it when the dialect maps one). */
  error?: string;
  /** A vendor dialect: the wallet's own code as it wrote it ("403", "RS_ERROR_UNKNOWN"). */
  code?: string;
  /** `balance` from ANY reply that carries one, decoded to minor units; undefined when absent or unreadable. */
  balanceMinor?: number;
  /** The raw `balance` value, to show in messages. */
  rawBalance?: unknown;
  /** Whether the balance was written exactly (≤ 2 decimals as written, or a whole number in `minor`). */
  balanceExact?: boolean;
  /** The judge's verdict is `accepted`. */
  accepted: boolean;
  /** A vendor dialect: the session token the reply gives to use from then on (Caleta's authenticate). */
  token?: string;
}

export function readReply(exchange: Exchange, callbacks: CallbacksConfig): ReadReply {
  const res = exchange.response;
  if (!res) return { verdict: 'none', accepted: false };
  const reading = wireOf(callbacks).reading();
  const judged = judgeReply({ status: res.status, text: res.body }, readingOf(callbacks)());
  const rawBalance = valueAt(res.json, reading.rules.balance.split('.'));
  return {
    status: res.status,
    verdict: judged.verdict,
    ...(judged.error === undefined ? {} : { error: judged.error }),
    ...(judged.balance.kind === 'ok' ? { balanceMinor: judged.balance.minor } : {}),
    ...(rawBalance === undefined ? {} : { rawBalance }),
    ...(judged.balanceExact === undefined ? {} : { balanceExact: judged.balanceExact }),
    accepted: judged.verdict === 'accepted',
  };
}

/** One line about an exchange's outcome, for failure messages. */
export function describeOutcome(exchange: Exchange): string {
  if (!exchange.response) return `no answer (${exchange.error ?? 'unknown error'})`;
  const { body: text, truncated, status } = exchange.response;
  const body = text.length > 300 || truncated ? `${text.slice(0, 300)}…` : text;
  return `HTTP ${status} ${body || '(empty body)'}${truncated ? ' (a reply over 64 KiB: only its start was read)' : ''}`;
}
