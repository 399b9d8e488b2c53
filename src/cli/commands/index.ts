import type { Command } from 'commander';
import { registerContractsCommand } from './contracts.ts';
import { registerDemoCommand } from './demo.ts';
import { registerLoadCommand } from './load.ts';
import { registerMcpCommand } from './mcp.ts';
import { registerProfilesCommand } from './profiles.ts';
import { registerSendCommand } from './send.ts';
import { registerServeCommand } from './serve.ts';
import { registerVerifyCommand } from './verify.ts';
import { registerWalletCommand } from './wallet.ts';

/** Every `aggmock` sub-command, in the order `--help` lists them. */
export function registerCommands(program: Command): void {
  registerServeCommand(program);
  registerWalletCommand(program);
  registerDemoCommand(program);
  registerVerifyCommand(program);
  registerSendCommand(program);
  registerLoadCommand(program);
  registerContractsCommand(program);
  registerProfilesCommand(program);
  registerMcpCommand(program);
}
