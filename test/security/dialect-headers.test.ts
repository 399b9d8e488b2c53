import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/config/index.ts';
import { builtinDialect, dialectSchema } from '../../src/dialects/index.ts';
import { type Aggmock, startAggmock } from '../../src/runtime.ts';

/**
 * L-5 (review 2026-11-27, tools/repro-dup-headers.sh): a dialect file's headers were sent beside
 * aggmock's own — a second Host, Content-Length or User-Agent — and a second User-Agent
 * ("aggmock/0.1.0, curl/8.0") passed the admin API's "refuse aggmock's own callbacks" guard.
 */
describe('L-5: reserved headers', () => {
  const base = JSON.parse(JSON.stringify(builtinDialect('pragmatic'))) as Record<string, unknown> & {
    operations: Record<string, { headers?: Record<string, unknown> }>;
  };
  const withHeader = (name: string) => {
    const copy = JSON.parse(JSON.stringify(base)) as typeof base;
    const [op] = Object.keys(copy.operations);
    (copy.operations[op as string] as { headers: Record<string, unknown> }).headers = { [name]: { const: 'x' } };
    return copy;
  };

  it.each(['Host', 'content-length', 'User-Agent', 'Transfer-Encoding', 'Content-Type', ' connection'])(
    'a dialect cannot set %s: refused at load, naming it',
    (name) => {
      const issues = dialectSchema.safeParse(withHeader(name)).error?.issues.map((i) => i.message) ?? [];
      expect(issues.join('\n')).toContain('is set by aggmock itself');
    },
  );

  it('a dialect still sets its own headers', () => {
    const parsed = dialectSchema.safeParse(withHeader('X-Casino-Id'));
    expect(parsed.error?.issues.filter((i) => i.message.includes('set by aggmock'))).toBeUndefined();
  });
});

describe('L-5: a second User-Agent does not hide aggmock’s own', () => {
  let aggmock: Aggmock;
  beforeAll(async () => {
    aggmock = await startAggmock(validateConfig({ port: 0, db: ':memory:', catalog: { providers: 2, games: 4 } }));
  });
  afterAll(async () => {
    await aggmock?.close();
  });
  const reset = (headers: string[]) =>
    request(`${aggmock.url}/__admin/reset`, {
      method: 'POST',
      headers: ['content-type', 'application/json', ...headers],
      body: '{}',
    });

  it('refuses aggmock/… alone, first or second; takes another client', async () => {
    expect((await reset(['user-agent', 'aggmock/0.1.0'])).statusCode).toBe(403);
    expect((await reset(['user-agent', 'aggmock/0.1.0', 'user-agent', 'curl/8.0'])).statusCode).toBe(403);
    expect((await reset(['user-agent', 'curl/8.0', 'user-agent', 'aggmock/0.1.0'])).statusCode).toBe(403);
    expect((await reset(['user-agent', 'curl/8.0'])).statusCode).toBe(200);
  });
});
