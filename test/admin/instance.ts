import { createAdminRoutes } from '../../src/admin/index.ts';
import { createApp } from '../../src/app.ts';
import { createCallbackEngine, openDatabase } from '../../src/callbacks/index.ts';
import { generateCatalog } from '../../src/catalog/index.ts';
import { type AggmockConfigInput, validateConfig } from '../../src/config/index.ts';
import { createShadowLedger } from '../../src/ledger/index.ts';
import { FaultRules, RequestJournal } from '../../src/requests/index.ts';

const closers: (() => void)[] = [];

/** The app as the runtime composes it, over an in-memory store; the engine is not started (nothing is sent). */
export function instance(overrides: AggmockConfigInput = {}) {
  const config = validateConfig({ db: ':memory:', ...overrides });
  const db = openDatabase(':memory:');
  const engine = createCallbackEngine({ config, db });
  const ledger = createShadowLedger({ engine, db });
  const journal = new RequestJournal(db, { retention: config.callbacks.retention });
  const rules = new FaultRules({ seed: 1 });
  closers.push(() => {
    ledger.close();
    db.close();
  });
  const admin = createAdminRoutes({ engine, ledger, config, rules, journal });
  const catalog = generateCatalog({ seed: 1, providers: 1, games: 1 });
  const app = createApp({ config, catalog, mounts: { '/__admin': admin } });
  /** What the admin API holds: any change means a refused request did something. */
  const state = () => ({
    deliveries: engine.outbox.list({ limit: 1000 }).length,
    faults: rules.list().length,
    callbackFaults: engine.faults.list().length,
    requests: journal.count(),
  });
  return { app, engine, ledger, rules, journal, state };
}

/** Closes every instance made (afterAll). */
export function closeInstances(): void {
  for (const close of closers.splice(0)) close();
}
