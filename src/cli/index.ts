/**
 * The `aggmock` command line: main.ts is the entry, commands/ holds one file per command, and
 * options.ts the flags and the usage-error exit every command shares. The top layer: it may
 * import anything; nothing in src/ imports it.
 */
export { registerCommands } from './commands/index.ts';
