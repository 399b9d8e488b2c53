/**
 * The OpenAPI documents of the aggregator and admin APIs, the offline docs page, and writing
 * contracts/openapi.json. A surface: it may import app.ts and the other surfaces' schemas; no
 * engine or foundation module may import it.
 */
import { createAdminRoutes } from '../admin/index.ts';
import { ADMIN_PREFIX } from '../admin/kit.ts';
import { createApp, openApiDocument } from '../app.ts';
import { createCallbackEngine, openDatabase } from '../callbacks/index.ts';
import { generateCatalog } from '../catalog/index.ts';
import { type AggmockConfig, defaultConfig } from '../config/index.ts';
import { createShadowLedger } from '../ledger/index.ts';
import { FaultRules, RequestJournal } from '../requests/index.ts';

/** Where the committed copy of the document lives. */
export const OPENAPI_PATH = new URL('../../contracts/openapi.json', import.meta.url);

/**
 * The OpenAPI 3.1 document for a configuration (header names and auth depend on it), generated
 * from the zod schemas the routes validate with: the app a server runs, with the admin API
 * mounted as the runtime mounts it (over an empty in-memory store no request reaches). The catalog
 * does not change the document.
 */
export function buildOpenApiDocument(config: AggmockConfig = defaultConfig()) {
  const catalog = generateCatalog({ seed: config.seed, providers: 1, games: 0 });
  const db = openDatabase(':memory:');
  const engine = createCallbackEngine({ config, db });
  const ledger = createShadowLedger({ engine, db });
  try {
    const journal = new RequestJournal(db, { retention: config.callbacks.retention });
    const rules = new FaultRules({ seed: config.seed });
    const admin = createAdminRoutes({ engine, ledger, config, rules, journal });
    return openApiDocument(createApp({ config, catalog, mounts: { [ADMIN_PREFIX]: admin } }), config);
  } finally {
    ledger.close();
    db.close();
  }
}

/** The document as committed: stable key order, two-space indent, trailing newline. */
export function renderOpenApiDocument(config?: AggmockConfig): string {
  return `${JSON.stringify(buildOpenApiDocument(config), null, 2)}\n`;
}
