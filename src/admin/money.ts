import { exponentOf } from '../callbacks/call.ts';
import type { CallbackEngine } from '../callbacks/engine.ts';
import type { EventKind, StoredEvent } from '../callbacks/events.ts';
import type { AggmockConfig } from '../config/index.ts';
import { currencyExponent, parseMajorString, toMajor, toMinor } from '../money/index.ts';
import { fieldError } from './input.ts';
import { EVENT_KINDS } from './schemas.ts';

/*
 * The admin API's money and names: major units in, minor units stored, in each currency's own
 * decimals; the currency codes it takes (validated here, and only here); the event kinds by the
 * configured type strings.
 */

/** A delivery as the admin API shows it: the stored event plus its amount in major units. */
export function toDelivery(event: StoredEvent, config: AggmockConfig): Omit<StoredEvent, 'replyAttempt'> & { amount: number } {
  const { replyAttempt: _stored, ...delivery } = event;
  return { ...delivery, amount: majorOf(event.amountMinor, event.currency, config) };
}

/**
 * The admin API's major units of minor units, in the currency's own decimals (JPY 0, EUR 2, KWD 3;
 * configured extras from callbacks.currencies): 5 JPY is 5, not 500. {@link minorOf} is its inverse.
 */
export function majorOf(minor: number, currency: string | undefined, config: AggmockConfig): number {
  return toMajor(minor, exponentOf(config.callbacks, currency));
}

/** The ISO 4217 codes this Node knows (Intl): a well-formed code that is none of them (XYZ) is no currency. */
const ISO_CODES: ReadonlySet<string> = new Set(Intl.supportedValuesOf('currency'));

/**
 * A currency code the admin API takes: a real ISO 4217 code (upper case), the configured currency or
 * one of callbacks.currencies; else a 400 naming the field (never an amount guessed at two decimals).
 */
export function knownCurrency(code: string, config: AggmockConfig): string {
  const known = Object.hasOwn(config.callbacks.currencies, code) || code === config.callbacks.currency || ISO_CODES.has(code);
  if (!known || currencyExponent(code, config.callbacks.currencies) === undefined)
    throw fieldError(
      'currency',
      `expected an ISO 4217 currency code in upper case such as "EUR" or "JPY"${Object.keys(config.callbacks.currencies).length ? `, or one of callbacks.currencies (${Object.keys(config.callbacks.currencies).join(', ')})` : ' (add others under callbacks.currencies)'}`,
      code,
    );
  return code;
}

/** The currency of a discrepancy's first event still in the outbox (the configured one when none is). */
export function currencyOfEvents(engine: CallbackEngine, eventIds: readonly number[]): string | undefined {
  const id = eventIds[0];
  return id === undefined ? undefined : engine.outbox.get(id)?.currency;
}

/**
 * Maps "debit" (any case) or a configured type string ("BET") to the event kind; else throws what
 * `refuse` makes of the expectation (the admin API's 400 on `type`; `aggmock send`'s usage error).
 */
export function kindOf(
  type: string,
  config: AggmockConfig,
  refuse: (expected: string) => Error = (expected) => fieldError('type', expected, type),
): EventKind {
  const wanted = type.trim().toLowerCase();
  const kind = EVENT_KINDS.find((k) => k === wanted || config.callbacks.types[k].toLowerCase() === wanted);
  if (kind) return kind;
  const configured = EVENT_KINDS.map((k) => config.callbacks.types[k]).join(', ');
  throw refuse(`expected one of debit, credit, rollback (or the configured types ${configured})`);
}

export function minorOf(amount: number | string, field: string, currency: string | undefined, config: AggmockConfig): number {
  const exponent = exponentOf(config.callbacks, currency);
  const minor = typeof amount === 'number' ? toMinor(amount, exponent) : parseMajorString(amount, exponent);
  if (minor === undefined)
    throw fieldError(
      field,
      `expected an amount in major units with at most ${exponent} decimal${exponent === 1 ? '' : 's'} (${currency ?? config.callbacks.currency}), e.g. ${toMajor(1050 * 10 ** Math.max(0, exponent - 2), exponent)}`,
      amount,
    );
  return minor;
}
