/**
 * The `aggmock` command line: main.ts is the entry, commands/ holds one file per command,
 * options.ts the flags and the usage-error exit every command shares, and mcp/ the tools of
 * `aggmock mcp` (the Model Context Protocol server, loaded only by that command). The top layer: it may
 * import anything; nothing in src/ imports it.
 */
export { registerCommands } from './commands/index.ts';
