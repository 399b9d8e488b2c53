import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InvalidArgumentError } from 'commander';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { createAdminRoutes } from '../../src/admin/index.ts';
import { createApp } from '../../src/app.ts';
import { createCallbackEngine, seededRandom } from '../../src/callbacks/index.ts';
import { parsePort } from '../../src/cli/options.ts';
import { ConfigError, loadConfig, validateConfig } from '../../src/config/index.ts';
import { LaunchSessions } from '../../src/launch/sessions.ts';
import { createShadowLedger } from '../../src/ledger/index.ts';
import { loadCatalog } from '../../src/runtime.ts';
import { parseScheduleFlag, ScheduleFlagError } from '../../src/schedule/flag.ts';
import { openDatabase } from '../../src/storage/index.ts';

/**
 * Hostile input over every surface: each HTTP route (API, UI, play pages, admin API), config
 * files, env and CLI flags. No 5xx, no crash, and nothing stored for refused input.
 *
 * AGGMOCK_FUZZ_RUNS sets the HTTP runs (default 3,000 in `npm test`); the nightly run uses
 * 100000, and the config, env and flag properties scale with it (a tenth each).
 */
const RUNS = Number(process.env.AGGMOCK_FUZZ_RUNS ?? 3_000);
const SIDE_RUNS = Math.max(200, Math.floor(RUNS / 10));

const config = validateConfig({
  db: ':memory:',
  catalog: { providers: 3, games: 30 },
  callbacks: { webhookUrl: 'http://127.0.0.1:9/callback/webhook', retrySchedule: [0] },
});
const catalog = loadCatalog(config);
const db = openDatabase(':memory:');
// Not started: events are stored, never sent, so the fuzz sends nothing anywhere.
const engine = createCallbackEngine({ config, db });
const ledger = createShadowLedger({ engine, db });
const sessions = new LaunchSessions();
const app = createApp({
  config,
  catalog,
  sessions,
  engine,
  random: seededRandom(1),
  mounts: { '/__admin': createAdminRoutes({ engine, ledger, config }) },
});
afterAll(async () => {
  await engine.stop({ deadlineMs: 0 });
  ledger.close();
  db.close();
});

const gameId = catalog.games[0]?.id as string;
const outboxSize = () => engine.outbox.counts();

const text = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom('', ' ', '\u0000', '../../etc/passwd', '%00', '%ff', 'javascript:alert(1)', 'x'.repeat(5000)),
);
const value = fc.oneof(
  text,
  fc.integer(),
  fc.double(),
  fc.constantFrom(90071992547409.91, 1e308, -1, 0, 0.001, null, true),
  fc.anything({ maxDepth: 3 }),
);
/** Objects shaped like each route's body, every field possibly hostile. */
const shaped = fc.record(
  {
    type: fc.oneof(fc.constantFrom('debit', 'credit', 'rollback', 'BET'), value),
    playerId: fc.oneof(fc.constantFrom('p1', 'p2'), value),
    amount: fc.oneof(fc.constantFrom(1, 2.5, '3.50'), value),
    transactionId: value,
    referenceTransactionId: value,
    username: fc.oneof(fc.constant('p1'), value),
    gameId: fc.oneof(fc.constant(gameId), value),
    money: fc.oneof(fc.constant(100), value),
    platform: fc.oneof(fc.constant(1), value),
    home_url: fc.oneof(fc.constant('https://casino.example'), value),
    callback_url: fc.oneof(fc.constantFrom('http://127.0.0.1:4001/x', 'http://metadata.invalid/'), value),
    bet: fc.oneof(fc.constant(1), value),
    players: value,
    size: value,
  },
  { requiredKeys: [] },
);
/** A form field's text for any value (fast-check makes objects without a prototype). */
function formText(v: unknown): string {
  if (typeof v === 'string') return v;
  try {
    return JSON.stringify(v) ?? '';
  } catch {
    return '';
  }
}

const body = fc.oneof(
  shaped.map((o) => JSON.stringify(o)),
  shaped.map((o) => new URLSearchParams(Object.entries(o).map(([k, v]) => [k, formText(v)])).toString()),
  fc.json(),
  fc.string({ unit: 'binary', maxLength: 300 }),
  fc.integer({ min: 1, max: 2000 }).map((n) => `${'['.repeat(n)}${']'.repeat(n)}`),
  fc.constant(''),
);
const route = fc.constantFrom(
  ['GET', '/'],
  ['GET', '/ui/launch'],
  ['GET', '/ui/deliveries'],
  ['GET', '/getallproviders'],
  ['GET', '/getallgamesandprovider'],
  ['GET', '/casino/getallgamesandprovider'],
  ['GET', '/play/'],
  ['GET', '/assets/games/'],
  ['GET', '/__admin/deliveries'],
  ['GET', '/__admin/deliveries/'],
  ['GET', '/__admin/discrepancies'],
  ['POST', '/getgameurl'],
  ['POST', '/casino/getgameurl'],
  ['POST', '/ui/launch'],
  ['POST', '/play/x/spin'],
  ['POST', '/__admin/events'],
  ['POST', '/__admin/scenarios/'],
  ['POST', '/__admin/deliveries/1/replay'],
  ['POST', '/__admin/deliveries/'],
  ['PUT', '/__admin/events'],
  ['DELETE', '/getgameurl'],
);
const request = fc.record({
  route,
  suffix: fc.oneof(
    fc.constant(''),
    text.map((t) => encodeURIComponent(t)),
  ),
  query: fc.array(fc.tuple(fc.constantFrom('provider', 'gameId', 'player', 'status', 'limit', 'before', 'wait', 'q'), text), {
    maxLength: 3,
  }),
  body,
  contentType: fc.constantFrom('application/json', 'text/plain', 'application/x-www-form-urlencoded', ''),
  origin: fc.constantFrom(undefined, 'http://localhost', 'http://evil.invalid', 'null'),
  auth: fc.boolean(),
});

describe('hostile input: 0 responses with status 5xx', () => {
  it(`every HTTP route, ${RUNS} generated requests; refused ones store nothing`, async () => {
    const statuses = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(request, async (r) => {
        const [method, path] = r.route as [string, string];
        const url = `http://localhost${path}${r.suffix}${r.query.length ? `?${new URLSearchParams(r.query)}` : ''}`;
        const headers: Record<string, string> = {};
        if (r.contentType) headers['content-type'] = r.contentType;
        if (r.origin) headers.origin = r.origin;
        if (r.auth) headers['x-betnex-key'] = 'aggmock-dev-key';
        const before = { outbox: outboxSize(), sessions: sessions.size };
        const res = await app.request(url, { method, headers, ...(method === 'GET' ? {} : { body: r.body }) });
        await res.arrayBuffer();
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        expect(res.status, `${method} ${url}`).toBeLessThan(500);
        if (res.status >= 400) {
          expect(outboxSize()).toEqual(before.outbox);
          expect(sessions.size).toBe(before.sessions);
        }
      }),
      { numRuns: RUNS },
    );
    // The inputs reached the routes' own checks, not only the 404 handler.
    for (const status of [200, 400, 403, 415]) expect(statuses.get(status) ?? 0, `saw ${status}`).toBeGreaterThan(0);
  }, 600_000);
});

describe('hostile configuration: a ConfigError naming the key, never a crash', () => {
  const dir = mkdtempSync(join(tmpdir(), 'aggmock-fuzz-config-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const acceptable = (error: unknown) => error instanceof ConfigError;

  const configish = fc.record(
    {
      port: value,
      host: value,
      seed: value,
      limits: fc.oneof(value, fc.record({ bodyBytes: value, rateLimit: value }, { requiredKeys: [] })),
      launch: fc.oneof(value, fc.record({ expiresIn: value, maxSessions: value }, { requiredKeys: [] })),
      callbacks: fc.oneof(
        value,
        fc.record({ webhookUrl: value, allowedUrls: value, retrySchedule: value, timeout: value }, { requiredKeys: [] }),
      ),
      admin: fc.oneof(value, fc.record({ token: value }, { requiredKeys: [] })),
      schedule: value,
    },
    { requiredKeys: [] },
  );

  it(`config files (${SIDE_RUNS} generated)`, () => {
    fc.assert(
      fc.property(
        fc.oneof(
          configish.map((c) => JSON.stringify(c)),
          fc.string({ unit: 'binary', maxLength: 200 }),
        ),
        (content) => {
          const file = join(dir, 'aggmock.config.json');
          writeFileSync(file, content);
          try {
            loadConfig({ configPath: file, env: {} });
          } catch (error) {
            expect(acceptable(error), String(error)).toBe(true);
          }
        },
      ),
      { numRuns: SIDE_RUNS },
    );
  });

  it(`env (${SIDE_RUNS} generated)`, () => {
    const names = fc.constantFrom(
      'AGGMOCK_PORT',
      'AGGMOCK_HOST',
      'AGGMOCK_ADMIN_TOKEN',
      'AGGMOCK_CALLBACKS__ALLOWED_URLS',
      'AGGMOCK_CALLBACKS__TIME_SCALE',
      'AGGMOCK_LAUNCH__MAX_SESSIONS',
      'AGGMOCK_LIMITS__BODY_BYTES',
      'AGGMOCK_SCHEDULE',
      'AGGMOCK_',
      'AGGMOCK___',
    );
    fc.assert(
      fc.property(fc.dictionary(names, text, { maxKeys: 4 }), (env) => {
        try {
          loadConfig({ env, cwd: dir });
        } catch (error) {
          expect(acceptable(error), String(error)).toBe(true);
        }
      }),
      { numRuns: SIDE_RUNS },
    );
  });

  it(`CLI flags (${SIDE_RUNS} generated)`, () => {
    fc.assert(
      fc.property(text, text, (port, schedule) => {
        try {
          loadConfig({ env: {}, cwd: dir, flags: { port: parsePort(port) } });
        } catch (error) {
          expect(error instanceof InvalidArgumentError || acceptable(error), String(error)).toBe(true);
        }
        try {
          parseScheduleFlag(schedule);
        } catch (error) {
          expect(error instanceof ScheduleFlagError, String(error)).toBe(true);
        }
      }),
      { numRuns: SIDE_RUNS },
    );
  });
});
