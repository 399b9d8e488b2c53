import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { defineConfig, type ViteUserConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Under CI the run also leaves a machine-readable summary, which .ci/run turns into one closing line. */
const reporters: NonNullable<ViteUserConfig['test']>['reporters'] =
  process.env.CI === 'true' ? ['default', ['json', { outputFile: 'reports/vitest.json' }]] : ['default'];

/** Seconds each file took in a whole run (tools/test-durations.ts refreshes them). */
const durations = JSON.parse(readFileSync(new URL('./test/durations.json', import.meta.url), 'utf8')) as Record<string, number>;
/** A file the table does not know yet (a new one) is placed as if it took this long. */
const UNKNOWN_SECONDS = 5;

/**
 * The longest files first: two workers then finish together, instead of one running a minute-long
 * file alone at the end. A fresh clone (CI) has no vitest cache to tell which files are long.
 */
class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const seconds = (file: TestSpecification) => durations[relative(root, file.moduleId)] ?? UNKNOWN_SECONDS;
    return [...files].sort((a, b) => seconds(b) - seconds(a));
  }
}

export default defineConfig({
  test: {
    reporters,
    include: ['src/**/*.test.ts', 'test/**/*.test.ts', 'examples/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Two files at a time on a 2-core machine (vitest's default is cores - 1): most files wait on
    // sockets and child processes, not on the CPU, so the suite takes about 30 % less time.
    maxWorkers: 2,
    sequence: { sequencer: LongestFirst },
    // A worker runs its files one after another in one module graph instead of re-importing aggmock
    // for each of 200 files (the imports took a fifth of the run). Files must leave no global state
    // behind: environment variables are restored after each test (unstubEnvs), and a file that sets
    // one by hand takes it back in afterAll.
    isolate: false,
    unstubEnvs: true,
    env: { PACT_DO_NOT_TRACK: 'true' },
    // Pages poll their APIs about once a second; on a loaded 2-core machine a browser assertion
    // needs more than vitest's default 1 s to see the next refresh. A real failure still fails.
    expect: { poll: { timeout: 10_000 } },
  },
});
