/**
 * What the benchmarks share: the {@link Benchmark} shape, the run options, child processes that
 * are stopped by PID whatever happens, autocannon measurements, RSS, and peers installed on
 * demand into the ignored .bench-cache/ folder (never into the project's dependencies).
 */
import { type ChildProcess, execFile, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

export interface BenchResult {
  /** A markdown section (title, table, notes) for the console and docs/benchmarks.md. */
  markdown: string;
  /** Everything measured, written as JSON. */
  data: unknown;
}

export interface BenchOptions {
  /** Alternating rounds (≥ 5 for the figures docs/benchmarks.md shows). */
  rounds: number;
  /** Seconds per load measurement. */
  duration: number;
  /** autocannon connections. */
  connections: number;
  /** Peers to leave out (`--no-peers` leaves them all out). */
  skipPeers: Set<string>;
}

export interface Benchmark {
  name: string;
  description: string;
  run(options: BenchOptions): Promise<BenchResult>;
}

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const CACHE = join(ROOT, '.bench-cache');
/** The built CLI, as users start it (`npm run build` first; the runner builds when dist is stale). */
export const CLI = join(ROOT, 'dist', 'cli', 'main.js');
/** The package's bin, as `npx aggmock` runs it (verify spawns the Pact Verifier from its own sources). */
export const BIN = join(ROOT, 'bin', 'aggmock.js');
export const DEV_KEY = { 'x-betnex-key': 'aggmock-dev-key' };

export const median = (xs: number[]): number => {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
};

export const round = (x: number, digits = 0) => Number(x.toFixed(digits));
export const fmt = (x: number) => Math.round(x).toLocaleString('en-US');

// ---- child processes, stopped by PID ----

const children = new Set<ChildProcess>();

/** Stops one child (SIGTERM, then SIGKILL after a grace period) by its PID. */
export async function stop(child: ChildProcess, graceMs = 3_000): Promise<void> {
  children.delete(child);
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    process.kill(child.pid, 'SIGTERM');
    // A paused process (see pauseTree) only acts on SIGTERM once it runs again.
    process.kill(child.pid, 'SIGCONT');
  } catch {
    return;
  }
  const timer = setTimeout(() => {
    try {
      if (child.pid !== undefined) process.kill(child.pid, 'SIGKILL');
    } catch {}
  }, graceMs);
  await exited;
  clearTimeout(timer);
}

const tempDirs = new Set<string>();

/** A scratch folder under .bench-cache/tmp/, removed by {@link removeTempDir} or, at the latest, by killAll. */
export function tempDir(name: string): string {
  const dir = join(CACHE, 'tmp', `${name}-${process.pid}`);
  mkdirSync(dir, { recursive: true });
  tempDirs.add(dir);
  return dir;
}

export function removeTempDir(dir: string): void {
  tempDirs.delete(dir);
  rmSync(dir, { recursive: true, force: true });
}

/** Synchronous last resort, for exit and signal handlers: SIGKILL every child still running, remove scratch folders. */
export function killAll(): void {
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
  tempDirs.clear();
  for (const child of children) {
    if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) {
      try {
        process.kill(child.pid, 'SIGKILL');
      } catch {}
    }
  }
  children.clear();
}

/** Tracks a child started elsewhere (fork), so it too is stopped by PID on exit or Ctrl-C. */
export function track(child: ChildProcess): ChildProcess {
  installHandlers();
  children.add(child);
  return child;
}

let handlersInstalled = false;
function installHandlers(): void {
  if (handlersInstalled) return;
  handlersInstalled = true;
  process.on('exit', killAll);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.on(signal, () => {
      killAll();
      process.exit(130);
    });
  }
}

export interface Started {
  child: ChildProcess;
  /** The first capture group of `ready`, when it has one. */
  match: string;
  /** From spawn to `ready` on stdout/stderr, ms. */
  readyMs: number;
  /** What the process printed so far (for error messages). */
  output: () => string;
}

/**
 * Spawns a process (tracked, so it is stopped by PID on exit, failure or Ctrl-C) and waits until
 * its output matches `ready` (null: resolves at once; the caller polls the process instead).
 */
export function startProcess(
  command: string,
  args: string[],
  ready: RegExp | null,
  options: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number; label?: string } = {},
): Promise<Started> {
  installHandlers();
  const t0 = performance.now();
  const child = spawn(command, args, {
    cwd: options.cwd ?? ROOT,
    env: options.env ?? process.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  let out = '';
  return new Promise((resolve, reject) => {
    const fail = (why: string) => {
      clearTimeout(timer);
      void stop(child);
      reject(new Error(`${options.label ?? command}: ${why}\n${out.slice(-2_000)}`));
    };
    const timer = setTimeout(() => fail('did not get ready in time'), options.timeoutMs ?? 60_000);
    const onData = (d: Buffer) => {
      if (out.length < 200_000) out += d.toString();
      const m = ready === null ? [''] : ready.exec(out);
      if (m) {
        clearTimeout(timer);
        child.stdout?.off('data', onData);
        child.stderr?.off('data', onData);
        // Keep draining so a chatty child never blocks on a full pipe.
        child.stdout?.resume();
        child.stderr?.resume();
        resolve({ child, match: m[1] ?? m[0] ?? '', readyMs: performance.now() - t0, output: () => out });
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('error', (e) => fail(e.message));
    child.once('exit', (code, signal) => fail(`exited with ${code ?? signal} before it was ready`));
    if (ready === null) setImmediate(() => onData(Buffer.alloc(0)));
  });
}

/** A free loopback port (bound and released). */
export async function freePort(): Promise<number> {
  const net = await import('node:net');
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Polls `url` until it answers 2xx; resolves with the ms it took. */
export async function waitForOk(url: string, timeoutMs = 60_000, headers: Record<string, string> = {}): Promise<number> {
  const t0 = performance.now();
  for (let i = 0; performance.now() - t0 < timeoutMs; i++) {
    try {
      const res = await fetch(url, { headers });
      await res.arrayBuffer();
      if (res.ok) return performance.now() - t0;
    } catch {}
    await new Promise((r) => setTimeout(r, i < 50 ? 10 : 100));
  }
  throw new Error(`${url} did not answer 2xx within ${timeoutMs} ms`);
}

/** Resident set size of a process in MB, from /proc (Linux); NaN elsewhere. */
export function rssMb(pid: number | undefined): number {
  if (pid === undefined) return Number.NaN;
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? round(Number(m[1]) / 1024, 1) : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

/**
 * CPU time (user + system) a process has used so far, in µs, from /proc (Linux; NaN elsewhere).
 * A server's CPU per request is steadier than its request rate on a shared machine, where the
 * rate also moves with the load generator's share of the cores.
 */
export function cpuMicros(pid: number | undefined): number {
  if (pid === undefined) return Number.NaN;
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    // utime and stime (fields 14 and 15 of stat), in clock ticks of 10 ms on Linux.
    return (Number(fields[11]) + Number(fields[12])) * 10_000;
  } catch {
    return Number.NaN;
  }
}

/** A process and its descendants (from /proc, Linux; just the process elsewhere). */
export function processTree(pid: number): number[] {
  const seen: number[] = [];
  const visit = (p: number, depth: number) => {
    if (seen.includes(p) || depth > 8) return;
    seen.push(p);
    try {
      for (const c of readFileSync(`/proc/${p}/task/${p}/children`, 'utf8').trim().split(/\s+/).filter(Boolean)) {
        visit(Number(c), depth + 1);
      }
    } catch {}
  };
  visit(pid, 0);
  return seen;
}

/** RSS of a process and all its descendants, MB. */
export function treeRssMb(pid: number | undefined): number {
  if (pid === undefined) return Number.NaN;
  const total = processTree(pid)
    .map(rssMb)
    .filter(Number.isFinite)
    .reduce((a, b) => a + b, 0);
  return round(total, 1);
}

/**
 * Pauses (SIGSTOP) or resumes (SIGCONT) one of our children and its descendants, so servers that
 * are not being measured (a JVM collecting garbage, a journal growing) take no CPU from the one
 * that is. Every child is resumed before it is stopped, and killAll's SIGKILL works on paused ones.
 */
export function pauseTree(child: ChildProcess, paused: boolean): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  for (const pid of processTree(child.pid)) {
    try {
      process.kill(pid, paused ? 'SIGSTOP' : 'SIGCONT');
    } catch {}
  }
}

// ---- load ----

export interface Load {
  rps: number;
  p50: number;
  p99: number;
  /** Response bytes per second. */
  bytesPerSec: number;
  /** Requests answered. */
  total: number;
}

/** One autocannon measurement; throws when any answer has the wrong status or errors. */
export async function load(
  url: string,
  options: {
    connections: number;
    duration: number;
    method?: 'GET' | 'POST';
    headers?: Record<string, string>;
    body?: string;
    status?: number;
    label?: string;
  },
): Promise<Load> {
  const result = await autocannon({
    url,
    method: options.method ?? 'GET',
    headers: options.headers ?? {},
    ...(options.body !== undefined ? { body: options.body } : {}),
    connections: options.connections,
    duration: options.duration,
  });
  const total = result.requests.total;
  const status = options.status ?? 200;
  const right = result.statusCodeStats?.[`${status}` as keyof typeof result.statusCodeStats]?.count ?? 0;
  if (result.errors > 0 || result.timeouts > 0 || right !== total || total === 0) {
    throw new Error(
      `${options.label ?? url}: ${result.errors} errors, ${result.timeouts} timeouts, ${total - right} answers other than ${status} out of ${total}`,
    );
  }
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    bytesPerSec: result.throughput.average,
    total,
  };
}

// ---- peers, installed on demand ----

/**
 * Installs `spec` (e.g. `json-server@0.17.4`) into .bench-cache/<name>/ unless it is there, and
 * returns that folder; throws with npm's last lines when it cannot.
 */
export function ensurePeer(name: string, pkg: string, version: string): string {
  const dir = join(CACHE, name);
  const installed = join(dir, 'node_modules', pkg, 'package.json');
  if (existsSync(installed)) {
    const have = (JSON.parse(readFileSync(installed, 'utf8')) as { version: string }).version;
    if (have === version) return dir;
  }
  mkdirSync(dir, { recursive: true });
  if (!existsSync(join(dir, 'package.json'))) writeFileSync(join(dir, 'package.json'), '{"private":true}\n');
  console.error(`(installing ${pkg}@${version} into ${dir})`);
  const r = spawnSync('npm', ['install', '--no-audit', '--no-fund', '--prefix', dir, `${pkg}@${version}`], {
    cwd: dir,
    encoding: 'utf8',
    timeout: 300_000,
  });
  if (r.status !== 0 || !existsSync(installed)) {
    throw new Error(
      `npm install ${pkg}@${version} failed: ${(r.stderr || r.stdout || String(r.error)).trim().split('\n').slice(-3).join(' ')}`,
    );
  }
  return dir;
}

/** `java -version` works? Resolves with its first line, or undefined. */
export function javaVersion(): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile('java', ['-version'], { timeout: 10_000 }, (error, _stdout, stderr) => {
      resolve(error ? undefined : (stderr.split('\n')[0] ?? '').trim());
    });
  });
}

/** Builds dist/ when a file under src/ is newer than dist/cli/main.js. */
export function ensureBuilt(): void {
  const built = existsSync(CLI) ? statSync(CLI).mtimeMs : 0;
  const r = spawnSync('git', ['ls-files', 'src'], { cwd: ROOT, encoding: 'utf8' });
  const newest = (r.stdout ?? '')
    .split('\n')
    .filter((f) => f.endsWith('.ts'))
    .reduce((max, f) => {
      try {
        return Math.max(max, statSync(join(ROOT, f)).mtimeMs);
      } catch {
        return max;
      }
    }, 0);
  if (built >= newest) return;
  console.error('(dist/ is older than src/: npm run build)');
  const b = spawnSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'inherit' });
  if (b.status !== 0) throw new Error('npm run build failed');
}

/** Starts `aggmock serve` from the built CLI on a free port; resolves with its URL once it listens. */
export async function startAggmock(args: string[] = [], label = 'aggmock serve') {
  const started = await startProcess(
    process.execPath,
    [CLI, 'serve', '--port', '0', '--host', '127.0.0.1', '--db', ':memory:', '--log-level', 'silent', ...args],
    /listening on (http:\/\/[^\s/]+)/,
    { label },
  );
  return { ...started, url: started.match };
}
