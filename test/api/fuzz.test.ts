import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEV_KEY_HEADERS, testApp } from './helpers.ts';

const { app, catalog } = testApp({ limits: { bodyBytes: 4096 } });
const gameId = catalog.games[0]!.id;

/** Any answer that is not a success must be our JSON error; nothing may be a 5xx. */
async function expectWellFormed(res: Response): Promise<void> {
  expect(res.status).toBeLessThan(500);
  if (res.status === 304) return;
  const text = await res.text();
  expect(res.headers.get('content-type')).toMatch(/application\/json/);
  const body = JSON.parse(text);
  if (res.status >= 400) {
    expect(body).toMatchObject({ success: false, code: res.status });
    expect(typeof body.msg).toBe('string');
    expect(body.message).toBe(body.msg);
  }
}

// Launch-shaped objects with each field replaced by anything at random: the inputs most likely to
// get past JSON parsing and trip the validator.
const launchish = fc.record(
  {
    username: fc.oneof(fc.string(), fc.anything()),
    gameId: fc.oneof(
      fc.constant(gameId),
      fc.string({ unit: fc.constantFrom(...'0123456789abcdefABCDEF'), minLength: 30, maxLength: 34 }),
      fc.anything(),
    ),
    money: fc.oneof(fc.double(), fc.integer(), fc.anything()),
    platform: fc.oneof(fc.constantFrom(1, 2, '1', '2', 0, 3), fc.anything()),
    home_url: fc.oneof(fc.webUrl(), fc.string()),
    currency: fc.oneof(fc.constantFrom('EUR', 'usd'), fc.string()),
    lang: fc.oneof(fc.constantFrom('en', 'pt-BR'), fc.string()),
    callback_url: fc.oneof(fc.webUrl(), fc.anything()),
    extras: fc.anything(),
  },
  { requiredKeys: [] },
);

const validLaunch = fc.record({
  username: fc.string({ minLength: 1, maxLength: 20 }).filter((u) => u.trim().length > 0),
  gameId: fc.constant(gameId),
  money: fc.integer({ min: 0, max: 10_000_000 }).map((cents) => cents / 100),
  platform: fc.constantFrom(1, 2),
  home_url: fc.webUrl(),
});

const bodies = fc.oneof(
  validLaunch.map((o) => JSON.stringify(o)),
  fc.tuple(validLaunch, launchish).map(([valid, noise]) => JSON.stringify({ ...valid, ...noise })),
  launchish.map((o) => JSON.stringify(o)),
  fc.json(),
  fc.string({ unit: 'binary', maxLength: 300 }),
  fc.uint8Array({ maxLength: 200 }).map((bytes) => Buffer.from(bytes).toString('latin1')),
  fc.string({ minLength: 4000, maxLength: 6000 }),
);

const contentTypes = fc.constantFrom(
  'application/json',
  'application/json; charset=utf-8',
  'text/plain',
  '',
  'application/x-www-form-urlencoded',
  'application/vnd.api+json',
);

const queryStrings = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 60 }).map((s) => `provider=${encodeURIComponent(s)}`),
  fc.string({ maxLength: 60 }), // raw, possibly broken percent-encoding
  fc.constantFrom(
    'provider=%E0%A4%A',
    'provider=%%',
    'provider',
    'provider=&provider=PGSOFT',
    'provider=PRAGMATIC+PLAY',
    '%ZZ=1',
  ),
  fc
    .array(fc.tuple(fc.string({ maxLength: 10 }), fc.string({ maxLength: 20 })), { maxLength: 4 })
    .map((pairs) => new URLSearchParams(pairs).toString()),
);

describe('every route under random input', () => {
  it('POST /getgameurl never answers 5xx and always with a well-formed JSON error', async () => {
    const seen = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(bodies, contentTypes, fc.boolean(), async (body, type, withKey) => {
        const res = await app.request('/getgameurl', {
          method: 'POST',
          body,
          headers: { ...(withKey ? DEV_KEY_HEADERS : {}), ...(type ? { 'content-type': type } : {}) },
        });
        seen.set(res.status, (seen.get(res.status) ?? 0) + 1);
        await expectWellFormed(res);
      }),
      { numRuns: 3000 },
    );
    // The inputs reached every layer: auth, content type, size, JSON parsing, validation and success.
    for (const status of [200, 400, 401, 413, 415]) expect(seen.get(status) ?? 0, `responses with ${status}`).toBeGreaterThan(0);
  });

  it.each(['/getallgamesandprovider', '/casino/getallgamesandprovider', '/getallproviders'])(
    'GET %s never answers 5xx, whatever the query string',
    async (path) => {
      await fc.assert(
        fc.asyncProperty(queryStrings, async (query) => {
          const res = await app.request(`${path}?${query}`, { headers: DEV_KEY_HEADERS });
          await expectWellFormed(res);
        }),
        { numRuns: 2000 },
      );
    },
  );

  it('random header values for API keys and signatures get a JSON 401, never a crash', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('x-betnex-key', 'x-signature', 'webhook-signature', 'x-rapidapi-key'),
        fc.string({ maxLength: 120 }).filter((s) => /^[\x20-\x7e]*$/.test(s)),
        async (header, value) => {
          const res = await app.request('/getallproviders', { headers: { [header]: value } });
          await expectWellFormed(res);
          if (value !== 'aggmock-dev-key') expect(res.status).toBe(401);
        },
      ),
      { numRuns: 2000 },
    );
  });
});
