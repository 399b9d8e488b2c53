import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { configSchema } from '../../src/config/index.ts';
import { buildRequest, builtinDialect, type CallFacts, type Credentials, type Dialect } from '../../src/dialects/index.ts';
import { type RunningWallet, startWallet } from '../../src/wallet/index.ts';

/**
 * M-2 (review 2026-11-27, tools/repro-wallet-csrf.sh): the reference wallet's dialect webhooks
 * took cross-site browser requests — a form post (Pragmatic), an image GET (Groove), a text/plain
 * no-cors fetch (Habanero) moved money with the public development credentials. Webhooks are
 * server-to-server now: browser markers get a 403, and a JSON wire needs application/json.
 */
const TOKEN = 'tok-player01-0123456789abcdef0123456789';
let wallet: RunningWallet | undefined;
afterEach(async () => {
  await wallet?.close();
  wallet = undefined;
});

function devCredentials(dialect: Dialect): Credentials {
  return Object.fromEntries(
    Object.entries(dialect.credentials).flatMap(([name, c]) => (c.default === undefined ? [] : [[name, c.default]])),
  );
}

async function start(profile: string): Promise<RunningWallet> {
  wallet = await startWallet({
    config: configSchema.parse({ callbacks: { profile }, wallet: { currency: 'EUR', players: { player01: 1000 } } }),
    dbPath: ':memory:',
    port: 0,
    sessions: { [TOKEN]: 'player01' },
  });
  return wallet;
}

let tx = 0;
/** A fresh, validly signed bet of 1.00 in the dialect. */
function bet(dialect: Dialect) {
  tx++;
  const facts = {
    currency: 'EUR',
    sessionToken: TOKEN,
    playerId: 'player01',
    gameId: 'vs20fruitsw',
    operation: 'bet',
    transactionId: `tx9${String(tx).padStart(3, '0')}`,
    roundId: `9${tx}`,
    amountMinor: 100,
    createdAt: Date.now(),
    requestId: `5f0c${String(tx).padStart(4, '0')}-aaaa-4bbb-8ccc-0123456789ab`,
  } as CallFacts;
  return buildRequest(dialect, facts, devCredentials(dialect));
}

describe('M-2: the reference wallet’s webhooks refuse browser-originated requests', () => {
  const BROWSER_MARKERS: [string, Record<string, string>][] = [
    ['a foreign Origin', { origin: 'https://evil.example' }],
    ['Sec-Fetch-Site: cross-site', { 'sec-fetch-site': 'cross-site' }],
    ['Sec-Fetch-Site: same-site', { 'sec-fetch-site': 'same-site' }],
    ['Sec-Fetch-Mode: no-cors', { 'sec-fetch-mode': 'no-cors' }],
    ['Sec-Fetch-Mode: navigate (a form post, a link)', { 'sec-fetch-mode': 'navigate' }],
  ];

  it.each(['pragmatic', 'groove', 'habanero'])(
    '%s: a browser’s request gets a 403 naming the header, and no money moves; a server’s call is answered',
    async (profile) => {
      const w = await start(profile);
      const dialect = builtinDialect(profile);
      for (const [label, extra] of BROWSER_MARKERS) {
        const req = bet(dialect);
        // undici's request, not fetch: fetch sets Sec-Fetch-Mode itself.
        const res = await request(`${w.url}${req.path}`, {
          method: req.method as 'POST',
          headers: { ...req.headers, ...extra },
          ...(req.body === undefined ? {} : { body: req.body }),
        });
        expect(res.statusCode, label).toBe(403);
        const body = (await res.body.json()) as { message: string };
        expect(body.message, label).toContain('server-to-server');
        expect(body.message, label).toContain(Object.keys(extra)[0] === 'origin' ? 'Origin' : 'Sec-Fetch');
        expect(w.store.balanceOf('player01'), label).toBe(100_000);
      }
      // The same call as an aggregator's server sends it (undici's fetch adds Sec-Fetch-Mode: cors): accepted, money moves.
      for (const extra of [{}, { 'sec-fetch-site': 'none' }, { 'sec-fetch-mode': 'cors' }] as Record<string, string>[]) {
        const req = bet(dialect);
        const res = await fetch(`${w.url}${req.path}`, {
          method: req.method,
          headers: { ...req.headers, ...extra },
          ...(req.body === undefined ? {} : { body: req.body }),
        });
        expect(res.status).toBe(200);
      }
      expect(w.store.balanceOf('player01')).toBe(100_000 - 300);
    },
  );

  it('a JSON wire refuses a text/plain body (what a page sends without a preflight), and takes application/json', async () => {
    const w = await start('habanero');
    const dialect = builtinDialect('habanero');
    const plain = bet(dialect);
    const headers = Object.fromEntries(Object.entries(plain.headers).filter(([name]) => name.toLowerCase() !== 'content-type'));
    const refused = await fetch(`${w.url}${plain.path}`, {
      method: plain.method,
      headers: { ...headers, 'content-type': 'text/plain' },
      body: plain.body as string,
    });
    expect(refused.status).toBe(415);
    expect(await refused.text()).toContain('application/json or application/x-www-form-urlencoded');
    expect(w.store.balanceOf('player01')).toBe(100_000);
    const json = bet(dialect);
    expect(json.headers['content-type'] ?? json.headers['Content-Type']).toContain('application/json');
    const ok = await fetch(`${w.url}${json.path}`, { method: json.method, headers: json.headers, body: json.body as string });
    expect(ok.status).toBe(200);
    expect(w.store.balanceOf('player01')).toBe(100_000 - 100);
  });

  it('the profile webhook refuses a browser’s request too', async () => {
    const w = await start('betnex');
    const res = await fetch(`${w.url}/callback/webhook`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: 'https://evil.example' },
      body: '{}',
    });
    expect(res.status).toBe(403);
    expect(await res.text()).toContain('server-to-server');
  });
});
