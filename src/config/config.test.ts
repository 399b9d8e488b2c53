import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, defaultConfig, envLayer, loadConfig } from './index.ts';

function tempDir(files: Record<string, string> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'aggmock-config-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

function configError(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('configuration', () => {
  it('runs out of the box with the documented defaults', () => {
    const config = defaultConfig();
    expect(config).toMatchObject({ port: 4000, host: '127.0.0.1', seed: 42, db: '.aggmock/aggmock.db' });
    expect(config.auth).toMatchObject({ mode: 'either', apiKeys: ['aggmock-dev-key'] });
    expect(config.auth.signing).toMatchObject({ scheme: 'timestamped', secrets: ['aggmock-dev-secret'], toleranceSeconds: 300 });
    expect(config.callbacks.retrySchedule).toEqual([0, 1_000, 5_000, 30_000, 120_000, 600_000, 3_600_000]);
    expect(config.callbacks.webhookUrl).toBe('http://127.0.0.1:4001/callback/webhook');
    expect(Object.keys(config.wallet.players)).toEqual(['p1', 'p2', 'p3', 'p4', 'p5', 'p6', 'p7', 'p8', 'p9', 'p10']);
  });

  it('takes flags over env over file over defaults', () => {
    const cwd = tempDir({
      'aggmock.config.json': JSON.stringify({ port: 1111, host: '127.0.0.2', seed: 'file', catalog: { games: 10 } }),
    });
    const env = { AGGMOCK_PORT: '2222', AGGMOCK_SEED: 'env', AGGMOCK_CATALOG__PROVIDERS: '5' };
    const config = loadConfig({ cwd, env, flags: { port: 3333 } });
    expect(config.port).toBe(3333);
    expect(config.seed).toBe('env');
    expect(config.host).toBe('127.0.0.2');
    expect(config.catalog).toMatchObject({ games: 10, providers: 5 });
    expect(loadConfig({ cwd, env: {} }).port).toBe(1111);
    expect(loadConfig({ cwd: tempDir(), env: {} }).port).toBe(4000);
  });

  it('reads nested env names with __ and JSON values, and the short aliases', () => {
    expect(
      envLayer({ AGGMOCK_CALLBACKS__TIME_SCALE: '0.01', AGGMOCK_CALLBACKS__EXTRA_FIELDS: '["roundId"]', OTHER: 'x' }),
    ).toEqual({
      callbacks: { timeScale: 0.01, extraFields: ['roundId'] },
    });
    const config = loadConfig({
      cwd: tempDir(),
      env: { AGGMOCK_WEBHOOK_URL: 'http://127.0.0.1:9/hook', AGGMOCK_SECRET: 'a,b', AGGMOCK_API_KEY: 'k1' },
    });
    expect(config.callbacks.webhookUrl).toBe('http://127.0.0.1:9/hook');
    expect(config.callbacks.signing.secrets).toEqual(['a', 'b']);
    expect(config.auth.signing.secrets).toEqual(['a', 'b']);
    expect(config.auth.apiKeys).toEqual(['k1']);
  });

  it('reads --config from the given path and says when it is missing', () => {
    const cwd = tempDir({ 'custom.json': JSON.stringify({ port: 5555 }) });
    expect(loadConfig({ cwd, env: {}, configPath: 'custom.json' }).port).toBe(5555);
    expect(configError(() => loadConfig({ cwd, env: {}, configPath: 'nope.json' }))).toMatch(
      /Config file not found: .*nope\.json/,
    );
  });

  it('names the key, the value and what was expected for a bad value', () => {
    const cwd = tempDir({
      'aggmock.config.json': JSON.stringify({ port: 'eighty', callbacks: { timeout: 'soon', rollbackStyle: 'sideways' } }),
    });
    const message = configError(() => loadConfig({ cwd, env: {} }));
    expect(message).toMatch(/port: .*number.*\(got "eighty"\)/);
    expect(message).toMatch(/callbacks\.timeout: expected a duration .*\(got "soon"\)/);
    expect(message).toMatch(/callbacks\.rollbackStyle: .*"original".*"reference".*\(got "sideways"\)/);
  });

  it('names the env variable’s key when the env holds the bad value', () => {
    expect(configError(() => loadConfig({ cwd: tempDir(), env: { AGGMOCK_AUTH__MODE: 'maybe' } }))).toMatch(
      /auth\.mode: .*\(got "maybe"\)/,
    );
  });

  it('refuses invalid JSON and non-object files clearly', () => {
    expect(configError(() => loadConfig({ cwd: tempDir({ 'aggmock.config.json': '{ port: 1' }), env: {} }))).toMatch(
      /not valid JSON/,
    );
    expect(configError(() => loadConfig({ cwd: tempDir({ 'aggmock.config.json': '[1]' }), env: {} }))).toMatch(
      /must hold a JSON object/,
    );
  });

  it('refuses a schedule entry with both or neither of every and cron', () => {
    const both = { schedule: [{ scenario: 'bet-win', every: '2s', cron: '* * * * * *' }] };
    expect(configError(() => loadConfig({ cwd: tempDir(), env: {}, flags: both }))).toMatch(
      /schedule\.0: give exactly one of "every"/,
    );
  });

  it('refuses two fault rules with one id in api.faults or callbacks.faults, naming the second; takes distinct ids', () => {
    const api = { api: { faults: [0, 1].map(() => ({ id: 'same', fault: { kind: 'status', status: 503 } })) } };
    expect(configError(() => loadConfig({ cwd: tempDir(), env: {}, flags: api }))).toMatch(
      /api\.faults\.1\.id: the id "same" is already rule 0's/,
    );
    const callbacks = { callbacks: { faults: [0, 1].map(() => ({ id: 'dup', fault: { kind: 'duplicate' } })) } };
    expect(configError(() => loadConfig({ cwd: tempDir(), env: {}, flags: callbacks }))).toMatch(
      /callbacks\.faults\.1\.id: the id "dup" is already rule 0's/,
    );
    const distinct = { api: { faults: ['a', 'b'].map((id) => ({ id, fault: { kind: 'status', status: 503 } })) } };
    expect(loadConfig({ cwd: tempDir(), env: {}, flags: distinct }).api.faults.map((r) => r.id)).toEqual(['a', 'b']);
  });

  it('refuses a scheduled ROLLBACK scenario under a profile without ROLLBACK, naming the entry; takes it under default', () => {
    const schedule = [
      { scenario: 'bet-win', every: '2s' },
      { scenario: 'bet-rollback', every: '2s' },
    ];
    const betnex = { callbacks: { profile: 'betnex' }, schedule };
    expect(configError(() => loadConfig({ cwd: tempDir(), env: {}, flags: betnex }))).toMatch(
      /schedule\.1\.scenario: the "bet-rollback" scenario sends a ROLLBACK, and the "betnex" profile has no ROLLBACK callback/,
    );
    expect(loadConfig({ cwd: tempDir(), env: {}, flags: { schedule } }).schedule).toHaveLength(2);
    expect(loadConfig({ cwd: tempDir(), env: {}, flags: { ...betnex, schedule: [schedule[0]] } }).schedule).toHaveLength(1);
  });

  it('takes wallet players as a bare balance or {balance, currency}, and refuses a malformed currency', () => {
    const players = { p1: 10, jp: { balance: 1000, currency: 'JPY' } };
    expect(loadConfig({ cwd: tempDir(), env: {}, flags: { wallet: { players } } }).wallet.players).toEqual(players);
    const bad = { wallet: { players: { jp: { balance: 1000, currency: 'yen' } } } };
    expect(configError(() => loadConfig({ cwd: tempDir(), env: {}, flags: bad }))).toMatch(/wallet\.players\.jp/);
  });

  it('loads the example config in fixtures/', () => {
    const config = loadConfig({ cwd: process.cwd(), env: {}, configPath: 'fixtures/aggmock.config.example.json' });
    expect(config.schedule[0]).toMatchObject({ scenario: 'bet-win', every: '5s' });
    expect(config.callbacks.timeout).toBe(10_000);
    expect(config.wallet.players.p3).toBe(250.5);
  });

  describe('is strict: a typo is refused with the nearest valid key, never ignored', () => {
    it('refuses an unknown key in the config file, naming the file, the key and the nearest valid key', () => {
      const cwd = tempDir({ 'aggmock.config.json': JSON.stringify({ callbacks: { timescale: 0.01 }, prot: 4100 }) });
      const message = configError(() => loadConfig({ cwd, env: {} }));
      expect(message).toContain(join(cwd, 'aggmock.config.json'));
      expect(message).toContain('unknown key "callbacks.timescale" (did you mean callbacks.timeScale?)');
      expect(message).toContain('unknown key "prot" (did you mean port?)');
    });

    it('refuses keys named like Object.prototype members as unknown keys, without crashing', () => {
      for (const key of ['valueOf', 'constructor', 'toString', 'hasOwnProperty']) {
        const cwd = tempDir({ 'aggmock.config.json': JSON.stringify({ callbacks: { [key]: [{}] } }) });
        expect(configError(() => loadConfig({ cwd, env: {} }))).toContain(`unknown key "callbacks.${key}"`);
      }
    });

    it('finds the nearest key across levels and inside arrays', () => {
      const flags = { callback: { timeScale: 1 }, schedule: [{ scenario: 'bet-win', evry: '2s' }] };
      const message = configError(() => loadConfig({ cwd: tempDir(), env: {}, flags }));
      expect(message).toContain('unknown key "callback" (did you mean callbacks?)');
      expect(message).toContain('unknown key "schedule.0.evry" (did you mean schedule.0.every?)');
    });

    it('lists the valid keys of the level when nothing is close', () => {
      const cwd = tempDir({ 'aggmock.config.json': JSON.stringify({ catalog: { zzzzzzzz: 1 } }) });
      expect(configError(() => loadConfig({ cwd, env: {} }))).toContain(
        'unknown key "catalog.zzzzzzzz" (valid keys in catalog: catalog.providers, catalog.games, catalog.fixture)',
      );
    });

    it('refuses an unknown AGGMOCK_* variable with the nearest valid variable and its key', () => {
      const message = configError(() => loadConfig({ cwd: tempDir(), env: { AGGMOCK_CALLBACKS__TIMESCALE: '0.01' } }));
      expect(message).toBe(
        'Environment:\n  AGGMOCK_CALLBACKS__TIMESCALE is no setting (did you mean AGGMOCK_CALLBACKS__TIME_SCALE, key callbacks.timeScale?)',
      );
      expect(configError(() => envLayer({ AGGMOCK_PROT: '1' }))).toContain('did you mean AGGMOCK_PORT, key port?');
    });

    it('accepts record keys and the variables the examples and browser tests read', () => {
      const env = { AGGMOCK_WALLET__PLAYERS__ALICE: '12.5', AGGMOCK_URL: 'http://127.0.0.1:1', AGGMOCK_CHROMIUM: '/x' };
      expect(loadConfig({ cwd: tempDir(), env }).wallet.players.alice).toBe(12.5);
    });

    it('accepts the variables the package scripts set for the tests (test:nightly sizes, test:package matrix)', () => {
      const { scripts } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
        scripts: Record<string, string>;
      };
      const set = [
        ...Object.values(scripts)
          .join(' ')
          .matchAll(/\b(AGGMOCK_[A-Z_]+)=(\S+)/g),
      ];
      const env = Object.fromEntries(set.map(([, name, value]) => [name, value]));
      expect(Object.keys(env)).toEqual(expect.arrayContaining(['AGGMOCK_CRASH_EVENTS', 'AGGMOCK_PACKAGE_MATRIX']));
      expect(loadConfig({ cwd: tempDir(), env }).port).toBe(defaultConfig().port);
    });

    it('says each thing once', () => {
      const cwd = tempDir({ 'aggmock.config.json': JSON.stringify({ callbacks: { timeout: 'soon' } }) });
      const message = configError(() => loadConfig({ cwd, env: {} }));
      expect(message.match(/soon/g)).toHaveLength(1);
    });
  });
  describe('files and variables that cannot be read', () => {
    it('gives the line, the column and the line itself for a config file that is not JSON', () => {
      const cwd = tempDir({ 'aggmock.config.json': '{\n  "port": 4000,\n  "callbacks": {\n    "timeScale": 0.1,\n  }\n}\n' });
      const message = configError(() => loadConfig({ cwd, env: {} }));
      expect(message).toBe(
        `Config file ${join(cwd, 'aggmock.config.json')} is not valid JSON: Expected double-quoted property name (a trailing comma before it?) at line 5, column 3:\n      }\n      ^`,
      );
    });

    it('finds the spot V8 gives no position for, names the usual cause, and reads a file with a byte-order mark', () => {
      const cwd = tempDir({
        'token.json': '{\n  "port": x\n}',
        'comment.json': '{\n  // the port\n  "port": 4100\n}',
        'single.json': "{'port': 4100}",
        'bom.json': '\uFEFF{"port": 4100}',
      });
      const load = (name: string) => configError(() => loadConfig({ cwd, env: {}, configPath: name }));
      expect(load('token.json')).toContain(`Unexpected token 'x' at line 2, column 11:\n      "port": x\n              ^`);
      expect(load('comment.json')).toContain('(JSON has no comments) at line 2, column 3');
      expect(load('single.json')).toContain('(JSON takes double quotes, not single) at line 1, column 2');
      expect(loadConfig({ cwd, env: {}, configPath: 'bom.json' }).port).toBe(4100);
    });

    it('says a config file is empty, or a folder, instead of a JSON parse error', () => {
      const cwd = tempDir({ 'empty.json': '\n' });
      expect(configError(() => loadConfig({ cwd, env: {}, configPath: 'empty.json' }))).toContain('the file is empty');
      expect(configError(() => loadConfig({ cwd, env: {}, configPath: '.' }))).toBe(
        `Config file ${cwd} is a folder (from --config .); expected a JSON file such as ${join(cwd, 'aggmock.config.json')}.`,
      );
    });

    it('refuses an AGGMOCK_* value that starts like JSON but does not parse, naming the variable', () => {
      const message = configError(() => envLayer({ AGGMOCK_WALLET__PLAYERS: '{"p1": 10,}' }));
      expect(message).toContain('AGGMOCK_WALLET__PLAYERS is not valid JSON');
      expect(message).toContain('at line 1, column 11');
    });

    it('refuses a blank or non-numeric port instead of reading it as 0', () => {
      for (const value of [' ', 'x', '1.5', '-1']) {
        const message = configError(() => loadConfig({ cwd: tempDir(), env: { AGGMOCK_PORT: value } }));
        expect(message).toMatch(/port: .*(expected a port number from 0 to 65535|expected int|>=0)/);
      }
      expect(loadConfig({ cwd: tempDir(), env: { AGGMOCK_PORT: '4100' } }).port).toBe(4100);
      expect(loadConfig({ cwd: tempDir(), env: { AGGMOCK_WALLET__PORT: ' 4101 ' } }).wallet.port).toBe(4101);
    });

    it('says what an http(s) URL looks like for webhookUrl and publicUrl, and which flag or variable gave it', () => {
      const message = configError(() =>
        loadConfig({
          cwd: tempDir(),
          env: { AGGMOCK_WEBHOOK: 'ftp://x' },
          flags: { publicUrl: 'localhost:4000' },
          flagNames: { publicUrl: '--public-url' },
        }),
      );
      expect(message).toContain(
        'callbacks.webhookUrl: expected an http:// or https:// URL such as "http://127.0.0.1:4001/callback/webhook" (got "ftp://x"), set by AGGMOCK_WEBHOOK',
      );
      expect(message).toContain(
        'publicUrl: expected an http:// or https:// URL such as "https://games.example.test" (got "localhost:4000"), set by --public-url',
      );
    });

    it('names the variable of a bad env value, the command line for a flag without a name, and nothing for the file', () => {
      const cwd = tempDir({ 'aggmock.config.json': JSON.stringify({ callbacks: { jitter: 5 } }) });
      const message = configError(() =>
        loadConfig({ cwd, env: { AGGMOCK_CALLBACKS__TIME_SCALE: '-1' }, flags: { launch: { expiresIn: 0 } } }),
      );
      expect(message).toMatch(/\n {2}callbacks\.jitter: .*\(got 5\)\n/);
      expect(message).toMatch(/callbacks\.timeScale: .*\(got -1\), set by AGGMOCK_CALLBACKS__TIME_SCALE$/);
      expect(message).toMatch(/launch\.expiresIn: .*\(got 0\), set on the command line/);
    });

    it('opens a union: the issues of the branch the value fits, or the kinds it could be', () => {
      const flags = { seed: 1.5, wallet: { players: { p1: 'x', p2: { balance: 'x', currency: 'EUR' } } } };
      const message = configError(() => loadConfig({ cwd: tempDir(), env: {}, flags }));
      expect(message).toContain('  seed: expected a whole number or a string (got 1.5)');
      expect(message).toContain('  wallet.players.p1: expected a number or an object (got "x")');
      expect(message).toMatch(/ {2}wallet\.players\.p2\.balance: .*expected number, received string \(got "x"\)/);
      expect(message).not.toContain('Invalid input (got');
    });
  });
});
