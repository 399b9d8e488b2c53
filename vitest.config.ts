import { defineConfig, type ViteUserConfig } from 'vitest/config';

/** Under CI the run also leaves a machine-readable summary, which .ci/run turns into one closing line. */
const reporters: NonNullable<ViteUserConfig['test']>['reporters'] =
  process.env.CI === 'true' ? ['default', ['json', { outputFile: 'reports/vitest.json' }]] : ['default'];

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
    env: { PACT_DO_NOT_TRACK: 'true' },
    // Pages poll their APIs about once a second; on a loaded 2-core machine a browser assertion
    // needs more than vitest's default 1 s to see the next refresh. A real failure still fails.
    expect: { poll: { timeout: 10_000 } },
  },
});
