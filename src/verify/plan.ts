/**
 * How `aggmock verify` was asked to run, checked before anything is sent: the options, their
 * defaults, the selection of checks (--only/--skip), and the state URL answering at all.
 * A problem here is a usage error (exit 2), never a failed check.
 */

import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTransport, TimeoutError } from '../callbacks/transport.ts';
import { dialectOf } from '../config/dialect.ts';
import { type AggmockConfig, defaultConfig } from '../config/index.ts';
import { dialectContracts, PACT_FILE_NAME } from '../contracts/dialect.ts';
import { generateContracts } from '../contracts/generate.ts';
import { httpUrl, positiveInt } from '../shared/index.ts';
import { SIGNING_SCHEMES, type SigningScheme } from '../signing/index.ts';
import { CHECK_IDS, DEEP_CHECK_IDS } from './checks/index.ts';
import { describeFetchError } from './client.ts';
import type { CheckSettings } from './context.ts';
import { PACT_ID_PREFIX, pactInteractionIds } from './pact.ts';

/** The committed contracts (for the default configuration). */
export const DEFAULT_PACT_FILE = fileURLToPath(new URL(`../../contracts/${PACT_FILE_NAME}`, import.meta.url));
export const DEFAULT_PLAYERS = ['p1', 'p2'];
export const DEFAULT_MAX_LATENCY_MS = 2_000;
const WEBHOOK_EXAMPLE = 'http://127.0.0.1:4001/callback/webhook';
export const DEFAULT_CONCURRENCY = 10;

export interface RunVerifyOptions {
  /** The integrator's webhook, e.g. http://127.0.0.1:4001/callback/webhook. */
  webhookUrl: string;
  /** Wire and signing settings (types, rollback style, amount format, header names); default: the default config. */
  config?: AggmockConfig;
  /** Override config.callbacks.signing.secrets. */
  secrets?: string[];
  /** Override config.callbacks.signing.scheme. */
  scheme?: SigningScheme;
  /** Known player ids (default p1,p2). */
  players?: string[];
  /** Provider-state endpoint, e.g. http://127.0.0.1:4001/__state. */
  stateUrl?: string;
  /** Per-request timeout; default config.callbacks.timeout (10 s). */
  timeoutMs?: number;
  /** p95 reply-time budget of reply-latency; default 2 s. */
  maxLatencyMs?: number;
  /** Check ids (or `pact:<id>`, or the groups `pact` and `checks`) to run / to leave out. */
  only?: string[];
  skip?: string[];
  /** Where junit.xml, report.json and report.html go; `false` writes none. Default reports/verify. */
  reportDir?: string | false;
  /** Parallel DEBITs in concurrent-debits; default 10. */
  concurrency?: number;
  /** The pact file to verify; default the committed contracts, or ones generated for a non-default wire config. */
  pactFile?: string;
  /** Vendor dialects: each player's session token (--token p1=<token>); default: the dialect's authenticate call, or a fresh one. */
  tokens?: Record<string, string>;
  /** aggmock's safer readings beyond the vendor's text fail instead of warning (`--strict`). */
  strict?: boolean;
  /** Live output: the console table (and notices). */
  write?: (text: string) => void;
  color?: boolean;
}

/** A problem with how verify was called (bad flag, unknown check id, unreachable state URL): exit 2. */
export class VerifyUsageError extends Error {
  override readonly name = 'VerifyUsageError';
}

export interface Plan {
  settings: CheckSettings;
  pactIds: string[];
  selected: (id: string) => boolean;
  pactFile: () => Promise<{ path: string; dispose: () => void }>;
}

export async function prepare(options: RunVerifyOptions): Promise<Plan> {
  const base = options.config ?? defaultConfig();
  const url = (value: string, what: string) => httpUrl(value, what, WEBHOOK_EXAMPLE, VerifyUsageError).href;
  const webhookUrl = url(options.webhookUrl, 'webhookUrl');
  const stateUrl = options.stateUrl === undefined ? undefined : url(options.stateUrl, '--state-url');
  if (options.scheme !== undefined && !SIGNING_SCHEMES.includes(options.scheme)) {
    throw new VerifyUsageError(`--scheme: expected one of ${SIGNING_SCHEMES.join(', ')}, got ${JSON.stringify(options.scheme)}.`);
  }
  if (options.secrets !== undefined && (options.secrets.length === 0 || options.secrets.some((s) => s.length === 0))) {
    throw new VerifyUsageError('--secret: expected a non-empty secret.');
  }
  const players = options.players ?? DEFAULT_PLAYERS;
  if (players.length === 0 || players.some((p) => p.trim() === '')) {
    throw new VerifyUsageError(
      `--players: expected comma-separated player ids such as p1,p2, got ${JSON.stringify(players.join(','))}.`,
    );
  }
  const timeoutMs = positiveInt(options.timeoutMs ?? base.callbacks.timeout, '--timeout', VerifyUsageError);
  const maxLatencyMs = positiveInt(options.maxLatencyMs ?? DEFAULT_MAX_LATENCY_MS, '--max-latency', VerifyUsageError);
  const concurrency = positiveInt(options.concurrency ?? DEFAULT_CONCURRENCY, '--concurrency', VerifyUsageError);
  if (concurrency < 2) throw new VerifyUsageError(`--concurrency: expected at least 2 parallel DEBITs, got ${concurrency}.`);

  const callbacks = {
    ...base.callbacks,
    signing: {
      ...base.callbacks.signing,
      ...(options.scheme === undefined ? {} : { scheme: options.scheme }),
      ...(options.secrets === undefined ? {} : { secrets: options.secrets }),
    },
  };

  const pactFileOption = options.pactFile;
  if (pactFileOption !== undefined && !existsSync(pactFileOption)) {
    throw new VerifyUsageError(`pact file ${pactFileOption} does not exist.`);
  }
  const committed = pactFileOption ?? DEFAULT_PACT_FILE;
  // The committed contracts are the default wire's; any other wire's are written from its dialect for this run.
  const useCommitted = pactFileOption !== undefined || sameWire(callbacks, defaultConfig().callbacks);
  if (useCommitted && !existsSync(committed)) {
    throw new VerifyUsageError(`the contracts are missing at ${committed}; run \`aggmock contracts --regenerate\`.`);
  }
  const pactIds = useCommitted
    ? pactInteractionIds(committed)
    : dialectContracts(dialectOf(callbacks)).map((c) => `${PACT_ID_PREFIX}${c.id}`);
  const sessionTokens = new Map<string, string>();
  for (const [player, token] of Object.entries(options.tokens ?? {})) {
    if (token === '' || token.length > 512)
      throw new VerifyUsageError(
        `--token ${player}: expected the session token the wallet issued (1 to 512 characters), got ${token === '' ? 'nothing' : `${token.length} characters`}.`,
      );
    sessionTokens.set(player, token);
  }
  const checkIds = [...CHECK_IDS];
  const selected = selection(options.only, options.skip, pactIds, checkIds);
  // `--skip pact:authenticate` sends no authenticate at all: not even the one that would fetch a token.
  const authenticates = selection(undefined, options.skip, pactIds, checkIds)(`${PACT_ID_PREFIX}authenticate`);

  // The webhook is not probed here: a wallet that is down or silent is the preflight's first cause (exit 1, with reports).
  if (stateUrl !== undefined) await reachable(stateUrl, timeoutMs, 'the state URL');

  const runId = `${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
  return {
    settings: {
      webhookUrl,
      callbacks,
      players,
      ...(stateUrl === undefined ? {} : { stateUrl }),
      timeoutMs,
      maxLatencyMs,
      concurrency,
      runId,
      sessionTokens,
      ...(options.strict ? { strict: true } : {}),
      ...(authenticates ? {} : { authenticates }),
    },
    pactIds,
    selected,
    pactFile: async () => {
      if (useCommitted) return { path: committed, dispose: () => {} };
      // The contracts are data, written from the dialect (no Pact library to load).
      const dir = mkdtempSync(join(tmpdir(), 'aggmock-contracts-'));
      const path = generateContracts({ config: { ...base, callbacks }, outDir: dir });
      return { path, dispose: () => rmSync(dir, { recursive: true, force: true }) };
    },
  };
}

/** Whether two callback configs put the same bytes on the wire (secrets aside: verify re-signs). */
function sameWire(a: AggmockConfig['callbacks'], b: AggmockConfig['callbacks']): boolean {
  const wire = (c: AggmockConfig['callbacks']) =>
    JSON.stringify([dialectOf(c), c.signing.scheme, c.signing.headers, c.currency, c.currencies, c.apiKey]);
  return wire(a) === wire(b);
}

function selection(
  only: string[] | undefined,
  skipIds: string[] | undefined,
  pactIds: string[],
  checkIds: string[],
): (id: string) => boolean {
  const all = [...pactIds, ...checkIds];
  const expand = (ids: string[], flag: string): Set<string> => {
    const out = new Set<string>();
    for (const raw of ids) {
      const id = raw.trim();
      if (id === '') continue;
      if (id === 'pact') for (const p of pactIds) out.add(p);
      else if (id === 'checks') for (const c of checkIds.filter((c) => !DEEP_CHECK_IDS.includes(c))) out.add(c);
      else if (id === 'deep') for (const c of DEEP_CHECK_IDS) out.add(c);
      else if (all.includes(id)) out.add(id);
      else if (pactIds.includes(PACT_ID_PREFIX + id) && !checkIds.includes(id)) out.add(PACT_ID_PREFIX + id);
      else {
        throw new VerifyUsageError(
          `${flag}: unknown check id ${JSON.stringify(id)}. Known ids: ${all.join(', ')} (and the groups "pact", "checks" and "deep").`,
        );
      }
    }
    return out;
  };
  const onlySet = only && only.length > 0 ? expand(only, '--only') : undefined;
  const skipSet = expand(skipIds ?? [], '--skip');
  // The deep checks (a thousand transactions, say) run only when asked for by id or as the group "deep".
  return (id) => (onlySet === undefined ? !DEEP_CHECK_IDS.includes(id) : onlySet.has(id)) && !skipSet.has(id);
}

/** Any HTTP answer will do (even 404 or 405): only a dead address is a usage error. */
async function reachable(url: string, timeoutMs: number, what: string): Promise<void> {
  const transport = createTransport({ maxSockets: 1, timeoutMs: Math.min(timeoutMs, 5_000) });
  try {
    await transport.post(url, {}, '', 'GET');
  } catch (error) {
    // An answer that began but never ended still says the server is there.
    if (error instanceof TimeoutError && error.message.includes('only part of one came')) return;
    throw new VerifyUsageError(
      `${what} ${url} is not reachable: ${describeFetchError(error, Math.min(timeoutMs, 5_000))}. Is it running?`,
    );
  } finally {
    transport.close();
  }
}
