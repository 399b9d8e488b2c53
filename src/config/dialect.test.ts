import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildRequest, builtinDialect, DEV_RSA_PRIVATE_KEY } from '../dialects/index.ts';
import { CredentialError, credentialsOf, dialectOf, isVendorDialect } from './dialect.ts';
import { ConfigError, loadConfig } from './load.ts';

const load = (callbacks: Record<string, unknown>, cwd = process.cwd()) =>
  loadConfig({ env: {}, cwd, flags: { callbacks }, flagNames: { 'callbacks.credentials': '--credential' } });

describe('callbacks.profile names a vendor dialect', () => {
  it('resolves hub88 to its dialect, with the development private key when none is given', () => {
    const config = load({ profile: 'hub88' });
    expect(isVendorDialect(config.callbacks)).toBe(true);
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

  it('refuses credentials on a profile, which signs with callbacks.signing', () => {
    expect(() => load({ credentials: { secretKey: 'x' } })).toThrow(/"default" profile takes no credentials/);
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
    expect(isVendorDialect(config.callbacks)).toBe(true);
    expect(dialectOf(config.callbacks).name).toBe('mine');
    expect(credentialsOf(config.callbacks)).toEqual({ authToken: 'aggmock-dev-token' });
  });

  it('keeps a profile a profile: its dialect is the profile’s, its only credential the API key', () => {
    const config = load({ profile: 'betnex' });
    expect(isVendorDialect(config.callbacks)).toBe(false);
    expect(dialectOf(config.callbacks).name).toBe('betnex');
    expect(credentialsOf(config.callbacks)).toEqual({ apiKey: config.callbacks.apiKey });
  });

  it('refuses an unknown name, listing profiles and dialects', () => {
    expect(() => load({ profile: 'hub99' })).toThrow(/built-in profile \(default, betnex\), a vendor dialect \(.*hub88.*\)/);
  });
});
