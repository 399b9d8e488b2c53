/**
 * `aggmock load`: a wallet under a set rate in any dialect. The open-model generator (`run.ts`)
 * with its schedule (`schedule.ts`), round mix (`mix.ts`), keep-alive client (`client.ts`) and
 * counters (`stats.ts`, `histogram.ts`); the correctness verdict through the one history checker
 * (`verdict.ts`); the reports (`report.ts`, `html.ts`) and thresholds (`thresholds.ts`); the run
 * record (`record.ts`) and the k6 and Artillery exports (`export.ts`, `k6.ts`).
 *
 * An engine: it imports callbacks (fault rules, the call renderer), config, dialects, ledger,
 * money and shared; never a surface or the CLI. In memory only: no journal, no durable outbox.
 */
export { createLoadSession, type LoadSession, type LoadSessionOptions } from './artillery.ts';
export { type AttemptResult, type ErrorClass, poolSender, type Sender } from './client.ts';
export { EXPORT_TARGETS, ExportError, type ExportOptions, exportRun } from './export.ts';
export { Histogram } from './histogram.ts';
export { renderHtml } from './html.ts';
export { callsPerRound, DEFAULT_MIX, type Mix, MixError, parseMix, ROUND_KINDS, type RoundKind } from './mix.ts';
export { type CallRecord, parseRecords, RecordError, recordLine } from './record.ts';
export { correctnessLine, type LoadSummary, progressLine, renderText, summarise } from './report.ts';
export { type LoadOptions, type LoadResult, runLoad } from './run.ts';
export { parseSchedule, type Schedule, ScheduleError } from './schedule.ts';
export { LoadStats } from './stats.ts';
export { parseThreshold, type Threshold, ThresholdError } from './thresholds.ts';
export { judgeRun, type Verdict, type Violation } from './verdict.ts';
