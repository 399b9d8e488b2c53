import { describe, expect, it } from 'vitest';
import { dialectOf } from '../config/dialect.ts';
import { configSchema } from '../config/index.ts';
import { BUILTIN_DIALECTS, builtinDialect } from './builtin/index.ts';
import {
  amountField,
  carriesFact,
  carriesSessionToken,
  codesRefusals,
  datesSignatures,
  documents,
  encodingOf,
  has,
  hasStaticCredential,
  namesBetInWin,
  negatesDebits,
  playsWholeRounds,
  rollbackReusesBetId,
  rotatesSecrets,
  signingSchemeOf,
  signs,
  signsBodyBytes,
  signsWithHeaderScheme,
  staticCredentialFields,
  winsBelongToARound,
} from './capabilities.ts';
import type { Dialect } from './schema.ts';

const wire = (callbacks: Record<string, unknown> = {}): Dialect => dialectOf(configSchema.parse({ callbacks }).callbacks);
const defaultWire = wire();
const betnex = wire({ profile: 'betnex' });
const referenceStyle = wire({ rollbackStyle: 'reference', extraFields: ['roundId', 'currency', 'bonus'] });
const vendors = BUILTIN_DIALECTS.map((name) => builtinDialect(name));
const vendor = (name: string) => builtinDialect(name as (typeof BUILTIN_DIALECTS)[number]);

describe('capabilities: what a wire can do, asked of its dialect', () => {
  it('names the calls a wire has', () => {
    expect(has(vendor('pragmatic'), 'endRound')).toBe(true);
    expect(has(vendor('hub88'), 'endRound')).toBe(false);
    expect(has(defaultWire, 'rollback')).toBe(true);
    expect(has(betnex, 'rollback')).toBe(false);
    expect(has(defaultWire, 'balance')).toBe(false);
  });

  it('tells how a wire signs: aggmock header schemes, a vendor recipe, or nothing', () => {
    expect([signs(defaultWire), signsWithHeaderScheme(defaultWire), rotatesSecrets(defaultWire)]).toEqual([true, true, true]);
    expect([signs(betnex), signsWithHeaderScheme(betnex)]).toEqual([false, false]);
    expect([signs(vendor('hub88')), signsWithHeaderScheme(vendor('hub88')), rotatesSecrets(vendor('hub88'))]).toEqual([
      true,
      false,
      false,
    ]);
    expect(signingSchemeOf(defaultWire, 'hmac-hex')).toBe('hmac-hex');
    expect(signingSchemeOf(vendor('hub88'), 'timestamped')).toBe('rsa-sha256');
    expect(signingSchemeOf(betnex, 'timestamped')).toBe('none');
    expect(datesSignatures(defaultWire, 'timestamped')).toBe(true);
    expect(datesSignatures(defaultWire, 'hmac-hex')).toBe(false);
    expect(datesSignatures(vendor('hub88'), 'timestamped')).toBe(false);
  });

  it('tells whether a wire signs the body bytes (so any body can be sent signed)', () => {
    expect(signsBodyBytes(defaultWire)).toBe(true);
    expect(signsBodyBytes(betnex)).toBe(true);
    expect(signsBodyBytes(vendor('pragmatic'))).toBe(false);
    expect(signsBodyBytes(vendor('blueocean'))).toBe(false);
    expect(encodingOf(vendor('pragmatic'))).toBe('form');
    expect(encodingOf(defaultWire)).toBe('json');
  });

  it('finds debits written as negative amounts only where a field negates them', () => {
    expect(vendors.filter(negatesDebits).map((d) => d.name)).toEqual(['habanero']);
    expect(negatesDebits(defaultWire)).toBe(false);
  });

  it('tells which wires play a whole round in one call', () => {
    expect(playsWholeRounds(betnex)).toBe(true);
    expect(playsWholeRounds(vendor('softswiss'))).toBe(true);
    expect(playsWholeRounds(defaultWire)).toBe(false);
    expect(playsWholeRounds(vendor('hub88'))).toBe(false);
  });

  it('finds an API key carried as it is in the body, and the field it is in', () => {
    expect(staticCredentialFields(betnex)).toEqual(['api_key']);
    expect(hasStaticCredential(betnex)).toBe(true);
    expect(hasStaticCredential(defaultWire)).toBe(false);
    expect(hasStaticCredential(vendor('hub88'))).toBe(false);
  });

  it('finds the top-level amount field of a bet and of a win, and none where amounts are nested', () => {
    expect([amountField(defaultWire, 'bet'), amountField(defaultWire, 'win')]).toEqual(['amount', 'amount']);
    expect([amountField(betnex, 'bet'), amountField(betnex, 'win')]).toEqual(['bet_amount', 'win_amount']);
    expect(amountField(vendor('redtiger'), 'win')).toBeUndefined();
    expect(amountField(betnex, 'rollback')).toBeUndefined();
  });

  it('tells which facts a bet or a win carries', () => {
    expect(carriesFact(defaultWire, 'currency')).toBe(false);
    expect(carriesFact(referenceStyle, 'currency')).toBe(true);
    expect(carriesFact(referenceStyle, 'bonusId')).toBe(true);
    expect(carriesFact(betnex, 'bonusId')).toBe(true);
    expect(carriesFact(vendor('hub88'), 'currency')).toBe(true);
  });

  it('tells a rollback that reuses the bet id from one with an id of its own', () => {
    expect(rollbackReusesBetId(defaultWire)).toBe(true);
    expect(rollbackReusesBetId(referenceStyle)).toBe(false);
    expect(rollbackReusesBetId(betnex)).toBe(false);
    expect(vendors.filter(rollbackReusesBetId)).toEqual([]);
  });

  it('tells the wires whose wins belong to a round from those that pay a win on its own', () => {
    expect(vendors.filter((d) => !winsBelongToARound(d)).map((d) => d.name)).toEqual([]);
    expect([defaultWire, betnex, referenceStyle].map(winsBelongToARound)).toEqual([false, false, false]);
    expect(namesBetInWin(vendor('hub88'))).toBe(true);
    expect(namesBetInWin(vendor('pragmatic'))).toBe(false);
    expect(carriesSessionToken(vendor('softswiss'))).toBe(false);
    expect(carriesSessionToken(vendor('pragmatic'))).toBe(true);
  });

  it('tells a wire whose refusals carry codes from one whose refusals are a flag', () => {
    expect(codesRefusals(defaultWire)).toBe(true);
    expect(codesRefusals(betnex)).toBe(false);
    expect(codesRefusals(vendor('hub88'))).toBe(true);
  });

  it("holds aggmock's own webhook wires to aggmock's contract rules, and no vendor", () => {
    expect([defaultWire, betnex, referenceStyle].every((d) => documents(d, 'late-bet'))).toBe(true);
    expect(vendors.filter((d) => documents(d, 'refused-repeat'))).toEqual([]);
  });
});
