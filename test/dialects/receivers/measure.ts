/**
 * Issue 32's baseline: how today's aggmock fares against each vendor's receivers in style A and
 * style B (see receiver-style.ts), and whether `aggmock verify` catches each planted bug. Not a test
 * (several numbers are expected to be non-zero today); run it by hand:
 *
 *   npx tsx test/dialects/receivers/measure.ts [vendor …] [--json out.json]
 *
 * Per vendor and style it records: the scenarios through the engine with the shadow ledger (every
 * scenario the dialect can send, both players): receiver errors, refused events, scenarios whose
 * steps did not all settle, ledger discrepancies by kind; then `verify` twice on a fresh receiver:
 * the failed and blocked checks and the first cause. Per planted bug (on a style-A receiver):
 * verify once, and the checks that fail beyond the style-A control run ("caught" when any does).
 *
 * It drives aggmock as test/dialects/session-calls.test.ts and test/verify/dialects.test.ts do,
 * through their public entry points only.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readingOf } from '../../../src/callbacks/call.ts';
import { openDatabase } from '../../../src/callbacks/db.ts';
import { createCallbackEngine } from '../../../src/callbacks/engine.ts';
import { seededRandom } from '../../../src/callbacks/random.ts';
import { type AggmockConfig, configSchema, rollbackScenarioRefusal, SCENARIOS } from '../../../src/config/index.ts';
import { builtinDialect, DEV_RSA_PUBLIC_KEY } from '../../../src/dialects/index.ts';
import { createShadowLedger } from '../../../src/ledger/index.ts';
import { planScenario, runScenario, wireParamsOf } from '../../../src/scenarios/index.ts';
import { runVerify, type VerifyOutcome } from '../../../src/verify/index.ts';
import { startBlueOceanReceiver } from './blueocean.ts';
import { startCaletaReceiver } from './caleta.ts';
import { startEvolutionReceiver } from './evolution.ts';
import { startGrooveReceiver } from './groove.ts';
import { startHabaneroReceiver } from './habanero.ts';
import { startHub88Receiver } from './hub88.ts';
import { startHundredHpReceiver } from './hundredhp.ts';
import { startPragmaticReceiver } from './pragmatic.ts';
import type { ReceiverPlayer, VendorReceiver } from './receiver-kit.ts';
import { PLANTED_BUGS, type PlantedBug, type ReceiverOptions, type ReceiverStyle } from './receiver-style.ts';
import { startRedTigerReceiver } from './redtiger.ts';
import { startSlotegratorReceiver } from './slotegrator.ts';
import { startSoftswissReceiver } from './softswiss.ts';

type Start = (options: ReceiverOptions) => Promise<VendorReceiver>;

interface Vendor {
  dialect: string;
  start: Start;
  /** What the receiver checks with. */
  receiverCredentials: Record<string, string>;
  /** What aggmock signs with (--credential). */
  credentials: Record<string, string>;
}

const VENDORS: Vendor[] = [
  {
    dialect: 'evolution',
    start: startEvolutionReceiver,
    receiverCredentials: { authToken: 'evo-token-1' },
    credentials: { authToken: 'evo-token-1' },
  },
  { dialect: 'hub88', start: startHub88Receiver, receiverCredentials: { publicKey: DEV_RSA_PUBLIC_KEY }, credentials: {} },
  {
    dialect: 'pragmatic',
    start: startPragmaticReceiver,
    receiverCredentials: { secretKey: 'pp-secret-1' },
    credentials: { secretKey: 'pp-secret-1' },
  },
  { dialect: 'caleta', start: startCaletaReceiver, receiverCredentials: { publicKey: DEV_RSA_PUBLIC_KEY }, credentials: {} },
  {
    dialect: 'redtiger',
    start: startRedTigerReceiver,
    receiverCredentials: { apiKey: 'rt-api-key-1' },
    credentials: { apiKey: 'rt-api-key-1' },
  },
  {
    dialect: 'habanero',
    start: startHabaneroReceiver,
    receiverCredentials: { passkey: 'hb-passkey-01', brandId: '3f6c2a4e-0b1d-4c8e-9a7f-5d2e1b0c9a88' },
    credentials: { passkey: 'hb-passkey-01', brandId: '3f6c2a4e-0b1d-4c8e-9a7f-5d2e1b0c9a88' },
  },
  {
    dialect: 'softswiss',
    start: startSoftswissReceiver,
    receiverCredentials: { authToken: 'ss-auth-token' },
    credentials: { authToken: 'ss-auth-token' },
  },
  {
    dialect: 'blueocean',
    start: startBlueOceanReceiver,
    receiverCredentials: { callerId: 'aggmock', callerPassword: 'bo-pass', salt: 'bo-salt' },
    credentials: { callerId: 'aggmock', callerPassword: 'bo-pass', salt: 'bo-salt' },
  },
  {
    dialect: '100hp',
    start: startHundredHpReceiver,
    receiverCredentials: { secret: 'hp-secret' },
    credentials: { secret: 'hp-secret' },
  },
  {
    dialect: 'slotegrator',
    start: startSlotegratorReceiver,
    receiverCredentials: { merchantId: 'aggmock-merchant-01', merchantKey: 'sg-merchant-key-01' },
    credentials: { merchantId: 'aggmock-merchant-01', merchantKey: 'sg-merchant-key-01' },
  },
  { dialect: 'groove', start: startGrooveReceiver, receiverCredentials: {}, credentials: {} },
];

/** Session tokens long enough for every wire (Red Tiger wants 32 to 128 characters). */
const PLAYERS: ReceiverPlayer[] = [
  { playerId: 'player01', currency: 'EUR', balance: '1000.00', token: 'tok-player01-0123456789abcdef0123456789' },
  { playerId: 'player02', currency: 'EUR', balance: '500.00', token: 'tok-player02-0123456789abcdef0123456789' },
];
const TOKENS = Object.fromEntries(PLAYERS.map((p) => [p.playerId, p.token as string]));

interface ScenarioMeasure {
  receiverErrors: string[];
  refused: number;
  unsettledScenarios: string[];
  discrepancies: Record<string, number>;
  events: number;
}

interface VerifyMeasure {
  failed: string[];
  blocked: string[];
  firstCause: string | undefined;
  /** Problems the receiver found in this run's requests (verify sends some wrong on purpose). */
  receiverErrors: number;
  /** Those problems by kind: quoted values and numbers replaced, with a count. */
  receiverErrorKinds: Record<string, number>;
}

/** A receiver error without its ids and amounts, so alike ones count together. */
function kindOf(error: string): string {
  return error
    .replace(/"[^"]*"/g, '"…"')
    .replace(/\b[\w-]*\d[\w-]*\b/g, '#')
    .slice(0, 160);
}

function kinds(errors: readonly string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const e of errors) out[kindOf(e)] = (out[kindOf(e)] ?? 0) + 1;
  return out;
}

function configOf(v: Vendor, url: string, extra: Record<string, unknown> = {}): AggmockConfig {
  return configSchema.parse({
    seed: 'measure-32',
    callbacks: {
      webhookUrl: url,
      profile: v.dialect,
      credentials: v.credentials,
      sessionTokens: TOKENS,
      retrySchedule: [0],
      jitter: 0,
      ...extra,
    },
  });
}

async function measureScenarios(v: Vendor, style: ReceiverStyle): Promise<ScenarioMeasure> {
  const receiver = await v.start({ credentials: v.receiverCredentials, players: PLAYERS, style });
  const config = configOf(v, receiver.url);
  const db = openDatabase(':memory:');
  const engine = createCallbackEngine({ config, db });
  const ledger = createShadowLedger({ engine, db, reading: readingOf(config.callbacks) });
  engine.start();
  const dialect = builtinDialect(v.dialect);
  const rng = seededRandom(32);
  const out: ScenarioMeasure = { receiverErrors: [], refused: 0, unsettledScenarios: [], discrepancies: {}, events: 0 };
  try {
    const runnable = SCENARIOS.filter(
      (s) =>
        !rollbackScenarioRefusal(
          s,
          v.dialect,
          dialect.operations.rollback !== undefined,
          dialect.operations.rollbackWin !== undefined,
        ),
    );
    for (const scenario of runnable) {
      for (const playerId of PLAYERS.map((p) => p.playerId)) {
        let summary: Awaited<ReturnType<typeof runScenario>>;
        try {
          summary = await runScenario(
            engine,
            planScenario(
              scenario,
              {
                players: [playerId],
                amount: { min: 1, max: 5 },
                size: 4,
                ...wireParamsOf(config.callbacks),
                balances: ledger.knownBalances(),
              },
              rng,
              () => engine.nextTransactionId(),
            ),
          );
        } catch (error) {
          out.unsettledScenarios.push(`${scenario}/${playerId}: ${(error as Error).message.slice(0, 120)}`);
          continue;
        }
        out.events += summary.events.length;
        out.refused += summary.events.filter((e) => e.status !== 'delivered').length;
        if (!summary.ok) out.unsettledScenarios.push(`${scenario}/${playerId}`);
      }
    }
    for (const d of ledger.discrepancies()) out.discrepancies[d.kind] = (out.discrepancies[d.kind] ?? 0) + 1;
    out.receiverErrors = [...receiver.errors];
  } finally {
    ledger.close();
    await engine.stop();
    db.close();
    await receiver.stop();
  }
  return out;
}

/** One verify run; `tokensFile` chains runs as a user does (`--tokens <file>`: a rotating wallet's new tokens carry over). */
function verifyOnce(v: Vendor, url: string, tokensFile: string): Promise<VerifyOutcome> {
  return runVerify({
    webhookUrl: url,
    config: configSchema.parse({ callbacks: { profile: v.dialect, credentials: v.credentials } }),
    players: PLAYERS.map((p) => p.playerId),
    tokens: TOKENS,
    tokensFile,
    reportDir: false,
    // Every check, the deep ones too (repeat-after-many: a forgetful dedupe memory).
    only: ['pact', 'checks', 'deep'],
  });
}

function summarise(outcome: VerifyOutcome, receiver: VendorReceiver): VerifyMeasure {
  const results = outcome.report?.results ?? [];
  return {
    failed: results.filter((r) => r.status === 'fail').map((r) => r.id),
    blocked: results.filter((r) => r.status === 'blocked').map((r) => r.id),
    firstCause: outcome.report?.firstCause?.summary,
    receiverErrors: receiver.errors.length,
    receiverErrorKinds: kinds(receiver.errors),
  };
}

async function measureVerify(
  v: Vendor,
  options: { style?: ReceiverStyle; bugs?: PlantedBug[] },
  runs: number,
): Promise<VerifyMeasure[]> {
  const receiver = await v.start({ credentials: v.receiverCredentials, players: PLAYERS, ...options });
  const out: VerifyMeasure[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'aggmock-measure-tokens-'));
  try {
    for (let i = 0; i < runs; i++) {
      const before = receiver.errors.length;
      const summary = summarise(await verifyOnce(v, receiver.url, join(dir, 'tokens.txt')), receiver);
      const fresh = receiver.errors.slice(before);
      out.push({ ...summary, receiverErrors: fresh.length, receiverErrorKinds: kinds(fresh) });
    }
  } finally {
    await receiver.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  return out;
}

async function canPlant(v: Vendor, bug: PlantedBug): Promise<boolean> {
  try {
    const receiver = await v.start({ credentials: v.receiverCredentials, players: PLAYERS, bugs: [bug] });
    await receiver.stop();
    return true;
  } catch (error) {
    if (/cannot plant/.test((error as Error).message)) return false;
    throw error;
  }
}

async function measureVendor(v: Vendor) {
  const styles: Record<string, unknown> = {};
  for (const style of ['A', 'B'] as const) {
    const scenarios = await measureScenarios(v, style);
    const verify = await measureVerify(v, { style }, 2);
    styles[style] = { scenarios, verify };
    log(v.dialect, style, scenarios, verify);
  }
  const control = new Set(((styles.A as { verify: VerifyMeasure[] }).verify[0] as VerifyMeasure).failed);
  const bugs: Record<string, unknown> = {};
  for (const bug of PLANTED_BUGS) {
    if (!(await canPlant(v, bug))) continue;
    const [run] = await measureVerify(v, { bugs: [bug] }, 1);
    const fresh = (run as VerifyMeasure).failed.filter((id) => !control.has(id));
    bugs[bug] = { caught: fresh.length > 0, newFailures: fresh, firstCause: run?.firstCause };
    console.log(`  ${v.dialect} bug ${bug}: ${fresh.length > 0 ? `caught by ${fresh.join(', ')}` : 'NOT caught'}`);
  }
  return { dialect: v.dialect, styles, bugs };
}

function log(dialect: string, style: string, s: ScenarioMeasure, verify: VerifyMeasure[]) {
  const disc = Object.entries(s.discrepancies)
    .map(([k, n]) => `${k}×${n}`)
    .join(' ');
  console.log(
    `${dialect} ${style}: scenarios ${s.events} events, ${s.refused} refused, ${s.receiverErrors.length} receiver errors, unsettled [${s.unsettledScenarios.join('; ')}], ledger {${disc}}`,
  );
  for (const [i, r] of verify.entries()) {
    console.log(
      `  verify #${i + 1}: ${r.failed.length} failed [${r.failed.join(', ')}], ${r.blocked.length} blocked, first cause: ${r.firstCause ?? '-'}, receiver errors ${r.receiverErrors}`,
    );
  }
  for (const e of s.receiverErrors.slice(0, 3)) console.log(`    receiver: ${e.slice(0, 200)}`);
}

async function main() {
  const args = process.argv.slice(2);
  const jsonAt = args.indexOf('--json');
  const jsonPath = jsonAt >= 0 ? args[jsonAt + 1] : undefined;
  const names = args.filter((a, i) => !a.startsWith('--') && (jsonAt < 0 || i !== jsonAt + 1));
  const chosen = names.length > 0 ? VENDORS.filter((v) => names.includes(v.dialect)) : VENDORS;
  const all = [];
  for (const v of chosen) all.push(await measureVendor(v));
  if (jsonPath) writeFileSync(jsonPath, `${JSON.stringify(all, null, 2)}\n`);
}

await main();
