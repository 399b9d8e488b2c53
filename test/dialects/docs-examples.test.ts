import { describe, expect, it } from 'vitest';
import { BUILTIN_DIALECTS, builtinDialect, DEV_RSA_PUBLIC_KEY } from '../../src/dialects/index.ts';
import { pagePath, readRepoFile } from '../../tools/dialect-docs.ts';
import { startBlueOceanReceiver } from './receivers/blueocean.ts';
import { startCaletaReceiver } from './receivers/caleta.ts';
import { startEvolutionReceiver } from './receivers/evolution.ts';
import { startGrooveReceiver } from './receivers/groove.ts';
import { startHabaneroReceiver } from './receivers/habanero.ts';
import { startHub88Receiver } from './receivers/hub88.ts';
import { startHundredHpReceiver } from './receivers/hundredhp.ts';
import { startPragmaticReceiver } from './receivers/pragmatic.ts';
import type { ReceiverPlayer, VendorReceiver } from './receivers/receiver-kit.ts';
import { startRedTigerReceiver } from './receivers/redtiger.ts';
import { startSlotegratorReceiver } from './receivers/slotegrator.ts';
import { startSoftswissReceiver } from './receivers/softswiss.ts';

/*
 * The worked example on each dialect page is a request a wallet written from the vendor's own
 * documents accepts: it is read from the committed page (not from the generator), sent as the page
 * shows it to that vendor's independent receiver, and must move exactly the 10.50 EUR it says.
 */

type Start = (options: {
  credentials: Record<string, string>;
  players: ReceiverPlayer[];
  now?: () => number;
}) => Promise<VendorReceiver>;
const RECEIVERS: Record<string, Start> = {
  hub88: startHub88Receiver,
  caleta: startCaletaReceiver,
  evolution: startEvolutionReceiver,
  pragmatic: startPragmaticReceiver,
  softswiss: startSoftswissReceiver,
  blueocean: startBlueOceanReceiver,
  redtiger: startRedTigerReceiver,
  '100hp': startHundredHpReceiver,
  slotegrator: startSlotegratorReceiver,
  habanero: startHabaneroReceiver,
  groove: startGrooveReceiver,
};

/** The example request of a page: its request line, headers and body, as the page prints them. */
function exampleOf(page: string): { method: string; target: string; headers: Record<string, string>; body: string | undefined } {
  const block = /### The example request[\s\S]*?```http\n([\s\S]*?)\n```/.exec(page)?.[1];
  if (block === undefined) throw new Error('no example request on the page');
  const [head = '', body] = block.split('\n\n');
  const [requestLine = '', ...headerLines] = head.split('\n');
  const [, method = '', target = ''] = /^(\S+) (\S+) HTTP\/1\.1$/.exec(requestLine) ?? [];
  const headers = Object.fromEntries(
    headerLines.map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1).trim()] as const),
  );
  return { method, target, headers, body };
}

/** The dialect's development credentials, under the names its receiver takes (an RSA wallet holds the public key). */
function receiverCredentials(name: string): Record<string, string> {
  const d = builtinDialect(name);
  return Object.fromEntries(
    Object.entries(d.credentials).map(([key, c]) =>
      c.kind === 'private-key' ? ['publicKey', DEV_RSA_PUBLIC_KEY] : [key, c.default ?? ''],
    ),
  );
}

describe("each dialect page's example request", () => {
  it('covers every receiver: one per built-in dialect', () => {
    expect(Object.keys(RECEIVERS).sort()).toEqual([...BUILTIN_DIALECTS].sort());
  });

  it.each(BUILTIN_DIALECTS)(
    '%s: is accepted by a receiver written from the vendor docs, and bets exactly 10.50 EUR',
    async (name) => {
      const page = readRepoFile(pagePath(name)) ?? '';
      const example = exampleOf(page);
      const at = Date.parse(/on (\d{4}-\d\d-\d\dT[\d:.]+Z)\)/.exec(page)?.[1] ?? '');
      const token = /session token `([^`]+)`/.exec(page)?.[1];
      const start = RECEIVERS[name] as Start;
      const receiver = await start({
        credentials: receiverCredentials(name),
        players: [{ playerId: 'p1', currency: 'EUR', balance: '1000.00', token }],
        now: () => at,
      });
      try {
        const { host: _host, 'User-Agent': _agent, ...headers } = example.headers;
        const response = await fetch(`${receiver.url}${example.target}`, {
          method: example.method,
          headers,
          ...(example.body === undefined ? {} : { body: example.body }),
        });
        await response.text();
        expect(receiver.errors).toEqual([]);
        expect(response.status).toBe(200);
        expect(receiver.balanceOf('p1')).toBe('989.50');
      } finally {
        await receiver.stop();
      }
    },
  );
});
