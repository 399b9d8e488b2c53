import type { IncomingMessage, ServerResponse } from 'node:http';
import { acceptedAuth } from '../auth/index.ts';
import type { Catalog } from '../catalog/index.ts';
import { type AggmockConfig, routePath } from '../config/index.ts';
import { readRequestBody } from '../http/body.ts';
import { isCrossSiteRequest } from '../http/same-origin.ts';
import type { LaunchSessions } from '../launch/sessions.ts';
import type { FaultRules, RequestFacts, RequestJournal } from '../requests/index.ts';
import type { Intercept } from '../server.ts';
import { applyFault, factsOf } from './faults.ts';
import { JournaledResponse, journalRecorder, latencyOf, watch } from './journaling.ts';

export interface ClientFaultsDeps {
  config: AggmockConfig;
  catalog: Catalog;
  sessions: LaunchSessions;
  rules: FaultRules;
  journal: RequestJournal;
  /** The app's own fetch: a fault that bends the real reply (cut, drip, malformed, expired link) renders it through it. */
  fetch: (request: Request, env: { incoming: IncomingMessage; outgoing: ServerResponse }) => Response | Promise<Response>;
  now?: () => number;
  /** The facts of a vendor operator route (its own field names), or undefined for any other request. */
  requestFacts?:
    | ((method: string, path: string, query: string, body: Buffer | undefined) => RequestFacts | undefined)
    | undefined;
}

/**
 * What the integrator's client meets on the aggregator API, in the Node listener before the fast
 * path and Hono (this file wires the two halves: journaling.ts and faults.ts): every request is journaled (credentials masked, bodies bounded, the auth verdict
 * and the reply), and a fault rule that fires bends or replaces the reply. With no rule set, a
 * GET costs a look at its path, a few fields set on its response ({@link JournaledResponse}, which
 * the server creates for every request and which counts what is written in those fields), one
 * shared 'close' listener, and at the close its entry (built from parts reused while a client
 * repeats them) pushed onto the journal's queue, written at the next batch; a POST's body is read
 * here once and handed on as `req.rawBody`.
 * aggmock's own pages, assets and admin API are neither journaled nor faulted.
 *
 * @example listen(app, { port, host, fastPath, intercept: clientFaults({ config, catalog, sessions, rules, journal, fetch: app.fetch }) })
 */
export function clientFaults(deps: ClientFaultsDeps): Intercept {
  const { config, rules, journal } = deps;
  const now = deps.now ?? Date.now;
  const maxBody = config.limits.bodyBytes;
  const recorder = config.api.journal ? journalRecorder(config, journal, now) : undefined;

  const intercept: Intercept = (req, res, proceed) => {
    // Journal off and no rule set: nothing to do, not even a look at the path.
    if (recorder === undefined && rules.size === 0) return proceed();
    const target = req.url ?? '/';
    if (isOwnPath(target)) return proceed();
    const method = req.method ?? 'GET';
    const q = target.indexOf('?');
    const watched = recorder ? watch(res, target, q, now()) : undefined;
    if (watched) watched.on('close', (recorder as NonNullable<typeof recorder>).onClose);
    const withBody = hasReadableBody(req, method, maxBody);
    if (!withBody && rules.size === 0) return proceed();

    const decide = (body: Buffer | undefined) => {
      if (rules.size === 0) return proceed();
      // Another site's web page is not the client under test: it neither meets nor spends a rule (L-6).
      if (isCrossSiteRequest(req.headers)) return proceed();
      const route = routePath(q < 0 ? target : target.slice(0, q));
      if (!rules.mayMatch(method, route)) return proceed();
      const vendorFacts = deps.requestFacts?.(method, route, q < 0 ? '' : target.slice(q + 1), body);
      const fired = rules.fire(vendorFacts ?? factsOf(deps.catalog, method, route, target, q, body));
      if (!fired) return proceed();
      if (watched && recorder) {
        watched.fired = fired;
        // On record at once, as it stands: a test that counts right after its client gave up on a
        // held call finds it, before aggmock has seen the connection close.
        watched.held = journal.appendHeld(recorder.entryOf(watched, null, acceptedAuth(req), latencyOf(watched)));
      }
      applyFault(deps, fired, req, res, body, proceed);
    };

    if (withBody) {
      readRequestBody(req, (read) => {
        if (read === undefined) return; // The client went away mid-body: nothing to answer.
        if (watched) watched.requestBody = read;
        (req as IncomingMessage & { rawBody?: Buffer }).rawBody = read;
        decide(read);
      });
      return;
    }
    decide(undefined);
  };
  intercept.ServerResponse = JournaledResponse as unknown as typeof ServerResponse;
  return intercept;
}

/** aggmock's own surfaces: pages, assets, docs, health and the admin API are not the client's API calls. */
const OWN_PATHS = new Set(['/', '/openapi.json', '/health', '/favicon.ico']);
const OWN_PREFIXES = ['/?', '/__admin', '/assets/', '/play/', '/ui', '/docs'];

function isOwnPath(target: string): boolean {
  return OWN_PATHS.has(target) || OWN_PREFIXES.some((prefix) => target.startsWith(prefix));
}

/** A body this layer reads up front: declared with a length within the limit (anything else Hono reads and refuses as always). */
function hasReadableBody(req: IncomingMessage, method: string, maxBody: number): boolean {
  if (method === 'GET' || method === 'HEAD' || req.headers['transfer-encoding'] !== undefined) return false;
  const declared = Number(req.headers['content-length']);
  return declared > 0 && declared <= maxBody;
}
