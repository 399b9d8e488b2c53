import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { configSchema } from '../../src/config/index.ts';
import {
  parseTokenFile,
  readTokenFile,
  TOKEN_FILE_MAX_BYTES,
  TokenFileError,
  writeTokenFile,
} from '../../src/verify/token-file.ts';
import { handedOverTokens, madeUpToken, tokenFlags } from '../../src/verify/tokens.ts';

const dir = mkdtempSync(join(tmpdir(), 'aggmock-token-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the --tokens file', () => {
  it('reads player=token lines, skipping comments and blank lines, in any line ending', () => {
    expect(parseTokenFile('# chained\r\np1=evo-sid-1\n\n  p2 = tok=with=equals  \n', 'f')).toEqual({
      p1: 'evo-sid-1',
      p2: 'tok=with=equals',
    });
  });

  it.each([
    ['p1\n', /line 1: expected player=token such as p1=tok-123, got "p1"/],
    ['# ok\np1=a\n=tok\n', /line 3: expected player=token/],
    ['p1=\n', /line 1: expected the session token of "p1" \(1 to 512 characters\), got nothing/],
    [`p1=${'x'.repeat(513)}\n`, /line 1: .*got 513 characters/],
    ['p1=a b\n', /line 1: the token of "p1" contains white space/],
    ['p1=a\np2=b\np1=c\n', /line 3: player "p1" is named again \(first on line 1\)/],
  ])('refuses a bad line and names it: %j', (text, message) => {
    expect(() => parseTokenFile(text, 'tokens.txt')).toThrow(TokenFileError);
    expect(() => parseTokenFile(text, 'tokens.txt')).toThrow(message);
  });

  it('treats a file that does not exist yet as empty (the first run of a chain writes it)', () => {
    expect(readTokenFile(join(dir, 'missing.txt'))).toEqual({});
  });

  it('refuses a file over its size bound, and a folder, naming the file', () => {
    const big = join(dir, 'big.txt');
    writeFileSync(big, `# ${'x'.repeat(TOKEN_FILE_MAX_BYTES)}\n`);
    expect(() => readTokenFile(big)).toThrow(/big\.txt: \d+ bytes; a tokens file holds at most 65536/);
    expect(() => readTokenFile(dir)).toThrow(/expected a file of player=token lines/);
  });

  it('writes atomically, owner-readable only, and reads back what it wrote', () => {
    const path = join(dir, 'tokens.txt');
    writeFileSync(path, 'p1=old\n');
    writeTokenFile(path, { p2: 'b-token', p1: 'evo-sid-new' }, new Date('2026-11-28T06:00:00Z'));
    expect(readTokenFile(path)).toEqual({ p1: 'evo-sid-new', p2: 'b-token' });
    expect(readFileSync(path, 'utf8')).toMatch(
      /^# aggmock verify: .*2026-11-28T06:00:00.000Z.*\n#.*\np1=evo-sid-new\np2=b-token\n$/,
    );
    expect(statSync(path).mode & 0o777).toBe(0o600);
    // No temporary file is left beside it.
    expect(readdirSync(dir).filter((f) => f.includes('.tmp'))).toEqual([]);
  });

  it('refuses to write what it could not read back (a token with a line break), leaving the old file', () => {
    const path = join(dir, 'kept.txt');
    writeFileSync(path, 'p1=old\n');
    expect(() => writeTokenFile(path, { p1: 'a\nb' })).toThrow(/cannot write the token of "p1"/);
    expect(readFileSync(path, 'utf8')).toBe('p1=old\n');
  });
});

describe('the tokens a run was handed over', () => {
  const callbacks = configSchema.parse({ callbacks: { dialect: 'evolution' } }).callbacks;
  const settings = { runId: 'r1', callbacks };

  it('are the tokens that are neither the ones the run started with nor made up by verify', () => {
    const sessionTokens = new Map([
      ['p1', 'evo-sid-new'],
      ['p2', 'start-2'],
      ['p3', madeUpToken(settings, 'p3')],
    ]);
    expect(handedOverTokens({ ...settings, sessionTokens }, { p1: 'start-1', p2: 'start-2' })).toEqual({ p1: 'evo-sid-new' });
  });

  it('are said as flags a shell reads back as they are', () => {
    expect(tokenFlags({ p2: 'b', p1: "it's a;token" })).toBe(`--token 'p1=it'\\''s a;token' --token p2=b`);
  });
});
