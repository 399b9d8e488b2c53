/**
 * `npm test`'s pretest: builds dist/, type-checks and lints, two steps at a time on two cores.
 *
 * - dist/ is emitted without type checking (`tsc --noCheck`: the same JavaScript as `npm run build`,
 *   the same declarations up to the order of union members, and the declaration-emit errors still
 *   reported), because the next step checks every file of src/ anyway: `tsc --noEmit` (tsconfig.json:
 *   src, test, examples, tools…) follows the build, since the tests that `import … from 'aggmock'`
 *   are checked against dist/index.d.ts.
 * - Beside them: Swagger UI's files copied into dist/ (as `npm run build` does), the browser
 *   scripts' type check and biome, which need no compiled dist/.
 *
 * Each command's output is printed when it ends, under its name; any failure fails `npm test`.
 * `npm run build` (and `prepack`) still compile with the type check.
 */
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
/** A devDependency's command, run with this Node (no shell, no .bin shim: the same on every OS). */
const bin = (path: string) => fileURLToPath(new URL(`../node_modules/${path}`, import.meta.url));

function run(name: string, script: string, args: string[]): Promise<boolean> {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [script, ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    const output: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => output.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => output.push(chunk));
    child.on('error', (error) => output.push(Buffer.from(`${error.message}\n`)));
    child.on('close', (code, signal) => {
      const ok = code === 0;
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      const text = Buffer.concat(output).toString().trimEnd();
      process.stdout.write(
        `${ok ? '✓' : '✗'} ${name} (${seconds} s)${ok ? '' : `: exit ${code ?? signal}`}\n${text ? `${text}\n` : ''}`,
      );
      resolve(ok);
    });
  });
}

async function steps(...commands: (() => Promise<boolean>)[]): Promise<boolean> {
  for (const command of commands) if (!(await command())) return false;
  return true;
}

rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });
const results = await Promise.all([
  steps(
    () =>
      run('build (tsc -p tsconfig.build.json --noCheck)', bin('typescript/bin/tsc'), ['-p', 'tsconfig.build.json', '--noCheck']),
    () => run('typecheck (tsc --noEmit)', bin('typescript/bin/tsc'), ['--noEmit']),
  ),
  steps(
    () => run('build (tsx tools/vendor-swagger-ui.ts)', bin('tsx/dist/cli.mjs'), ['tools/vendor-swagger-ui.ts']),
    () => run('typecheck (tsc --noEmit -p browser)', bin('typescript/bin/tsc'), ['--noEmit', '-p', 'browser']),
    () => run('lint (biome check .)', bin('@biomejs/biome/bin/biome'), ['check', '.']),
  ),
]);
if (results.includes(false)) process.exit(1);
