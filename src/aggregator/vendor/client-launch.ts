import type { Catalog } from '../../catalog/index.ts';
import { dialectOf } from '../../config/dialect.ts';
import type { AggmockConfig } from '../../config/index.ts';
import { operatorApiOf } from '../../dialects/builtin/operator/index.ts';
import { devSessionToken } from '../../dialects/dev-keys.ts';
import { launchLinkIn, operatorRequest, operatorRouteFor } from '../../dialects/operator-client.ts';
import { parseJsonOr } from '../../shared/index.ts';
import { operatorCredentials } from './credentials.ts';

/**
 * A launch made as the integrator's client makes it: through the vendor's own launch route, over
 * HTTP, signed the vendor's way (`aggmock demo --dialect hub88` does this for its first player), so
 * the play page it answers is a session the one launch path opened, and its spins send the vendor's
 * wallet calls with the operator's token. Undefined when the dialect has no operator API.
 *
 * @example const launched = await launchAsOperator(config, aggmock.url, aggmock.catalog, 'p1'); // { url, route }
 */
export async function launchAsOperator(
  config: AggmockConfig,
  url: string,
  catalog: Catalog,
  player: string,
): Promise<{ url: string; route: string } | { error: string } | undefined> {
  const dialect = dialectOf(config.callbacks);
  const api = operatorApiOf(dialect);
  const route = api && operatorRouteFor(api, 'launch', 'real');
  if (!api || !route) return undefined;
  const game = catalog.games.find((g) => g.currencies.includes(config.callbacks.currency)) ?? catalog.games[0];
  if (!game) return { error: 'the catalog has no game' };
  const shown = `${route.method} ${api.basePath}${route.path}`;
  try {
    const credentials = operatorCredentials(api, config.operator.credentials, dialect.name);
    const call = operatorRequest(
      api,
      route,
      { player, gameId: game.id, currency: config.callbacks.currency, token: devSessionToken(player), language: 'en' },
      credentials,
    );
    const res = await fetch(`${url}${call.path}`, {
      method: call.method,
      headers: call.headers,
      ...(call.body === undefined ? {} : { body: call.body }),
      signal: AbortSignal.timeout(10_000),
    });
    const text = await res.text();
    const reply = parseJsonOr(text, undefined);
    const link = res.status < 300 ? launchLinkIn(route, reply, url) : undefined;
    return link ? { url: link, route: shown } : { error: `${shown} answered HTTP ${res.status}: ${text.slice(0, 200)}` };
  } catch (error) {
    return { error: `${shown}: ${(error as Error).message}` };
  }
}
