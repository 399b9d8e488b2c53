import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runContractsCommand } from '../../src/cli/commands/contracts.ts';
import { configSchema } from '../../src/config/index.ts';
import { dialectContracts } from '../../src/contracts/dialect.ts';
import { generateContracts } from '../../src/contracts/generate.ts';
import { BUILTIN_DIALECTS, balancePaths, builtinDialect, DEV_RSA_PRIVATE_KEY } from '../../src/dialects/index.ts';
import { runVerify } from '../../src/verify/index.ts';
import { devSessionToken } from '../../src/wallet/dialect.ts';
import { type RunningWallet, startWallet } from '../../src/wallet/index.ts';

/**
 * A vendor dialect's Pact contracts: written from the dialect (its real requests, its reply rules
 * as matchers), by `aggmock contracts --profile <dialect> --out`, and verified by the real Pact
 * Verifier against the reference wallet speaking that dialect. (The independent vendor receivers
 * and the planted bugs are in test/verify/dialects.test.ts.)
 */

const dirs: string[] = [];
let wallet: RunningWallet | undefined;
afterEach(async () => {
  await wallet?.close();
  wallet = undefined;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'aggmock-dialect-contracts-'));
  dirs.push(dir);
  return dir;
}

interface PactInteraction {
  description: string;
  providerStates: { name: string; params: Record<string, unknown> }[];
  request: {
    method: string;
    path: string;
    query?: Record<string, string[]>;
    headers: Record<string, string[]>;
    body?: { content: unknown; contentType: string };
    matchingRules?: Record<string, Record<string, { matchers: { match: string; regex?: string }[] }>>;
  };
  response: {
    status: number;
    body: { content: Record<string, unknown> };
    matchingRules: Record<string, Record<string, { matchers: { match: string; regex?: string; status?: unknown }[] }>>;
  };
}

async function pactOf(
  name: string,
  credentials: Record<string, string> = {},
): Promise<{ text: string; interactions: PactInteraction[] }> {
  const path = await generateContracts({
    config: configSchema.parse({ callbacks: { profile: name, credentials } }),
    outDir: tempDir(),
  });
  const text = readFileSync(path, 'utf8');
  return { text, interactions: (JSON.parse(text) as { interactions: PactInteraction[] }).interactions };
}

describe.each(BUILTIN_DIALECTS)('the %s contracts', (name) => {
  const dialect = builtinDialect(name);

  it("write each call as the dialect's real request: method, path, encoding, the signature by pattern where the recipe puts it", async () => {
    const { interactions } = await pactOf(name);
    const contracts = dialectContracts(dialect);
    expect(interactions.map((i) => i.description)).toEqual(contracts.map((c) => c.description));
    for (const [i, contract] of contracts.entries()) {
      const interaction = interactions[i] as PactInteraction;
      const op = dialect.operations[contract.call.operation];
      if (!op) throw new Error(`no ${contract.call.operation}`);
      const encoding = op.encoding ?? dialect.request.encoding;
      const req = interaction.request;
      expect([req.method, req.path.startsWith(op.path === '' ? '/' : (op.path.split('{')[0] as string))]).toEqual([
        op.method,
        true,
      ]);
      if (encoding === 'query') expect(req.body).toBeUndefined();
      else expect(req.body?.contentType).toBe(encoding === 'json' ? 'application/json' : 'application/x-www-form-urlencoded');
      if (encoding === 'form') expect(typeof req.body?.content).toBe('string');
      const recipe = dialect.signing;
      if ('place' in recipe) {
        const place = recipe.place;
        const rules = req.matchingRules ?? {};
        const matcher =
          'header' in place
            ? Object.entries(rules.header ?? {}).find(([k]) => k.toLowerCase() === place.header.toLowerCase())?.[1]
            : 'query' in place
              ? rules.query?.[place.query]
              : rules.body?.[`$.${place.field}`];
        expect(matcher?.matchers[0]?.match, `${contract.id}: the signature is matched by pattern`).toBe('regex');
      }
    }
  });

  it("require the reply the dialect's rules say: the success or refusal code, the balance by pattern, the status", async () => {
    const { interactions } = await pactOf(name);
    const contracts = dialectContracts(dialect);
    for (const [i, contract] of contracts.entries()) {
      const response = (interactions[i] as PactInteraction).response;
      const bodyRules = response.matchingRules.body ?? {};
      const op = dialect.operations[contract.call.operation];
      const root = op?.reply?.root ? `.${op.reply.root}` : '';
      const paths = balancePaths(dialect, contract.call.operation);
      if (contract.reply.accepted && contract.call.operation !== 'authenticate' && paths !== undefined) {
        for (const p of paths) expect(bodyRules[`$${root}.${p}`]?.matchers[0]?.regex, `${contract.id}: ${p}`).toBeDefined();
      }
      const code = dialect.reply.code;
      const codes = contract.reply.accepted ? dialect.reply.ok : dialect.reply.codes[contract.reply.refusal];
      if (code && op?.reply?.code !== false && codes !== undefined && typeof [codes].flat()[0] !== 'boolean') {
        const regex = new RegExp(bodyRules[`$${root}.${code}`]?.matchers[0]?.regex as string);
        for (const value of [codes].flat()) expect(regex.test(String(value)), `${contract.id}: ${value}`).toBe(true);
        // An acceptance's code is refused where a refusal is required, and the other way round.
        const other = contract.reply.accepted ? dialect.reply.codes.INSUFFICIENT_FUNDS : dialect.reply.ok;
        for (const value of [other ?? []].flat()) expect(regex.test(String(value)), `${contract.id}: not ${value}`).toBe(false);
      }
      if (!contract.reply.accepted && dialect.reply.statuses[contract.reply.refusal] !== undefined)
        expect(response.status).toBe(dialect.reply.statuses[contract.reply.refusal]);
    }
  });
});

describe('aggmock contracts --profile <vendor dialect>', () => {
  it('writes the same bytes for the same dialect and credentials, and signs the examples with the credentials given', async () => {
    const first = await pactOf('pragmatic', { secretKey: 'pp-secret-1' });
    const again = await pactOf('pragmatic', { secretKey: 'pp-secret-1' });
    const other = await pactOf('pragmatic', { secretKey: 'another-secret' });
    expect(again.text).toBe(first.text);
    expect(other.text).not.toBe(first.text);
    expect(first.interactions.map((i) => i.request.path)).toEqual(
      expect.arrayContaining(['/authenticate.html', '/balance.html', '/bet.html', '/result.html', '/refund.html']),
    );
  });

  it('writes them with --out and says which contracts it wrote (it exited 2 with "not a wire profile" before)', async () => {
    const out: string[] = [];
    const err: string[] = [];
    const dir = tempDir();
    const code = await runContractsCommand(
      { out: dir, profile: 'hub88', credential: { privateKey: DEV_RSA_PRIVATE_KEY } },
      { stdout: (t) => out.push(t), stderr: (t) => err.push(t), cwd: dir, env: {} },
    );
    expect({ code, err }).toEqual({ code: 0, err: [] });
    expect(out.join('')).toMatch(/interactions \(authenticate, balance, bet-accepted, .*bad-signature\), dialect hub88/);
    const pact = JSON.parse(readFileSync(join(dir, 'aggmock-integrator-webhook.json'), 'utf8')) as {
      interactions: PactInteraction[];
    };
    expect(pact.interactions.find((i) => i.request.path === '/transaction/bet')?.request.headers).toHaveProperty(
      'X-Hub88-Signature',
    );
    // And the wallet API the dialect describes, next to them.
    const openapi = JSON.parse(readFileSync(join(dir, 'wallet-openapi.json'), 'utf8')) as { paths: Record<string, unknown> };
    expect(Object.keys(openapi.paths)).toEqual(expect.arrayContaining(['/transaction/bet', '/transaction/win']));
    expect(out.join('')).toContain('wallet-openapi.json, the wallet API it describes (OpenAPI 3.1)');
  });

  it("writes a user's dialect file's contracts like a built-in one's", async () => {
    const dir = tempDir();
    const file = join(dir, 'acme.json');
    const { $schema: _schema, ...pragmatic } = builtinDialect('pragmatic');
    writeFileSync(
      file,
      JSON.stringify({
        ...pragmatic,
        name: 'acme',
        operations: { ...pragmatic.operations, bet: { ...pragmatic.operations.bet, path: '/acme/bet' } },
      }),
    );
    const out: string[] = [];
    const code = await runContractsCommand(
      { out: dir, profile: file, credential: { secretKey: 's3cret' } },
      { stdout: (t) => out.push(t), stderr: (t) => out.push(t), cwd: dir, env: {} },
    );
    expect({ code, out: out.join('') }).toEqual({ code: 0, out: expect.stringContaining('dialect acme') });
    const pact = JSON.parse(readFileSync(join(dir, 'aggmock-integrator-webhook.json'), 'utf8')) as {
      interactions: PactInteraction[];
    };
    expect(pact.interactions.filter((i) => i.request.path === '/acme/bet').map((i) => i.description)).toEqual([
      'a bet the balance covers',
      'a bet whose transaction was already applied',
      'a bet larger than the balance',
      'a bet signed with keys the wallet does not know',
    ]);
  });

  it('refuses a credential the dialect does not take, naming it', async () => {
    const err: string[] = [];
    const code = await runContractsCommand(
      { out: tempDir(), profile: 'pragmatic', credential: { nope: 'x' } },
      { stdout: () => {}, stderr: (t) => err.push(t), env: {} },
    );
    expect(code).toBe(2);
    expect(err.join('')).toMatch(/no credential "nope"/);
  });
});

describe.each(BUILTIN_DIALECTS)('the Pact Verifier and the reference wallet speaking %s', (name) => {
  it("passes every one of the dialect's contracts", async () => {
    const players = { player01: 1000, player02: 500 };
    wallet = await startWallet({
      config: configSchema.parse({ callbacks: { profile: name }, wallet: { currency: 'EUR', players } }),
      dbPath: ':memory:',
      port: 0,
    });
    const outcome = await runVerify({
      webhookUrl: wallet.url,
      config: configSchema.parse({ callbacks: { profile: name, currency: 'EUR' } }),
      players: Object.keys(players),
      tokens: Object.fromEntries(Object.keys(players).map((p) => [p, devSessionToken(p, builtinDialect(name))])),
      only: ['pact'],
      reportDir: false,
    });
    const pacts = (outcome.report?.results ?? []).filter((r) => r.kind === 'pact');
    expect(pacts.map((r) => [r.id, r.status, r.reason])).toEqual(
      dialectContracts(builtinDialect(name)).map((c) => [`pact:${c.id}`, 'pass', undefined]),
    );
    expect(outcome.exitCode).toBe(0);
    // The report keeps each request as sent and the interaction from the pact file: no secret in either.
    expect(pacts.every((r) => r.exchanges.length === 1)).toBe(true);
    const shown = JSON.stringify(pacts);
    for (const [credential, spec] of Object.entries(builtinDialect(name).credentials))
      if (spec.kind !== 'text' && spec.default !== undefined) expect(shown, credential).not.toContain(spec.default);
  });
});
