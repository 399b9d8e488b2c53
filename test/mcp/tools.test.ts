import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMcpServer } from '../../src/cli/mcp/server.ts';
import { type AggmockTarget, embeddedTarget, remoteTarget, TargetError } from '../../src/cli/mcp/target.ts';
import { type AggmockConfig, validateConfig } from '../../src/config/index.ts';
import { type Aggmock, startAggmock } from '../../src/runtime.ts';
import { type RunningWallet, startWallet } from '../../src/wallet/index.ts';
import { freePort } from '../cli/process.ts';

/**
 * The MCP tools, called through the SDK's own client over an in-memory transport, against a real
 * aggmock and reference wallet on 127.0.0.1 (port 0). The stdio process is tested in test/cli/mcp.test.ts.
 */

const base = (extra: Record<string, unknown> = {}): AggmockConfig =>
  validateConfig({ port: 0, db: ':memory:', callbacks: { timeScale: 0.001 }, ...extra });

async function connect(target: AggmockTarget): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await createMcpServer(target).connect(serverSide);
  const client = new Client({ name: 'aggmock-test', version: '1.0.0' });
  await client.connect(clientSide);
  return client;
}

/** A tool's answer: its JSON, or the error text when it failed. */
async function call(client: Client, name: string, args: Record<string, unknown> = {}) {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const text = result.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
  return result.isError ? { error: text } : { json: JSON.parse(text) };
}

describe('aggmock mcp tools, embedded aggmock and reference wallet', () => {
  let target: AggmockTarget;
  let client: Client;
  beforeAll(async () => {
    target = await embeddedTarget(base(), { ownWebhook: false });
    client = await connect(target);
  });
  afterAll(async () => {
    await client?.close();
    await target?.close();
  });

  it('lists every tool, each with a description and a described input schema', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(
      [
        'add_callback_fault',
        'add_fault',
        'clear_callback_faults',
        'clear_faults',
        'clear_requests',
        'count_requests',
        'get_delivery',
        'info',
        'launch_game',
        'launch_vendor_game',
        'list_deliveries',
        'list_discrepancies',
        'list_callback_faults',
        'list_faults',
        'list_games',
        'list_providers',
        'list_requests',
        'list_vendor_games',
        'run_scenario',
        'run_verify',
        'send_event',
      ].sort(),
    );
    for (const tool of tools) {
      expect(tool.description?.length, tool.name).toBeGreaterThan(20);
      for (const [field, schema] of Object.entries(tool.inputSchema.properties ?? {})) {
        expect((schema as { description?: string }).description, `${tool.name}.${field}`).toBeTruthy();
      }
    }
  });

  it('info names the embedded aggmock on loopback and the reference wallet with its state URL', async () => {
    const { json } = await call(client, 'info');
    expect(json).toMatchObject({ mode: 'embedded', url: target.url, profile: 'default' });
    expect(json.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(json.referenceWallet.stateUrl).toBe(`${json.referenceWallet.url}/__state`);
    expect(json.referenceWallet.players).toContain('p1');
  });

  it('lists the providers and pages through the games of one, filtered by name', async () => {
    const providers = (await call(client, 'list_providers')).json;
    expect(providers.providers).toHaveLength(30);
    expect(providers.providers[0]).toEqual({ code: 'PGSOFT', name: 'PG Soft', status: 'ACTIVE', totalGames: 75 });

    const page = (await call(client, 'list_games', { provider: 'Pragmatic Play', limit: 3 })).json;
    expect(page.total).toBe(112);
    expect(page.games).toHaveLength(3);
    expect(page.games[0]).toMatchObject({ id: '527ca4b2d024cda5378b59ce0234986f', provider: 'PRAGMATICPLAY' });
    const next = (await call(client, 'list_games', { provider: 'PRAGMATICPLAY', limit: 3, offset: 3 })).json;
    expect(next.games.map((g: { id: string }) => g.id)).not.toContain(page.games[0].id);

    const found = (await call(client, 'list_games', { search: 'olympus' })).json;
    expect(found.total).toBeGreaterThan(0);
    for (const g of found.games) expect(g.name.toLowerCase()).toContain('olympus');
  });

  it('launches a game and answers its play page URL', async () => {
    const { json } = await call(client, 'launch_game', {
      username: 'p1',
      gameId: '527ca4b2d024cda5378b59ce0234986f',
      money: 1000,
    });
    expect(json.game_launch_url).toMatch(new RegExp(`^${target.url}/play/[0-9a-f]{32}$`));
    expect(json.game_name).toBe('Aztec Tales Dream Drop');
  });

  it('sends a DEBIT, waits until the wallet replied, and shows it with its signed attempt', async () => {
    const { json } = await call(client, 'send_event', { type: 'debit', playerId: 'p2', amount: 5, transactionId: 'mcp-debit-1' });
    expect(json.event).toMatchObject({
      kind: 'debit',
      playerId: 'p2',
      transactionId: 'mcp-debit-1',
      status: 'delivered',
      amount: 5,
    });
    expect(json.event.reply.body).toEqual({ balance: 995 });

    const one = (await call(client, 'get_delivery', { id: json.event.id })).json;
    expect(one.attempts).toHaveLength(1);
    expect(one.attempts[0].requestHeaders).toMatchObject({ 'X-Signature': expect.stringMatching(/^t=\d+,v1=[0-9a-f]{64}$/) });

    const listed = (await call(client, 'list_deliveries', { player: 'p2', type: 'debit' })).json;
    expect(listed.deliveries.map((d: { transactionId: string }) => d.transactionId)).toContain('mcp-debit-1');
  });

  it('runs a scenario and answers its settled events, which list_deliveries finds by group', async () => {
    const { json } = await call(client, 'run_scenario', { name: 'bet-rollback', players: ['p3'], amount: 2 });
    expect(json).toMatchObject({ scenario: 'bet-rollback', ok: true });
    expect(json.events.map((e: { kind: string; status: string }) => `${e.kind} ${e.status}`)).toEqual([
      'debit delivered',
      'rollback delivered',
    ]);
    const listed = (await call(client, 'list_deliveries', { group: json.group })).json;
    expect(listed.deliveries).toHaveLength(2);
  });

  it('reads the shadow ledger: no discrepancy from a correct wallet, and the balances it saw', async () => {
    const { json } = await call(client, 'list_discrepancies');
    expect(json.discrepancies).toEqual([]);
    expect(json.balances).toEqual(expect.arrayContaining([expect.objectContaining({ playerId: 'p2' })]));
  });

  it('verifies the embedded reference wallet by default and answers the report as JSON', async () => {
    const { json } = await call(client, 'run_verify', { only: ['debit-applies', 'idempotent-debit', 'rollback-restores'] });
    expect(json).toMatchObject({ exitCode: 0, tool: 'aggmock verify', mode: 'state' });
    expect(json.summary).toEqual({ total: 3, passed: 3, failed: 0, skipped: 0, blocked: 0 });
    // Passed checks keep their rule but not their requests (detail: "failures").
    expect(json.results[0].rule).toBeTruthy();
    expect(json.results[0].exchanges).toEqual([]);
  });

  it('answers a bad value as a tool error naming the field, from aggmock’s own validation', async () => {
    const launch = await call(client, 'launch_game', { username: 'p1', gameId: 'nope', money: 1000 });
    expect(launch.error).toMatch(/HTTP 400/);
    expect(launch.error).toMatch(/- gameId: expected a 32-character hex game id/);

    const rollback = await call(client, 'send_event', { type: 'rollback', playerId: 'p1', amount: 1 });
    expect(rollback.error).toMatch(/- referenceTransactionId: a rollback needs the transactionId of the DEBIT it reverses/);

    const type = await call(client, 'send_event', { type: 'refund', playerId: 'p1', amount: 1 });
    expect(type.error).toMatch(/- type: expected one of debit, credit, rollback .*\(got "refund"\)/);
  });

  it('answers input that breaks a tool’s schema as a tool error naming the field, and keeps serving', async () => {
    const wrongType = await call(client, 'list_games', { limit: 'ten' });
    expect(wrongType.error).toMatch(
      /Invalid arguments for tool list_games: expected a whole number from 1 to 500, e\.g\. 20 at limit/,
    );
    const unknownScenario = await call(client, 'run_scenario', { name: 'bet-everything' });
    expect(unknownScenario.error).toMatch(/Invalid arguments for tool run_scenario: .*"bet-win".* at name/);
    const missing = await call(client, 'send_event', { type: 'debit', amount: 1 });
    expect(missing.error).toMatch(/expected the player id as a string of 1 to 128 characters at playerId/);
    expect((await call(client, 'list_providers')).json.providers).toHaveLength(30);
  });

  it('answers a webhook that does not answer as the first cause, and why verify could not run for a currency that does not exist', async () => {
    const port = await freePort();
    // run_verify reaches the configured webhook's origin: an aggmock whose webhook is down.
    const webhookUrl = `http://127.0.0.1:${port}/callback/webhook`;
    const downTarget = await embeddedTarget(base({ callbacks: { timeScale: 0.001, webhookUrl } }), { ownWebhook: true });
    const downClient = await connect(downTarget);
    const down = await call(downClient, 'run_verify', { webhookUrl }).finally(async () => {
      await downClient.close();
      await downTarget.close();
    });
    expect(down.json).toMatchObject({ exitCode: 1, firstCause: { kind: 'down', blocks: 'answers' } });
    expect(down.json.firstCause.summary).toMatch(
      new RegExp(`^nothing answers at http://127\\.0\\.0\\.1:${port}/callback/webhook`),
    );
    const currency = await call(client, 'run_verify', { currency: 'yen!' });
    expect(currency.error).toMatch(/^verify did not run: .*callbacks\.currency: expected an ISO 4217 code .*\(got "yen!"\)/s);
  });

  it('refuses to verify (and so to sign for) a URL callbacks.allowedUrls does not allow, or aggmock itself', async () => {
    const outside = await call(client, 'run_verify', { webhookUrl: 'http://x.invalid/callback/webhook' });
    expect(outside.error).toMatch(/^webhookUrl: expected a URL allowed by callbacks\.allowedUrls/);
    const state = await call(client, 'run_verify', {
      webhookUrl: target.wallet?.webhookUrl,
      stateUrl: 'http://x.invalid/__state',
    });
    expect(state.error).toMatch(/^stateUrl: expected a URL allowed by callbacks\.allowedUrls/);
    const self = await call(client, 'run_verify', { webhookUrl: `${target.url}/__admin/events` });
    expect(self.error).toMatch(/^webhookUrl: expected a URL that is not aggmock itself/);
    const port = new URL(target.url).port;
    for (const spelling of [`http://localhost:${port}/__admin/events`, `http://[::1]:${port}/x`, `http://127.0.0.2:${port}/x`]) {
      const other = await call(client, 'run_verify', { webhookUrl: spelling });
      expect(other.error, spelling).toMatch(/^webhookUrl: expected a URL that is not aggmock itself/);
    }
    const file = await call(client, 'run_verify', { webhookUrl: 'file:///etc/passwd' });
    expect(file.error).toMatch(/^webhookUrl: expected an http\(s\) URL/);
  });
});

describe('aggmock mcp tools for the client under test: faults on the aggregator API and the journal of its requests', () => {
  const game = '527ca4b2d024cda5378b59ce0234986f';
  let target: AggmockTarget;
  let client: Client;
  beforeAll(async () => {
    target = await embeddedTarget(base(), { ownWebhook: false });
    client = await connect(target);
  });
  afterAll(async () => {
    await client?.close();
    await target?.close();
  });
  // launch_game is a client of the aggregator API like any other: the faults hit it, the journal records it.
  const launch = () => call(client, 'launch_game', { username: 'p1', gameId: game, money: 1000 });

  it('fails the next launch with the fault added, lets the one after through, and lists the rule as fired once and spent', async () => {
    const added = await call(client, 'add_fault', {
      id: 'launch-down',
      match: { method: 'post', path: '/casino/getgameurl' },
      fault: { kind: 'status', status: 503, message: 'launches are down' },
      times: 1,
    });
    expect(added.json.fault).toMatchObject({
      id: 'launch-down',
      source: 'admin',
      match: { method: 'POST', path: '/getgameurl' },
      fired: 0,
      spent: false,
    });

    const failed = await launch();
    expect(failed.error).toMatch(/^aggmock answered HTTP 503 to POST \/getgameurl: launches are down/);
    expect((await launch()).json.game_launch_url).toMatch(new RegExp(`^${target.url}/play/[0-9a-f]{32}$`));

    const { faults } = (await call(client, 'list_faults')).json;
    expect(faults).toEqual([
      expect.objectContaining({ id: 'launch-down', fault: expect.objectContaining({ kind: 'status' }), fired: 1, spent: true }),
    ]);
  });

  it('counts and lists what the client sent: both launches, newest first, the one the fault hit named by its rule', async () => {
    const count = async (matcher: Record<string, unknown>) => (await call(client, 'count_requests', matcher)).json.count;
    expect(await count({ method: 'POST', path: '/getgameurl' })).toBe(2);
    expect(await count({ faultRule: 'launch-down' })).toBe(1);
    expect(await count({ path: '/getgameurl', status: 503, body: { username: 'p1', gameId: game } })).toBe(1);
    expect(await count({ path: '/getgameurl', body: { username: 'p2' } })).toBe(0);
    expect(await count({ path: '/getallproviders' })).toBe(0);

    const { requests } = (await call(client, 'list_requests', { path: '/getgameurl' })).json;
    expect(requests.map((r: { status: number }) => r.status)).toEqual([200, 503]);
    expect(requests[1]).toMatchObject({ method: 'POST', path: '/getgameurl', fault: { ruleId: 'launch-down', kind: 'status' } });
    expect(JSON.parse(requests[1].body)).toMatchObject({ username: 'p1', gameId: game });
    // The API key the tools send is journaled masked, never in clear.
    expect(JSON.stringify(requests)).not.toContain('aggmock-dev-key');
  });

  it('removes a rule by id, then every rule, and forgets the requests so the next count starts from nothing', async () => {
    const slow = (await call(client, 'add_fault', { id: 'slow', fault: { kind: 'delay', ms: '250ms' } })).json;
    expect(slow.fault.fault).toEqual({ kind: 'delay', ms: 250 });
    await call(client, 'add_fault', { id: 'silent', match: { path: '/getallproviders' }, fault: { kind: 'empty' } });

    expect((await call(client, 'clear_faults', { id: 'slow' })).json).toEqual({ removed: 1 });
    expect((await call(client, 'clear_faults', { id: 'slow' })).error).toMatch(/HTTP 404 .*No fault rule "slow"/);
    expect((await call(client, 'list_faults')).json.faults.map((f: { id: string }) => f.id)).toEqual(['launch-down', 'silent']);
    expect((await call(client, 'clear_faults')).json).toEqual({ removed: 2 });
    expect((await call(client, 'list_faults')).json.faults).toEqual([]);

    expect((await call(client, 'clear_requests')).json).toEqual({ cleared: true });
    expect((await call(client, 'count_requests')).json.count).toBe(0);
    expect((await call(client, 'list_providers')).json.providers).toHaveLength(30);
    expect((await call(client, 'count_requests', { path: '/getallproviders', status: 200 })).json.count).toBe(1);
  });

  it('answers a rule or a matcher aggmock refuses as a tool error naming the field, and adds nothing', async () => {
    const both = await call(client, 'add_fault', { fault: { kind: 'status', status: 503 }, times: 1, nth: 2 });
    expect(both.error).toMatch(/HTTP 400/);
    expect(both.error).toMatch(/- nth: give at most one of "times", "nth" or "probability" \(got times and nth\)/);
    const kind = await call(client, 'add_fault', { fault: { kind: 'explode' } });
    expect(kind.error).toMatch(/Invalid arguments for tool add_fault: .*expected a fault kind: delay, status, empty/s);
    const delay = await call(client, 'add_fault', { fault: { kind: 'delay', ms: '2 days' } });
    expect(delay.error).toMatch(/expected a duration from 0 to 60000 ms/);
    expect((await call(client, 'list_faults')).json.faults).toEqual([]);

    const status = await call(client, 'count_requests', { status: 42 });
    expect(status.error).toMatch(/Invalid arguments for tool count_requests: .*at status/s);
    const unknown = await call(client, 'count_requests', { route: '/getgameurl' });
    expect(unknown.error).toMatch(/Invalid arguments for tool count_requests: .*Unrecognized key: "route"/s);
  });
});

describe('aggmock mcp tools for callback faults: the races a wallet must survive', () => {
  let target: AggmockTarget;
  let client: Client;
  beforeAll(async () => {
    target = await embeddedTarget(base(), { ownWebhook: false });
    client = await connect(target);
  });
  afterAll(async () => {
    await client?.close();
    await target?.close();
  });

  it('times out the next DEBIT after the wallet applied it: the DEBIT fails naming the rule, its ROLLBACK is delivered, the ledger stays clean, and the rule is spent', async () => {
    const added = await call(client, 'add_callback_fault', {
      id: 'late-debit',
      match: { event: 'debit', player: 'p4' },
      fault: { kind: 'timeout', giveUp: true },
      times: 1,
    });
    expect(added.json.fault).toMatchObject({
      id: 'late-debit',
      source: 'admin',
      match: { event: 'debit', player: 'p4' },
      fault: { kind: 'timeout', giveUp: true },
      fired: 0,
      spent: false,
    });

    const debit = (await call(client, 'send_event', { type: 'debit', playerId: 'p4', amount: 3, transactionId: 'mcp-late-1' }))
      .json;
    expect(debit.event).toMatchObject({ transactionId: 'mcp-late-1', status: 'failed' });
    expect(debit.event.error).toContain('aggmock callback fault rule late-debit');
    const again = (await call(client, 'send_event', { type: 'debit', playerId: 'p4', amount: 3, transactionId: 'mcp-late-2' }))
      .json;
    expect(again.event).toMatchObject({ transactionId: 'mcp-late-2', status: 'delivered' });

    let rollbacks: { referenceTransactionId?: string; status: string }[] = [];
    for (let waited = 0; waited < 10_000; waited += 50) {
      rollbacks = (await call(client, 'list_deliveries', { player: 'p4', type: 'rollback' })).json.deliveries;
      if (rollbacks.some((r) => r.status === 'delivered')) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(rollbacks).toEqual([expect.objectContaining({ referenceTransactionId: 'mcp-late-1', status: 'delivered' })]);
    expect((await call(client, 'list_discrepancies', { player: 'p4' })).json.discrepancies).toEqual([]);
    expect((await call(client, 'list_callback_faults')).json.faults).toEqual([
      expect.objectContaining({ id: 'late-debit', matched: 1, fired: 1, spent: true }),
    ]);
  });

  it('duplicates the next DEBIT: two deliveries of one transaction, the wallet charges once', async () => {
    await call(client, 'add_callback_fault', { id: 'twice', match: { event: 'debit' }, fault: { kind: 'duplicate' }, nth: 1 });
    await call(client, 'send_event', { type: 'debit', playerId: 'p5', amount: 4, transactionId: 'mcp-dup-1' });
    let copies: { transactionId: string; status: string; reply?: { body: { balance: number } } }[] = [];
    for (let waited = 0; waited < 10_000; waited += 50) {
      copies = (await call(client, 'list_deliveries', { player: 'p5', type: 'debit' })).json.deliveries;
      if (copies.length === 2 && copies.every((c) => c.status === 'delivered')) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(copies.map((c) => [c.transactionId, c.status])).toEqual([
      ['mcp-dup-1', 'delivered'],
      ['mcp-dup-1', 'delivered'],
    ]);
    // The same reply to both: the money moved once.
    expect(copies[0]?.reply?.body).toEqual(copies[1]?.reply?.body);
    expect((await call(client, 'list_discrepancies', { player: 'p5' })).json.discrepancies).toEqual([]);
  });

  it('removes a rule by id, then every rule, and answers a rule aggmock refuses as a tool error naming the field', async () => {
    expect((await call(client, 'clear_callback_faults', { id: 'twice' })).json).toEqual({ removed: 1 });
    expect((await call(client, 'clear_callback_faults', { id: 'twice' })).error).toMatch(
      /HTTP 404 .*No callback fault rule "twice"/,
    );
    await call(client, 'add_callback_fault', { fault: { kind: 'duplicate', afterMs: '20ms' } });
    expect((await call(client, 'list_callback_faults')).json.faults.map((f: { fault: unknown }) => f.fault)).toEqual([
      { kind: 'timeout', giveUp: true },
      { kind: 'duplicate', afterMs: 20 },
    ]);
    expect((await call(client, 'clear_callback_faults')).json).toEqual({ removed: 2 });
    expect((await call(client, 'list_callback_faults')).json.faults).toEqual([]);

    const event = await call(client, 'add_callback_fault', { match: { event: 'bet' }, fault: { kind: 'timeout' } });
    expect(event.error).toMatch(
      /Invalid arguments for tool add_callback_fault: .*expected one of "debit", "credit", "rollback"/s,
    );
    const kind = await call(client, 'add_callback_fault', { fault: { kind: 'reset' } });
    expect(kind.error).toMatch(/expected a callback fault kind: timeout, duplicate/);
    const both = await call(client, 'add_callback_fault', { fault: { kind: 'duplicate' }, times: 1, nth: 2 });
    expect(both.error).toMatch(/HTTP 400/);
    expect(both.error).toMatch(/give at most one of "times", "nth" or "probability"/);
    expect((await call(client, 'list_callback_faults')).json.faults).toEqual([]);
  });
});

describe('aggmock mcp tools against a faulty wallet', () => {
  let wallet: RunningWallet;
  let target: AggmockTarget;
  let client: Client;
  beforeAll(async () => {
    const config = base();
    wallet = await startWallet({ config, dbPath: ':memory:', port: 0, fault: 'double-debit', testEndpoints: true });
    target = await embeddedTarget(base({ callbacks: { timeScale: 0.001, webhookUrl: wallet.webhookUrl } }), { ownWebhook: true });
    client = await connect(target);
  });
  afterAll(async () => {
    await client?.close();
    await target?.close();
    await wallet?.close();
  });

  it('shows the discrepancy the shadow ledger finds when a duplicate DEBIT is charged twice', async () => {
    const run = (await call(client, 'run_scenario', { name: 'duplicate-debit', players: ['p1'], amount: 3 })).json;
    expect(run.scenario).toBe('duplicate-debit');
    const { json } = await call(client, 'list_discrepancies', { player: 'p1' });
    expect(json.discrepancies.map((d: { kind: string }) => d.kind)).toContain('double-debit');
  });

  it('fails verify on the checks the bug breaks, with the requests and replies that show it', async () => {
    const { json } = await call(client, 'run_verify', {
      webhookUrl: wallet.webhookUrl,
      stateUrl: `${wallet.url}/__state`,
      only: ['idempotent-debit', 'credit-applies'],
    });
    expect(json.exitCode).toBe(1);
    const byId = Object.fromEntries(json.results.map((r: { id: string }) => [r.id, r]));
    expect(byId['idempotent-debit']).toMatchObject({ status: 'fail' });
    expect(byId['idempotent-debit'].exchanges.length).toBeGreaterThan(0);
    expect(byId['idempotent-debit'].hint).toBeTruthy();
    expect(byId['credit-applies']).toMatchObject({ status: 'pass', exchanges: [] });
  });
});

describe('aggmock mcp tools against a running aggmock (--url)', () => {
  let wallet: RunningWallet;
  let aggmock: Aggmock;
  beforeAll(async () => {
    wallet = await startWallet({ config: base(), dbPath: ':memory:', port: 0 });
    aggmock = await startAggmock(
      base({ admin: { token: 'mcp-test-token' }, callbacks: { timeScale: 0.001, webhookUrl: wallet.webhookUrl } }),
    );
  });
  afterAll(async () => {
    await aggmock?.close();
    await wallet?.close();
  });

  it('sends the admin token it was given, and says how to give one when it has none', async () => {
    const withToken = await connect(remoteTarget(aggmock.url, base(), { adminToken: 'mcp-test-token' }));
    const sent = (await call(withToken, 'send_event', { type: 'credit', playerId: 'p1', amount: 1 })).json;
    expect(sent.event).toMatchObject({ status: 'delivered' });
    await withToken.close();

    const without = await connect(remoteTarget(aggmock.url, base(), {}));
    const refused = await call(without, 'send_event', { type: 'credit', playerId: 'p1', amount: 1 });
    expect(refused.error).toMatch(/HTTP 401/);
    expect(refused.error).toMatch(/--admin-token <token> \(or AGGMOCK_ADMIN_TOKEN\)/);
    // The aggregator API takes the API key, no token needed.
    expect((await call(without, 'list_providers')).json.providers).toHaveLength(30);
    await without.close();
  });

  it('says what to do when nothing answers at the URL', async () => {
    const port = await freePort();
    const client = await connect(remoteTarget(`http://127.0.0.1:${port}`, base(), {}));
    const { error } = await call(client, 'list_providers');
    expect(error).toBe(
      `cannot reach aggmock at http://127.0.0.1:${port} (ECONNREFUSED). Is it running? Start it with \`npx aggmock serve\`, or run \`aggmock mcp\` without --url to embed one.`,
    );
    await client.close();
  });

  it('drives only a loopback aggmock unless --allow-remote', () => {
    expect(() => remoteTarget('http://x.invalid:4000', base(), {})).toThrow(TargetError);
    expect(() => remoteTarget('http://x.invalid:4000', base(), {})).toThrow(/--allow-remote/);
    expect(remoteTarget('http://x.invalid:4000', base(), { allowRemote: true }).url).toBe('http://x.invalid:4000');
    expect(() => remoteTarget('not a url', base(), {})).toThrow(
      /--url \(the base URL of a running aggmock\): expected an http\(s\) URL such as http:\/\/127\.0\.0\.1:4000, got "not a url"/,
    );
    expect(() => remoteTarget('ftp://127.0.0.1:4000', base(), {})).toThrow(TargetError);
    expect(() => remoteTarget('ftp://127.0.0.1:4000', base(), {})).toThrow(/--url .*: expected an http or https URL/);
    expect(() => remoteTarget('http://u:p@127.0.0.1:4000', base(), {})).toThrow(/without credentials/);
  });
});
