import { createPublicKey } from 'node:crypto';
import type { Command } from 'commander';
import { type AggmockConfig, ConfigError, loadConfig } from '../../config/index.ts';
import { BUILTIN_DIALECTS, builtinDialect, type Dialect, isBuiltinDialect } from '../../dialects/index.ts';
import { BUILTIN_PROFILES, builtinProfile, isBuiltinProfile, profileJsonSchemaText, wireOf } from '../../profiles/index.ts';
import { EXIT_USAGE, usageExit } from '../options.ts';

/** `aggmock profiles`: the wire profiles there are, each one's definition, and the JSON Schema of a profile file. */

export interface ProfilesIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
}

const processIo: ProfilesIo = {
  stdout: (t) => process.stdout.write(t),
  stderr: (t) => process.stderr.write(t),
};

/**
 * Registers `aggmock profiles`.
 *
 * @example
 * aggmock profiles                    # the built-in profiles and the active one
 * aggmock profiles show betnex        # its definition: a profile file to start from
 * aggmock profiles schema > profile.schema.json
 */
export function registerProfilesCommand(program: Command, io: ProfilesIo = processIo): Command {
  const command = program
    .command('profiles')
    .description('List the wire profiles (callback body, amounts, reply, signing), show one as a file, or print the JSON Schema.')
    .option('-c, --config <file>', 'config file whose callbacks.profile is the active one')
    .exitOverride(usageExit)
    .action((flags: { config?: string }) => {
      const config = configOrExit(flags.config, io);
      const setting = config.callbacks.profile;
      const lines = BUILTIN_PROFILES.map((name) => {
        const definition = builtinProfile(name, config.callbacks);
        return `${name === setting ? '*' : ' '} ${name.padEnd(10)} ${definition.description ?? ''}`;
      });
      if (typeof setting !== 'string') lines.push(`* ${setting.name.padEnd(10)} (from a profile file)`);
      const width = Math.max(10, ...BUILTIN_DIALECTS.map((name) => name.length));
      const dialects = BUILTIN_DIALECTS.map(
        (name) => `  ${name.padEnd(width)} ${firstSentence(builtinDialect(name).description)}`,
      );
      io.stdout(
        `${lines.join('\n')}\n\n* active (callbacks.profile). Show one: aggmock profiles show <name>\n\n` +
          'Vendor dialects (--profile <name> on serve, demo, send, wallet, verify and contracts):\n' +
          `${dialects.join('\n')}\n`,
      );
    });
  command
    .command('show')
    .argument('[name]', `a built-in profile (${BUILTIN_PROFILES.join(', ')}) or vendor dialect; default: the active profile`)
    .description('Print a profile definition as JSON: a profile file to start from')
    .option('-c, --config <file>', 'config file (the default profile is built from its callbacks settings)')
    .exitOverride(usageExit)
    .action((name: string | undefined, flags: { config?: string }) => {
      const config = configOrExit(flags.config, io);
      if (name !== undefined && isBuiltinDialect(name)) {
        const dialect = builtinDialect(name);
        io.stdout(
          `${JSON.stringify({ $schema: './node_modules/aggmock/contracts/dialect.schema.json', ...dialect }, null, 2)}\n`,
        );
        const needs = Object.entries(dialect.credentials).map(([key, c]) => `  ${key}: ${c.description}`);
        io.stderr(
          (needs.length === 0 ? `${name} needs no credentials\n` : `${name} needs these credentials:\n${needs.join('\n')}\n`) +
            publicKeyText(dialect),
        );
        return;
      }
      if (name !== undefined && !isBuiltinProfile(name)) {
        io.stderr(
          `aggmock: unknown profile "${name}" (built-in: ${BUILTIN_PROFILES.join(', ')}; vendor dialects: ${BUILTIN_DIALECTS.join(', ')})\n`,
        );
        process.exit(EXIT_USAGE);
      }
      const definition = name === undefined ? wireOf(config.callbacks).definition : builtinProfile(name, config.callbacks);
      io.stdout(
        `${JSON.stringify({ $schema: './node_modules/aggmock/contracts/profile.schema.json', ...definition }, null, 2)}\n`,
      );
    });
  command
    .command('schema')
    .description('Print the JSON Schema of a profile file')
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

function configOrExit(configPath: string | undefined, io: ProfilesIo): AggmockConfig {
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
