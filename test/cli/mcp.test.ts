import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { BIN, runCli } from './process.ts';

/** `aggmock mcp` as an agent runs it: the built CLI as a child process, the SDK's client on its stdio. */
describe('aggmock mcp over stdio', () => {
  it('serves the tools on stdio with an embedded aggmock, and stops when the agent closes the session', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'mcp'],
      stderr: 'pipe',
      env: { PATH: process.env.PATH ?? '' },
    });
    let stderr = '';
    transport.stderr?.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    const client = new Client({ name: 'aggmock-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['send_event', 'run_verify', 'launch_game']));

      const info = (await client.callTool({ name: 'info', arguments: {} })) as CallToolResult;
      const json = JSON.parse(info.content[0]?.type === 'text' ? info.content[0].text : '');
      expect(json.mode).toBe('embedded');

      const sent = (await client.callTool({
        name: 'send_event',
        arguments: { type: 'debit', playerId: 'p1', amount: 2 },
      })) as CallToolResult;
      expect(sent.isError).toBeFalsy();
      const event = JSON.parse(sent.content[0]?.type === 'text' ? sent.content[0].text : '').event;
      expect(event).toMatchObject({ status: 'delivered', amount: 2 });

      const bad = (await client.callTool({ name: 'get_delivery', arguments: { id: 'x' } })) as CallToolResult;
      expect(bad.isError).toBe(true);

      // The Pact verifier runs in a child process of verify: its output must not reach the protocol's stdout.
      const verified = (await client.callTool({ name: 'run_verify', arguments: { only: ['pact'] } }, undefined, {
        timeout: 120_000,
      })) as CallToolResult;
      expect(verified.isError).toBeFalsy();
      const report = JSON.parse(verified.content[0]?.type === 'text' ? verified.content[0].text : '');
      expect(report.exitCode).toBe(0);
      expect(report.results.map((r: { id: string }) => r.id)).toContain('pact:bet-accepted');
      expect(report.summary.failed).toBe(0);
    } finally {
      const pid = transport.pid;
      await client.close();
      // Closing stdin ends the process (the SDK's transport also signals it if it lingers).
      if (pid !== null) await waitForExit(pid);
    }
    expect(stderr).toMatch(/aggmock mcp: serving MCP on stdio; embedded aggmock at http:\/\/127\.0\.0\.1:\d+/);
  });

  it('stops by itself, exit code 0, when the agent closes its stdin, having written nothing but the protocol on stdout', async () => {
    const cli = runCli(['mcp']);
    cli.child.stdin.end();
    expect(await cli.exited).toBe(0);
    expect(cli.stdout()).toBe('');
  });

  it('refuses a --url that is not loopback, naming --allow-remote, with exit code 2', async () => {
    const cli = runCli(['mcp', '--url', 'http://x.invalid:4000']);
    expect(await cli.exited).toBe(2);
    expect(cli.stderr()).toMatch(/--url: x\.invalid is not this machine.*--allow-remote/);
    expect(cli.stdout()).toBe('');
  });
});

async function waitForExit(pid: number): Promise<void> {
  for (let i = 0; i < 200; i++) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`aggmock mcp (pid ${pid}) still runs 5 s after the session closed`);
}
