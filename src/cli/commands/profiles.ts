import { createPublicKey } from 'node:crypto';
import type { Command } from 'commander';
import { type AggmockConfig, ConfigError, dialectOf, loadConfig } from '../../config/index.ts';
import { dialectOfSetting } from '../../config/schema.ts';
import { BASE_DIALECTS, BUILTIN_DIALECTS, builtinDialect, type Dialect, isBuiltinDialect } from '../../dialects/index.ts';
import { profileJsonSchemaText } from '../../profiles/index.ts';
import { type CommandIo, EXIT_USAGE, PROCESS_IO, usageExit } from '../options.ts';

/** `aggmock profiles`: the dialects there are, each one's definition, and the JSON Schema of a profile file. */

/**
 * Registers `aggmock profiles`.
 *
 * @example
 * aggmock profiles                    # the built-in profiles and the active one
 * aggmock profiles show betnex        # its definition: a profile file to start from
 * aggmock profiles schema > profile.schema.json
 */
export function registerProfilesCommand(program: Command, io: CommandIo = PROCESS_IO): Command {
  const command = program
    .command('profiles')
    .description('List the dialects (the wires aggmock speaks), show one as a file, or print the JSON Schema of a profile file.')
    .option('-c, --config <file>', 'config file whose callbacks.dialect is the active one')
    .exitOverride(usageExit)
    .action((flags: { config?: string }) => {
      const config = configOrExit(flags.config, io);
      const setting = config.callbacks.dialect;
      const active = (name: string) => (name === setting ? '*' : ' ');
      const lines = BASE_DIALECTS.map(
        (name) => `${active(name)} ${name.padEnd(10)} ${dialectOfSetting(name, config.callbacks).description}`,
      );
      if (typeof setting !== 'string') lines.push(`* ${setting.name.padEnd(10)} (from a file)`);
      const width = Math.max(10, ...BUILTIN_DIALECTS.map((name) => name.length));
      const dialects = BUILTIN_DIALECTS.map(
        (name) => `${active(name)} ${name.padEnd(width)} ${firstSentence(builtinDialect(name).description)}`,
      );
      io.stdout(
        `${lines.join('\n')}\n\n* active (callbacks.dialect). Show one: aggmock profiles show <name>\n\n` +
          'Vendor dialects (--dialect <name> on serve, demo, send, wallet, verify and contracts):\n' +
          `${dialects.join('\n')}\n`,
      );
    });
  command
    .command('show')
    .argument('[name]', `a built-in dialect (${BASE_DIALECTS.join(', ')} or a vendor's); default: the active one`)
    .description('Print a dialect definition as JSON: a dialect file to start from')
    .option('-c, --config <file>', 'config file (the default dialect is built from its callbacks settings)')
    .exitOverride(usageExit)
    .action((name: string | undefined, flags: { config?: string }) => {
      const config = configOrExit(flags.config, io);
      if (name !== undefined && !isBuiltinDialect(name)) {
        io.stderr(
          `aggmock: unknown dialect "${name}" (built-in: ${BASE_DIALECTS.join(', ')}; vendor dialects: ${BUILTIN_DIALECTS.join(', ')})\n`,
        );
        process.exit(EXIT_USAGE);
      }
      const dialect = name === undefined ? dialectOf(config.callbacks) : dialectOfSetting(name, config.callbacks);
      io.stdout(`${JSON.stringify({ $schema: './node_modules/aggmock/contracts/dialect.schema.json', ...dialect }, null, 2)}\n`);
      const needs = Object.entries(dialect.credentials).map(([key, c]) => `  ${key}: ${c.description}`);
      io.stderr(
        (needs.length === 0
          ? `${dialect.name} needs no credentials\n`
          : `${dialect.name} needs these credentials:\n${needs.join('\n')}\n`) + publicKeyText(dialect),
      );
    });
  command
    .command('schema')
    .description(
      'Print the JSON Schema of a profile file (the older wire format, still read; converted to a dialect when loaded)',
    )
    .exitOverride(usageExit)
    .action(() => io.stdout(profileJsonSchemaText()));
  return command;
}

/**
 * For a dialect signed with RSA or ECDSA: the public key of its development private key, the one a
 * wallet (aggmock's reference wallet among them) verifies the development signatures with.
 */
function publicKeyText(dialect: Dialect): string {
  const recipe = dialect.signing;
  if (!('key' in recipe) || !recipe.key || !/^(rsa|ecdsa)-/.test(recipe.algorithm)) return '';
  const pem = dialect.credentials[recipe.key]?.default;
  if (pem === undefined) return '';
  const publicKey = createPublicKey(pem).export({ type: 'spki', format: 'pem' }) as string;
  return `\nThe public key of the development ${recipe.key}, to verify its signatures with (a wallet given another ${recipe.key} verifies with that key's):\n${publicKey}`;
}

/** A dialect's description up to its first colon or full stop, for a one-line listing. */
function firstSentence(text: string): string {
  const end = text.search(/[:.](\s|$)/);
  return end < 0 ? text : text.slice(0, end);
}

function configOrExit(configPath: string | undefined, io: CommandIo): AggmockConfig {
  try {
    return loadConfig({ configPath, env: io.env ?? process.env, cwd: io.cwd ?? process.cwd(), readOnly: true });
  } catch (error) {
    if (error instanceof ConfigError) {
      io.stderr(`aggmock: ${error.message}\n`);
      process.exit(EXIT_USAGE);
    }
    throw error;
  }
}
