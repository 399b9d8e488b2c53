import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestReceiver, type TestReceiver } from '../../src/callbacks/test-receiver.ts';
import { createMcpServer } from '../../src/cli/mcp/server.ts';
import { type AggmockTarget, embeddedTarget } from '../../src/cli/mcp/target.ts';
import { beyondVerifyReach } from '../../src/cli/mcp/tools.ts';
import { validateConfig } from '../../src/config/index.ts';

/**
 * L-4 (review 2026-11-27): MCP `run_verify` POSTed to any loopback service and handed its replies
 * (a local admin UI's HTML with a database password) to the agent. It now reaches only the
 * configured webhook's origin, the embedded reference wallet and URLs the user listed in
 * `callbacks.allowedUrls`; anything else is refused naming the field, and nothing is sent.
 */
describe('L-4: MCP run_verify reaches only the webhook', () => {
  let internal: TestReceiver;
  let target: AggmockTarget;
  let client: Client;

  beforeAll(async () => {
    internal = await startTestReceiver(() => ({
      status: 403,
      body: '<html>Internal admin: db_password=hunter2-INTERNAL</html>',
    }));
    target = await embeddedTarget(validateConfig({ port: 0, db: ':memory:', callbacks: { timeScale: 0.001 } }), {
      ownWebhook: false,
    });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await createMcpServer(target).connect(serverSide);
    client = new Client({ name: 'sec-test', version: '1.0.0' });
    await client.connect(clientSide);
  });
  afterAll(async () => {
    await client?.close();
    await target?.close();
    await internal?.close();
  });

  const call = async (args: Record<string, unknown>) => {
    const result = (await client.callTool({ name: 'run_verify', arguments: args })) as CallToolResult;
    const text = result.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
    return { isError: result.isError === true, text };
  };

  it.each([
    ['webhookUrl', () => ({ webhookUrl: `${internal.url}/admin`, detail: 'full' })],
    ['webhookUrl', () => ({ webhookUrl: `${internal.url.replace('127.0.0.1', 'localhost')}/`, detail: 'full' })],
    ['stateUrl', () => ({ webhookUrl: target.wallet?.webhookUrl, stateUrl: `${internal.url}/state`, detail: 'full' })],
  ])('refuses another loopback service as %s, sends it nothing and shows none of its reply', async (field, args) => {
    const before = internal.requests.length;
    const answer = await call(args());
    expect(answer.isError).toBe(true);
    expect(answer.text).toMatch(
      new RegExp(`^${field}: run_verify reaches only the webhook's origin \\(callbacks\\.webhookUrl: `),
    );
    expect(answer.text).toContain('callbacks.allowedUrls');
    expect(answer.text).not.toContain('hunter2');
    expect(internal.requests.length).toBe(before);
  });

  it('still verifies the embedded reference wallet, by default and by its URL', async () => {
    for (const args of [{}, { webhookUrl: target.wallet?.webhookUrl }]) {
      const answer = await call({ ...args, only: ['debit-applies'] });
      expect(answer.isError, answer.text).toBe(false);
      expect(JSON.parse(answer.text).summary).toMatchObject({ total: 1, passed: 1 });
    }
  });

  it('decides the reach from the webhook origin, the embedded wallet and the explicit list', () => {
    const config = (callbacks: Record<string, unknown>) =>
      validateConfig({ db: ':memory:', callbacks: { webhookUrl: 'http://127.0.0.1:3000/cb', ...callbacks } });
    const plain = { config: config({}), wallet: undefined };
    expect(beyondVerifyReach('http://127.0.0.1:3000/cb', plain)).toBeUndefined();
    expect(beyondVerifyReach('http://127.0.0.1:3000/other/path', plain)).toBeUndefined();
    expect(beyondVerifyReach('http://127.0.0.1:3001/cb', plain)).toMatch(/127\.0\.0\.1:3000/);
    expect(beyondVerifyReach('http://localhost:3000/cb', plain)).toMatch(/reaches only/);
    expect(beyondVerifyReach('https://127.0.0.1:3000/cb', plain)).toMatch(/reaches only/);
    const listed = { config: config({ allowedUrls: ['http://127.0.0.1:5000/wallet/'] }), wallet: undefined };
    expect(beyondVerifyReach('http://127.0.0.1:5000/wallet/hook', listed)).toBeUndefined();
    expect(beyondVerifyReach('http://127.0.0.1:5000/admin', listed)).toMatch(/reaches only/);
    const wallet = {
      url: 'http://127.0.0.1:4100',
      webhookUrl: 'http://127.0.0.1:4100/callback/webhook',
      stateUrl: 'http://127.0.0.1:4100/__state',
      players: [],
    };
    expect(beyondVerifyReach('http://127.0.0.1:4100/__state', { config: config({}), wallet })).toBeUndefined();
  });
});
