import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  buildRequest,
  type CallFacts,
  type Dialect,
  DialectHooksError,
  DialectRequestError,
  dialectSchema,
  hooksBannerLine,
  loadHooks,
  verifyRequest,
} from './index.ts';

/*
 * A dialect's hooks module: what data cannot say (a signature over "*"-joined values), one pure
 * function that the sender and the receiving wallet both call.
 */

const dir = mkdtempSync(join(tmpdir(), 'aggmock-hooks-'));
// These tests build requests with hooks (hooksOf reads the run's opt-in from the environment).
process.env.AGGMOCK_ALLOW_HOOKS = '1';
// Taken back after the file: a worker runs other files after this one (isolate: false).
afterAll(() => {
  delete process.env.AGGMOCK_ALLOW_HOOKS;
});
const ALLOW = { allow: true };
/** A module loaded from its own folder, allowed. */
const load = (path: string) => loadHooks(path, dirname(path), ALLOW);
function module(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

const STAR_JOINED = module(
  'star.mjs',
  `export function signedText(parts, credentials) {
     const flat = (v) => (v !== null && typeof v === 'object' ? Object.values(v).map(flat).join(':') : String(v));
     return [credentials.project, ...Object.values(parts.fields).map(flat), credentials.secret].join('*');
   }`,
);

function dialectWith(hooks: string | undefined, encoding: 'json' | 'form' | 'query' = 'json'): Dialect {
  return dialectSchema.parse({
    name: 'starry',
    credentials: { project: { kind: 'text', description: 'the project id' }, secret: { description: 'the secret key' } },
    request: { encoding },
    signing: {
      algorithm: 'md5',
      payload: { over: 'hook', credentials: ['secret'] },
      encoding: 'hex',
      place: { field: 'signature' },
    },
    ...(hooks === undefined ? {} : { hooks }),
    operations: {
      bet: {
        method: encoding === 'query' ? 'GET' : 'POST',
        path: '',
        fields: {
          name: { const: 'bet' },
          callback_id: { from: 'transactionId' },
          data: { object: { round_id: { from: 'roundId' }, amount: { from: 'amount' }, currency: { from: 'currency' } } },
        },
      },
      win: { path: '', fields: { name: { const: 'win' }, callback_id: { from: 'transactionId' } } },
    },
  });
}

const CREDS = { project: '42', secret: 'sesame' };
const BET: CallFacts = {
  operation: 'bet',
  playerId: 'p1',
  currency: 'EUR',
  transactionId: 'tx-1',
  amountMinor: 1050,
  roundId: 'r-9',
  createdAt: Date.UTC(2026, 10, 25),
};
const md5 = (text: string) => createHash('md5').update(text).digest('hex');

describe('a dialect that signs over a hook', () => {
  it('signs the text the hook returns with the recipe, placed where the recipe says', () => {
    const req = buildRequest(dialectWith(STAR_JOINED), BET, CREDS);
    expect(req.signed).toBe('42*bet*tx-1*r-9:10.5:EUR*sesame');
    expect(JSON.parse(req.body as string)).toEqual({
      name: 'bet',
      callback_id: 'tx-1',
      data: { round_id: 'r-9', amount: 10.5, currency: 'EUR' },
      signature: md5('42*bet*tx-1*r-9:10.5:EUR*sesame'),
    });
  });

  it('is verified by the same hook on the receiving side, and a changed nested value is refused with the text expected', () => {
    const dialect = dialectWith(STAR_JOINED);
    const req = buildRequest(dialect, BET, CREDS);
    const received = { method: 'POST', path: req.path, headers: req.headers, body: req.body as string };
    expect(verifyRequest(dialect, received, CREDS)).toEqual({ ok: true });
    const tampered = { ...received, body: (req.body as string).replace('"amount":10.5', '"amount":1050') };
    expect(verifyRequest(dialect, tampered, CREDS)).toEqual({
      ok: false,
      reason: 'the signature in the field signature does not match',
      expected: '42*bet*tx-1*r-9:1050:EUR*sesame',
    });
    expect(verifyRequest(dialect, received, { ...CREDS, secret: 'other' })).toMatchObject({ ok: false });
  });

  it('shows a form body to the hook as the flat pairs a wallet receives, the same on both sides', () => {
    const dialect = dialectWith(STAR_JOINED, 'form');
    const req = buildRequest(dialect, BET, CREDS);
    expect(req.signed).toBe('42*bet*tx-1*r-9*10.5*EUR*sesame');
    expect(req.body).toContain('data%5Bround_id%5D=r-9');
    expect(
      verifyRequest(dialect, { method: 'POST', path: req.path, headers: req.headers, body: req.body as string }, CREDS),
    ).toEqual({
      ok: true,
    });
  });

  it('is refused by the schema without a hooks module, and when it names a credential the dialect does not declare', () => {
    const input = {
      name: 'starry',
      signing: { algorithm: 'md5', payload: { over: 'hook', credentials: ['nope'] }, place: { field: 'signature' } },
      operations: { bet: { path: '', fields: {} }, win: { path: '', fields: {} } },
    };
    const issues = dialectSchema.safeParse(input).error?.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    expect(issues).toEqual([
      'hooks: signing.payload.over is "hook": name the module that exports signedText, e.g. "hooks": "./my-hooks.mjs"',
      'signing.payload.credentials.0: names the credential "nope", which credentials does not declare',
    ]);
  });

  it('names the dialect when the hook throws or returns something other than a string, and the request is not sent', () => {
    const throws = module('throws.mjs', "export function signedText() { throw new Error('no project id'); }");
    // A DialectRequestError: the engine refuses such an event before storing it, as any call it cannot build.
    expect(() => buildRequest(dialectWith(throws), BET, CREDS)).toThrow(DialectRequestError);
    expect(() => buildRequest(dialectWith(throws), BET, CREDS)).toThrow(
      "the starry dialect's signedText hook threw: no project id",
    );
    const number = module('number.mjs', 'export function signedText() { return 42; }');
    expect(() => buildRequest(dialectWith(number), BET, CREDS)).toThrow(/signedText hook returned number; expected a string/);
    const huge = module('huge.mjs', "export function signedText() { return 'x'.repeat(2 * 1024 * 1024); }");
    expect(() => buildRequest(dialectWith(huge), BET, CREDS)).toThrow(/returned 2097152 characters; at most 1048576/);
  });
});

describe('loading a hooks module', () => {
  it('loads an ES module, a CommonJS module and a default export object alike, once', () => {
    const cjs = module('cjs.cjs', "exports.signedText = () => 'cjs';");
    const dflt = module('default.mjs', "export default { signedText: () => 'default' };");
    expect(load(STAR_JOINED).signedText).toBeTypeOf('function');
    expect(load(cjs).signedText?.({} as never, {})).toBe('cjs');
    expect(load(dflt).signedText?.({} as never, {})).toBe('default');
    expect(load(cjs)).toBe(load(cjs));
  });

  it('says on stderr once per module that it runs, naming only that module; the banner line names every module loaded', () => {
    const written: string[] = [];
    const write = process.stderr.write;
    process.stderr.write = ((text: string) => written.push(text) > 0) as typeof process.stderr.write;
    const first = module('notice-1.mjs', "export const signedText = () => 'one';");
    const second = module('notice-2.mjs', "export const signedText = () => 'two';");
    try {
      load(first);
      load(second);
      load(first);
    } finally {
      process.stderr.write = write;
    }
    const sha = (text: string) => createHash('sha256').update(text).digest('hex');
    expect(written).toEqual([
      `aggmock: hooks → ${first} (sha256 ${sha("export const signedText = () => 'one';")}): JavaScript running with your privileges (--allow-hooks)\n`,
      `aggmock: hooks → ${second} (sha256 ${sha("export const signedText = () => 'two';")}): JavaScript running with your privileges (--allow-hooks)\n`,
    ]);
    expect(hooksBannerLine()).toContain(`${first} (sha256 `);
    expect(hooksBannerLine()).toContain(`, ${second} (sha256 `);
  });

  it('takes a relative path from the folder it is given', () => {
    const sub = join(dir, 'dialects');
    mkdirSync(sub, { recursive: true });
    writeFileSync(join(sub, 'rel.mjs'), "export const signedText = () => 'relative';");
    expect(loadHooks('./rel.mjs', sub, ALLOW).signedText?.({} as never, {})).toBe('relative');
  });

  it('refuses a missing file, a folder, a module that fails to load, an unknown export, a non-function and no hook at all, naming each', () => {
    const cases: [string, RegExp][] = [
      [join(dir, 'missing.mjs'), /hooks module .*missing\.mjs does not exist/],
      [join(dir, 'folder.mjs'), /does not exist/],
      [module('syntax.mjs', 'export function signedText( {'), /syntax\.mjs could not be loaded: /],
      [
        module('extra.mjs', "export const signedText = () => ''; export const sign = () => '';"),
        /exports "sign", which is not a hook; a hooks module exports signedText/,
      ],
      [module('string.mjs', "export const signedText = 'x';"), /exports "signedText" as string; expected a function/],
      [module('empty.mjs', 'export {};'), /exports no hook; expected signedText/],
    ];
    mkdirSync(join(dir, 'folder.mjs'), { recursive: true });
    for (const [path, message] of cases) {
      expect(() => load(path), path).toThrow(DialectHooksError);
      expect(() => load(path), path).toThrow(message);
    }
  });
});
