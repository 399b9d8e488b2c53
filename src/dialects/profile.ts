import { type BodyField, type BodyTemplate, type ProfileDefinition, sources } from '../profiles/index.ts';
import { AGGMOCK_STATUSES, API_KEY_IN_BODY } from './builtin/default.ts';
import { type Dialect, type DialectInput, dialectSchema, type Fact, type Field, type Fields } from './schema.ts';

/*
 * A profile file (the older, smaller wire format of src/profiles/schema.ts) as a dialect: one URL
 * (the webhook itself, path ""), one JSON body per event with its type string, aggmock's header
 * schemes or an API key in the body. The configuration converts a profile file with it once, when
 * it is validated; the bytes are the ones the profile described (test/dialects proves it).
 */

/** Which event's body is converted, and what the profile says of all of them. */
interface Conversion {
  kind: 'debit' | 'credit' | 'rollback';
  rollbackStyle: 'original' | 'reference';
  types: Record<string, string | undefined>;
}

function convertField(field: BodyField, at: Conversion): Field {
  const { kind, rollbackStyle, types } = at;
  if ('const' in field) return { const: field.const };
  if ('object' in field)
    return { object: convertBody(field.object, at), ...(field.omitWhenEmpty ? { omitWhenEmpty: true } : {}) };
  const sources = Array.isArray(field.from) ? field.from : [field.from];
  // A profile's `type` is the event's type string, a constant per operation here.
  if (sources.length === 1 && sources[0] === 'type') return { const: types[kind] ?? '' };
  if (sources.length === 1 && sources[0] === 'apiKey') return { credential: 'apiKey' };
  const facts: Fact[] = [];
  for (const source of sources) {
    if (source === 'apiKey') continue;
    // An 'original'-style ROLLBACK carries the reversed DEBIT's id as its own transactionId.
    if (source === 'transactionId' && kind === 'rollback' && rollbackStyle === 'original') facts.push('betTransactionId');
    facts.push(source === 'referenceTransactionId' ? 'betTransactionId' : source);
  }
  return { from: facts, ...(field.default === undefined ? {} : { default: field.default }) };
}

function convertBody(body: BodyTemplate, at: Conversion): Fields {
  const out: Fields = {};
  for (const [name, field] of Object.entries(body)) out[name] = convertField(field, at);
  return out;
}

/**
 * The dialect of a profile: bet, win and (when the profile has one) rollback, each POSTed as JSON
 * to the webhook URL itself. A rollback whose body names `referenceTransactionId` has an id of its
 * own ('reference'); otherwise it carries the reversed bet's id as its own ('original').
 *
 * @example dialectOfProfile(profileDefinitionSchema.parse(JSON.parse(readFileSync('my-profile.json', 'utf8'))))
 */
export function dialectOfProfile(profile: ProfileDefinition): Dialect {
  const rollbackStyle =
    profile.events.rollback && sources(profile.events.rollback.body).has('referenceTransactionId') ? 'reference' : 'original';
  const types = { debit: profile.events.debit.type, credit: profile.events.credit.type, rollback: profile.events.rollback?.type };
  const op = (kind: 'debit' | 'credit' | 'rollback', body: BodyTemplate) => ({
    method: 'POST' as const,
    path: '',
    fields: convertBody(body, { kind, rollbackStyle, types }),
  });
  const reply = profile.reply;
  const input: DialectInput = {
    name: profile.name,
    description: profile.description,
    credentials: API_KEY_IN_BODY,
    request: { encoding: 'json' },
    amounts: { format: profile.amounts.format, as: profile.amounts.as },
    // A profile's win has no place for its bet's id; its generated ids were 24 hex digits.
    calls: { rollbackStyle, winsNameBet: false, idHexDigits: 24 },
    signing:
      profile.signing?.scheme === 'none'
        ? { algorithm: 'none' }
        : { algorithm: 'scheme', ...(profile.signing ? { scheme: profile.signing.scheme } : {}) },
    operations: {
      bet: op('debit', profile.events.debit.body),
      win: op('credit', profile.events.credit.body),
      ...(profile.events.rollback ? { rollback: op('rollback', profile.events.rollback.body) } : {}),
    },
    reply: {
      code: reply.error,
      ...(reply.success ? { success: reply.success } : {}),
      codes: { ...reply.codes },
      balance: reply.balance,
      message: reply.message,
      duplicates: reply.duplicates,
      balanceOnRejection: reply.balanceOnRejection,
      ...(reply.writes ? { writes: reply.writes } : {}),
      ...(reply.success ? {} : { statuses: AGGMOCK_STATUSES }),
    },
  };
  return dialectSchema.parse(input);
}
