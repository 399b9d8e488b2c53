import { createPrivateKey } from 'node:crypto';
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { resolve } from 'node:path';

/*
 * The operator's own RSA private key for the MCP vendor tools (`aggmock mcp --operator-key <file>`):
 * an RSA-signed operator API (Hub88, Caleta) checks the operator's signature with the public key it
 * was given, so tools that call it for the user must sign with the user's key, not aggmock's
 * development one. Read once at start, bounded, and checked to be an RSA private key.
 */

/** A PEM private key is a few KiB; a larger file is not one (and is not read whole). */
export const MAX_KEY_FILE_BYTES = 64 * 1024;

export class OperatorKeyError extends Error {
  override name = 'OperatorKeyError';
}

/**
 * The PEM text of the RSA private key at `path` (relative to `cwd`), or an OperatorKeyError naming the
 * flag, the file and what is wrong with it.
 *
 * @example const pem = readOperatorKey('./keys/operator.pem'); // '-----BEGIN PRIVATE KEY-----…'
 */
export function readOperatorKey(path: string, cwd = process.cwd()): string {
  const file = resolve(cwd, path);
  const fail = (why: string) => new OperatorKeyError(`--operator-key: ${file} ${why}`);
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (error) {
    throw fail(`cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
  let text: string;
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw fail('is not a file');
    if (stat.size > MAX_KEY_FILE_BYTES)
      throw fail(`is ${stat.size} bytes; a PEM private key is at most ${MAX_KEY_FILE_BYTES} (is it the right file?)`);
    const buffer = Buffer.alloc(MAX_KEY_FILE_BYTES + 1);
    const read = readSync(fd, buffer, 0, buffer.length, 0);
    if (read > MAX_KEY_FILE_BYTES) throw fail(`is larger than ${MAX_KEY_FILE_BYTES} bytes`);
    text = buffer.toString('utf8', 0, read);
  } finally {
    closeSync(fd);
  }
  if (!text.includes('-----BEGIN'))
    throw fail('is not PEM text: expected "-----BEGIN PRIVATE KEY-----" or "-----BEGIN RSA PRIVATE KEY-----"');
  let type: string | undefined;
  try {
    type = createPrivateKey(text).asymmetricKeyType;
  } catch (error) {
    throw fail(`holds no readable private key (${(error as Error).message}); a public key or an encrypted key is not taken`);
  }
  if (type !== 'rsa') throw fail(`holds a${type === 'ec' ? 'n' : ''} ${type ?? 'unknown'} key; the operator APIs sign with RSA`);
  return text;
}
