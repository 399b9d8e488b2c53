import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildRequest, builtinDialect, DEV_RSA_PRIVATE_KEY } from '../dialects/index.ts';
import { CredentialError, credentialsOf, dialectOf } from './dialect.ts';
import { ConfigError, loadConfig, PROFILE_KEY_NOTE } from './load.ts';

const load = (callbacks: Record<string, unknown>, cwd = process.cwd()) =>
  loadConfig({ env: {}, cwd, flags: { callbacks }, flagNames: { 'callbacks.credentials': '--credential' } });

describe('callbacks.dialect (old name callbacks.profile) names a dialect', () => {
  it('resolves hub88 to its dialect, with the development private key when none is given', () => {
    const config = load({ dialect: 'hub88' });
    expect(config.callbacks.dialect).toBe('hub88');
    expect(dialectOf(config.callbacks)).toEqual(builtinDialect('hub88'));
    expect(credentialsOf(config.callbacks)).toEqual({ privateKey: DEV_RSA_PRIVATE_KEY });
  });

  it('takes credentials by the vendor’s names and signs with them', () => {
    const config = load({ profile: 'pragmatic', credentials: { secretKey: 'testKey' } });
    expect(credentialsOf(config.callbacks)).toEqual({ secretKey: 'testKey' });
    const req = buildRequest(
      dialectOf(config.callbacks),
      { operation: 'balance', playerId: 'p1', currency: 'EUR', createdAt: 0 },
      credentialsOf(config.callbacks),
    );
    expect(req.body).toMatch(/hash=[0-9a-f]{32}/);
  });

  it('refuses a credential name the dialect does not have, naming the ones it has', () => {
    expect(() => load({ profile: 'pragmatic', credentials: { secretkey: 'x' } })).toThrow(ConfigError);
    expect(() => load({ profile: 'pragmatic', credentials: { secretkey: 'x' } })).toThrow(
      /callbacks\.credentials\.secretkey.*no credential "secretkey"; it takes "secretKey"/,
    );
  });

  it('refuses a credential the default dialect does not take (it signs with callbacks.signing), and takes its apiKey', () => {
    expect(() => load({ credentials: { secretKey: 'x' } })).toThrow(
      /"default" dialect has no credential "secretKey"; it takes "apiKey"/,
    );
    expect(credentialsOf(load({ credentials: { apiKey: 'k2' } }).callbacks)).toEqual({ apiKey: 'k2' });
    expect(credentialsOf(load({}).callbacks)).toEqual({ apiKey: 'aggmock-dev-key' });
  });

  it('reads a private key given as a file path, and says which file when it cannot', () => {
    const dir = mkdtempSync(join(tmpdir(), 'aggmock-cred-'));
    writeFileSync(join(dir, 'key.pem'), DEV_RSA_PRIVATE_KEY);
    const fromFile = load({ profile: 'caleta', credentials: { privateKey: 'key.pem' } }, dir);
    expect(credentialsOf(fromFile.callbacks, dir).privateKey).toBe(DEV_RSA_PRIVATE_KEY);
    const missing = load({ profile: 'caleta', credentials: { privateKey: 'absent.pem' } }, dir);
    expect(() => credentialsOf(missing.callbacks, dir)).toThrow(CredentialError);
    expect(() => credentialsOf(missing.callbacks, dir)).toThrow(
      /callbacks\.credentials\.privateKey: .*absent\.pem cannot be read \(ENOENT\)/,
    );
  });

  it('reads a dialect file (a definition with operations) as a dialect', () => {
    const dir = mkdtempSync(join(tmpdir(), 'aggmock-dialect-'));
    const { name: _name, ...rest } = builtinDialect('evolution');
    writeFileSync(join(dir, 'mine.json'), JSON.stringify({ ...rest, name: 'mine' }));
    const config = load({ profile: 'mine.json' }, dir);
    expect(dialectOf(config.callbacks).name).toBe('mine');
    expect(credentialsOf(config.callbacks)).toEqual({ authToken: 'aggmock-dev-token' });
  });

  it('resolves betnex to its built-in dialect, its only credential the API key from callbacks.apiKey', () => {
    const config = load({ profile: 'betnex', apiKey: 'op-1' });
    expect(config.callbacks.dialect).toBe('betnex');
    expect(dialectOf(config.callbacks)).toBe(builtinDialect('betnex'));
    expect(credentialsOf(config.callbacks)).toEqual({ apiKey: 'op-1' });
  });

  it('refuses an unknown name under the key that was set, listing the built-in dialects', () => {
    expect(() => load({ profile: 'hub99' })).toThrow(
      /callbacks\.profile: expected a built-in dialect \(default, betnex, hub88.*\)/,
    );
    expect(() => load({ dialect: 'hub99' })).toThrow(
      /callbacks\.dialect: expected a built-in dialect \(default, betnex, hub88.*\)/,
    );
    expect(() => load({ dialect: 'hub88', profile: 'hub88' })).toThrow(
      /callbacks\.profile: is the old name of callbacks\.dialect/,
    );
  });

  it('notes the old key callbacks.profile (from a file, the env or flags) and not the new one', () => {
    const notes: string[] = [];
    const onDeprecated = (message: string) => notes.push(message);
    const viaEnv = loadConfig({ env: { AGGMOCK_CALLBACKS__PROFILE: 'betnex' }, cwd: process.cwd(), onDeprecated });
    expect(viaEnv.callbacks.dialect).toBe('betnex');
    expect(notes).toEqual([PROFILE_KEY_NOTE]);
    loadConfig({ env: { AGGMOCK_CALLBACKS__DIALECT: 'betnex' }, cwd: process.cwd(), onDeprecated });
    loadConfig({ env: {}, flags: { callbacks: { dialect: 'hub88' } }, cwd: process.cwd(), onDeprecated });
    expect(notes).toHaveLength(1);
  });
});
