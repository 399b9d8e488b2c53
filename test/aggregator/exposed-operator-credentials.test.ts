import { generateKeyPairSync } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { operatorCredentials } from '../../src/aggregator/vendor/index.ts';
import { onCleanup, runCleanups } from '../../src/callbacks/test-engine.ts';
import { validateConfig } from '../../src/config/index.ts';
import { builtinOperatorApi } from '../../src/dialects/builtin/operator/index.ts';
import type { OperatorApi } from '../../src/dialects/operator.ts';
import { operatorRequest, operatorRouteFor } from '../../src/dialects/operator-client.ts';
import { startAggmock } from '../../src/runtime.ts';

/**
 * An exposed instance (published beyond loopback) refuses the vendor routes' public development
 * credentials the way it refuses aggmock-dev-key on the seed's API: the vendor's own auth refusal,
 * naming the credential to set, journaled as DEV_CREDENTIALS_REFUSED — on the listing fast path and
 * the Hono routes alike. The operator's own credentials are taken; loopback takes the development ones.
 */

afterEach(runCleanups);

const OWN_RSA = generateKeyPairSync('rsa', { modulusLength: 2048 });
const OWN_PUBLIC = OWN_RSA.publicKey.export({ type: 'spki', format: 'pem' }) as string;
const OWN_PRIVATE = OWN_RSA.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;

/** Each vendor's own credentials (every secret changed), one per auth recipe kind. */
const OWN: Record<string, Record<string, string>> = {
  hub88: { publicKey: OWN_PUBLIC },
  pragmatic: { secretKey: 'own-pp-secret' },
  slotegrator: { merchantKey: 'own-sg-key' },
  softswiss: { authToken: 'own-ss-token' },
  blueocean: { apiPassword: 'own-bo-pass' },
  evolution: { apiToken: 'own-evo-token' },
};

async function serve(name: string, credentials: Record<string, string>, exposed: boolean) {
  const aggmock = await startAggmock(
    validateConfig({
      port: 0,
      db: ':memory:',
      catalog: { providers: 1, games: 3 },
      ...(exposed ? { publicUrl: 'https://demo.example.test', admin: { token: 'admin-tok-7f3e' } } : {}),
      callbacks: { profile: name, webhookUrl: 'http://127.0.0.1:9/' },
      operator: { credentials },
    }),
  );
  onCleanup(() => aggmock.close());
  const api = builtinOperatorApi(name) as OperatorApi;
  const held = operatorCredentials(api, credentials, name);
  const send = async (does: 'list-games' | 'launch') => {
    const route = operatorRouteFor(api, does);
    if (!route) throw new Error(`${name} has no ${does} route`);
    const game = aggmock.catalog.games[0] as { id: string };
    const call = operatorRequest(
      api,
      route,
      {
        player: 'p1',
        gameId: game.id,
        currency: 'EUR',
        token: 'tok-p1-0123456789',
        language: 'en',
        lobbyUrl: 'https://c.example/',
      },
      held,
      credentials.publicKey ? { privateKey: OWN_PRIVATE } : {},
    );
    const res = await fetch(`${aggmock.url}${call.path}`, {
      method: call.method,
      headers: call.headers,
      ...(call.body === undefined ? {} : { body: call.body }),
    });
    return { status: res.status, text: await res.text(), refusal: res.headers.get('x-aggmock-refusal') ?? '' };
  };
  return { aggmock, send };
}

describe.each(Object.keys(OWN))('%s on an exposed instance', (name) => {
  it('refuses the development credentials on its list and launch routes, naming the one to set', async () => {
    const { aggmock, send } = await serve(name, {}, true);
    const does = name === 'softswiss' ? (['launch'] as const) : (['list-games', 'launch'] as const);
    for (const route of does) {
      const reply = await send(route);
      expect(reply.refusal, `${route}: ${reply.status} ${reply.text}`).toMatch(
        /^The development \w+ of this operator API is public and refused on an exposed instance \(published at https:\/\/demo\.example\.test/,
      );
      expect(reply.refusal).toMatch(/set your own in operator\.credentials\.\w+/);
    }
    expect(aggmock.sessions.size).toBe(0);
    const entries = aggmock.requests.list();
    expect(entries.length).toBe(does.length);
    for (const entry of entries) expect(entry.auth).toMatchObject({ ok: false, error: 'DEV_CREDENTIALS_REFUSED' });
  });

  it("takes the operator's own credentials there, and the development ones on loopback", async () => {
    const own = await serve(name, OWN[name] as Record<string, string>, true);
    const launched = await own.send('launch');
    expect(launched.refusal, launched.text).toBe('');
    expect(launched.text).toContain('/play/');
    const local = await serve(name, {}, false);
    const devLaunch = await local.send('launch');
    expect(devLaunch.refusal, devLaunch.text).toBe('');
    expect(devLaunch.text).toContain('/play/');
  });
});
