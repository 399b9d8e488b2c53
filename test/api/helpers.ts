import { createApp } from '../../src/app.ts';
import type { Catalog } from '../../src/catalog/index.ts';
import { type AggmockConfigInput, validateConfig } from '../../src/config/index.ts';
import { LaunchSessions } from '../../src/launch/sessions.ts';
import { type Aggmock, loadCatalog, startAggmock } from '../../src/runtime.ts';

export const DEV_KEY_HEADERS = { 'x-betnex-key': 'aggmock-dev-key' };

const catalogs = new Map<string, Catalog>();

/** A running aggmock on a free port over a small in-memory catalog, its callbacks configured by `callbacks`. */
export function startSmallAggmock(callbacks: AggmockConfigInput['callbacks']): Promise<Aggmock> {
  return startAggmock(validateConfig({ port: 0, db: ':memory:', catalog: { providers: 2, games: 10 }, callbacks }));
}

/** An app over a small catalog, with an injectable clock; `app.request()` needs no port. */
export function testApp(overrides: AggmockConfigInput = {}, clock = { now: Date.now() }) {
  const config = validateConfig({ catalog: { providers: 12, games: 240 }, db: ':memory:', ...overrides });
  const key = JSON.stringify([config.seed, config.catalog]);
  let catalog = catalogs.get(key);
  if (!catalog) {
    catalog = loadCatalog(config);
    catalogs.set(key, catalog);
  }
  const now = () => clock.now;
  const sessions = new LaunchSessions(now);
  const app = createApp({ config, catalog, sessions, now });
  return { app, config, catalog, sessions, clock };
}

export async function json(res: Response): Promise<Record<string, unknown>> {
  const text = await res.text();
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw new Error(`expected a JSON body, got ${res.status} ${res.headers.get('content-type')}: ${text.slice(0, 200)}`);
  }
}

/** Every error, whatever the route: JSON with success:false, a non-zero code, msg and message. */
export function expectApiError(body: Record<string, unknown>, status: number): void {
  if (body.success !== false) throw new Error(`expected success:false, got ${JSON.stringify(body)}`);
  if (body.code !== status) throw new Error(`expected code ${status}, got ${JSON.stringify(body.code)}`);
  if (typeof body.msg !== 'string' || body.msg.length === 0) throw new Error('expected a msg');
  if (body.message !== body.msg) throw new Error('expected message to repeat msg');
}
