import { describe, expect, it } from 'vitest';
import { validateConfig } from '../config/index.ts';
import { credentialMasker, MASKED, maskedBody, maskedQuery, nearestRoute, refusalHint } from './describe.ts';
import { type FaultRuleError, FaultRules } from './rules.ts';

const status500 = { kind: 'status', status: 500 } as const;

/** A catalog's providers as FaultRules looks them up: by code or by name, trimmed, any case. */
const PROVIDERS = {
  codeOf: (query: string) =>
    ({ pragmatic: 'PRAGMATIC', 'pragmatic play': 'PRAGMATIC', pgsoft: 'PGSOFT', 'pg soft': 'PGSOFT' })[
      query.trim().toLowerCase()
    ],
  codes: ['PRAGMATIC', 'PGSOFT'],
};

describe('FaultRules', () => {
  it('fires an always-rule on every matching call and never on another route', () => {
    const rules = new FaultRules({ seed: 1 });
    rules.add({ match: { path: '/getgameurl' }, fault: status500 });
    expect(rules.fire({ method: 'POST', path: '/getgameurl' })?.fault).toEqual(status500);
    expect(rules.fire({ method: 'POST', path: '/getgameurl' })?.fault).toEqual(status500);
    expect(rules.fire({ method: 'GET', path: '/getallproviders' })).toBeUndefined();
  });

  it('fires a times-rule for the next N matching calls, then is spent', () => {
    const rules = new FaultRules({ seed: 1 });
    rules.add({ fault: status500, times: 2 });
    const fired = [1, 2, 3].map(() => rules.fire({ method: 'GET', path: '/getallproviders' }) !== undefined);
    expect(fired).toEqual([true, true, false]);
    expect(rules.list()[0]).toMatchObject({ matched: 2, fired: 2, spent: true });
    expect(rules.mayMatch('GET', '/getallproviders')).toBe(false);
  });

  it('fires an nth-rule on the Nth matching call only; a call that does not match does not count', () => {
    const rules = new FaultRules({ seed: 1 });
    rules.add({ match: { player: 'p2' }, fault: status500, nth: 2 });
    const calls = ['p2', 'p1', 'p2', 'p2'].map(
      (player) => rules.fire({ method: 'POST', path: '/getgameurl', player }) !== undefined,
    );
    expect(calls).toEqual([false, false, true, false]);
  });

  it('draws a probability-rule from its seed: the same seed, the same sequence; another seed, another', () => {
    const sequence = (seed: number | string) => {
      const rules = new FaultRules({ seed });
      rules.add({ id: 'r', fault: status500, probability: 0.3 });
      return Array.from({ length: 40 }, () => (rules.fire({ method: 'GET', path: '/getallproviders' }) ? 1 : 0)).join('');
    };
    expect(sequence(7)).toBe(sequence(7));
    expect(sequence(7)).not.toBe(sequence(8));
    const ones = [...sequence(7)].filter((c) => c === '1').length;
    expect(ones).toBeGreaterThan(3);
    expect(ones).toBeLessThan(25);
  });

  it('draws a rule without id or seed the same in two runs with the same config seed, and apart with another', () => {
    const rule = { match: { path: '/getallproviders' }, fault: status500, probability: 0.3 };
    const draws = (book: FaultRules) =>
      Array.from({ length: 40 }, () => (book.fire({ method: 'GET', path: '/getallproviders' }) ? 1 : 0)).join('');
    // Two runs: fresh books with the same config rule (the ids they generate differ run to run).
    const run = (seed: number | string) =>
      draws(new FaultRules({ seed, rules: validateConfig({ api: { faults: [rule] } }).api.faults }));
    const first = run(7);
    expect(run(7)).toBe(first);
    expect(run(8)).not.toBe(first);
    expect(first).toMatch(/1/);
    // The same rule added through the admin API (written another way: /casino, keys reordered): the same draws.
    const added = new FaultRules({ seed: 7 });
    added.add({ probability: 0.3, fault: status500, match: { path: '/casino/getallproviders' } });
    expect(draws(added)).toBe(first);
    // Two identical rules draw apart (the second is the second of its kind), the same in each run.
    const second = () => {
      const book = new FaultRules({ seed: 7 });
      const one = book.add(rule);
      book.add(rule);
      book.remove(one.id);
      return draws(book);
    };
    expect(second()).toBe(second());
    expect(second()).not.toBe(first);
  });

  it('seeds a rule from its given id, or its own seed, whatever else it says', () => {
    const draw = (seed: number, rule: object) => {
      const book = new FaultRules({ seed });
      book.add(rule);
      return Array.from({ length: 40 }, () => (book.fire({ method: 'GET', path: '/getallproviders' }) ? 1 : 0)).join('');
    };
    expect(draw(7, { id: 'r', fault: status500, probability: 0.3 })).toBe(
      draw(7, { id: 'r', match: { method: 'get' }, fault: status500, probability: 0.3 }),
    );
    expect(draw(7, { fault: status500, probability: 0.3, seed: 's' })).toBe(
      draw(8, { fault: status500, probability: 0.3, seed: 's' }),
    );
  });

  it('draws uniform and log-normal delays within their bounds and the cap, the same for the same seed', () => {
    const draws = (fault: object) => {
      const rules = new FaultRules({ seed: 'd' });
      rules.add({ id: 'd', fault });
      return Array.from({ length: 50 }, () => rules.fire({ method: 'GET', path: '/x' })?.delayMs as number);
    };
    const uniform = draws({ kind: 'delay', uniform: { min: 10, max: 20 } });
    expect(Math.min(...uniform)).toBeGreaterThanOrEqual(10);
    expect(Math.max(...uniform)).toBeLessThanOrEqual(20);
    expect(new Set(uniform).size).toBeGreaterThan(3);
    const lognormal = draws({ kind: 'delay', lognormal: { median: '1s', sigma: 4 } });
    expect(Math.max(...lognormal)).toBeLessThanOrEqual(60_000);
    expect(lognormal).toEqual(draws({ kind: 'delay', lognormal: { median: '1s', sigma: 4 } }));
  });

  it('matches the provider trimmed and in any case, and body fields by dotted path', () => {
    const rules = new FaultRules({ seed: 1 });
    rules.add({ match: { provider: ' pgsoft ', body: { 'extras.vip': true } }, fault: status500 });
    expect(
      rules.fire({ method: 'POST', path: '/getgameurl', provider: 'PGSOFT', body: { extras: { vip: true } } }),
    ).toBeDefined();
    expect(
      rules.fire({ method: 'POST', path: '/getgameurl', provider: 'PGSOFT', body: { extras: { vip: false } } }),
    ).toBeUndefined();
  });

  it('takes rules from the config, refusing a bad one with the field named', () => {
    const config = validateConfig({ api: { faults: [{ id: 'c1', match: { path: '/casino/getgameurl/' }, fault: status500 }] } });
    const rules = new FaultRules({ seed: config.seed, rules: config.api.faults });
    expect(rules.list()).toEqual([expect.objectContaining({ id: 'c1', source: 'config', match: { path: '/getgameurl' } })]);
    expect(() => validateConfig({ api: { faults: [{ fault: { kind: 'delay', ms: '2h' } }] } })).toThrow(
      /api\.faults\.0\.fault\.ms/,
    );
    expect(() => validateConfig({ api: { faults: [{ fault: { kind: 'drip' }, probability: 2 }] } })).toThrow(
      /api\.faults\.0\.probability/,
    );
  });

  it('refuses a method, a path or a provider no request can have, naming the field and what was expected', () => {
    const rules = new FaultRules({ seed: 1, providers: PROVIDERS });
    const refusal = (rule: object) => {
      try {
        rules.add(rule);
      } catch (error) {
        return (error as FaultRuleError).issues;
      }
      return [];
    };
    expect(refusal({ match: { method: 'FETCH' }, fault: status500 })).toEqual([
      expect.objectContaining({
        field: 'match.method',
        message: expect.stringMatching(/expected an HTTP method: GET, POST, HEAD, PUT, PATCH, DELETE, OPTIONS/),
        received: 'FETCH',
      }),
    ]);
    expect(refusal({ match: { path: '/nosuch' }, fault: status500 })).toEqual([
      expect.objectContaining({
        field: 'match.path',
        message: expect.stringMatching(
          /^no API route \/nosuch; expected an API route: \/getallproviders, \/getallgamesandprovider, \/getgameurl/,
        ),
      }),
    ]);
    expect(refusal({ match: { path: '/casino/getgamurl' }, fault: status500 })).toEqual([
      expect.objectContaining({ field: 'match.path', message: expect.stringContaining('did you mean /getgameurl?') }),
    ]);
    expect(refusal({ match: { provider: 'NOSUCHPROV' }, fault: status500 })).toEqual([
      expect.objectContaining({
        field: 'match.provider',
        message: expect.stringContaining('expected a provider code or name'),
        received: 'NOSUCHPROV',
      }),
    ]);
    expect(rules.list()).toEqual([]);
    // Still taken: every method in any case, each route with or without /casino, a provider by code or name.
    for (const method of ['get', 'POST', 'Head', 'put', 'patch', 'delete', 'options'])
      expect(refusal({ match: { method }, fault: status500 })).toEqual([]);
    for (const path of ['/getallproviders', '/casino/getallgamesandprovider', '/getgameurl/'])
      expect(refusal({ match: { path }, fault: status500 })).toEqual([]);
    rules.clear();
    rules.add({ id: 'by-name', match: { provider: ' pragmatic play ' }, fault: status500 });
    rules.add({ id: 'by-code', match: { provider: 'pgsoft' }, fault: status500, nth: 2 });
    expect(rules.list().map((r) => r.match.provider)).toEqual(['PRAGMATIC', 'PGSOFT']);
    expect(rules.fire({ method: 'GET', path: '/getallgamesandprovider', provider: 'PRAGMATIC' })?.ruleId).toBe('by-name');
  });

  it('refuses an unknown provider in the config rules with the rule index in the field', () => {
    const faults = validateConfig({
      api: { faults: [{ fault: status500 }, { match: { provider: 'NOSUCHPROV' }, fault: status500 }] },
    }).api.faults;
    expect(() => new FaultRules({ seed: 1, rules: faults, providers: PROVIDERS })).toThrow(
      /1\.match\.provider: no such provider/,
    );
    expect(() => validateConfig({ api: { faults: [{ match: { path: '/nosuch' }, fault: status500 }] } })).toThrow(
      /api\.faults\.0\.match\.path: no API route/,
    );
    expect(() => validateConfig({ api: { faults: [{ match: { method: 'FETCH' }, fault: status500 }] } })).toThrow(
      /api\.faults\.0\.match\.method: expected an HTTP method/,
    );
  });

  it('matches an expired-link or used-link rule on the launch route only: a listing neither fires nor spends it', () => {
    const rules = new FaultRules({ seed: 1 });
    const expired = rules.add({ fault: { kind: 'expired-link' }, times: 1 });
    const used = rules.add({ match: { player: 'p1' }, fault: { kind: 'used-link' }, nth: 1 });
    expect(rules.mayMatch('GET', '/getallproviders')).toBe(false);
    expect(rules.fire({ method: 'GET', path: '/getallproviders' })).toBeUndefined();
    expect(rules.fire({ method: 'GET', path: '/getgameurl', player: 'p1' })).toBeUndefined();
    expect(rules.list()).toEqual([
      expect.objectContaining({ id: expired.id, matched: 0, fired: 0, spent: false }),
      expect.objectContaining({ id: used.id, matched: 0, fired: 0, spent: false }),
    ]);
    expect(rules.mayMatch('POST', '/getgameurl')).toBe(true);
    expect(rules.fire({ method: 'POST', path: '/getgameurl', player: 'p1' })?.ruleId).toBe(expired.id);
    expect(rules.fire({ method: 'POST', path: '/getgameurl', player: 'p2' })).toBeUndefined();
    // A match naming the launch route is taken; one naming another method can never fire and is refused.
    expect(() =>
      rules.add({ match: { method: 'post', path: '/casino/getgameurl' }, fault: { kind: 'used-link' } }),
    ).not.toThrow();
    expect(() => rules.add({ match: { method: 'GET' }, fault: { kind: 'used-link' } })).toThrow(
      /match\.method: a "used-link" fault applies to POST \/getgameurl only/,
    );
  });

  it('refuses a duplicate id and more than the maximum number of rules', () => {
    const rules = new FaultRules({ seed: 1 });
    rules.add({ id: 'a', fault: status500 });
    expect(() => rules.add({ id: 'a', fault: status500 })).toThrow(/exists already/);
    for (let i = 1; i < 100; i++) rules.add({ fault: status500 });
    expect(() => rules.add({ fault: status500 })).toThrow(/At most 100/);
  });
});

describe('credential masking and hints', () => {
  it('masks API keys, signatures, authorization and cookies, and key-like query parameters', () => {
    const mask = credentialMasker(['x-betnex-key', 'X-Signature']);
    expect(
      mask({
        'x-betnex-key': 'k',
        'x-signature': 's',
        authorization: 'Bearer t',
        cookie: 'c',
        'content-type': 'application/json',
      }),
    ).toEqual({
      'x-betnex-key': MASKED,
      'x-signature': MASKED,
      authorization: MASKED,
      cookie: MASKED,
      'content-type': 'application/json',
    });
    expect(maskedQuery('provider=PG&apikey=k&token=t')).toEqual({ provider: 'PG', apikey: MASKED, token: MASKED });
  });

  it('names the nearest route for a typo, and none for a path far from every route', () => {
    expect(nearestRoute('/getgameurls')?.path).toBe('/getgameurl');
    expect(nearestRoute('/api/v1/getallproviders')?.path).toBe('/getallproviders');
    expect(nearestRoute('/wallet/balance')).toBeUndefined();
    expect(refusalHint('GET', '/x', 404, JSON.stringify({ message: 'No route GET /x.' }))).toMatch(/the API serves/);
    expect(
      refusalHint(
        'POST',
        '/getgameurl',
        400,
        JSON.stringify({ message: 'bad', errors: [{ field: 'money', message: 'expected number' }] }),
      ),
    ).toBe('money: expected number');
    expect(refusalHint('GET', '/getallproviders', 200, '{}')).toBeNull();
    const errors = ['money', 'platform', 'currency', 'home_url'].map((field) => ({ field, message: 'required' }));
    expect(refusalHint('POST', '/getgameurl', 400, JSON.stringify({ message: 'bad', errors: errors.slice(0, 2) }))).toBe(
      'money: required; platform: required',
    );
    expect(refusalHint('POST', '/getgameurl', 400, JSON.stringify({ message: 'bad', errors }))).toBe(
      'money: required; platform: required; currency: required; and 1 more',
    );
  });
});

describe('maskedBody', () => {
  it('masks credential-like JSON fields at any depth and form fields, and keeps every other body as sent', () => {
    const launch =
      '{"username":"p1","token":"opsession-SECRET-123","extras":{"apiKey":"k-9","list":[{"signature":"ab"}]},"money":100}';
    expect(JSON.parse(maskedBody(launch))).toEqual({
      username: 'p1',
      token: MASKED,
      extras: { apiKey: MASKED, list: [{ signature: MASKED }] },
      money: 100,
    });
    expect(maskedBody('player=p1&password=hunter2')).toBe('player=p1&password=%5Bmasked%5D');
    // Nothing to mask: the very bytes, formatting and all.
    const plain = '{ "username": "p1",  "gameId": "g" }';
    expect(maskedBody(plain)).toBe(plain);
    // Not JSON (refused by the API): masked by pattern, never kept as sent.
    expect(maskedBody('{"token": "x"')).toBe('{"token": "[masked]"');
    // A form is a form whatever the content type says.
    expect(maskedBody('player=p1&password=x')).toBe('player=p1&password=%5Bmasked%5D');
    // A field named like a credential is masked whole, whatever its value's type.
    expect(JSON.parse(maskedBody('{"auth":{"user":"u","pass":"p"},"n":1}'))).toEqual({
      auth: MASKED,
      n: 1,
    });
  });
});
