import type { Dialect } from '../dialects/index.ts';
import type { Mix } from './mix.ts';
import type { Schedule } from './schedule.ts';

/** What an export (k6, Artillery) is written from: the run `aggmock load` would make. */
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

/** An export that cannot be written as asked: the flag and why. */
export class ExportError extends Error {
  override name = 'ExportError';
}
