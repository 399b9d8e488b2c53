import type { Command } from 'commander';
import { registerServeCommand } from './serve.ts';

/** Every `aggmock` sub-command, in the order `--help` lists them. */
export function registerCommands(program: Command): void {
  registerServeCommand(program);
}
