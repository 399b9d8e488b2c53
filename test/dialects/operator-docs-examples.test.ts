import { describe, expect, it } from 'vitest';
import { createApp, launchCallbackUrls } from '../../src/app.ts';
import { validateConfig } from '../../src/config/index.ts';
import { BUILTIN_OPERATOR_APIS, builtinOperatorApi } from '../../src/dialects/builtin/operator/index.ts';
import type { OperatorApi } from '../../src/dialects/operator.ts';
import { launchLinkIn, operatorRouteFor } from '../../src/dialects/operator-client.ts';
import { LaunchSessions } from '../../src/launch/sessions.ts';
import { loadCatalog } from '../../src/runtime.ts';
import { pagePath, readRepoFile } from '../../tools/dialect-docs.ts';
import { OPERATOR_EXAMPLE_AT } from '../../tools/operator-docs.ts';

/*
 * The example launch on each vendor page (docs/dialects/<vendor>.md, "The operator API") is a
 * request `aggmock serve --dialect <vendor>` accepts: read from the committed page, sent as the page
 * shows it (at the page's clock), it opens a launch session for p1 in EUR whose play page the reply
 * links to; the same request with its body or signature spoiled is refused.
 */

function exampleOf(page: string): { method: string; target: string; headers: Record<string, string>; body: string | undefined } {
  const block = /### The example launch[\s\S]*?```http\n([\s\S]*?)\n```/.exec(page)?.[1];
  if (block === undefined) throw new Error('no example launch on the page');
  const [head = '', body] = block.split('\n\n');
  const [requestLine = '', ...headerLines] = head.split('\n');
  const [, method = '', target = ''] = /^(\S+) (\S+) HTTP\/1\.1$/.exec(requestLine) ?? [];
  const headers = Object.fromEntries(
    headerLines.map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1).trim()] as const),
  );
  return { method, target, headers, body };
}

function serve(name: string) {
  const config = validateConfig({ db: ':memory:', callbacks: { dialect: name } });
  const sessions = new LaunchSessions();
  const app = createApp({
    config,
    catalog: loadCatalog(config),
    sessions,
    callbackUrls: launchCallbackUrls(config),
    now: () => OPERATOR_EXAMPLE_AT,
  });
  return { app, sessions };
}

describe.each(BUILTIN_OPERATOR_APIS)("the %s page's example launch", (name) => {
  const api = builtinOperatorApi(name) as OperatorApi;

  it('is accepted as the page shows it, and opens a session for p1 in EUR that its reply links to', async () => {
    const { app, sessions } = serve(name);
    const example = exampleOf(readRepoFile(pagePath(name)) ?? '');
    const { Host: _host, ...headers } = example.headers;
    const res = await app.request(example.target, { method: example.method, headers, body: example.body });
    const reply = await res.json();
    expect(res.status, JSON.stringify(reply)).toBe(200);
    const link = launchLinkIn(operatorRouteFor(api, 'launch', 'real') as never, reply, 'http://localhost');
    expect(link, JSON.stringify(reply)).toMatch(/\/play\/[0-9a-f]+$/);
    const found = sessions.lookup(new URL(link as string).pathname.split('/').pop() as string);
    expect(found).toMatchObject({ status: 'active', session: { playerId: 'p1', currency: 'EUR' } });
    if (found.status === 'active' && api.sessionToken === 'operator') expect(found.session.token).toBe('aggmock-session-p1');
  });

  it('is refused with its signed body altered, or without its credentials, opening no session', async () => {
    const { app, sessions } = serve(name);
    const example = exampleOf(readRepoFile(pagePath(name)) ?? '');
    const { Host: _host, ...headers } = example.headers;
    const spoiled: { target: string; headers: Record<string, string>; body: string | undefined }[] = [];
    // A body altered after signing (credentials carried as they are sign nothing: Blue Ocean, Evolution).
    const signs = ['rsa-body', 'hmac-body', 'sorted-params'].includes(
      (operatorRouteFor(api, 'launch', 'real')?.auth ?? api.auth).kind,
    );
    if (signs && example.body !== undefined) spoiled.push({ ...example, headers, body: example.body.replace('p1', 'p2') });
    // The credential out: a signature header, an Authorization, or the credentials in the path or body.
    const signature = Object.keys(headers).find((h) => /sign|authorization/i.test(h));
    if (signature) {
      const { [signature]: _gone, ...rest } = headers;
      spoiled.push({ ...example, headers: rest });
    }
    if (api.auth.kind === 'static')
      spoiled.push({
        ...example,
        headers,
        target: example.target.replace('aggmock-dev-secret', 'wrong-secret'),
        body: example.body?.replace('aggmock-dev-secret', 'wrong-secret'),
      });
    expect(spoiled.length).toBeGreaterThan(0);
    for (const request of spoiled) {
      const res = await app.request(request.target, { method: example.method, headers: request.headers, body: request.body });
      const text = await res.text();
      expect(res.headers.get('x-aggmock-refusal'), text).toBeTruthy();
    }
    expect(sessions.size).toBe(0);
  });
});
