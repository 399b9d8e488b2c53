/**
 * Refreshes test/durations.json, the seconds each test file took in a whole run, from the JSON
 * report a run under CI=true leaves in reports/vitest.json:
 *
 *   CI=true npx vitest run && npx tsx tools/test-durations.ts
 *
 * vitest.config.ts starts the longest files first, so that two workers finish together instead of
 * one of them running a minute-long file alone at the end (a fresh clone has no vitest cache to
 * tell it which files are long). The figures only order the files: stale ones cost time, not results.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
interface Report {
  testResults: { name: string; startTime: number; endTime: number }[];
}
const report = JSON.parse(readFileSync(new URL('../reports/vitest.json', import.meta.url), 'utf8')) as Report;
const durations = Object.fromEntries(
  report.testResults
    .map((t) => [relative(root, t.name), Math.round((t.endTime - t.startTime) / 100) / 10] as const)
    .sort(([a], [b]) => (a < b ? -1 : 1)),
);
writeFileSync(new URL('../test/durations.json', import.meta.url), `${JSON.stringify(durations, null, 1)}\n`);
console.log(`test/durations.json: ${Object.keys(durations).length} files`);
