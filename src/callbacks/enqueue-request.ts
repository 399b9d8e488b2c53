/** Validating what callers ask the engine to send, with errors that name the wrong field. */
import { describeFieldErrors, type FieldError, fieldErrors } from '../http/errors.ts';
import type { CallCapabilities } from './call.ts';
import { type EnqueueRequest, enqueueRequestSchema } from './events.ts';

/** An enqueue request that names a wrong field. */
export class CallbackRequestError extends Error {
  override readonly name = 'CallbackRequestError';
  constructor(readonly errors: FieldError[]) {
    super(`Invalid callback event: ${describeFieldErrors(errors)}`);
  }
}

/** The request when it is valid (checked fast by hand, else by the schema); throws CallbackRequestError. */
export function validEnqueueRequest(req: EnqueueRequest, wire: CallCapabilities): EnqueueRequest {
  const r = isWellFormed(req) ? req : parseRequest(req);
  if (r.kind === 'rollback' && !wire.hasRollback) {
    throw new CallbackRequestError([
      {
        field: 'kind',
        message: `the "${wire.name}" dialect has no ROLLBACK callback; expected "debit" or "credit"`,
        received: r.kind,
      },
    ]);
  }
  if (r.operation !== undefined && !wire.operations.includes(r.operation)) {
    throw new CallbackRequestError([
      {
        field: 'operation',
        message: `the "${wire.name}" dialect has no ${r.operation} call; it has ${wire.operations.join(', ')}`,
        received: r.operation,
      },
    ]);
  }
  if (r.winMinor !== undefined && !wire.roundBody) {
    throw new CallbackRequestError([
      {
        field: 'winMinor',
        message: `the "${wire.name}" dialect has no body for a whole round (a bet and its win in one callback); send a DEBIT and a CREDIT`,
        received: r.winMinor,
      },
    ]);
  }
  return r;
}

/**
 * The common case checked by hand (a zod parse costs more than storing the event); anything
 * that does not pass goes through {@link enqueueRequestSchema}, which names the wrong field.
 */
function isWellFormed(r: EnqueueRequest): boolean {
  if (r === null || typeof r !== 'object') return false;
  if (r.kind !== 'debit' && r.kind !== 'credit' && r.kind !== 'rollback') return false;
  if (typeof r.playerId !== 'string' || r.playerId === '' || !Number.isSafeInteger(r.amountMinor)) return false;
  if (r.kind === 'rollback' && (typeof r.referenceTransactionId !== 'string' || r.referenceTransactionId === '')) return false;
  // A per-event URL is rare; let the schema check it is an http(s) URL.
  if (r.url !== undefined || r.bonus !== undefined || r.winMinor !== undefined || r.roundClosed !== undefined) return false;
  if (r.operation !== undefined) return false;
  if (r.sessionToken !== undefined && (typeof r.sessionToken !== 'string' || r.sessionToken.length > 512)) return false;
  for (const key of OPTIONAL_STRINGS) {
    const value = r[key];
    if (value !== undefined && (typeof value !== 'string' || value === '')) return false;
  }
  return true;
}

const OPTIONAL_STRINGS = [
  'transactionId',
  'referenceTransactionId',
  'roundId',
  'gameId',
  'currency',
  'gameName',
  'provider',
  'source',
  'orderingKey',
  'group',
  'sessionToken',
] as const satisfies readonly (keyof EnqueueRequest)[];

function parseRequest(req: EnqueueRequest): EnqueueRequest {
  const parsed = enqueueRequestSchema.safeParse(req);
  if (!parsed.success) throw new CallbackRequestError(fieldErrors(parsed.error.issues, req));
  return parsed.data;
}
