/**
 * `npm run test:node24`: the whole vitest suite (or the files given) on Node 24, which aggmock
 * runs on with the built-in node:sqlite. The Node 24 binary comes from the npm registry, pinned
 * in test/package/node-runtime.ts.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { NODE_RUNTIMES, nodeRuntime } from '../test/package/node-runtime.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const { node } = nodeRuntime(NODE_RUNTIMES.node24);
const vitest = fileURLToPath(new URL('../node_modules/vitest/vitest.mjs', import.meta.url));
const result = spawnSync(node, [vitest, 'run', ...process.argv.slice(2)], { cwd: root, stdio: 'inherit' });
process.exit(result.status ?? 1);
