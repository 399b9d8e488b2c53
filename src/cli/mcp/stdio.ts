import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createMcpServer } from './server.ts';
import type { AggmockTarget } from './target.ts';

/**
 * Serves the MCP tools over this process's stdin and stdout until the agent closes stdin or a
 * signal arrives, then stops the target (an embedded aggmock and wallet). Stdout carries the
 * protocol only: every message goes to stderr.
 */
export async function serveMcpOnStdio(target: AggmockTarget): Promise<void> {
  const server = createMcpServer(target);
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await server.close().catch(() => {});
    await target.close().catch(() => {});
    process.exit(0);
  };
  server.server.onclose = () => void stop();
  process.stdin.on('end', () => void stop());
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
  await server.connect(new StdioServerTransport());
  process.stderr.write(`aggmock mcp: serving MCP on stdio; ${target.mode} aggmock at ${target.url}\n`);
}
