import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.ts';
import { generateCatalog } from '../../src/catalog/index.ts';
import { configSchema } from '../../src/config/index.ts';
import {
  BUILTIN_DIALECTS,
  buildRequest,
  builtinDialect,
  type CallFacts,
  type Dialect,
  OPERATIONS,
  type OutcomeCode,
  writeAmount,
  writeReply,
} from '../../src/dialects/index.ts';
import { dialectOpenApi, WALLET_OPENAPI_PATH } from '../../src/openapi/dialect.ts';
import { setAt } from '../../src/shared/index.ts';

/**
 * The OpenAPI document of the wallet API a dialect describes: every call the dialect makes is a
 * path and method in it, the requests the dialect builds validate against its request schemas,
 * and the replies a correct wallet writes (the reference wallet's writer) against its reply
 * schemas.
 */

type Doc = {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
};
type Operation = {
  parameters?: { name: string; in: string; required: boolean }[];
  requestBody?: { content: Record<string, { schema: object }> };
  responses: Record<string, { content?: Record<string, { schema: object }> }>;
};

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats.default(ajv);

function devCredentials(dialect: Dialect): Record<string, string> {
  return Object.fromEntries(
    Object.entries(dialect.credentials).flatMap(([name, c]) => (c.default === undefined ? [] : [[name, c.default]])),
  );
}

function factsOf(operation: (typeof OPERATIONS)[number]): CallFacts {
  return {
    operation,
    playerId: 'player01',
    currency: 'EUR',
    transactionId: 'tx-1',
    betTransactionId: 'tx-0',
    amountMinor: 1050,
    winMinor: 2500,
    roundId: '1001',
    roundClosed: true,
    sessionToken: 'tok-player01-0123456789abcdef0123456789',
    requestId: '5d1b4c7e-8f7a-4b2c-9d3e-0a1b2c3d4e5f',
    createdAt: Date.parse('2026-01-01T00:00:00Z'),
  };
}

function valid(schema: object, value: unknown): string[] {
  const check = ajv.compile(schema);
  return check(value) ? [] : (check.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
}

describe.each(BUILTIN_DIALECTS)('the OpenAPI document of the %s wallet API', (name) => {
  const dialect = builtinDialect(name);
  const doc = dialectOpenApi(dialect) as Doc;

  it("has every call the dialect makes at its path and method, and the dialect's requests validate against it", () => {
    expect(doc.openapi).toBe('3.1.0');
    for (const operation of OPERATIONS) {
      const op = dialect.operations[operation];
      if (!op) continue;
      const entry = doc.paths[op.path === '' ? '/' : op.path]?.[op.method.toLowerCase()];
      expect(entry, `${operation}: ${op.method} ${op.path}`).toBeDefined();
      if (!entry) continue;
      const facts = factsOf(operation);
      const req = buildRequest(dialect, facts, devCredentials(dialect));
      const query = new URLSearchParams(req.path.split('?')[1] ?? '');
      for (const p of entry.parameters ?? []) {
        if (!p.required) continue;
        if (p.in === 'query') expect(query.has(p.name), `${operation}: query ${p.name}`).toBe(true);
        if (p.in === 'header') expect(req.headers[p.name.toLowerCase()], `${operation}: header ${p.name}`).toBeDefined();
      }
      const type = req.headers['content-type'];
      if (type === 'application/json') {
        const schema = entry.requestBody?.content['application/json']?.schema as object;
        expect(valid(schema, JSON.parse(req.body as string)), `${operation} body`).toEqual([]);
      } else if (type === 'application/x-www-form-urlencoded') {
        const pairs = [...new URLSearchParams(req.body)];
        const schema = entry.requestBody?.content[type]?.schema as { anyOf?: { required?: string[] }[]; required?: string[] };
        // A form body is text: every name a schema requires is in it.
        const requiredNames = schema.anyOf ? schema.anyOf.map((s) => s.required ?? []) : [schema.required ?? []];
        expect(
          requiredNames.some((names) => names.every((n) => pairs.some(([k]) => k === n || k.startsWith(`${n}[`)))),
          `${operation} form`,
        ).toBe(true);
      } else expect(entry.requestBody).toBeUndefined();
    }
  });

  it('describes the replies a correct wallet writes: an acceptance with the balance, a refusal with its code and status', () => {
    const write = (minor: number) => writeAmount(dialect, 'EUR', minor);
    for (const operation of OPERATIONS) {
      const op = dialect.operations[operation];
      if (!op) continue;
      const entry = doc.paths[op.path === '' ? '/' : op.path]?.[op.method.toLowerCase()] as Operation;
      const facts = factsOf(operation);
      const ok = writeReply(dialect, facts, { accepted: true, balanceMinor: 98_950 }, write);
      // A reply that hands over the session token names it, as the reference wallet writes it.
      if (op.reply?.token) setAt(ok.body, op.reply.token, 'a-session-token');
      const okSchema = entry.responses[String(ok.status)]?.content?.['application/json']?.schema as object;
      expect(valid(okSchema, ok.body), `${operation} acceptance ${JSON.stringify(ok.body)}`).toEqual([]);
      const refusals: OutcomeCode[] = ['INSUFFICIENT_FUNDS', 'INVALID_SIGNATURE'];
      for (const refusal of refusals.filter((r) => dialect.reply.codes[r] !== undefined)) {
        const no = writeReply(dialect, facts, { accepted: false, refusal }, write);
        const noSchema = entry.responses[String(no.status)]?.content?.['application/json']?.schema as object;
        expect(noSchema, `${operation} ${refusal}: status ${no.status}`).toBeDefined();
        expect(valid(noSchema, no.body), `${operation} ${refusal} ${JSON.stringify(no.body)}`).toEqual([]);
      }
    }
  });
});

describe('the wallet API document of the active dialect', () => {
  it('is served at /wallet-openapi.json for every dialect, the default one included', async () => {
    const catalog = generateCatalog({ seed: 1, providers: 1, games: 0 });
    const hub88 = createApp({ config: configSchema.parse({ callbacks: { profile: 'hub88' } }), catalog });
    const served = (await (await hub88.request(WALLET_OPENAPI_PATH)).json()) as Doc;
    expect(Object.keys(served.paths)).toEqual(
      expect.arrayContaining(['/user/info', '/transaction/bet', '/transaction/rollback']),
    );
    const standard = createApp({ config: configSchema.parse({}), catalog });
    const doc = (await (await standard.request(WALLET_OPENAPI_PATH)).json()) as Doc;
    expect(Object.keys(doc.paths)).toEqual(['/']);
  });
});
