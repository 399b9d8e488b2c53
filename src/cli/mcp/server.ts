import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { VERSION } from '../../version.ts';
import { ToolError } from './client.ts';
import type { AggmockTarget } from './target.ts';
import { TOOLS } from './tools.ts';

/**
 * The MCP server of `aggmock mcp`: the tools of {@link TOOLS} over one target aggmock. A tool that
 * fails answers a tool error (`isError: true`) with the field and the fix; nothing a caller sends
 * ends the process.
 *
 * @example
 * const server = createMcpServer(await embeddedTarget(config, { ownWebhook: false }));
 * await server.connect(new StdioServerTransport());
 */
export function createMcpServer(target: AggmockTarget): McpServer {
  const server = new McpServer(
    { name: 'aggmock', version: VERSION },
    {
      instructions:
        'aggmock is a local game-aggregator mock that sends signed DEBIT/CREDIT/ROLLBACK callbacks to a casino wallet webhook and checks its balances. Call info first to see where it runs and its dialect; list_games then launch_game to play (with a vendor dialect, list_vendor_games then launch_vendor_game call the vendor\u2019s own operator API); send_event or run_scenario to send callbacks; list_deliveries, get_delivery and list_discrepancies to see what the wallet answered; run_verify to check a webhook against every rule. To test the client that calls the aggregator API: add_fault makes that API fail (errors, delays, cut replies), list_requests and count_requests show what the client sent. To make the callbacks race: add_callback_fault times out or duplicates them.',
    },
  );
  for (const tool of TOOLS) {
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        // Strict: a misspelt field is an error the agent reads, not a filter silently dropped (a count of everything).
        inputSchema: z.strictObject(tool.inputSchema),
        annotations: { readOnlyHint: tool.readOnly, openWorldHint: false },
      },
      async (args: unknown): Promise<CallToolResult> => {
        try {
          const result = await tool.run(args as never, target);
          return { content: [{ type: 'text', text: JSON.stringify(result, null, 2) }] };
        } catch (error) {
          return toolError(error instanceof ToolError ? error.message : unexpected(tool.name, error));
        }
      },
    );
  }
  return server;
}

export function toolError(text: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text }] };
}

function unexpected(tool: string, error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return `${tool} failed: ${message}`;
}
