import { z } from 'zod';
import { type CallFacts, OPERATIONS } from '../dialects/index.ts';

/**
 * One call a load run made, as kept in memory and written to `--record <file>` (one JSON object a
 * line): its facts, when it was first sent and when its final answer came (ms on the run's clock),
 * the final reply, and how many attempts it took. The load generator writes these, so do the
 * Artillery and k6 exports, and `aggmock load --check <file>` judges them with the one verdict.
 */
export interface CallRecord {
  /** Its order among the run's calls. */
  id: number;
  facts: CallFacts;
  /** When its first attempt went out. */
  sentAt: number;
  /** When its final reply came; absent when none did (every attempt timed out or failed). */
  answeredAt?: number | undefined;
  /** The final reply (HTTP status and body text); absent when none came. */
  status?: number | undefined;
  text?: string | undefined;
  attempts: number;
  /** A copy sent by a `duplicate` fault while the original was in flight: the id of the original. */
  duplicateOf?: number | undefined;
}

const factsSchema = z
  .object({
    operation: z.enum(OPERATIONS),
    playerId: z.string().min(1),
    currency: z.string().min(1),
    transactionId: z.string().optional(),
    betTransactionId: z.string().optional(),
    amountMinor: z.number().int().optional(),
    winMinor: z.number().int().optional(),
    roundId: z.string().optional(),
    roundClosed: z.boolean().optional(),
    createdAt: z.number(),
  })
  .loose();

/** A line of a run's record as read back: strict where the verdict depends on it. */
export const callRecordSchema = z.object({
  id: z.number().int(),
  facts: factsSchema,
  sentAt: z.number(),
  answeredAt: z.number().optional(),
  status: z.number().int().optional(),
  text: z.string().optional(),
  attempts: z.number().int().min(1).default(1),
  duplicateOf: z.number().int().optional(),
});

/** A record file that cannot be read as calls: the line and the field. */
export class RecordError extends Error {
  override name = 'RecordError';
}

/** Parses a run's record (JSON lines); blank lines are skipped. */
export function parseRecords(text: string, source: string): CallRecord[] {
  const out: CallRecord[] = [];
  for (const [i, line] of text.split('\n').entries()) {
    if (line.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw new RecordError(
        `${source}:${i + 1}: expected one JSON object per line (a call record), got ${JSON.stringify(line.slice(0, 60))}.`,
      );
    }
    const parsed = callRecordSchema.safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new RecordError(
        `${source}:${i + 1}: ${issue?.path.join('.') || 'the record'}: ${issue?.message ?? 'not a call record'}.`,
      );
    }
    out.push(parsed.data as CallRecord);
  }
  return out;
}

/** One record as a line of the record file. */
export function recordLine(record: CallRecord): string {
  return `${JSON.stringify(record)}\n`;
}
