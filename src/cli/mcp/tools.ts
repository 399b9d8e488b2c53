import { z } from 'zod';
import { MAX_ID_LENGTH, MAX_LIST_LENGTH, MAX_URL_LENGTH } from '../../http/limits.ts';
import { dialsLoopback } from '../../http/loopback.ts';
import { callbackUrlPolicy } from '../../launch/callback-url.ts';
import { SCENARIO_DESCRIPTIONS, SCENARIOS } from '../../scenarios/plan.ts';
import { maskedUrl } from '../../shared/secrets.ts';
import { SIGNING_SCHEMES } from '../../signing/index.ts';
import type { VerifyReport } from '../../verify/report.ts';
import { runVerifyCommand } from '../commands/verify.ts';
import { CALLBACK_FAULT_TOOLS } from './callback-faults.ts';
import { callAggmock, ToolError } from './client.ts';
import { amount, count, id, type ToolDefinition, tool } from './define.ts';
import { REQUEST_TOOLS } from './requests.ts';
import type { AggmockTarget } from './target.ts';
import { targetDialect, VENDOR_TOOLS } from './vendor.ts';

/** Games keep the fields an agent chooses by; the listing's image URLs and platforms are left out. */
interface Game {
  id: string;
  name: string;
  provider: string;
  type: string;
  rtp?: number;
  currencies?: string[];
}

/** How long a tool waits for what it sent to settle: `what` is what settles. */
function waitMs(what: string) {
  return z
    .number()
    .int()
    .min(0)
    .max(120_000)
    .default(30_000)
    .describe(`how long to wait for ${what} to settle (ms, default 30000); 0 answers at once`);
}

/** An admin request that waits up to `waitMs` for its events to settle (0: answers at once). */
function waiting(body: object, waitMs: number) {
  return { admin: true, body, query: waitMs > 0 ? { wait: true, timeout: waitMs } : {}, timeoutMs: waitMs + 10_000 };
}

/** run_verify's input: `aggmock verify`'s flags as an agent gives them. */
const VERIFY_INPUT = {
  webhookUrl: z
    .string()
    .max(MAX_URL_LENGTH)
    .describe('the webhook to check, e.g. http://127.0.0.1:3000/callback/webhook')
    .optional(),
  stateUrl: z
    .string()
    .max(MAX_URL_LENGTH)
    .describe('its provider-state endpoint, for exact balances (POST {state, params, action})')
    .optional(),
  players: z
    .array(id('a player id'))
    .min(1)
    .max(MAX_LIST_LENGTH)
    .describe('player ids the webhook knows, each with at least 100.00 (default p1, p2)')
    .optional(),
  secrets: z
    .array(z.string().min(1).max(512))
    .min(1)
    .max(8)
    .describe('HMAC secrets the webhook verifies with (default: callbacks.signing.secrets, aggmock-dev-secret)')
    .optional(),
  scheme: z.enum(SIGNING_SCHEMES).describe('signature scheme (default: callbacks.signing.scheme)').optional(),
  currency: z.string().max(8).describe("the players' currency (default: callbacks.currency)").optional(),
  only: z
    .array(z.string().min(1).max(64))
    .max(100)
    .describe('run only these check ids (also pact:<id>, "pact", "checks")')
    .optional(),
  skip: z.array(z.string().min(1).max(64)).max(100).describe('leave out these check ids').optional(),
  timeoutMs: z.number().int().min(1).max(120_000).describe('per-request timeout in ms (default 10000)').optional(),
  detail: z
    .enum(['failures', 'full'])
    .default('failures')
    .describe('failures (default): requests and replies of failed checks only; full: of every check'),
};
type VerifyArgs = z.infer<z.ZodObject<typeof VERIFY_INPUT>>;

export const TOOLS: ToolDefinition[] = [
  tool({
    name: 'info',
    title: 'Where aggmock runs',
    description:
      "The aggmock these tools drive: its URL, whether it was started by this MCP server (embedded) or reached by --url, the webhook its callbacks go to, its dialect (a --url instance's own, as it reports it) and, when the dialect has one, the vendor operator API's base URL and OpenAPI document (list_vendor_games, launch_vendor_game), and, when embedded, the reference wallet (its webhook URL, its state URL for run_verify and its players).",
    inputSchema: {},
    readOnly: true,
    run: async (_args, target) => {
      const { dialect, operatorApi } = await targetDialect(target);
      return {
        mode: target.mode,
        url: target.url,
        ui: `${target.url}/`,
        deliveriesPage: `${target.url}/ui/deliveries`,
        apiDocs: `${target.url}/docs`,
        dialect,
        // The older name of the same thing, kept for agents that read it.
        profile: dialect,
        ...(operatorApi
          ? { operatorApi: { baseUrl: `${target.url}${operatorApi.basePath}`, openapi: `${target.url}${operatorApi.openapi}` } }
          : {}),
        ...(target.mode === 'embedded' ? { webhookUrl: maskedUrl(target.config.callbacks.webhookUrl) } : {}),
        ...(target.wallet ? { referenceWallet: target.wallet } : {}),
      };
    },
  }),

  tool({
    name: 'list_providers',
    title: 'List game providers',
    description: 'Every provider of the catalog (GET /getallproviders): code, name, status and number of games.',
    inputSchema: {},
    readOnly: true,
    run: async (_args, target) => {
      const answer = (await callAggmock(target, { method: 'GET', path: '/getallproviders' })) as {
        data?: { code: string; name: string; status: string; totalGames: number }[];
      };
      return {
        providers: (answer.data ?? []).map(({ code, name, status, totalGames }) => ({ code, name, status, totalGames })),
      };
    },
  }),

  tool({
    name: 'list_games',
    title: 'List games',
    description:
      'Games of the catalog (GET /getallgamesandprovider), optionally of one provider and filtered by name: id (for launch_game), name, provider, type, RTP and the currencies it launches in.',
    inputSchema: {
      provider: id(
        'a provider code or name',
        'a provider code or name from list_providers, e.g. PRAGMATICPLAY or "Pragmatic Play"',
      ).optional(),
      search: z.string().max(MAX_ID_LENGTH).describe('keep only games whose name contains this text (any case)').optional(),
      limit: count(1, 500, 20, 'at most this many games (1 to 500, default 20)'),
      offset: count(0, 1_000_000, 0, 'skip this many games first (paging)'),
    },
    readOnly: true,
    run: async ({ provider, search, limit, offset }, target) => {
      const answer = (await callAggmock(target, {
        method: 'GET',
        path: '/getallgamesandprovider',
        query: { provider },
      })) as { games?: Game[]; providers?: { games: Game[] }[] };
      const all = answer.games ?? (answer.providers ?? []).flatMap((p) => p.games);
      const wanted = search?.trim().toLowerCase();
      const matching = wanted ? all.filter((g) => g.name.toLowerCase().includes(wanted)) : all;
      return {
        total: matching.length,
        offset,
        games: matching.slice(offset, offset + limit).map(({ id: gameId, name, provider: code, type, rtp, currencies }) => ({
          id: gameId,
          name,
          provider: code,
          type,
          rtp,
          currencies,
        })),
      };
    },
  }),

  tool({
    name: 'launch_game',
    title: 'Launch a game',
    description:
      "Launch a game for a player (POST /getgameurl, the body's field names as the API has them). Answers the launch URL: its play page's spins send DEBIT and CREDIT callbacks to the wallet (or to callback_url).",
    inputSchema: {
      username: id('the player id', 'the player id; callbacks carry it as playerId, e.g. p1'),
      gameId: z.string().max(64).describe('a 32-character hex game id from list_games'),
      money: amount('the balance at launch'),
      platform: z
        .union([z.literal(1), z.literal(2)])
        .default(1)
        .describe('1 = desktop, 2 = mobile'),
      home_url: z
        .string()
        .max(MAX_URL_LENGTH)
        .default('https://example.com')
        .describe('where the game returns to: an absolute http(s) URL'),
      currency: z.string().max(8).describe('an ISO 4217 code the game lists, e.g. EUR (default: callbacks.currency)').optional(),
      lang: z.string().max(8).describe('a language code such as en or pt-BR').optional(),
      callback_url: z
        .string()
        .max(MAX_URL_LENGTH)
        .describe(
          "send this session's callbacks here instead of the configured webhook; must match callbacks.allowedUrls (default: loopback addresses, localhost and the webhook's origin)",
        )
        .optional(),
    },
    readOnly: false,
    run: async (args, target) => {
      const answer = (await callAggmock(target, { method: 'POST', path: '/getgameurl', body: args })) as { payload?: unknown };
      return answer.payload ?? answer;
    },
  }),

  tool({
    name: 'send_event',
    title: 'Send a callback',
    description:
      'Send one signed DEBIT, CREDIT or ROLLBACK to the configured wallet webhook (POST /__admin/events) and wait until it is delivered, rejected or failed: answers the stored event with the wallet’s reply and the attempts made.',
    inputSchema: {
      type: z.string().min(1).max(32).describe('debit, credit or rollback (any case), or a configured type string such as BET'),
      playerId: id('the player id', 'the player id, e.g. p1'),
      amount: amount('the amount (a rollback may leave it out: the DEBIT’s amount is used)').optional(),
      transactionId: id(
        'a transactionId',
        'the transactionId (default: the next id of the seeded sequence); repeat one to test idempotency',
      ).optional(),
      referenceTransactionId: id(
        'the DEBIT’s transactionId',
        'rollback only: the transactionId of the DEBIT to reverse',
      ).optional(),
      win: amount('a whole round: the win sent in the same callback as this DEBIT (profiles with bet and win fields)').optional(),
      currency: z.string().max(8).describe('the currency code (default: callbacks.currency)').optional(),
      waitMs: waitMs('the event'),
    },
    readOnly: false,
    run: async ({ waitMs, ...body }, target) =>
      callAggmock(target, { method: 'POST', path: '/__admin/events', ...waiting(body, waitMs) }),
  }),

  tool({
    name: 'run_scenario',
    title: 'Run a scenario',
    description: `Run one scenario of callbacks (POST /__admin/scenarios/<name>/run) and wait until its events settle. The scenarios:\n${SCENARIOS.map((s) => `- ${s}: ${SCENARIO_DESCRIPTIONS[s]}`).join('\n')}`,
    inputSchema: {
      name: z.enum(SCENARIOS).describe('the scenario'),
      players: z
        .array(id('a player id'))
        .min(1)
        .max(MAX_LIST_LENGTH)
        .describe('players to pick from (default p1, p2, p3)')
        .optional(),
      amount: z
        .union([z.number().positive(), z.object({ min: z.number().positive(), max: z.number().positive() })])
        .describe('a fixed bet in major units, such as 5, or a range {"min": 1, "max": 20} (the default)')
        .optional(),
      size: z.number().int().min(1).max(10_000).describe('burst: parallel bets; session and free-spins: spins').optional(),
      rtp: z.number().min(0).max(1).describe('session: the share of bets paid back, e.g. 0.96').optional(),
      waitMs: waitMs('its events'),
    },
    readOnly: false,
    run: async ({ name, waitMs, ...body }, target) =>
      callAggmock(target, { method: 'POST', path: `/__admin/scenarios/${name}/run`, ...waiting(body, waitMs) }),
  }),

  tool({
    name: 'list_deliveries',
    title: 'List deliveries',
    description:
      'Callbacks aggmock sent, newest first (GET /__admin/deliveries): type, player, amount, status (pending, delivered, rejected, failed), the wallet’s last reply. get_delivery shows one with every attempt.',
    inputSchema: {
      player: id('a player id', 'only this player').optional(),
      type: z.string().min(1).max(32).describe('only debit, credit or rollback').optional(),
      status: z.enum(['pending', 'delivered', 'rejected', 'failed']).describe('only this status').optional(),
      group: id('a scenario group', 'only the events of one scenario run (its group)').optional(),
      limit: z.number().int().min(1).max(1000).default(20).describe('at most this many (default 20)'),
      before: z
        .number()
        .int()
        .positive()
        .describe('paging: only deliveries with a smaller id (the answer’s nextBefore)')
        .optional(),
    },
    readOnly: true,
    run: async (query, target) => callAggmock(target, { method: 'GET', path: '/__admin/deliveries', admin: true, query }),
  }),

  tool({
    name: 'get_delivery',
    title: 'Show one delivery',
    description:
      'One callback with every attempt (GET /__admin/deliveries/<id>): the exact request headers (signature included) and body, the reply, the latency, the error.',
    inputSchema: { id: z.number().int().positive().describe('the delivery id from list_deliveries or send_event') },
    readOnly: true,
    run: async ({ id: deliveryId }, target) =>
      callAggmock(target, { method: 'GET', path: `/__admin/deliveries/${deliveryId}`, admin: true }),
  }),

  tool({
    name: 'list_discrepancies',
    title: 'List shadow-ledger discrepancies',
    description:
      'What the shadow ledger found wrong in the wallet’s replies (GET /__admin/discrepancies): double-debit, rollback-not-restored, balance-drift, … with expected and actual balances and the events that show it; and the last known balance of each player (GET /__admin/ledger).',
    inputSchema: {
      player: id('a player id', 'only this player').optional(),
      kind: z.string().min(1).max(64).describe('only this kind, e.g. double-debit').optional(),
      group: id('a scenario group', 'only the events of one scenario run (its group)').optional(),
      limit: z.number().int().min(1).max(1000).default(20).describe('at most this many (default 20)'),
    },
    readOnly: true,
    run: async (query, target) => {
      const found = (await callAggmock(target, { method: 'GET', path: '/__admin/discrepancies', admin: true, query })) as object;
      const ledger = (await callAggmock(target, { method: 'GET', path: '/__admin/ledger', admin: true })) as {
        balances?: unknown;
      };
      return { ...found, balances: ledger.balances };
    },
  }),

  tool({
    name: 'run_verify',
    title: 'Verify a wallet webhook',
    description:
      'Run `aggmock verify` against a wallet webhook: the Pact contracts, then the stateful checks (idempotency, rollbacks, races, signatures, cents, latency). Answers the report as JSON: the summary and each check with its rule, status (pass, fail, skip, or blocked by the firstCause the preflight found: wallet down or silent, signature refused, unknown player…) and reason; a failed check also carries its hint and every request and reply. The webhook and state URLs must be on the configured webhook’s origin (callbacks.webhookUrl) or the embedded reference wallet, or listed in callbacks.allowedUrls. Without webhookUrl, the embedded reference wallet is verified.',
    inputSchema: VERIFY_INPUT,
    readOnly: false,
    run: async (args, target) => verify(args, target),
  }),

  ...VENDOR_TOOLS,
  ...REQUEST_TOOLS,
  ...CALLBACK_FAULT_TOOLS,
];

/** `aggmock verify` through its own command code, its signed requests kept to the URLs aggmock may sign for. */
async function verify(args: VerifyArgs, target: AggmockTarget): Promise<unknown> {
  const webhookUrl = args.webhookUrl ?? target.wallet?.webhookUrl;
  if (webhookUrl === undefined) {
    throw new ToolError(
      'webhookUrl: expected the URL of the wallet webhook to verify, e.g. http://127.0.0.1:3000/callback/webhook.',
    );
  }
  const stateUrl = args.stateUrl ?? (args.webhookUrl === undefined ? target.wallet?.stateUrl : undefined);
  // The same policy as a launch's callback_url: signed requests go only where aggmock may send callbacks.
  const policy = callbackUrlPolicy({ callbacks: target.config.callbacks });
  // aggmock itself is never a target: its URL, and its port under any loopback name (localhost, [::1]).
  const own = new URL(target.url);
  const self = { origins: [target.url], ...(dialsLoopback(own.hostname) ? { port: Number(own.port) } : {}) };
  for (const [field, url] of [
    ['webhookUrl', webhookUrl],
    ['stateUrl', stateUrl],
  ] as const) {
    if (url === undefined) continue;
    const refusal = policy.refusal(url, self) ?? beyondVerifyReach(url, target);
    if (refusal) throw new ToolError(`${field}: ${refusal}, got ${JSON.stringify(url)}.`);
  }
  const notes: string[] = [];
  const outcome = await runVerifyCommand(
    webhookUrl,
    {
      reports: false,
      ...(stateUrl ? { stateUrl } : {}),
      ...(args.players ? { players: args.players.join(',') } : {}),
      ...(args.secrets ? { secret: args.secrets } : {}),
      ...(args.scheme ? { scheme: args.scheme } : {}),
      ...(args.currency ? { currency: args.currency } : {}),
      ...(args.only ? { only: args.only.join(',') } : {}),
      ...(args.skip ? { skip: args.skip.join(',') } : {}),
      ...(args.timeoutMs === undefined ? {} : { timeout: String(args.timeoutMs) }),
    },
    { stdout: () => {}, stderr: (text) => notes.push(text.trim()), color: false },
    target.config,
  );
  // A usage problem (a bad value, a state URL that does not answer): verify ran nothing. A webhook that is down is a first cause in the report.
  if (!outcome.report) throw new ToolError(`verify did not run: ${outcome.error ?? notes.join('\n')}`);
  return { exitCode: outcome.exitCode, ...trimReport(outcome.report, args.detail) };
}

/**
 * Why run_verify may not reach `url`, or undefined when it may. An agent (maybe prompt-injected)
 * must not read other local services' replies through verify's report, so it reaches only the
 * configured webhook's origin, the embedded reference wallet, and what the user listed in
 * `callbacks.allowedUrls` — not every loopback port the launch policy's default allows (L-4).
 */
export function beyondVerifyReach(url: string, target: Pick<AggmockTarget, 'config' | 'wallet'>): string | undefined {
  const { webhookUrl, allowedUrls } = target.config.callbacks;
  const origins = [webhookUrl, target.wallet?.webhookUrl, target.wallet?.stateUrl].flatMap((u) => (u ? [new URL(u).origin] : []));
  if (!URL.canParse(url)) return 'expected an absolute http(s) URL';
  const parsed = new URL(url);
  if (origins.includes(parsed.origin)) return undefined;
  if (
    allowedUrls.some((prefix) => parsed.origin === new URL(prefix).origin && parsed.pathname.startsWith(new URL(prefix).pathname))
  )
    return undefined;
  const reach = [...new Set(origins)].join(', ');
  return `run_verify reaches only the webhook's origin (callbacks.webhookUrl: ${reach}) and URLs listed in callbacks.allowedUrls; list this one there to verify it`;
}

/** The report an agent reads: every result, with the exchanges only where they explain a failure. */
function trimReport(report: VerifyReport, detail: 'failures' | 'full'): VerifyReport {
  if (detail === 'full') return report;
  return {
    ...report,
    results: report.results.map((r) =>
      r.status === 'fail' ? r : { ...r, exchanges: [], ...(r.interaction === undefined ? {} : { interaction: undefined }) },
    ),
  };
}
