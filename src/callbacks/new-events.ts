import { hash } from 'node:crypto';
import { dialectOf, shownRequest } from '../config/index.ts';
import { type BonusKind, type CallFacts, DialectRequestError, readFacts, readReply, tokenHandedOver } from '../dialects/index.ts';
import { callFactsOf, capabilitiesOf, storedRequest } from './call.ts';
import type { Clock } from './clock.ts';
import { retryDelayMs } from './dispatcher.ts';
import { CallbackRequestError, validEnqueueRequest } from './enqueue-request.ts';
import type { CallbacksConfig, EnqueueRequest, StoredEvent, StoredFacts } from './events.ts';
import type { TransactionIdSequence } from './ids.ts';
import type { Random } from './random.ts';
import type { SessionTokens } from './session-tokens.ts';

/** An event before the outbox gives it its id. */
export type NewEvent = Omit<StoredEvent, 'id'>;

export interface NewEventsOptions {
  cfg: CallbacksConfig;
  clock: Clock;
  /** Jitter of the first attempt's delay. */
  random: Random;
  ids: TransactionIdSequence;
  /** The receiver when a request names none. */
  url: string;
  /** Mixed into every call's requestId, so two runs with the same seed do not share ids. */
  seed: number | string;
  /** The tokens wallets handed over (kept in the outbox's file). */
  sessions: SessionTokens;
}

/**
 * Builds every new outbox event, body bytes included: from an enqueue request, as the replay of an
 * earlier event, or as the rollback of a DEBIT whose delivery failed. Each starts unsent.
 */
export class NewEvents {
  /** Calls made by this instance, for requestIds. */
  private calls = 0;
  constructor(private readonly o: NewEventsOptions) {}

  /** Validates a request and builds its row; a bad request throws a CallbackRequestError. */
  fromRequest(req: EnqueueRequest): NewEvent {
    const capabilities = capabilitiesOf(this.o.cfg);
    const r = validEnqueueRequest(req, capabilities);
    const createdAt = this.o.clock.now();
    const byReference = r.kind === 'rollback' && capabilities.rollbackStyle === 'reference';
    // An 'original'-style ROLLBACK carries the reversed DEBIT's id as its own.
    const transactionId =
      r.kind === 'rollback' && !byReference ? (r.referenceTransactionId as string) : (r.transactionId ?? this.o.ids.next());
    const event: NewEvent = {
      kind: r.kind,
      transactionId,
      playerId: r.playerId,
      amountMinor: r.amountMinor,
      source: r.source ?? 'manual',
      orderingKey: r.orderingKey ?? r.playerId,
      url: r.url ?? this.o.url,
      body: '',
      ...this.unsent(createdAt),
    };
    if (r.referenceTransactionId !== undefined) event.referenceTransactionId = r.referenceTransactionId;
    if (r.roundId !== undefined) event.roundId = r.roundId;
    if (r.winMinor !== undefined) event.winMinor = r.winMinor;
    if (r.gameId !== undefined) event.gameId = r.gameId;
    event.currency = r.currency ?? this.o.cfg.currency;
    if (r.group !== undefined) event.group = r.group;
    return this.rendered(event, {
      ...(r.gameName === undefined ? {} : { gameName: r.gameName }),
      ...(r.provider === undefined ? {} : { provider: r.provider }),
      ...(r.bonus === undefined ? {} : { bonus: r.bonus }),
      ...(r.sessionToken === undefined ? {} : { sessionToken: r.sessionToken }),
      ...(r.roundClosed === undefined ? {} : { roundClosed: r.roundClosed }),
      ...(r.operation === undefined ? {} : { operation: r.operation }),
    });
  }

  /**
   * Remembers the token a settled call's reply handed over (Evolution's /check answers a fresh sid,
   * Caleta's /wallet/check a new token; `tokenHandedOver` decides): every call of that session made
   * from then on carries it, as a real aggregator's session does, and so does every later attempt of
   * a call already queued ({@link withCurrentToken}).
   */
  noteSettled(event: StoredEvent): void {
    const sent = event.facts?.sessionToken;
    if (sent === undefined || event.status !== 'delivered' || !event.reply) return;
    const dialect = dialectOf(this.o.cfg);
    const operation = event.facts?.operation;
    if (operation === undefined || dialect.operations[operation]?.reply?.token === undefined) return;
    const { status, body } = event.reply;
    const text = typeof body === 'string' ? body : JSON.stringify(body);
    const fresh = tokenHandedOver(readReply(dialect, callFactsOf(event, this.o.cfg), { status, text }));
    if (fresh !== undefined) this.o.sessions.handOver(sent, fresh, event.playerId, this.o.clock.now());
  }

  /**
   * A queued call about to be attempted, carrying its session's current token: a call stored before
   * a reply handed a new token over (another scenario of the same player authenticated meanwhile, or
   * the process restarted) goes out with the new one, re-rendered. Its transaction ids stay: only the
   * token changes. Returns whether it changed.
   */
  withCurrentToken(event: StoredEvent): boolean {
    const sent = event.facts?.sessionToken;
    if (sent === undefined || event.facts === undefined) return false;
    const now = this.o.sessions.currentOf(sent);
    if (now === sent) return false;
    event.facts = { ...event.facts, sessionToken: now };
    this.render(event, callFactsOf(event, this.o.cfg));
    return true;
  }

  /**
   * The event with its call: its facts (a fresh requestId, kept across retries) and the request
   * they make, whose body is the bytes every attempt sends. A call the dialect cannot make (a
   * credential missing) is refused here, before anything is stored.
   */
  private rendered(event: NewEvent, extra: Partial<StoredFacts>): NewEvent {
    const facts = Object.assign(callFactsOf(event, this.o.cfg), extra);
    facts.requestId = this.requestId(event);
    // Every call of a session carries the token its wallet last handed over (the launch's until then).
    if (facts.sessionToken !== undefined) facts.sessionToken = this.o.sessions.currentOf(facts.sessionToken);
    event.facts = storedFacts(facts);
    try {
      this.render(event, facts);
    } catch (error) {
      if (!(error instanceof DialectRequestError)) throw error;
      throw new CallbackRequestError([{ field: 'kind', message: error.message, received: event.kind }]);
    }
    return event;
  }

  /**
   * Renders the event's request from its facts, as it keeps it to show (credentials masked, no
   * signature in a header: each attempt signs when it is sent); `keepBody` keeps the body it has.
   */
  private render(event: NewEvent, facts: CallFacts, options: { keepBody?: boolean } = {}): void {
    const req = storedRequest(event, this.o.cfg, facts);
    const shown = shownRequest(this.o.cfg, { path: req.path, headers: req.headers, body: req.body ?? '' });
    if (options.keepBody !== true) event.body = shown.body;
    event.request = { method: req.method, path: shown.path, headers: shown.headers };
  }

  /** A UUID-shaped id for one call: the same on each retry of it, another for every new call (a replay too). */
  private requestId(event: NewEvent): string {
    const hex = hash('sha256', `${this.o.seed}:${event.createdAt}:${event.kind}:${event.transactionId}:${this.calls++}`, 'hex');
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${((Number.parseInt(hex[16] as string, 16) & 3) | 8).toString(16)}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
  }

  /** The same body again as a new event (source 'replay:<id>'). */
  replayOf(original: StoredEvent): NewEvent {
    const createdAt = this.o.clock.now();
    const {
      id,
      reply: _reply,
      replyAttempt: _replyAttempt,
      error: _error,
      settledAt: _settledAt,
      nextAttemptAt: _next,
      ...copy
    } = original;
    // The same receiver as the original (a launch's callback_url, or the webhook it had), the
    // same body bytes; a new call, so a requestId of its own where the facts are kept.
    const replay: NewEvent = { ...copy, source: `replay:${id}`, url: original.url, ...this.unsent(createdAt) };
    if (original.facts) replay.facts = { ...original.facts, requestId: this.requestId(replay) };
    // The original shows its last attempt's request; the replay, never sent, its own as stored (unsigned).
    if (replay.facts && replay.request) {
      try {
        this.render(replay, callFactsOf(replay, this.o.cfg), { keepBody: true });
      } catch (error) {
        if (!(error instanceof DialectRequestError)) throw error;
        delete replay.request; // its attempt says why it cannot be built
      }
    }
    return replay;
  }

  /** The ROLLBACK of a DEBIT nobody confirmed: it may still have moved money. */
  rollbackOf(debit: StoredEvent): NewEvent {
    const createdAt = this.o.clock.now();
    const byReference = capabilitiesOf(this.o.cfg).rollbackStyle === 'reference';
    const transactionId = byReference ? this.o.ids.next() : debit.transactionId;
    const fields = {
      kind: 'rollback' as const,
      transactionId,
      referenceTransactionId: debit.transactionId,
      playerId: debit.playerId,
      amountMinor: debit.amountMinor,
      ...(debit.roundId === undefined ? {} : { roundId: debit.roundId }),
      ...(debit.gameId === undefined ? {} : { gameId: debit.gameId }),
      ...(debit.currency === undefined ? {} : { currency: debit.currency }),
    };
    const event: NewEvent = {
      ...fields,
      source: 'rollback-of-failed-debit',
      ...(debit.group === undefined ? {} : { group: debit.group }),
      orderingKey: debit.orderingKey,
      url: debit.url,
      body: '',
      ...this.unsent(createdAt),
    };
    const { gameName, provider, bonus, sessionToken } = debit.facts ?? carriedBy(debit, this.o.cfg);
    return this.rendered(event, {
      ...(gameName === undefined ? {} : { gameName }),
      ...(provider === undefined ? {} : { provider }),
      ...(bonus === undefined ? {} : { bonus }),
      ...(sessionToken === undefined ? {} : { sessionToken }),
    });
  }

  /** The state every new event starts in: not yet sent. */
  private unsent(createdAt: number): Pick<StoredEvent, 'status' | 'attemptCount' | 'createdAt' | 'nextAttemptAt'> {
    const nextAttemptAt = this.firstAttemptAt(createdAt);
    const state: Pick<StoredEvent, 'status' | 'attemptCount' | 'createdAt' | 'nextAttemptAt'> = {
      status: 'pending',
      attemptCount: 0,
      createdAt,
    };
    if (nextAttemptAt !== undefined) state.nextAttemptAt = nextAttemptAt;
    return state;
  }

  /** When the first attempt is due, if the schedule's first delay is not 0. */
  private firstAttemptAt(createdAt: number): number | undefined {
    const delay = retryDelayMs(0, this.o.cfg, this.o.random) ?? 0;
    return delay > 0 ? createdAt + delay : undefined;
  }
}

/**
 * What the DEBIT's body carried that its stored event does not keep (the game name, the provider,
 * the bonus), read back from the bytes it went out with (the dialect's fields inverted), so its
 * ROLLBACK says the same on a wire whose ROLLBACK body has them, also after a restart. Only an
 * event stored before calls kept their facts needs it.
 */
function carriedBy(
  debit: StoredEvent,
  cfg: CallbacksConfig,
): { gameName?: string; provider?: string; bonus?: { kind: BonusKind; id: string }; sessionToken?: string } {
  const dialect = dialectOf(cfg);
  const bet = dialect.operations.bet;
  if (bet === undefined) return {};
  const read = readFacts(
    dialect,
    'bet',
    { method: bet.method, path: bet.path, headers: {}, body: debit.body },
    { currencyOf: () => debit.currency },
  );
  if (!read.ok) return {};
  const { gameName, provider, bonus } = read.facts;
  return {
    ...(gameName === undefined ? {} : { gameName }),
    ...(provider === undefined ? {} : { provider }),
    ...(bonus === undefined ? {} : { bonus }),
  };
}

/**
 * The facts a call keeps: all but its time (the event's createdAt) and the members whose value is
 * undefined (what JSON keeps), so the stored facts compare equal after a reload.
 */
function storedFacts(facts: CallFacts): StoredFacts {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(facts)) {
    const value = facts[key as keyof CallFacts];
    if (key !== 'createdAt' && key !== 'currencies' && value !== undefined) out[key] = value;
  }
  return out as unknown as StoredFacts;
}
