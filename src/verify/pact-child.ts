/** Entry of the child process `aggmock verify` runs the Pact Verifier in (see pact-runner.ts). */
import { readFileSync, writeFileSync } from 'node:fs';
import { type PactRunnerInput, type PactRunnerOutput, runPactVerifier } from './pact-runner.ts';

const input = JSON.parse(readFileSync(0, 'utf8')) as PactRunnerInput;
const output: PactRunnerOutput = await runPactVerifier(input).catch((error: unknown) => ({
  error: error instanceof Error ? error.message : String(error),
}));
writeFileSync(input.resultFile, JSON.stringify(output));
process.exit(0);
