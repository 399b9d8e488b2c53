import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { judgeReply } from '../../src/callbacks/reply.ts';
import { callbacksSchema, dialectOf, signOptionsOf } from '../../src/config/index.ts';
import { type BonusKind, buildRequest, type CallFacts, readReply } from '../../src/dialects/index.ts';
import { dialectOfProfile } from '../../src/dialects/profile.ts';
import { profileDefinitionSchema } from '../../src/profiles/index.ts';
import type { SigningKeys } from '../../src/signing/index.ts';

/**
 * The built-in `default` and `betnex` dialects (src/dialects/builtin) and a converted profile file
 * put the same bytes on the wire as the profile renderer of old: the same body for every event and
 * the same signature headers, for the default wire in many configurations, for Betnex and for a
 * profile file. The expected bytes are fixtures (fixtures/profile-wire.json), written once by the
 * old renderer (src/profiles/render.ts and sign.ts, removed in issue 31) from 200 generated cases.
 */

interface Fields {
  kind: 'debit' | 'credit' | 'rollback';
  transactionId: string;
  referenceTransactionId?: string;
  playerId: string;
  amountMinor: number;
  winMinor?: number;
  roundId?: string;
  gameId?: string;
  gameName?: string;
  provider?: string;
  currency?: string;
  bonus?: { kind: BonusKind; id: string };
  createdAt: number;
}

interface Case {
  wire: 'default' | 'betnex' | 'acme';
  settings: Record<string, unknown>;
  fields: Fields;
  body: string;
  headers: Record<string, string>;
}

const FIXTURE = JSON.parse(readFileSync(new URL('./fixtures/profile-wire.json', import.meta.url), 'utf8')) as {
  acme: Record<string, unknown>;
  cases: Case[];
  readings: { status: number; text: string; verdict: string; balance: unknown }[];
};

const OPERATION = { debit: 'bet', credit: 'win', rollback: 'rollback' } as const;

function factsOf(f: Fields): CallFacts {
  return {
    operation: OPERATION[f.kind],
    playerId: f.playerId,
    currency: f.currency ?? 'EUR',
    transactionId: f.transactionId,
    betTransactionId: f.referenceTransactionId,
    amountMinor: f.amountMinor,
    winMinor: f.winMinor,
    roundId: f.roundId,
    gameId: f.gameId,
    gameName: f.gameName,
    provider: f.provider,
    bonus: f.bonus,
    createdAt: f.createdAt,
  };
}

const SIGNED_AT = { timestamp: 1_790_000_000, id: 'msg_fixed' };

function settingsOf(c: Case) {
  return callbacksSchema.parse(c.wire === 'acme' ? { ...c.settings, dialect: FIXTURE.acme } : c.settings);
}

/** The request the dialect builds for a fixture case: the configured keys, at the fixture's time. */
function requestOf(c: Case) {
  const settings = settingsOf(c);
  const options = signOptionsOf(settings);
  return buildRequest(dialectOf(settings), factsOf(c.fields), { apiKey: settings.apiKey }, { ...options, ...SIGNED_AT });
}

function casesOf(wire: Case['wire']): Case[] {
  return FIXTURE.cases.filter((c) => c.wire === wire);
}

describe('a profile as a dialect', () => {
  it('has fixtures of every kind of event, wire and signing scheme (a test over nothing proves nothing)', () => {
    expect(casesOf('default').length).toBeGreaterThanOrEqual(100);
    expect(casesOf('betnex').length).toBeGreaterThanOrEqual(50);
    expect(casesOf('acme').length).toBeGreaterThanOrEqual(50);
    const kinds = new Set(FIXTURE.cases.map((c) => `${c.wire}:${c.fields.kind}`));
    expect([...kinds].sort()).toEqual(
      [
        'acme:credit',
        'acme:debit',
        'acme:rollback',
        'betnex:credit',
        'betnex:debit',
        'default:credit',
        'default:debit',
        'default:rollback',
      ].sort(),
    );
    const schemes = new Set(casesOf('default').map((c) => (c.settings.signing as { scheme: string }).scheme));
    expect(schemes).toEqual(new Set(['timestamped', 'hmac-hex', 'standard-webhooks']));
  });

  it('writes the default wire byte for byte, in every configuration, with the same signature headers', () => {
    for (const c of casesOf('default')) {
      const settings = settingsOf(c);
      expect(dialectOf(settings).calls.rollbackStyle).toBe(settings.rollbackStyle);
      const req = requestOf(c);
      expect(req.body, JSON.stringify(c.fields)).toBe(c.body);
      expect(req.path).toBe('');
      expect(Object.keys(c.headers).length).toBeGreaterThan(0);
      for (const [name, value] of Object.entries(c.headers)) expect(req.headers[name]).toBe(value);
    }
  });

  it('writes the Betnex wire byte for byte, API key in the body and no signature header', () => {
    for (const c of casesOf('betnex')) {
      const req = requestOf(c);
      expect(req.body).toBe(c.body);
      expect(JSON.parse(c.body).api_key).toBe('op-key-1');
      expect(Object.keys(req.headers)).toEqual(['content-type']);
    }
  });

  it('catches a byte that differs: another key order, amount format or secret does not match the fixtures', () => {
    const c = casesOf('default').find((x) => x.fields.kind === 'debit' && x.settings.amountFormat === 'decimal') as Case;
    const reordered = JSON.stringify(Object.fromEntries(Object.entries(JSON.parse(c.body)).reverse()));
    expect(reordered).not.toBe(c.body);
    const minor = requestOf({ ...c, settings: { ...c.settings, amountFormat: 'minor' } });
    expect(minor.body).not.toBe(c.body);
    const settings = settingsOf(c);
    const wrong = buildRequest(
      dialectOf(settings),
      factsOf(c.fields),
      { apiKey: settings.apiKey },
      { ...SIGNED_AT, scheme: { ...(signOptionsOf(settings).scheme as SigningKeys), secrets: ['another-secret'] } },
    );
    expect(Object.entries(c.headers).some(([name, value]) => wrong.headers[name] !== value)).toBe(true);
  });

  it('reads replies as the profile reader did: the same verdict and balance', () => {
    const dialect = dialectOf(callbacksSchema.parse({}));
    expect(FIXTURE.readings.map((r) => r.verdict)).toEqual(expect.arrayContaining(['accepted', 'rejected', 'retry', 'invalid']));
    for (const { status, text, verdict, balance } of FIXTURE.readings) {
      const mine = readReply(dialect, { operation: 'bet', currency: 'EUR' }, { status, text });
      expect({ status, text, verdict: mine.verdict }).toEqual({ status, text, verdict });
      const judged = judgeReply({ status, text });
      expect({ status, text, verdict: judged.verdict, balance: judged.balance }).toEqual({ status, text, verdict, balance });
    }
  });

  it('converts a profile file once, when the configuration is validated: the same bytes, its rollback style read from the file', () => {
    const file = FIXTURE.acme;
    for (const key of ['dialect', 'profile'] as const) {
      const settings = callbacksSchema.parse({ [key]: file });
      expect(typeof settings.dialect).toBe('object');
      expect(Object.hasOwn(settings, 'profile')).toBe(false);
      const dialect = dialectOf(settings);
      expect(dialect).toEqual(dialectOfProfile(profileDefinitionSchema.parse(file)));
      expect(dialect.calls).toEqual({ rollbackStyle: 'reference', winsNameBet: false, idHexDigits: 24 });
    }
    for (const c of casesOf('acme')) {
      const req = requestOf(c);
      expect(req.body).toBe(c.body);
      for (const [name, value] of Object.entries(c.headers)) expect(req.headers[name]).toBe(value);
    }
    // Without referenceTransactionId in its rollback body, a rollback carries the bet's id as its own.
    const events = file.events as { rollback: { body: Record<string, unknown> } };
    const { of: _of, ...original } = events.rollback.body;
    const plain = callbacksSchema.parse({
      dialect: { ...file, events: { ...events, rollback: { type: 'UNDO', body: original } } },
    });
    expect(dialectOf(plain).calls.rollbackStyle).toBe('original');
    expect(() => callbacksSchema.parse({ dialect: 'default', profile: 'betnex' })).toThrow(/old name of callbacks.dialect/);
  });
});
