import {
  balancePaths,
  type Dialect,
  type Fact,
  type Field,
  type Fields,
  MONEY_OPERATIONS,
  OPERATIONS,
  type Operation,
  OUTCOME_CODES,
  type Scalar,
  SIGNATURE_CHARACTERS,
} from '../dialects/index.ts';
import { VERSION } from '../version.ts';

/*
 * The wallet API a vendor dialect describes, as OpenAPI 3.1: what an integrator implements so the
 * aggregator's calls are answered. One path per call under the wallet's base URL (calls that
 * share a path and method are one operation with their bodies as alternatives), the request's
 * JSON, form or query fields with their types, the headers and the signature where the recipe
 * puts it, and the replies the dialect's rules read. Generated from the dialect alone.
 */

type Schema = Record<string, unknown>;

/** Where `aggmock serve --profile <dialect>` serves the document. */
export const WALLET_OPENAPI_PATH = '/wallet-openapi.json';
/** The file `aggmock contracts --profile <dialect> --out <dir>` writes it to. */
export const WALLET_OPENAPI_FILE = 'wallet-openapi.json';

const SIGNATURE_ENCODINGS = {
  hex: 'lower-case hex',
  HEX: 'upper-case hex',
  base64: 'base64',
  base64url: 'base64url',
} as const;

/** The JSON Schema of what one fact is on this wire. */
function factSchema(dialect: Dialect, fact: Fact): Schema {
  const amount: Schema =
    dialect.amounts.as === 'string'
      ? { type: 'string', pattern: String.raw`^-?\d+(\.\d+)?$` }
      : { type: dialect.amounts.format === 'minor' ? 'integer' : 'number' };
  const exponent = dialect.amounts.exponent;
  switch (fact) {
    case 'amount':
    case 'betAmount':
    case 'winAmount':
      return {
        ...amount,
        description:
          dialect.amounts.format === 'minor'
            ? exponent === undefined
              ? 'an amount in minor units of the currency'
              : `an amount × 10^${exponent}, whatever the currency`
            : `an amount in major units, with at most ${exponent === undefined ? "the currency's" : exponent} decimals`,
      };
    default:
      return FACT_SCHEMAS[fact] ?? { type: 'string', description: fact };
  }
}

/** The JSON Schema of each fact that is not an amount (any other: a string, described by its name). */
const FACT_SCHEMAS: Partial<Record<Fact, Schema>> = {
  roundClosed: { type: 'boolean' },
  timestampSeconds: { type: 'integer', description: 'Unix time, seconds' },
  timestampMs: { type: 'integer', description: 'Unix time, milliseconds' },
  timestamp: { type: 'string', format: 'date-time' },
  bonusKind: { type: 'string', enum: ['free-spins', 'jackpot', 'promotion'] },
  freeRoundsLeft: { type: 'integer', minimum: 0, description: "a free round's rounds of its award left after it" },
  sessionToken: { type: 'string', description: 'the session token the wallet issued at launch' },
  currency: { type: 'string', pattern: '^[A-Z]{3}$' },
  transactionId: { type: 'string', description: "the call's own transaction id (unique per call; a repeat carries the same)" },
  betTransactionId: { type: 'string', description: 'the bet this call settles or reverses' },
  playerId: { type: 'string', description: 'the player' },
  roundId: { type: 'string', description: 'the game round' },
  requestId: { type: 'string', description: 'one id per call, the same on each retry of it' },
  nonce: { type: 'string', description: 'used once: new on every attempt' },
  gameId: { type: 'string', description: 'the game' },
  freeRoundId: { type: 'string', description: 'the free-round award a free round plays (absent on other calls)' },
};

/** The JSON Schema of one field of a request. */
function fieldSchema(dialect: Dialect, field: Field): Schema {
  if ('const' in field) return { const: field.const };
  if ('credential' in field) return { type: 'string', description: `the credential ${field.credential}` };
  if ('template' in field) return { type: 'string', description: `written as ${field.template}` };
  if ('list' in field) {
    const items = field.list.map((f) => fieldSchema(dialect, f));
    return { type: 'array', ...(items.length === 0 ? {} : { items: items.length === 1 ? items[0] : { anyOf: items } }) };
  }
  if ('object' in field) return objectSchema(dialect, field.object, undefined);
  if ('json' in field)
    return { type: 'string', contentMediaType: 'application/json', contentSchema: fieldSchema(dialect, field.json) };
  const facts = typeof field.from === 'string' ? [field.from] : field.from;
  if (field.map) {
    const values = [...new Set([...Object.values(field.map), ...(field.default === undefined ? [] : [field.default])])];
    return { enum: values, description: `from ${facts.join(' or ')}` };
  }
  const base = factSchema(dialect, facts[0] as Fact);
  if (field.as === 'string') return { ...base, type: 'string' };
  if (field.as === 'number') return { ...base, type: 'number' };
  if (field.as === 'negate') return { ...base, description: `${String(base.description ?? '')} (negative for a debit)`.trim() };
  return field.default === undefined ? base : { ...base, default: field.default };
}

/** Facts every call of an operation has: a field from one of them is always sent. */
function alwaysSent(dialect: Dialect, operation: Operation | undefined): Set<Fact> {
  const out = new Set<Fact>([
    'operation',
    'playerId',
    'currency',
    'timestamp',
    'timestampSeconds',
    'timestampMs',
    'requestId',
    'nonce',
  ]);
  if (dialect.session.token === 'required') out.add('sessionToken');
  const money = operation === undefined ? undefined : MONEY_OPERATIONS[operation];
  if (money) for (const f of ['type', 'transactionId', 'amount', 'betAmount', 'winAmount'] as const) out.add(f);
  if (money === 'reverse') out.add('betTransactionId');
  return out;
}

function required(dialect: Dialect, operation: Operation | undefined, field: Field): boolean {
  if ('from' in field) {
    if (field.default !== undefined) return true;
    const always = alwaysSent(dialect, operation);
    return (typeof field.from === 'string' ? [field.from] : field.from).some((f) => always.has(f));
  }
  if ('object' in field) return !field.omitWhenEmpty;
  if ('json' in field) return required(dialect, operation, field.json);
  return true;
}

function objectSchema(
  dialect: Dialect,
  fields: Fields,
  operation: Operation | undefined,
  extra: Record<string, Schema> = {},
): Schema {
  const properties: Record<string, Schema> = {};
  const needed: string[] = [];
  for (const [name, field] of Object.entries(fields)) {
    properties[name] = fieldSchema(dialect, field);
    if (required(dialect, operation, field)) needed.push(name);
  }
  for (const [name, schema] of Object.entries(extra)) {
    properties[name] = schema;
    needed.push(name);
  }
  return { type: 'object', properties, ...(needed.length === 0 ? {} : { required: needed }) };
}

/** What the signature is, in words: the algorithm, what it covers, its encoding. */
function signatureWords(dialect: Dialect): string {
  const recipe = dialect.signing;
  if (recipe.algorithm === 'none') return 'Not signed.';
  if (recipe.algorithm === 'scheme') return "Signed with aggmock's header schemes (callbacks.signing).";
  const payload = recipe.payload;
  const over =
    payload.over === 'body'
      ? 'the body bytes as sent'
      : payload.over === 'template'
        ? `the text ${payload.template}`
        : payload.over === 'hook'
          ? "the text the dialect's hooks module makes (signedText)"
          : `the parameters${payload.sort === 'key' ? ' sorted by name' : ''}, joined as name${payload.pair}value${payload.join}…${payload.prefix ? `, after ${payload.prefix}` : ''}${payload.suffix ? `, followed by ${payload.suffix}` : ''}`;
  const key = recipe.key ? ` with the credential ${recipe.key}` : '';
  return `${recipe.algorithm.toUpperCase()}${key} over ${over}, ${SIGNATURE_ENCODINGS[recipe.encoding]}.`;
}

/** An object schema with a value at a dotted path ("result.balance.cash"). */
function atPath(target: Schema, path: readonly string[], schema: Schema, isRequired = true): void {
  let node = target;
  for (const [i, key] of path.entries()) {
    node.type = 'object';
    node.properties ??= {};
    const properties = node.properties as Record<string, Schema>;
    if (isRequired) {
      node.required ??= [];
      const req = node.required as string[];
      if (!req.includes(key)) req.push(key);
    }
    if (i === path.length - 1) properties[key] = schema;
    else {
      properties[key] ??= { type: 'object' };
      node = properties[key];
    }
  }
}

/** The replies of one operation: an acceptance and a refusal, as the dialect's rules read them. */
function replySchemas(dialect: Dialect, operation: Operation): { accepted: Schema; refused: Schema } {
  const rules = dialect.reply;
  const own = dialect.operations[operation]?.reply;
  const root = own?.root?.split('.') ?? [];
  const accepted: Schema = { type: 'object' };
  const refused: Schema = { type: 'object' };
  const list = (v: Scalar | Scalar[] | undefined) => (v === undefined ? [] : Array.isArray(v) ? v : [v]);
  const coded = rules.code !== undefined && own?.code !== false;
  if (coded && rules.ok !== undefined)
    atPath(accepted, [...root, ...(rules.code as string).split('.')], { enum: list(rules.ok) });
  if (rules.success && own?.code !== false) {
    atPath(accepted, [...root, ...rules.success.path.split('.')], { const: rules.success.equals });
    atPath(refused, [...root, ...rules.success.path.split('.')], { not: { const: rules.success.equals } });
  }
  const refusals = OUTCOME_CODES.flatMap((c) => list(rules.codes[c]));
  if (coded)
    atPath(refused, [...root, ...(rules.code as string).split('.')], {
      ...(refusals.length === 0 ? {} : { enum: [...new Set(refusals)] }),
      description: `the refusal: ${OUTCOME_CODES.filter((c) => rules.codes[c] !== undefined)
        .map((c) => `${list(rules.codes[c]).join(' or ')} = ${c}`)
        .join(', ')}${rules.retryCodes.length > 0 ? `; ${rules.retryCodes.join(', ')} = try again` : ''}`,
    });
  const paths = balancePaths(dialect, operation);
  if (paths !== undefined && operation !== 'authenticate') {
    const amount = factSchema(dialect, 'amount');
    for (const [i, path] of paths.entries())
      atPath(
        accepted,
        [...root, ...path.split('.')],
        { ...amount, description: i === 0 ? 'the balance' : 'added to the balance' },
        i === 0,
      );
  }
  for (const [fact, path] of Object.entries(rules.echo))
    if (path) atPath(accepted, [...root, ...path.split('.')], { type: 'string', description: `the request's ${fact}, repeated` });
  if (own?.token)
    atPath(accepted, [...root, ...own.token.split('.')], { type: 'string', description: 'the session token to use from now on' });
  return { accepted, refused };
}

const OPERATION_WORDS: Record<Operation, string> = {
  authenticate: 'Checks the session token the game was launched with; answers the player.',
  balance: "Reads the player's balance; moves no money.",
  bet: 'Takes the amount from the player (a repeated transaction gets the first reply and moves nothing).',
  win: 'Adds the amount to the player, settling the bet it names.',
  betWin: 'Takes the bet and adds the win in one call.',
  rollback: 'Gives back the bet it names, once; an unknown bet is acknowledged.',
  rollbackWin: 'Takes back the win it names, once.',
  endRound: 'Closes the round; moves no money.',
  promoWin: 'Adds a bonus or promotion win to the player.',
};

/** One call of the dialect as an OpenAPI operation: its parameters, its body, the replies its rules read. */
function operationEntry(dialect: Dialect, operation: Operation, schemeHeaders: readonly string[] = []): Schema {
  const op = dialect.operations[operation];
  if (!op) throw new Error(`the "${dialect.name}" dialect has no ${operation} call`);
  const recipe = dialect.signing;
  const place = 'place' in recipe ? recipe.place : undefined;
  const signature: Schema = {
    type: 'string',
    description: `The signature: ${signatureWords(dialect)}`,
    ...('encoding' in recipe ? { pattern: `^${SIGNATURE_CHARACTERS[recipe.encoding]}$` } : {}),
  };
  const encoding = op.encoding ?? dialect.request.encoding;
  const parameters: Schema[] = [];
  for (const m of op.path.matchAll(/\{([A-Za-z]+)\}/g))
    parameters.push({ name: m[1], in: 'path', required: true, schema: factSchema(dialect, m[1] as Fact) });
  for (const [name, field] of [...Object.entries(dialect.request.headers), ...Object.entries(op.headers)])
    parameters.push({ name, in: 'header', required: required(dialect, operation, field), schema: fieldSchema(dialect, field) });
  if (place && 'header' in place) parameters.push({ name: place.header, in: 'header', required: true, schema: signature });
  for (const name of schemeHeaders) parameters.push({ name, in: 'header', required: true, schema: signature });
  const query = encoding === 'query' ? { ...dialect.request.query, ...op.fields } : dialect.request.query;
  for (const [name, field] of Object.entries(query))
    parameters.push({ name, in: 'query', required: required(dialect, operation, field), schema: fieldSchema(dialect, field) });
  if (place && 'query' in place) parameters.push({ name: place.query, in: 'query', required: true, schema: signature });
  const extra = place && 'field' in place ? { [place.field]: signature } : {};
  const body =
    encoding === 'query'
      ? undefined
      : {
          required: true,
          content: {
            [encoding === 'json' ? 'application/json' : 'application/x-www-form-urlencoded']: {
              schema: objectSchema(dialect, op.fields, operation, extra),
            },
          },
        };
  const replies = replySchemas(dialect, operation);
  const statuses = [...new Set(Object.values(dialect.reply.statuses))].sort();
  const responses: Record<string, Schema> = {
    200: {
      description: 'The answer: an acceptance, or a refusal with its code',
      content: { 'application/json': { schema: { anyOf: [replies.accepted, replies.refused] } } },
    },
  };
  for (const status of statuses)
    responses[String(status)] = {
      description: `A refusal: ${Object.entries(dialect.reply.statuses)
        .filter(([, s]) => s === status)
        .map(([c]) => c)
        .join(', ')}`,
      content: { 'application/json': { schema: replies.refused } },
    };
  return {
    operationId: operation,
    summary: `${operation}: ${OPERATION_WORDS[operation]}`,
    ...(parameters.length === 0 ? {} : { parameters }),
    ...(body === undefined ? {} : { requestBody: body }),
    responses,
  };
}

/**
 * The dialect's calls as OpenAPI 3.1 `webhooks` (what aggmock sends the wallet), one per operation:
 * the aggregator document lists them beside its own paths. `schemeHeaders` are the headers aggmock's
 * own schemes sign in (`callbacks.signing.headers`), for a dialect that signs with them.
 *
 * @example Object.keys(dialectWebhooks(builtinDialect('default'))) // ['bet', 'win', 'rollback']
 */
export function dialectWebhooks(dialect: Dialect, schemeHeaders: readonly string[] = []): Record<string, Record<string, Schema>> {
  const hooks: Record<string, Record<string, Schema>> = {};
  for (const operation of OPERATIONS) {
    const op = dialect.operations[operation];
    if (!op) continue;
    hooks[operation] = {
      [op.method.toLowerCase()]: {
        ...operationEntry(dialect, operation, dialect.signing.algorithm === 'scheme' ? schemeHeaders : []),
        description: `${dialect.name}: ${op.method} ${op.path === '' ? 'the webhook URL itself' : `<base URL>${op.path}`}. ${signatureWords(dialect)}`,
      },
    };
  }
  return hooks;
}

/**
 * The OpenAPI 3.1 document of the wallet API a dialect describes: what the integrator's wallet
 * serves under its base URL for the aggregator's calls.
 *
 * @example dialectOpenApi(builtinDialect('pragmatic')).paths['/bet.html'].post.requestBody
 */
export function dialectOpenApi(dialect: Dialect): Schema {
  const paths: Record<string, Record<string, Schema>> = {};
  for (const operation of OPERATIONS) {
    const op = dialect.operations[operation];
    if (!op) continue;
    const path = (op.path === '' ? '/' : op.path).replace(/\{([A-Za-z]+)\}/g, '{$1}');
    const method = op.method.toLowerCase();
    const entry = operationEntry(dialect, operation);
    paths[path] ??= {};
    const at = paths[path];
    const existing = at[method];
    at[method] = existing ? merged(existing, entry) : entry;
  }
  return {
    openapi: '3.1.0',
    info: {
      title: `${dialect.name} wallet API (as aggmock's ${dialect.name} dialect calls it)`,
      version: VERSION,
      description: [
        dialect.description,
        `Every path is under the wallet's base URL. ${signatureWords(dialect)}`,
        Object.keys(dialect.credentials).length > 0
          ? `Credentials: ${Object.entries(dialect.credentials)
              .map(([n, c]) => `${n} (${c.description})`)
              .join('; ')}.`
          : '',
        dialect.unknown.length > 0 ? `Not known from the sources: ${dialect.unknown.join(' ')}` : '',
      ]
        .filter((t) => t !== '')
        .join('\n\n'),
    },
    ...(dialect.sources[0]?.url ? { externalDocs: { description: dialect.sources[0].title, url: dialect.sources[0].url } } : {}),
    paths,
  };
}

/** Two calls on one path and method (Groove's query calls, Slotegrator's form calls): one operation, either request. */
function merged(a: Schema, b: Schema): Schema {
  const params = new Map<string, Schema>();
  const seen = new Map<string, number>();
  for (const p of [...((a.parameters as Schema[]) ?? []), ...((b.parameters as Schema[]) ?? [])]) {
    const key = `${p.in}:${p.name}`;
    seen.set(key, (seen.get(key) ?? 0) + 1);
    if (!params.has(key)) params.set(key, p);
  }
  // A parameter one of the calls lacks is not required of the pair.
  const parameters = [...params.entries()].map(([key, p]) =>
    seen.get(key) === 2 || p.in === 'path' ? p : { ...p, required: false },
  );
  const content = (s: Schema) => (s.requestBody as { content?: Record<string, { schema: Schema }> } | undefined)?.content;
  const bodyA = content(a);
  const bodyB = content(b);
  let requestBody: Schema | undefined;
  if (bodyA && bodyB) {
    const type = Object.keys(bodyA)[0] as string;
    const schemas = [bodyA[type]?.schema, bodyB[type]?.schema].flatMap((s) => ((s as Schema).anyOf as Schema[]) ?? [s]);
    requestBody = { required: true, content: { [type]: { schema: { anyOf: schemas } } } };
  }
  return {
    ...a,
    operationId: `${a.operationId as string}_${b.operationId as string}`,
    summary: `${a.summary as string} Or ${b.summary as string}`,
    parameters,
    ...(requestBody ? { requestBody } : {}),
  };
}
