import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Dialect } from '../dialects/index.ts';
import { k6Script } from './k6.ts';
import type { Mix } from './mix.ts';
import type { Schedule } from './schedule.ts';

/**
 * `--export k6|artillery`: a test for another load tool that makes the same calls as
 * `aggmock load`, signed the same way, and writes each call as a run record line, so
 * `aggmock load --check <file>` gives the same correctness verdict.
 */
export const EXPORT_TARGETS = ['k6', 'artillery'] as const;

export interface ExportOptions {
  dialect: Dialect;
  /** The --dialect value, for the files' header and the Artillery processor. */
  dialectName: string;
  credentials: Record<string, string>;
  url: string;
  schedule: Schedule;
  players: readonly string[];
  mix: Mix;
  stakeMinor: number;
  currency: string;
  token?: string | undefined;
  /** A folder. */
  out: string;
}

export class ExportError extends Error {
  override name = 'ExportError';
}

/** Writes the export; returns the files written. */
export function exportRun(target: string, o: ExportOptions): string[] {
  if (!(EXPORT_TARGETS as readonly string[]).includes(target))
    throw new ExportError(`--export: expected ${EXPORT_TARGETS.join(' or ')}, got ${JSON.stringify(target)}.`);
  mkdirSync(o.out, { recursive: true });
  if (target === 'k6') {
    const file = join(o.out, 'load.k6.js');
    writeFileSync(file, k6Script(o));
    return [file];
  }
  throw new ExportError('--export artillery: not written yet in this build; use --export k6.');
}
