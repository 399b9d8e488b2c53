import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/*
 * `aggmock verify --tokens <file>`: the session tokens a wallet handed over, kept between runs. A
 * wallet that answers authenticate with a new token (Evolution's /check, Pragmatic's authenticate,
 * Red Tiger's /auth) makes the token it was called with stale, so the next run must start from the
 * new one. The file is read before the run and written back at its end: one `player=token` a line,
 * `#` comments and blank lines ignored.
 */

/** The largest tokens file read or written: far above any real list of test players. */
export const TOKEN_FILE_MAX_BYTES = 64 * 1024;
/** verify's bound on one session token (as for --token). */
export const TOKEN_MAX_LENGTH = 512;
/** The bound on a player id (as callbacks.sessionTokens). */
export const PLAYER_MAX_LENGTH = 256;

/** A tokens file that cannot be read or used: the message names the file and the line. */
export class TokenFileError extends Error {
  override readonly name = 'TokenFileError';
}

/**
 * The player → token pairs of a tokens file's text. `where` names the file in errors.
 *
 * @example
 * parseTokenFile('# chained runs\np1=evo-sid-1f2e\n', 'tokens.txt'); // { p1: 'evo-sid-1f2e' }
 */
export function parseTokenFile(text: string, where: string): Record<string, string> {
  const tokens: Record<string, string> = {};
  const lineOf = new Map<string, number>();
  for (const [i, raw] of text.split(/\r?\n/).entries()) {
    const n = i + 1;
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const at = `--tokens ${where} line ${n}`;
    const eq = line.indexOf('=');
    if (eq <= 0) throw new TokenFileError(`${at}: expected player=token such as p1=tok-123, got ${JSON.stringify(clip(line))}.`);
    const player = line.slice(0, eq).trim();
    const token = line.slice(eq + 1).trim();
    if (player.length > PLAYER_MAX_LENGTH)
      throw new TokenFileError(`${at}: the player id has ${player.length} characters; expected at most ${PLAYER_MAX_LENGTH}.`);
    if (token === '' || token.length > TOKEN_MAX_LENGTH)
      throw new TokenFileError(
        `${at}: expected the session token of ${JSON.stringify(clip(player))} (1 to ${TOKEN_MAX_LENGTH} characters), got ${token === '' ? 'nothing' : `${token.length} characters`}.`,
      );
    if (/\s/.test(token)) throw new TokenFileError(`${at}: the token of ${JSON.stringify(clip(player))} contains white space.`);
    const earlier = lineOf.get(player);
    if (earlier !== undefined)
      throw new TokenFileError(
        `${at}: player ${JSON.stringify(clip(player))} is named again (first on line ${earlier}); keep one line a player.`,
      );
    lineOf.set(player, n);
    tokens[player] = token;
  }
  return tokens;
}

/**
 * The tokens of `path`, or none when the file does not exist yet (the first run of a chain writes
 * it). A file larger than TOKEN_FILE_MAX_BYTES, a folder, or a bad line is a TokenFileError.
 */
export function readTokenFile(path: string): Record<string, string> {
  let text: string;
  try {
    const stat = statSync(path);
    if (!stat.isFile())
      throw new TokenFileError(`--tokens ${path}: expected a file of player=token lines, found a folder or device.`);
    if (stat.size > TOKEN_FILE_MAX_BYTES)
      throw new TokenFileError(
        `--tokens ${path}: ${stat.size} bytes; a tokens file holds at most ${TOKEN_FILE_MAX_BYTES} (one player=token line per player).`,
      );
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if (error instanceof TokenFileError) throw error;
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new TokenFileError(`--tokens ${path}: cannot be read (${(error as Error).message}).`);
  }
  return parseTokenFile(text, path);
}

/** The text of a tokens file: a header saying what it is, then one player=token line each, sorted by player. */
export function tokenFileText(tokens: Readonly<Record<string, string>>, writtenAt: Date): string {
  const lines = Object.keys(tokens)
    .sort()
    .map((player) => `${player}=${tokens[player]}`);
  return (
    `# aggmock verify: the session tokens to start the next run with (player=token), written ${writtenAt.toISOString()}.\n` +
    `# aggmock verify --tokens <this file> reads it before a run and writes the tokens the wallet handed over back.\n${lines.join('\n')}\n`
  );
}

/**
 * Writes `tokens` to `path` atomically (a temporary file beside it, flushed, then renamed over it),
 * readable by its owner only: a run cut short never leaves half a file for the next one.
 */
export function writeTokenFile(path: string, tokens: Readonly<Record<string, string>>, writtenAt = new Date()): void {
  for (const [player, token] of Object.entries(tokens)) {
    if (player === '' || player.includes('=') || /[\r\n]/.test(player) || player.length > PLAYER_MAX_LENGTH)
      throw new TokenFileError(
        `--tokens ${path}: cannot write player id ${JSON.stringify(clip(player))} as a player=token line.`,
      );
    if (token === '' || /\s/.test(token) || token.length > TOKEN_MAX_LENGTH)
      throw new TokenFileError(
        `--tokens ${path}: cannot write the token of ${JSON.stringify(clip(player))} as a player=token line.`,
      );
  }
  const text = tokenFileText(tokens, writtenAt);
  if (Buffer.byteLength(text) > TOKEN_FILE_MAX_BYTES)
    throw new TokenFileError(`--tokens ${path}: the tokens would take more than ${TOKEN_FILE_MAX_BYTES} bytes.`);
  const temporary = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    const fd = openSync(temporary, 'wx', 0o600);
    try {
      writeSync(fd, text);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temporary, path);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw new TokenFileError(`--tokens ${path}: cannot be written (${(error as Error).message}).`);
  }
}

function clip(text: string): string {
  return text.length > 60 ? `${text.slice(0, 57)}…` : text;
}
