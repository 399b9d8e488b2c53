import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig, validateConfig } from '../../src/config/index.ts';

/**
 * L-2 (review 2026-11-27): a config error quoted the refused value, so a misnamed credential
 * (`authtoken` for `authToken`) or a mistyped `signing.secrets` entry was printed in clear on the
 * terminal and in CI logs. A value under a secret-named key (the one rule, isSecretName) is now
 * shown as `[masked]`; other values are still quoted, so the error stays useful.
 */
describe('L-2: config errors never echo a secret value', () => {
  const messageOf = (fn: () => unknown): string => {
    try {
      fn();
    } catch (error) {
      return (error as Error).message;
    }
    throw new Error('expected a config error');
  };

  it.each([
    [
      'a mistyped signing secret',
      { callbacks: { signing: { secrets: ['fine-secret-1234567890', 12345678] } } },
      'callbacks.signing.secrets.1',
      '12345678',
    ],
    [
      'a misnamed dialect credential',
      { callbacks: { profile: 'evolution', credentials: { authtoken: 'MISNAMED-SECRET-1' } } },
      'callbacks.credentials.authtoken',
      'MISNAMED-SECRET-1',
    ],
    ['an admin token of the wrong type', { admin: { token: 987654321 } }, 'admin.token', '987654321'],
    [
      'a webhook URL with userinfo and a token refused for its scheme',
      { callbacks: { webhookUrl: 'ftp://ops:PASSWD-IN-URL@127.0.0.1/cb?access_token=WEBHOOK-SECRET-123&x=1' } },
      'callbacks.webhookUrl',
      'PASSWD-IN-URL',
    ],
  ])('masks %s', (_what, raw, field, secret) => {
    const message = messageOf(() => validateConfig(raw));
    expect(message).toContain(`${field}:`);
    expect(message).not.toContain(secret);
    expect(message).not.toContain('WEBHOOK-SECRET-123');
    expect(message).toMatch(/\(got (\[masked\]|"[^"]*\[masked\][^"]*"|"ftp:\/\/…@)/);
  });

  it('masks a secret set by a flag or a config file, and still names where it came from', () => {
    const flagged = messageOf(() =>
      loadConfig({
        env: {},
        cwd: mkdtempSync(join(tmpdir(), 'aggmock-sec-')),
        flags: { callbacks: { profile: 'evolution', credentials: { authtoken: 'FLAG-SECRET-2' } } },
        flagNames: { 'callbacks.credentials': '--credential' },
      }),
    );
    expect(flagged).toContain('callbacks.credentials.authtoken');
    expect(flagged).toContain('(got [masked]), set by --credential');
    expect(flagged).not.toContain('FLAG-SECRET-2');

    const dir = mkdtempSync(join(tmpdir(), 'aggmock-sec-'));
    writeFileSync(join(dir, 'bad.json'), JSON.stringify({ auth: { signing: { secrets: [{ value: 'FILE-SECRET-3' }] } } }));
    const filed = messageOf(() => loadConfig({ env: {}, cwd: dir, configPath: 'bad.json' }));
    expect(filed).toContain('auth.signing.secrets.0');
    expect(filed).not.toContain('FILE-SECRET-3');
  });

  it('still quotes values that are not secrets, and masks secret fields nested in a quoted object', () => {
    expect(messageOf(() => validateConfig({ limits: { bodyBytes: 'lots' } }))).toContain('limits.bodyBytes');
    expect(messageOf(() => validateConfig({ callbacks: { currency: 'yen!' } }))).toContain('"yen!"');
    expect(messageOf(() => validateConfig({ callbacks: { webhookUrl: 'ftp://127.0.0.1/cb?x=1' } }))).toContain(
      '(got "ftp://127.0.0.1/cb?x=1")',
    );
    expect(messageOf(() => validateConfig({ auth: { mode: 'maybe' } }))).toContain('(got "maybe")');
    expect(messageOf(() => validateConfig({ callbacks: { signing: { scheme: 'rot13' } } }))).toContain('(got "rot13")');
    // A credential map's entries are secrets whatever they are named.
    const mapped = messageOf(() =>
      validateConfig({ callbacks: { profile: 'evolution', credentials: { casino: 'MAP-SECRET-5' } } }),
    );
    expect(mapped).toContain('callbacks.credentials.casino');
    expect(mapped).not.toContain('MAP-SECRET-5');
    const nested = messageOf(() => validateConfig({ wallet: { players: { p1: { balance: 'x', apiKey: 'NESTED-KEY-4' } } } }));
    expect(nested).not.toContain('NESTED-KEY-4');
  });
});
