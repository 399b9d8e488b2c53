import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

export const BIN = fileURLToPath(new URL('../../bin/aggmock.js', import.meta.url));

export interface CliProcess {
  child: ChildProcessWithoutNullStreams;
  stdout(): string;
  stderr(): string;
  /** Resolves with the first match of `pattern` in stdout. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  /** Stops the process by its PID and resolves with its exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
  exited: Promise<number | null>;
}

/**
 * Runs `aggmock …` as a real process, the way a user does; `bin` is another install's
 * bin/aggmock.js, `node` another Node binary than this one.
 */
export function runCli(
  args: string[],
  env: NodeJS.ProcessEnv = {},
  cwd?: string,
  bin = BIN,
  node = process.execPath,
): CliProcess {
  const child = spawn(node, [bin, ...args], { env: { ...process.env, ...env }, cwd, stdio: 'pipe' });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString();
  });
  child.stderr.on('data', (d: Buffer) => {
    err += d.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    exited,
    waitFor(pattern, timeoutMs = 20_000) {
      return new Promise((resolve, reject) => {
        const started = Date.now();
        const poll = setInterval(() => {
          const match = pattern.exec(out);
          if (match) {
            clearInterval(poll);
            resolve(match);
          } else if (child.exitCode !== null || Date.now() - started > timeoutMs) {
            clearInterval(poll);
            reject(new Error(`did not see ${pattern} (exit ${child.exitCode}).\nstdout: ${out}\nstderr: ${err}`));
          }
        }, 25);
      });
    },
    async stop(signal = 'SIGINT') {
      if (child.exitCode === null && child.pid !== undefined) process.kill(child.pid, signal);
      return exited;
    },
  };
}

/** A free loopback port for a child process to listen on (bound, then released). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}
