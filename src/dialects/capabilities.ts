import type { Dialect, Encoding, Fact, Field, Operation, OperationDefinition } from './schema.ts';

/*
 * What a wire can do, asked of its dialect: which calls it has, whether it signs and how, what its
 * money calls carry. A surface that must decide something by the wire (verify's checks, the
 * preflight's hints) asks one of these named questions, never "is this a profile or a vendor?": a
 * profile is a dialect too (profile.ts), so the answer is the same for `default`, `betnex`, a
 * profile file and every vendor.
 */

/**
 * Whether the wire has this call.
 *
 * @example has(builtinDialect('pragmatic'), 'endRound') // true
 */
export function has(dialect: Dialect, operation: Operation): boolean {
  return dialect.operations[operation] !== undefined;
}

/** Whether requests carry a signature at all (betnex puts an API key in the body instead). */
export function signs(dialect: Dialect): boolean {
  return dialect.signing.algorithm !== 'none';
}

/**
 * Whether the wire signs with aggmock's header schemes (`callbacks.signing`: its secrets, timestamps
 * and secret rotation), rather than a vendor's recipe over its own credentials.
 */
export function signsWithHeaderScheme(dialect: Dialect): boolean {
  return dialect.signing.algorithm === 'scheme';
}

/**
 * aggmock's header scheme in force for the dialect: its own (`signing.scheme`), else `configured`,
 * the scheme of callbacks.signing. Only a dialect that signs with a header scheme uses it.
 */
export function headerSchemeOf<S extends string>(dialect: Dialect, configured: S): S | HeaderScheme {
  const recipe = dialect.signing;
  return (recipe.algorithm === 'scheme' && recipe.scheme) || configured;
}

type HeaderScheme = NonNullable<Extract<Dialect['signing'], { algorithm: 'scheme' }>['scheme']>;

/**
 * The name of how requests are signed: "none", aggmock's header scheme ({@link headerSchemeOf}), or
 * the recipe's algorithm ("rsa-sha256").
 */
export function signingSchemeOf(dialect: Dialect, configured: string): string {
  return signsWithHeaderScheme(dialect) ? headerSchemeOf(dialect, configured) : dialect.signing.algorithm;
}

/**
 * Whether a signature carries a time a wallet can date (so a stale or future one can be refused):
 * aggmock's timestamped and standard-webhooks schemes. `hmac-hex` and the vendors' recipes sign no
 * time of their own.
 */
export function datesSignatures(dialect: Dialect, configured: string): boolean {
  return signsWithHeaderScheme(dialect) && signingSchemeOf(dialect, configured) !== 'hmac-hex';
}

/** Whether one request may carry several signatures (a secret rotation): aggmock's header schemes. */
export function rotatesSecrets(dialect: Dialect): boolean {
  return signsWithHeaderScheme(dialect);
}

/**
 * Whether a signature is made over the body bytes as sent (or there is none), so any body text,
 * even one that is not JSON, can be sent signed.
 */
export function signsBodyBytes(dialect: Dialect): boolean {
  const recipe = dialect.signing;
  if (recipe.algorithm === 'none' || recipe.algorithm === 'scheme') return true;
  return 'payload' in recipe && recipe.payload.over === 'body' && !('field' in recipe.place);
}

/** How a call's fields travel (a JSON body, a form body, a query string). */
export function encodingOf(dialect: Dialect, operation: Operation = 'bet'): Encoding {
  return dialect.operations[operation]?.encoding ?? dialect.request.encoding;
}

/** Whether calls carry the player's session token (Hub88's token, Caleta's) rather than the player id alone. */
export function carriesSessionToken(dialect: Dialect): boolean {
  return dialect.session.token !== 'none';
}

/** Whether a win names the bet it settles (its transaction id). */
export function namesBetInWin(dialect: Dialect): boolean {
  return writes(dialect, 'win', 'betTransactionId');
}

/**
 * Whether a win belongs to a round the wallet keeps: it names its bet, closes its round, or is
 * played in a session the wallet issued. Such a wire's wallets refuse a win for a round they never
 * saw, so a win on it is sent after a bet that opens its round. (aggmock's own wire and betnex
 * pay a win on its own.)
 */
export function winsBelongToARound(dialect: Dialect): boolean {
  return namesBetInWin(dialect) || writes(dialect, 'win', 'roundClosed') || carriesSessionToken(dialect);
}

/**
 * Whether a rollback carries the reversed bet's id as its own transaction id (a profile's
 * 'original' style), rather than an id of its own besides the bet's.
 */
export function rollbackReusesBetId(dialect: Dialect): boolean {
  const def = dialect.operations.rollback;
  if (!def) return false;
  return Object.values(def.fields).some(
    (field) =>
      'from' in field &&
      Array.isArray(field.from) &&
      field.from[0] === 'betTransactionId' &&
      field.from.includes('transactionId'),
  );
}

/** Whether debits are written as negative amounts (Habanero): a "negative bet" is an ordinary one there. */
export function negatesDebits(dialect: Dialect): boolean {
  return Object.values(dialect.operations).some(
    (def) => def !== undefined && fieldsOf(def).some((f) => within(f).some((g) => 'from' in g && g.as === 'negate')),
  );
}

/** Whether one call can carry a bet and its win together (a `betWin` call, or a bet body with a win amount). */
export function playsWholeRounds(dialect: Dialect): boolean {
  return has(dialect, 'betWin') || writes(dialect, 'bet', 'winAmount');
}

/** Whether a refusal names a code (a wire whose replies have one); else any refusal is told only by its status or flag. */
export function codesRefusals(dialect: Dialect): boolean {
  return dialect.reply.code !== undefined && Object.values(dialect.reply.codes).some((code) => code !== undefined);
}

/**
 * The top-level fields of a call that carry a credential as it is (an API key in the body, as
 * betnex's `api_key`): a static credential a wallet compares, not a signature.
 */
export function staticCredentialFields(dialect: Dialect, operation: Operation = 'bet'): string[] {
  const def = dialect.operations[operation];
  if (!def) return [];
  return Object.entries(def.fields)
    .filter(([, field]) => 'credential' in field)
    .map(([name]) => name);
}

/** Whether a bet carries a credential as it is in a top-level field (see {@link staticCredentialFields}). */
export function hasStaticCredential(dialect: Dialect): boolean {
  return staticCredentialFields(dialect).length > 0;
}

/**
 * The secrets a call carries as they are, by the dialect's credential names: a credential of kind
 * "secret" written into a header, the query, or a body field (nested, or in a template such as
 * "Basic {credential.apiKey}"), not one that only keys a signature.
 */
export function carriedSecrets(dialect: Dialect): string[] {
  const op = dialect.operations.bet;
  if (!op) return [];
  const fields = [
    ...Object.values(dialect.request.headers),
    ...Object.values(dialect.request.query),
    ...Object.values(op.headers),
    ...Object.values(op.fields),
  ];
  const names = new Set(fields.flatMap(credentialsIn));
  return [...names].filter((name) => (dialect.credentials[name]?.kind ?? 'secret') === 'secret');
}

/** The credential names a field writes, anywhere inside it. */
export function credentialsIn(field: Field): string[] {
  return within(field).flatMap((f) =>
    'credential' in f
      ? [f.credential]
      : 'template' in f
        ? [...f.template.matchAll(/\{credential\.([A-Za-z0-9_]+)\}/g)].map((m) => m[1] as string)
        : [],
  );
}

/** The top-level field of a call its amount is written to (the amount, a bet's stake, a win's payout); undefined when none. */
export function amountField(dialect: Dialect, operation: Operation): string | undefined {
  const def = dialect.operations[operation];
  if (!def) return undefined;
  const own: Fact[] = ['amount', operation === 'win' ? 'winAmount' : 'betAmount'];
  for (const fact of own) {
    const found = Object.entries(def.fields).find(([, field]) => firstFact(field) === fact);
    if (found) return found[0];
  }
  return undefined;
}

/**
 * Whether a bet tells a free bet from a paid one (Hub88's and Caleta's `is_free`, Blue Ocean's
 * `is_freeround_bet`, Slotegrator's `type=freespin`): a field written from the bonus kind.
 */
export function marksFreeBets(dialect: Dialect): boolean {
  return writes(dialect, 'bet', 'bonusKind');
}

/** Whether a bet or a win writes this fact anywhere (a field, a header, the path): a currency, a bonus id, a round id. */
export function carriesFact(dialect: Dialect, fact: Fact): boolean {
  return writes(dialect, 'bet', fact) || writes(dialect, 'win', fact);
}

// ---- reading a definition ----

function fieldsOf(def: OperationDefinition): Field[] {
  return [...Object.values(def.fields), ...Object.values(def.headers)];
}

function pathFacts(path: string): string[] {
  return [...path.matchAll(/\{([A-Za-z]+)\}/g)].map((m) => m[1] as string);
}

/** A field and every field inside it (an object's members, a list's items, the field a JSON text carries). */
function within(field: Field): Field[] {
  if ('object' in field) return [field, ...Object.values(field.object).flatMap(within)];
  if ('list' in field) return [field, ...field.list.flatMap(within)];
  if ('json' in field) return [field, ...within(field.json)];
  return [field];
}

/** The facts a field writes, anywhere inside it. */
function factsIn(field: Field): Fact[] {
  return within(field).flatMap((f) =>
    'from' in f ? (typeof f.from === 'string' ? [f.from] : f.from) : 'template' in f ? (pathFacts(f.template) as Fact[]) : [],
  );
}

/** The fact a field writes first (the one that wins when several may give its value). */
function firstFact(field: Field): Fact | undefined {
  if (!('from' in field)) return undefined;
  return typeof field.from === 'string' ? field.from : field.from[0];
}

/** Whether an operation writes a fact in a field, a header or its path. */
function writes(dialect: Dialect, operation: Operation, fact: Fact): boolean {
  const def = dialect.operations[operation];
  if (!def) return false;
  return fieldsOf(def).some((field) => factsIn(field).includes(fact)) || pathFacts(def.path).includes(fact);
}

// ---- documented rules ----

/**
 * Rules aggmock's own contract states that vendors' documentation mostly does not:
 * - `refused-repeat`: the repeat of a refused bet gets the same refusal, even once funds arrived;
 * - `late-bet`: a bet that arrives after its own rollback takes no money;
 * - `any-id`: transaction ids of any length and characters are kept as they are;
 * - `exact-amounts`: an amount with more decimals than the currency has is refused or applied exactly;
 * - `unreadable-request`: a body that cannot be read is refused as an invalid request, with that code.
 */
export type DocumentedRule = 'refused-repeat' | 'late-bet' | 'any-id' | 'exact-amounts' | 'unreadable-request';

/**
 * Whether the wire documents one of these rules, so a wallet can be held to it. Until dialects
 * carry the rules their vendors document (the "vendor truth" work: then this reads the dialect's
 * own rule), a wire documents them when it follows aggmock's webhook contract: its money calls
 * alone, with no player session of its own (no authenticate and no balance call), as `default`,
 * `betnex` and profile files are. Every built-in vendor has one of those calls; a dialect file
 * without either is held to aggmock's rules.
 */
export function documents(dialect: Dialect, _rule: DocumentedRule): boolean {
  return !has(dialect, 'authenticate') && !has(dialect, 'balance');
}
