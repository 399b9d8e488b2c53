import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { exposureRefusal } from './admin/exposure.ts';
import { createAdminRoutes } from './admin/index.ts';
import { clientFaults } from './aggregator/client-faults.ts';
import { aggregatorFastPath } from './aggregator/fast-path.ts';
import { configuredOperatorApi, vendorFactsOf } from './aggregator/vendor/index.ts';
import { createApp, launchCallbackUrls, publicBaseUrl } from './app.ts';
import type { CallbackFaultRuleState } from './callbacks/faults.ts';
import {
  type CallbackEngine,
  createCallbackEngine,
  openDatabase,
  readingOf,
  type StoredEvent,
  seededRandom,
} from './callbacks/index.ts';
import type { TransportFactory } from './callbacks/proxy.ts';
import { type Catalog, createCatalog, findProvider } from './catalog/index.ts';
import { type AggmockConfig, type CallbackFaultRuleInput, ConfigError, type FaultRuleInput } from './config/index.ts';
import { operatorRoutePaths } from './dialects/builtin/operator/index.ts';
import { exposureOf } from './http/exposure.ts';
import { AwardStore, FreeRoundAwards } from './launch/index.ts';
import { type LaunchSession, LaunchSessions } from './launch/sessions.ts';
import { createShadowLedger, type Discrepancy, type ShadowLedger } from './ledger/index.ts';
import { type Logger, silentLogger } from './log/index.ts';
import {
  FaultRuleError,
  type FaultRuleState,
  FaultRules,
  type JournaledRequest,
  type RequestFilter,
  RequestJournal,
  type RequestMatcher,
} from './requests/index.ts';
import { wireParamsOf } from './scenarios/plan.ts';
import { createScheduler, type ScheduledRun, type Scheduler } from './schedule/index.ts';
import { listen, type RunningServer } from './server.ts';
import type { Database } from './storage/index.ts';

/** Builds the catalog the config describes: generated from the seed, then the fixture applied. */
export function loadCatalog(config: AggmockConfig): Catalog {
  return createCatalog({ seed: config.seed, ...config.catalog });
}

/**
 * The API's fault rules, the config's `api.faults` first, each rule's provider resolved through
 * the catalog (a name as the listing's query takes it). A config rule the book refuses (an unknown
 * provider, a duplicate id) is a {@link ConfigError} naming its key, `api.faults.0.match.provider`.
 */
export function apiFaultRules(config: AggmockConfig, catalog: Catalog): FaultRules {
  const providers = {
    codeOf: (query: string) => findProvider(catalog, query)?.code,
    codes: catalog.providers.map((p) => p.code),
  };
  try {
    const api = configuredOperatorApi(config);
    return new FaultRules({
      seed: config.seed,
      rules: config.api.faults,
      providers,
      operatorPaths: api ? operatorRoutePaths(api) : undefined,
    });
  } catch (error) {
    if (!(error instanceof FaultRuleError) || error.issues.length === 0) throw error;
    const lines = error.issues.map(
      (i) => `  api.faults.${i.field}: ${i.message} (got ${i.received === undefined ? 'nothing' : JSON.stringify(i.received)})`,
    );
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
}

export interface Aggmock extends RunningServer {
  config: AggmockConfig;
  catalog: Catalog;
  sessions: LaunchSessions;
  engine: CallbackEngine;
  ledger: ShadowLedger;
  scheduler: Scheduler;
  db: Database;
  /** Fault rules on the aggregator API (the same book as `/__admin/faults`). */
  faults: FaultRuleBook<FaultRuleInput, FaultRuleState>;
  /** Fault rules on the callbacks aggmock sends (the same book as `/__admin/callback-faults`), e.g. `add({ match: { event: 'debit' }, fault: { kind: 'duplicate' }, times: 1 })`. */
  callbackFaults: FaultRuleBook<CallbackFaultRuleInput, CallbackFaultRuleState>;
  /** The journal of every request the client made to the aggregator API (the same as `/__admin/requests`). */
  requests: {
    /** Newest first. */
    list(filter?: RequestFilter): JournaledRequest[];
    /** How many journaled requests match, e.g. `count({ method: 'POST', path: '/getgameurl', body: { currency: 'EUR' } })`. */
    count(matcher?: RequestMatcher): number;
    clear(): void;
  };
}

/** A book of fault rules, as its admin routes change it. */
export interface FaultRuleBook<Input, State> {
  /** Adds a rule; a bad one throws naming the field. */
  add(rule: Input): State;
  list(): State[];
  remove(id: string): boolean;
  /** Removes every rule (config ones too); returns how many. */
  clear(): number;
}

export interface StartOptions {
  logger?: Logger;
  /** Every callback once it ends delivered, rejected or failed (the demo prints a line per callback). */
  onSettled?: (event: StoredEvent) => void;
  onDiscrepancy?: (discrepancy: Discrepancy) => void;
  onScheduledRun?: (run: ScheduledRun) => void;
  /** How long shutdown waits for callbacks in flight before leaving them in the outbox. */
  stopDeadlineMs?: number;
  /** How callbacks are sent (embedding, tests); default: direct, or through HTTP(S)_PROXY when set. */
  transport?: TransportFactory;
}

/**
 * Starts the aggregator: catalog, REST API, play pages, admin API, the callback engine over the
 * SQLite outbox (resuming what an earlier run left undelivered), the shadow ledger and the
 * schedule. Resolves once it listens; `close()` stops everything in the reverse order.
 */
export async function startAggmock(config: AggmockConfig, options: StartOptions = {}): Promise<Aggmock> {
  const logger = options.logger ?? silentLogger;
  const refusal = exposureRefusal(config);
  if (refusal) throw new Error(`aggmock will not start: ${refusal}`);
  const exposed = exposureOf(config);
  if (exposed)
    logger.warn({ exposure: exposed }, 'aggmock is exposed: the admin API, the launch form and spins need the admin token');
  const catalog = loadCatalog(config);
  const rules = apiFaultRules(config, catalog);
  if (config.db !== ':memory:') mkdirSync(dirname(config.db), { recursive: true });
  const db = openDatabase(config.db);
  let listenUrl: string | undefined;
  const callbackUrls = launchCallbackUrls(config, () => listenUrl);
  const engine = createCallbackEngine({
    config,
    db,
    logger,
    // Replays and events resumed after a restart are judged by today's policy before they go.
    urlRefusal: (url) => callbackUrls.refusal(url),
    ...(options.transport ? { transport: options.transport } : {}),
  });
  const ledger = createShadowLedger({
    engine,
    db,
    reading: readingOf(config.callbacks),
    retention: config.callbacks.retention,
  });
  const scheduler = createScheduler({
    entries: config.schedule,
    engine,
    random: seededRandom(`${config.seed}:schedule`),
    balances: () => ledger.knownBalances(),
    ...wireParamsOf(config.callbacks),
    onRun: (run) => {
      if (run.error) logger.warn({ entry: run.entry, scenario: run.scenario, error: run.error }, 'scheduled run did not finish');
      options.onScheduledRun?.(run);
    },
  });
  if (options.onSettled) engine.onSettled(options.onSettled);
  if (options.onDiscrepancy) ledger.onDiscrepancy(options.onDiscrepancy);
  ledger.onDiscrepancy((d) => logger.warn({ discrepancy: d }, 'shadow ledger discrepancy'));

  const journal = new RequestJournal(db, {
    retention: config.callbacks.retention,
    onError: (error) => logger.warn({ err: error }, 'could not journal a client request'),
  });
  // Free-round awards outlive a restart in the same file (the launch sessions do not).
  const awards = new FreeRoundAwards(undefined, {
    store: new AwardStore(db),
    onUnreadable: (award) =>
      logger.warn(
        { award: award.id, problem: award.problem },
        'a stored free-round award does not read: it is not played (create it again to replace it)',
      ),
  });
  const sessions = new LaunchSessions(undefined, awards);
  const onInternalError = (error: unknown) => logger.error({ err: error }, 'internal error');
  const onLaunch = (s: LaunchSession) => logger.info({ session: s.id, player: s.playerId, game: s.gameId }, 'game launched');
  const admin = createAdminRoutes({ engine, ledger, scheduler, catalog, config, onInternalError, rules, journal });
  const app = createApp({
    config,
    catalog,
    sessions,
    engine,
    random: seededRandom(`${config.seed}:play`),
    listenUrl: () => listenUrl,
    mounts: { '/__admin': admin },
    onLaunch,
    callbackUrls,
    onInternalError,
  });

  let server: RunningServer;
  try {
    const fastPath = aggregatorFastPath({
      config,
      catalog,
      sessions,
      callbackUrls,
      onLaunch,
      baseUrl: () => publicBaseUrl(config, listenUrl),
    });
    const intercept = clientFaults({
      config,
      catalog,
      sessions,
      rules,
      journal,
      requestFacts: vendorFactsOf(config, catalog),
      fetch: (request, env) => app.fetch(request, env),
    });
    server = await listen(app, { port: config.port, host: config.host, fastPath, intercept });
  } catch (error) {
    journal.close();
    ledger.close();
    db.close();
    throw error;
  }
  listenUrl = server.url;
  engine.start();
  scheduler.start();

  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      scheduler.stop();
      await engine.stop({ deadlineMs: options.stopDeadlineMs ?? 5_000 });
      await server.close();
      journal.close();
      ledger.close();
      db.close();
    })();
    return closing;
  };
  const faults = bookOf<FaultRuleInput, FaultRuleState>(rules);
  const callbackFaults = bookOf<CallbackFaultRuleInput, CallbackFaultRuleState>(engine.faults);
  const requests = {
    list: (filter?: RequestFilter) => journal.list(filter),
    count: (matcher?: RequestMatcher) => journal.count(matcher),
    clear: () => journal.clear(),
  };
  return { ...server, close, config, catalog, sessions, engine, ledger, scheduler, db, faults, callbackFaults, requests };
}

/** Only a rule book's four methods, as the running instance hands them out. */
function bookOf<Input, State>(book: FaultRuleBook<Input, State>): FaultRuleBook<Input, State> {
  return { add: (rule) => book.add(rule), list: () => book.list(), remove: (id) => book.remove(id), clear: () => book.clear() };
}
