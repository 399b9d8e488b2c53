import { afterAll, expect } from 'vitest';
import { type AggmockConfig, configSchema } from '../../src/config/index.ts';
import { DEV_RSA_PUBLIC_KEY } from '../../src/dialects/index.ts';
import { type RunVerifyOptions, runVerify, type VerifyOutcome } from '../../src/verify/index.ts';
import { startBlueOceanReceiver } from '../dialects/receivers/blueocean.ts';
import { startCaletaReceiver } from '../dialects/receivers/caleta.ts';
import { startEvolutionReceiver } from '../dialects/receivers/evolution.ts';
import { startGrooveReceiver } from '../dialects/receivers/groove.ts';
import { startHabaneroReceiver } from '../dialects/receivers/habanero.ts';
import { startHub88Receiver } from '../dialects/receivers/hub88.ts';
import { startHundredHpReceiver } from '../dialects/receivers/hundredhp.ts';
import { startPragmaticReceiver } from '../dialects/receivers/pragmatic.ts';
import type { VendorReceiver } from '../dialects/receivers/receiver-kit.ts';
import type { PlantedBug, ReceiverOptions, ReceiverStyle } from '../dialects/receivers/receiver-style.ts';
import { startRedTigerReceiver } from '../dialects/receivers/redtiger.ts';
import { startSlotegratorReceiver } from '../dialects/receivers/slotegrator.ts';
import { startSoftswissReceiver } from '../dialects/receivers/softswiss.ts';
import { RECEIVER_PLAYERS } from './dialect-receivers.ts';

/*
 * What the tests of issue 32's new checks share (new-checks-*.test.ts): each vendor receiver with
 * the credentials it checks and those verify sends, started in a style or with a planted bug, and
 * verify run on it with only the checks under test.
 */

interface Vendor {
  start: (options: ReceiverOptions) => Promise<VendorReceiver>;
  /** What the receiver checks with and verify sends (--credential). */
  credentials: Record<string, string>;
  /** What the receiver checks with, when verify sends none (an RSA public key). */
  receiverCredentials?: Record<string, string>;
}

const HABANERO = { passkey: 'hb-passkey-01', brandId: '3f6c2a4e-0b1d-4c8e-9a7f-5d2e1b0c9a88' };
const BLUEOCEAN = { callerId: 'aggmock', callerPassword: 'bo-pass', salt: 'bo-salt' };

export const VENDORS = {
  evolution: { start: startEvolutionReceiver, credentials: { authToken: 'evo-token-1' } },
  hub88: { start: startHub88Receiver, credentials: {}, receiverCredentials: { publicKey: DEV_RSA_PUBLIC_KEY } },
  pragmatic: { start: startPragmaticReceiver, credentials: { secretKey: 'pp-secret-1' } },
  caleta: { start: startCaletaReceiver, credentials: {}, receiverCredentials: { publicKey: DEV_RSA_PUBLIC_KEY } },
  redtiger: { start: startRedTigerReceiver, credentials: { apiKey: 'rt-api-key-1' } },
  habanero: { start: startHabaneroReceiver, credentials: HABANERO },
  softswiss: { start: startSoftswissReceiver, credentials: { authToken: 'ss-auth-token' } },
  blueocean: { start: startBlueOceanReceiver, credentials: BLUEOCEAN },
  '100hp': { start: startHundredHpReceiver, credentials: { secret: 'hp-secret' } },
  slotegrator: {
    start: startSlotegratorReceiver,
    credentials: { merchantId: 'aggmock-merchant-01', merchantKey: 'sg-merchant-key-01' },
  },
  groove: { start: startGrooveReceiver, credentials: {} },
} satisfies Record<string, Vendor>;
export type VendorName = keyof typeof VENDORS;

const TOKENS = Object.fromEntries(RECEIVER_PLAYERS.map((p) => [p.playerId, p.token as string]));

/** Receivers started by a test file, stopped after it. */
const running: VendorReceiver[] = [];
afterAll(async () => {
  for (const r of running.splice(0)) await r.stop();
});

export function vendorConfig(name: VendorName): AggmockConfig {
  return configSchema.parse({ callbacks: { profile: name, credentials: VENDORS[name].credentials } });
}

/** verify with only `checks` against a fresh receiver of `name`, in `style` or with `bug` planted. */
export async function verifyReceiver(
  name: VendorName,
  checks: readonly string[],
  how: { style?: ReceiverStyle; bug?: PlantedBug } = {},
): Promise<VerifyOutcome> {
  const v: Vendor = VENDORS[name];
  const receiver = await v.start({
    credentials: v.receiverCredentials ?? v.credentials,
    players: RECEIVER_PLAYERS,
    ...(how.style ? { style: how.style } : {}),
    ...(how.bug ? { bugs: [how.bug] } : {}),
  });
  running.push(receiver);
  try {
    return await runVerify({
      webhookUrl: receiver.url,
      config: vendorConfig(name),
      players: RECEIVER_PLAYERS.map((p) => p.playerId),
      tokens: TOKENS,
      reportDir: false,
      only: [...checks],
    });
  } finally {
    await receiver.stop();
    running.splice(running.indexOf(receiver), 1);
  }
}

/** verify with only `checks`, as the CLI does, against any URL (the reference wallet, a proxy in front of it). */
export function verifyUrl(url: string, checks: readonly string[], extra: Partial<RunVerifyOptions> = {}): Promise<VerifyOutcome> {
  return runVerify({ webhookUrl: url, reportDir: false, only: [...checks], ...extra });
}

export function statuses(outcome: VerifyOutcome): Record<string, string> {
  return Object.fromEntries((outcome.report?.results ?? []).map((r) => [r.id, r.status]));
}

export function reasonOf(outcome: VerifyOutcome, id: string): string {
  return outcome.report?.results.find((r) => r.id === id)?.reason ?? '';
}

/** The run passed every check it ran, with no first cause (the failures in the message). */
export function expectAllPass(outcome: VerifyOutcome, checks: readonly string[]): void {
  const why = JSON.stringify(
    { cause: outcome.report?.firstCause?.summary, results: outcome.report?.results.map((r) => [r.id, r.status, r.reason]) },
    null,
    1,
  );
  expect(outcome.report?.firstCause, why).toBeUndefined();
  expect(statuses(outcome), why).toEqual(Object.fromEntries(checks.map((id) => [id, 'pass'])));
}

/**
 * The run failed exactly `failed` (the others passed), each with a reason matching `reason`, and
 * blamed no first cause: the bug is the check's own finding, not a wallet that is down or refuses verify.
 */
export function expectCaught(outcome: VerifyOutcome, checks: readonly string[], failed: readonly string[], reason: RegExp): void {
  const why = JSON.stringify(
    { cause: outcome.report?.firstCause?.summary, results: outcome.report?.results.map((r) => [r.id, r.status, r.reason]) },
    null,
    1,
  );
  expect(outcome.report?.firstCause, why).toBeUndefined();
  expect(statuses(outcome), why).toEqual(Object.fromEntries(checks.map((id) => [id, failed.includes(id) ? 'fail' : 'pass'])));
  for (const id of failed) expect(reasonOf(outcome, id), why).toMatch(reason);
}
