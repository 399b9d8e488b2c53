import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { CallFacts, Credentials, Dialect } from '../../src/dialects/index.ts';
import { DEFAULT_MIX } from '../../src/load/index.ts';
import { k6Script } from '../../src/load/k6.ts';
import { PLAYER } from '../dialects/vendor-table.ts';

/** What a k6 `http.request` answers, as far as the script reads it. */
export interface K6Response {
  status: number;
  body: string;
}
export type K6Send = (
  method: string,
  url: string,
  body: string | null,
  params: { headers: Record<string, string>; tags: { operation: string } },
) => Promise<K6Response>;

/** The exported script, imported as a module under Node (k6's modules shimmed). */
export interface K6Module {
  buildRequest(facts: CallFacts): Promise<{ method: string; path: string; headers: Record<string, string>; body?: string }>;
  round(
    data: { run: string; roundBase: number; tokens: Record<string, string> },
    kind: string,
    player: string,
    send: K6Send,
  ): Promise<void>;
}

/**
 * k6 cannot run here, so the exported script runs under Node with a fake `k6` package beside it
 * (k6/crypto by node:crypto digests; WebCrypto is Node's own; k6/http throws: tests pass `send`).
 */
export function k6Scripts(): {
  scriptFor(dialect: Dialect, credentials: Credentials): Promise<K6Module>;
  dir: string;
  remove(): void;
} {
  const dir = mkdtempSync(join(tmpdir(), 'aggmock-k6-'));
  const k6 = join(dir, 'node_modules', 'k6');
  mkdirSync(k6, { recursive: true });
  writeFileSync(
    join(k6, 'package.json'),
    JSON.stringify({
      name: 'k6',
      type: 'module',
      exports: { './crypto': './crypto.js', './http': './http.js', './execution': './execution.js' },
    }),
  );
  writeFileSync(
    join(k6, 'crypto.js'),
    `import { createHash } from 'node:crypto';
const digest = (alg) => (data, enc) => createHash(alg).update(data, 'utf8').digest(enc === 'hex' ? 'hex' : 'base64');
export default { md5: digest('md5'), sha1: digest('sha1'), sha256: digest('sha256') };`,
  );
  writeFileSync(join(k6, 'http.js'), `export default { request() { throw new Error('the test sends with fetch'); } };`);
  writeFileSync(join(k6, 'execution.js'), `export default { vu: { idInTest: 1 } };`);
  let n = 0;
  return {
    dir,
    remove: () => rmSync(dir, { recursive: true, force: true }),
    async scriptFor(dialect, credentials) {
      const file = join(dir, `load-${dialect.name}-${++n}.mjs`);
      const text = k6Script({
        dialect,
        dialectName: dialect.name,
        credentials: { ...credentials },
        url: 'http://127.0.0.1:1',
        schedule: { startRate: 1, stages: [{ durationMs: 1000, rate: 1 }] },
        players: [PLAYER.playerId],
        mix: DEFAULT_MIX,
        stakeMinor: 100,
        currency: 'EUR',
        token: PLAYER.token,
        out: dir,
      });
      // k6's __ENV, as the script reads it; each call's record line goes nowhere.
      writeFileSync(file, `const __ENV = {};\nconst console = { log() {} };\n${text}`);
      return (await import(pathToFileURL(file).href)) as K6Module;
    },
  };
}
