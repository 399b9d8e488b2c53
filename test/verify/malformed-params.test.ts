import { describe, it } from 'vitest';
import { expectAllPass, expectCaught, verifyReceiver } from './new-checks-kit.ts';

/*
 * malformed-params (issue 32): on the wires that send form bodies or query strings, an amount that
 * is no number must be refused, never a 5xx. The correct receivers pass in both styles; the planted
 * crash is caught on three dialects.
 */

const CHECKS = ['malformed-params'];
const PARAM_WIRES = ['pragmatic', 'groove', 'blueocean', 'slotegrator'] as const;

describe('malformed-params', () => {
  it.each(PARAM_WIRES)('passes the correct %s wallets (styles A and B)', async (name) => {
    expectAllPass(await verifyReceiver(name, CHECKS), CHECKS);
    expectAllPass(await verifyReceiver(name, CHECKS, { style: 'B' }), CHECKS);
  });

  it.each(['pragmatic', 'groove', 'blueocean'] as const)(
    'catches a %s wallet that crashes on an amount that is no number',
    async (name) => {
      expectCaught(
        await verifyReceiver(name, CHECKS, { bug: 'crashes-on-malformed-param' }),
        CHECKS,
        CHECKS,
        /amount is "12\.5\.0x": expected a refusal .*got HTTP 500/,
      );
    },
  );
});
