import { afterAll, describe, expect, it } from 'vitest';
import { builtinDialect } from '../../src/dialects/index.ts';
import { runVerify } from '../../src/verify/index.ts';
import type { VendorReceiver } from '../dialects/receivers/receiver-kit.ts';
import { RECEIVER_PLAYERS, startBuggyProxy } from './dialect-receivers.ts';
import { expectAllPass, VENDORS, vendorConfig } from './new-checks-kit.ts';

/*
 * Red Tiger's own status for a wrong API key is unknown (its docs need a login); valkyrie's
 * middleware answers HTTP 401 code 100, and the dialect writes that. A correct wallet may answer
 * the same refusal at HTTP 400 (as Red Tiger's other errors are): both pass.
 */

const CHECKS = ['wrong-credential', 'missing-credential'];
const stops: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const stop of stops.reverse()) await stop();
});

describe('the Red Tiger credential refusal', () => {
  it('is written at HTTP 401 code 100, as valkyrie answers it', () => {
    const d = builtinDialect('redtiger');
    expect([d.reply.statuses.INVALID_SIGNATURE, d.reply.codes.INVALID_SIGNATURE]).toEqual([401, 100]);
  });

  it.each([401, 400])('passes a wallet that refuses a wrong or missing API key at HTTP %i', async (status) => {
    const receiver: VendorReceiver = await VENDORS.redtiger.start({
      credentials: VENDORS.redtiger.credentials,
      players: RECEIVER_PLAYERS,
    });
    stops.push(() => receiver.stop());
    const seen = new Set<number>();
    const proxy = await startBuggyProxy(receiver.url, {
      reply: (_req, reply) => {
        const moved = reply.status === 401 ? { ...reply, status } : reply;
        if (reply.status === 401) seen.add(moved.status);
        return moved;
      },
    });
    stops.push(() => proxy.stop());
    const outcome = await runVerify({
      webhookUrl: proxy.url,
      config: vendorConfig('redtiger'),
      players: RECEIVER_PLAYERS.map((p) => p.playerId),
      tokens: Object.fromEntries(RECEIVER_PLAYERS.map((p) => [p.playerId, p.token as string])),
      reportDir: false,
      only: CHECKS,
    });
    expectAllPass(outcome, CHECKS);
    expect([...seen]).toEqual([status]);
  });
});
