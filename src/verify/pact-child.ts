/**
 * Entry of the child process `aggmock verify` runs the Pact Verifier in (see pact-runner.ts and
 * pact.ts). It serves one run per message over the IPC channel, so a process that verifies many
 * times (a test suite, `aggmock verify` in a loop of scenarios) pays the child's start-up once;
 * it ends when its parent goes away.
 */
import { writeFileSync } from 'node:fs';
import { ALLOW_HOOKS_ENV } from '../dialects/index.ts';
import { type PactRunnerInput, type PactRunnerOutput, runPactVerifier } from './pact-runner.ts';

process.on('message', (input: PactRunnerInput) => {
  // Each run brings its parent's opt-in: this process may have been started for an earlier run.
  if (input.allowHooks) process.env[ALLOW_HOOKS_ENV] = '1';
  else delete process.env[ALLOW_HOOKS_ENV];
  void runPactVerifier(input)
    .catch((error: unknown): PactRunnerOutput => ({ error: error instanceof Error ? error.message : String(error) }))
    .then((output) => {
      writeFileSync(input.resultFile, JSON.stringify(output));
      process.send?.({ done: input.resultFile });
    });
});
process.on('disconnect', () => process.exit(0));
