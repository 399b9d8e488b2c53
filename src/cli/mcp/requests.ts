import { requestMatcherSchema, requestsQuerySchema } from '../../admin/schemas.ts';
import { API_ROUTES, FAULT_KINDS, faultRuleSchema } from '../../config/index.ts';
import { callAggmock } from './client.ts';
import { faultRuleTools, type ToolDefinition, tool } from './define.ts';

/**
 * The MCP tools for the integrator's client as aggmock sees it: fault rules on the aggregator API
 * (`/__admin/faults`) and the journal of every request the client made (`/__admin/requests`). Their
 * input schemas are the admin API's own (faultRuleSchema, requestMatcherSchema, requestsQuerySchema)
 * with a description per field for the agent, so the tool and the API cannot drift apart; the API
 * then judges the whole rule (the checks that span fields, such as `times` with `nth`).
 */

const routes = API_ROUTES.map((r) => `${r.method} ${r.path}`).join(', ');
const matcher = requestMatcherSchema.shape;
const query = requestsQuerySchema.shape;

export const REQUEST_TOOLS: ToolDefinition[] = [
  ...faultRuleTools({
    path: '/__admin/faults',
    names: ['add_fault', 'list_faults', 'clear_faults'],
    titles: ['Add a fault to the aggregator API', 'List the fault rules', 'Remove fault rules'],
    target: 'request',
    listedOn: 'the aggregator API',
    noun: 'fault rule',
    addDescription: `Make aggmock's aggregator API misbehave for the client under test (POST /__admin/faults), not the wallet: the requests a rule matches (${routes}, also under /casino) get its fault instead of, or on top of, the real reply. Faults: delay (ms, or uniform {min, max}, or lognormal {median, sigma}), status (an HTTP error with the API's JSON body, optional retryAfter), empty (the connection closes without a reply), reset (TCP reset), cut (the real reply cut after afterBytes), drip (the real reply a few bytes at a time), timeout (no reply until the client gives up), malformed (a body that is not JSON), expired-link (a launch whose link has already expired, POST /getgameurl only), used-link (a launch whose link was already used, POST /getgameurl only), maintenance (503: the provider the request names, or the whole API). By default a rule fires on every matching request; one of times, nth or probability (seeded by the config seed and the rule's id or definition: the same each run) limits it. The first rule added that matches wins. Answers the rule with its id (for clear_faults); list_faults shows how often each matched and fired, count_requests and list_requests what the client sent.`,
    rule: faultRuleSchema.shape,
    match: `which requests the rule applies to (default: every request). method: GET or POST; path: one of ${API_ROUTES.map((r) => r.path).join(', ')}, or a route of the vendor operator API (info shows its base URL; body then matches the vendor's field names); provider: a provider code or name from list_providers (stored as its code; an unknown one is refused); game: a launch's gameId; player: a launch's username; body: JSON body fields by dotted path, each equal to the value given, e.g. {"currency": "EUR"}`,
    fault: `what goes wrong: {"kind": one of ${FAULT_KINDS.join(', ')}, …its fields}, e.g. {"kind": "status", "status": 503}, {"kind": "delay", "ms": "2s"}, {"kind": "cut", "afterBytes": 10}`,
  }),

  tool({
    name: 'list_requests',
    title: "List the client's requests",
    description: `The requests the client under test made to the aggregator API (${routes}), newest first (GET /__admin/requests): method, path, query, headers and body (credentials masked, bodies cut at a few KiB), how its credentials were judged, the status and reply aggmock sent, the fault rule that fired, and for a refused request the hint (the nearest route, the field that failed).`,
    inputSchema: {
      path: query.path.describe('only this route, e.g. /getgameurl'),
      method: query.method.describe('only this HTTP method, e.g. POST'),
      status: query.status.describe('only requests answered with this HTTP status, e.g. 401'),
      limit: query.limit.unwrap().default(20).describe('at most this many (1 to 1000, default 20)'),
      before: query.before.describe('paging: only requests with a smaller id (the answer’s nextBefore)'),
    },
    readOnly: true,
    run: async (args, target) => callAggmock(target, { method: 'GET', path: '/__admin/requests', admin: true, query: args }),
  }),

  tool({
    name: 'count_requests',
    title: "Count the client's requests",
    description:
      'How many requests the client made to the aggregator API that match every field given (POST /__admin/requests/count), e.g. "did my client launch exactly once in EUR?": {"method": "POST", "path": "/getgameurl", "body": {"currency": "EUR"}}. No field counts every request.',
    inputSchema: {
      method: matcher.method.describe('the HTTP method, e.g. POST'),
      path: matcher.path.describe('the route, with or without /casino, e.g. /getgameurl'),
      status: matcher.status.describe('the HTTP status aggmock answered, e.g. 200'),
      query: matcher.query.describe('query parameters, each equal to the value given, e.g. {"provider": "PGSOFT"}'),
      body: matcher.body.describe('JSON body fields by dotted path, each equal to the value given, e.g. {"username": "p1"}'),
      headers: matcher.headers.describe('request headers (name in any case), each equal to the value given'),
      faultRule: matcher.faultRule.describe('the id of the fault rule that fired on the request'),
      authOk: matcher.authOk.describe('whether its credentials were accepted'),
      crossSite: matcher.crossSite.describe(
        "true: only requests a web page of another site sent (left out, they are not counted: they are not the client's)",
      ),
    },
    readOnly: true,
    run: async (args, target) =>
      callAggmock(target, { method: 'POST', path: '/__admin/requests/count', admin: true, body: args }),
  }),

  tool({
    name: 'clear_requests',
    title: "Forget the client's requests",
    description:
      'Empty the journal of the client’s requests (DELETE /__admin/requests), so the next count_requests counts only what the client does from now on.',
    inputSchema: {},
    readOnly: false,
    run: async (_args, target) => callAggmock(target, { method: 'DELETE', path: '/__admin/requests', admin: true }),
  }),
];
