import { existsSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Command, Option } from 'commander';
import { CredentialError, dialectOf } from '../../config/dialect.ts';
import { type AggmockConfig, ConfigError, defaultConfig, loadConfig } from '../../config/index.ts';
import { dialectContracts, PACT_FILE_NAME } from '../../contracts/dialect.ts';
import { generateContracts } from '../../contracts/generate.ts';
import { headerSchemeOf } from '../../dialects/capabilities.ts';
import { DialectRequestError } from '../../dialects/index.ts';
import { dialectOpenApi, WALLET_OPENAPI_FILE } from '../../openapi/dialect.ts';
import { SIGNING_SCHEMES, type SigningScheme } from '../../signing/index.ts';
import {
  type CommandIo,
  collectCredential,
  dialectFlag,
  dialectFlagName,
  folderProblem,
  PROCESS_IO,
  usageExit,
  type WireFlags,
  wireLayer,
} from '../options.ts';

/** `aggmock contracts`: where the Pact contracts are, what they cover, and (re)generating them. */

/** The committed contracts folder of this package. */
export const CONTRACTS_DIR = fileURLToPath(new URL('../../../contracts/', import.meta.url));

export interface ContractsFlags extends WireFlags {
  regenerate?: boolean;
  out?: string;
  scheme?: SigningScheme;
  rollbackStyle?: 'original' | 'reference';
  config?: string;
}

/**
 * Registers `aggmock contracts`.
 *
 * @example
 * aggmock contracts                                   # where they are and what they cover
 * aggmock contracts --regenerate                      # rewrite contracts/ (default config)
 * aggmock contracts --out pacts --scheme hmac-hex --rollback-style reference
 */
export function registerContractsCommand(program: Command, io: CommandIo = PROCESS_IO): Command {
  return program
    .command('contracts')
    .description(
      'Print where the Pact contracts are and what they cover, or (re)write them from the dialect (any wire: default, betnex, a profile or dialect file, a vendor dialect).',
    )
    .option('--regenerate', `rewrite ${PACT_FILE_NAME} in the package's contracts/ from the default config`)
    .option('--out <dir>', 'write contracts for the configuration given by --config/--scheme/--rollback-style into <dir>')
    .addOption(
      new Option('--scheme <scheme>', 'signature scheme of the contracts written with --out').choices([...SIGNING_SCHEMES]),
    )
    .addOption(
      new Option('--rollback-style <style>', 'ROLLBACK shape of the contracts written with --out').choices([
        'original',
        'reference',
      ]),
    )
    .option(
      '--dialect <name|file>',
      'the dialect of the contracts written with --out (default, betnex, hub88, pragmatic…, or a dialect or profile file)',
    )
    .option('--profile <name|file>', 'alias of --dialect')
    .option(
      '--credential <name=value>',
      "a vendor dialect's credential the contracts' examples are signed with, e.g. secretKey=…; repeat for several",
      collectCredential,
    )
    .option('-c, --config <file>', 'config file for --out: type strings, amount format, extra fields, header names')
    .exitOverride(usageExit)
    .action(async (flags: ContractsFlags) => {
      process.exitCode = await runContractsCommand(flags, io);
    });
}

/** The command without a process: returns the exit code (0 ok, 2 usage error). */
export async function runContractsCommand(flags: ContractsFlags, io: CommandIo = PROCESS_IO): Promise<number> {
  const cwd = io.cwd ?? process.cwd();
  if (flags.regenerate && flags.out) {
    io.stderr('aggmock contracts: give --regenerate (the committed defaults) or --out <dir> (your configuration), not both.\n');
    return 2;
  }
  if (!flags.out && (flags.scheme || flags.rollbackStyle || flags.config || dialectFlag(flags) || flags.credential)) {
    io.stderr(
      'aggmock contracts: --scheme, --rollback-style, --dialect, --credential and --config shape contracts written with --out <dir>.\n',
    );
    return 2;
  }
  if (flags.regenerate) {
    const config = defaultConfig();
    const path = generateContracts({ config, outDir: CONTRACTS_DIR });
    const count = dialectContracts(dialectOf(config.callbacks)).length;
    io.stdout(`Wrote ${relative(cwd, path) || path} (${count} interactions, default configuration).\n`);
    return 0;
  }
  if (flags.out) {
    let config: AggmockConfig;
    try {
      const loaded = loadConfig({
        configPath: flags.config,
        env: io.env ?? process.env,
        cwd,
        flags: wireLayer(flags),
        flagNames: { 'callbacks.dialect': dialectFlagName(flags), 'callbacks.credentials': '--credential' },
      });
      config = {
        ...loaded,
        callbacks: {
          ...loaded.callbacks,
          ...(flags.rollbackStyle ? { rollbackStyle: flags.rollbackStyle } : {}),
          signing: { ...loaded.callbacks.signing, ...(flags.scheme ? { scheme: flags.scheme } : {}) },
        },
      };
    } catch (error) {
      if (error instanceof ConfigError) {
        io.stderr(`aggmock contracts: ${error.message}\n`);
        return 2;
      }
      throw error;
    }
    const outDir = resolve(cwd, flags.out);
    const problem = folderProblem(outDir, 'the contracts');
    if (problem) {
      io.stderr(`aggmock contracts: --out ${flags.out}: ${problem}.\n`);
      return 2;
    }
    let path: string;
    try {
      path = generateContracts({ config, outDir });
    } catch (error) {
      // A credential that cannot be read (a private key file), or one the dialect's recipe needs and nobody set.
      if (error instanceof CredentialError || error instanceof DialectRequestError) {
        io.stderr(`aggmock contracts: ${error.message}\n`);
        return 2;
      }
      throw error;
    }
    const dialect = dialectOf(config.callbacks);
    const contracts = dialectContracts(dialect);
    // And the wallet API the dialect describes, what the integrator implements.
    const openapi = join(outDir, WALLET_OPENAPI_FILE);
    writeFileSync(openapi, `${JSON.stringify(dialectOpenApi(dialect), null, 2)}\n`);
    const recipe = dialect.signing;
    const signing =
      recipe.algorithm === 'scheme' ? `scheme ${headerSchemeOf(dialect, config.callbacks.signing.scheme)}` : recipe.algorithm;
    const summary = `${contracts.length} interactions (${contracts.map((x) => x.id).join(', ')}), dialect ${dialect.name}, signing ${signing}; and ${openapi}, the wallet API it describes (OpenAPI 3.1)`;
    io.stdout(
      `Wrote ${path}: ${summary}.\n` +
        `Verify a webhook with them: aggmock verify <webhookUrl>${flags.config ? ` --config ${flags.config}` : ''}${dialectFlag(flags) ? ` --dialect ${dialectFlag(flags)}` : ''}${flags.scheme ? ` --scheme ${flags.scheme}` : ''}\n`,
    );
    return 0;
  }
  io.stdout(describeContracts(cwd));
  return 0;
}

/** What `aggmock contracts` prints: the files and one line per interaction. */
export function describeContracts(cwd: string): string {
  const pact = resolve(CONTRACTS_DIR, PACT_FILE_NAME);
  const openapi = resolve(CONTRACTS_DIR, 'openapi.json');
  const show = (p: string) =>
    `${relative(cwd, p).startsWith('..') ? p : relative(cwd, p)}${existsSync(p) ? '' : '  (missing: run `aggmock contracts --regenerate`)'}`;
  const lines = [
    `Contracts (Pact V4, consumer aggmock, provider integrator-webhook):`,
    `  ${show(pact)}`,
    `  ${show(openapi)}  (the aggregator API and the callback bodies, OpenAPI 3.1)`,
    '',
    'Interactions, one per rule (POST /callback/webhook):',
    ...dialectContracts(dialectOf(defaultConfig().callbacks)).flatMap((i) => [
      `  pact:${i.id.padEnd(20)} ${i.rule}`,
      ...(i.states.length ? [`  ${''.padEnd(25)} given ${i.states.map((s) => `"${s.name}"`).join(' and ')}`] : []),
    ]),
    '',
    `Verify a webhook against them: aggmock verify http://127.0.0.1:4001/callback/webhook --state-url http://127.0.0.1:4001/__state`,
    `Regenerate after changing the engine or the interactions: aggmock contracts --regenerate (or npm run contracts)`,
    '',
  ];
  return lines.join('\n');
}
