import { createApp } from './app.ts';
import { type Catalog, loadCatalog as loadCatalogFrom } from './catalog/index.ts';
import type { AggmockConfig } from './config/index.ts';
import { LaunchSessions } from './launch/sessions.ts';
import { type Logger, silentLogger } from './log/index.ts';
import { listen, type RunningServer } from './server.ts';

/** Builds the catalog the config describes: generated from the seed, then the fixture applied. */
export function loadCatalog(config: AggmockConfig): Catalog {
  return loadCatalogFrom({ seed: config.seed, ...config.catalog });
}

export interface Aggmock extends RunningServer {
  catalog: Catalog;
  sessions: LaunchSessions;
}

/** Starts the aggregator: catalog, API, play pages, docs; resolves once it listens. */
export async function startAggmock(config: AggmockConfig, options: { logger?: Logger } = {}): Promise<Aggmock> {
  const logger = options.logger ?? silentLogger;
  const catalog = loadCatalog(config);
  const sessions = new LaunchSessions();
  let listenUrl: string | undefined;
  const app = createApp({
    config,
    catalog,
    sessions,
    listenUrl: () => listenUrl,
    onLaunch: (s) => logger.info({ session: s.id, player: s.playerId, game: s.gameId }, 'game launched'),
    onInternalError: (error, c) => logger.error({ err: error, path: c.req.path }, 'internal error'),
  });
  const server = await listen(app, { port: config.port, host: config.host });
  listenUrl = server.url;
  return { ...server, catalog, sessions };
}
