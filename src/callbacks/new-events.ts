import { parseBody, type WireFields, wireOf } from '../profiles/index.ts';
import type { Clock } from './clock.ts';
import { retryDelayMs } from './dispatcher.ts';
import { validEnqueueRequest } from './enqueue-request.ts';
import { buildCallbackBody, type CallbacksConfig, type EnqueueRequest, type StoredEvent } from './events.ts';
import type { TransactionIdSequence } from './ids.ts';
import type { Random } from './random.ts';

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
}

/**
 * Builds every new outbox event, body bytes included: from an enqueue request, as the replay of an
 * earlier event, or as the rollback of a DEBIT whose delivery failed. Each starts unsent.
 */
export class NewEvents {
  constructor(private readonly o: NewEventsOptions) {}

  /** Validates a request and builds its row; a bad request throws a CallbackRequestError. */
  fromRequest(req: EnqueueRequest): NewEvent {
    const r = validEnqueueRequest(req, wireOf(this.o.cfg));
    const createdAt = this.o.clock.now();
    const byReference = r.kind === 'rollback' && wireOf(this.o.cfg).rollbackStyle === 'reference';
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
      // createdAt before the spread (a request has none): `{ ...r, createdAt }` is a slow path in Node 20's V8.
      body: buildCallbackBody({ createdAt, ...r, transactionId }, this.o.cfg),
      ...this.unsent(createdAt),
    };
    if (r.referenceTransactionId !== undefined) event.referenceTransactionId = r.referenceTransactionId;
    if (r.roundId !== undefined) event.roundId = r.roundId;
    if (r.winMinor !== undefined) event.winMinor = r.winMinor;
    if (r.gameId !== undefined) event.gameId = r.gameId;
    event.currency = r.currency ?? this.o.cfg.currency;
    if (r.group !== undefined) event.group = r.group;
    return event;
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
    // The same receiver as the original (a launch's callback_url, or the webhook it had).
    return { ...copy, source: `replay:${id}`, url: original.url, ...this.unsent(createdAt) };
  }

  /** The ROLLBACK of a DEBIT nobody confirmed: it may still have moved money. */
  rollbackOf(debit: StoredEvent): NewEvent {
    const createdAt = this.o.clock.now();
    const byReference = wireOf(this.o.cfg).rollbackStyle === 'reference';
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
      ...carriedBy(debit, this.o.cfg),
    };
    return {
      ...fields,
      source: 'rollback-of-failed-debit',
      ...(debit.group === undefined ? {} : { group: debit.group }),
      orderingKey: debit.orderingKey,
      url: debit.url,
      body: buildCallbackBody({ createdAt, ...fields }, this.o.cfg),
      ...this.unsent(createdAt),
    };
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
 * the bonus), read back from the bytes it went out with, so its ROLLBACK says the same on a wire
 * whose ROLLBACK body has them, also after a restart.
 */
function carriedBy(debit: StoredEvent, cfg: CallbacksConfig): Pick<WireFields, 'gameName' | 'provider' | 'bonus'> {
  let json: unknown;
  try {
    json = JSON.parse(debit.body);
  } catch {
    return {};
  }
  const parsed = parseBody(wireOf(cfg), json, { currencyOf: () => debit.currency });
  if (!parsed.ok) return {};
  const { gameName, provider, bonus } = parsed.event;
  const carried: Pick<WireFields, 'gameName' | 'provider' | 'bonus'> = {};
  if (gameName !== undefined) carried.gameName = gameName;
  if (provider !== undefined) carried.provider = provider;
  if (bonus !== undefined) carried.bonus = bonus;
  return carried;
}
