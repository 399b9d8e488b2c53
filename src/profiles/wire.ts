import { type AmountCodec, currencyExponent, DEFAULT_EXPONENT, type ExtraCurrencies } from '../money/index.ts';
import { cached } from '../shared/index.ts';
import type { SigningScheme } from '../signing/index.ts';
import { builtinProfile, type DefaultWireSettings, isBuiltinProfile } from './builtin.ts';
import {
  type BodyTemplate,
  type ProfileDefinition,
  profileDefinitionSchema,
  type ReplyRules,
  sources,
  type ValueSource,
  type WireReplyCode,
} from './schema.ts';

/** The event kinds every profile maps: DEBIT and CREDIT always, ROLLBACK when the wire has one. */
export type WireEventKind = 'debit' | 'credit' | 'rollback';

/** The `callbacks` settings a wire is resolved from. */
export interface WireSettings extends DefaultWireSettings {
  /** `callbacks.dialect`: a built-in name, or a dialect (a converted profile file is known by {@link rememberProfile}). */
  dialect: string | VendorDialectSetting;
  /** The currency of events that name none. */
  currency: string;
  /** Extra currencies (crypto, say): code → decimals. */
  currencies: ExtraCurrencies;
  /** What `{"from":"apiKey"}` writes. */
  apiKey: string;
  signing: { scheme: SigningScheme };
}

/** How a reply is read: the profile's rules and the amount codec of the event's currency. */
export interface ReplyReading {
  rules: ReplyRules;
  codec: AmountCodec;
}

/**
 * The active wire, resolved once from the settings: the profile with everything the surfaces ask
 * of it (which events exist, the rollback style, which fields the bodies carry, how replies read).
 */
export interface Wire {
  name: string;
  definition: ProfileDefinition;
  /** The type string of each event kind that has one. */
  type(kind: WireEventKind): string | undefined;
  body(kind: WireEventKind): BodyTemplate | undefined;
  hasRollback: boolean;
  /** 'original': the ROLLBACK carries the reversed DEBIT's id as its own; 'reference': its own id plus the reversed one. */
  rollbackStyle: 'original' | 'reference';
  /** Whether any event's body carries this source (a currency, an API key, a bonus reference…). */
  carries(source: ValueSource): boolean;
  /** The top-level body field of `kind` whose first source is `source` (e.g. betnex: playerId → "member_account"). */
  fieldOf(kind: WireEventKind, source: ValueSource): string | undefined;
  /** Whether DEBIT and CREDIT bodies carry bet and win in separate fields (one round body). */
  roundBody: boolean;
  signingScheme: SigningScheme | 'none';
  apiKey: string;
  currency: string;
  currencies: ExtraCurrencies;
  /** The amount codec of a currency (the default currency when none is named). */
  codec(currency?: string): AmountCodec;
  reading(currency?: string): ReplyReading;
  /** The wallet's code for one of aggmock's rejections; undefined on a wire without codes (any refusal will do). */
  code(name: WireReplyCode): string | undefined;
}

/** A vendor dialect's definition as a profile setting may hold it (its type lives in dialects). */
export interface VendorDialectSetting {
  readonly name: string;
  readonly operations: object;
}

/** Thrown by {@link wireOf} for a vendor dialect, which has no profile wire. */
export class NotAProfileError extends Error {
  override name = 'NotAProfileError';
  constructor(readonly dialect: string) {
    super(
      `"${dialect}" is a vendor dialect, not a wire profile: this part of aggmock speaks only the default and betnex profiles and profile files so far`,
    );
  }
}

/** The profile file each converted dialect was made from (see {@link rememberProfile}). */
const profileBehind = new WeakMap<object, ProfileDefinition>();

/**
 * Records the profile file a dialect was converted from, for {@link wireOf} only: the legacy view
 * that verify's profile client and `judgeReply`'s profile rules read until they speak dialects
 * (issue 31). Nothing else may ask which profile a dialect came from.
 */
export function rememberProfile<T extends object>(dialect: T, profile: ProfileDefinition): T {
  profileBehind.set(dialect, profile);
  return dialect;
}

const resolved = new WeakMap<object, Wire>();

/**
 * LEGACY (issue 31): the profile view of a `callbacks` configuration, for verify's profile client and
 * `judgeReply`'s profile rules until they speak dialects; every other surface asks `dialectOf`.
 * Resolved once per settings object (so every call site can ask for it cheaply). Throws a readable error for an unknown built-in name; a definition was
 * validated when the configuration was loaded.
 *
 * @example wireOf(config.callbacks).body('debit') // { type: {from:'type'}, transactionId: … }
 */
export function wireOf(settings: WireSettings): Wire {
  return cached(resolved, settings, resolveWire);
}

/** Currencies whose codec and reading a wire keeps; ISO 4217 has fewer than 200. */
const MAX_CACHED_CURRENCIES = 256;

function definitionOf(settings: WireSettings): ProfileDefinition {
  const { dialect } = settings;
  if (typeof dialect !== 'string') {
    const profile = profileBehind.get(dialect);
    if (profile === undefined) throw new NotAProfileError(dialect.name);
    return profile;
  }
  if (!isBuiltinProfile(dialect)) throw new NotAProfileError(dialect);
  return profileDefinitionSchema.parse(builtinProfile(dialect, settings));
}

function resolveWire(settings: WireSettings): Wire {
  const definition = definitionOf(settings);
  const { events } = definition;
  const used = new Set<ValueSource>();
  for (const event of [events.debit, events.credit, events.rollback]) {
    if (event) for (const s of sources(event.body)) used.add(s);
  }
  const debitSources = sources(events.debit.body);
  // One frozen codec and reading per currency: every callback and every reply asks for them.
  // The codes come from requests, so the caches are bounded (see cached).
  const codecs = new Map<string, Readonly<AmountCodec>>();
  const codec = (currency = settings.currency): AmountCodec =>
    cached(
      codecs,
      currency,
      (code) =>
        Object.freeze({
          format: definition.amounts.format,
          as: definition.amounts.as,
          exponent: currencyExponent(code, settings.currencies) ?? DEFAULT_EXPONENT,
        }),
      MAX_CACHED_CURRENCIES,
    );
  const readings = new Map<string, Readonly<ReplyReading>>();
  const reading = (currency = settings.currency): ReplyReading =>
    cached(readings, currency, (code) => Object.freeze({ rules: definition.reply, codec: codec(code) }), MAX_CACHED_CURRENCIES);
  return {
    name: definition.name,
    definition,
    type: (kind) => events[kind]?.type,
    body: (kind) => events[kind]?.body,
    hasRollback: events.rollback !== undefined,
    rollbackStyle: events.rollback && sources(events.rollback.body).has('referenceTransactionId') ? 'reference' : 'original',
    carries: (source) => used.has(source),
    fieldOf: (kind, source) => {
      const body = events[kind]?.body ?? {};
      return Object.keys(body).find((name) => {
        const field = body[name];
        return field !== undefined && 'from' in field && (Array.isArray(field.from) ? field.from[0] : field.from) === source;
      });
    },
    roundBody: debitSources.has('betAmount') && debitSources.has('winAmount'),
    signingScheme: definition.signing?.scheme ?? settings.signing.scheme,
    apiKey: settings.apiKey,
    currency: settings.currency,
    currencies: settings.currencies,
    codec,
    reading,
    code: (name) => {
      const codes = definition.reply.codes;
      return codes === undefined ? undefined : (codes[name] ?? name);
    },
  };
}

/**
 * LEGACY (issue 31): the profile reading of `judgeReply` for `default`, `betnex` and a converted
 * profile file (undefined for any other dialect), until the dialect reader reads what it does.
 */
export function legacyProfileReading(settings: WireSettings): ((currency?: string) => ReplyReading) | undefined {
  try {
    return wireOf(settings).reading;
  } catch (error) {
    if (error instanceof NotAProfileError) return undefined;
    throw error;
  }
}
