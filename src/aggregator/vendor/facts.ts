import { type Catalog, findGame } from '../../catalog/index.ts';
import type { OperatorApi, OperatorRoute } from '../../dialects/operator.ts';
import type { RequestFacts } from '../../requests/index.ts';
import { pathPattern } from './fast-path.ts';
import { requestParts } from './request.ts';

/*
 * What a fault rule sees of a request to a vendor's operator route: the game and the player by the
 * vendor's own field names (Hub88's game_code and user, Pragmatic's symbol and externalPlayerId),
 * and the body as its fields — a JSON body as it is, form or query parameters as an object — so
 * `match.body` takes the vendor's names whatever the encoding.
 */

/**
 * The facts function the client-faults intercept asks first; undefined facts for any path that is
 * not one of the API's routes.
 *
 * @example vendorRequestFacts(api, catalog)('POST', '/operator/generic/v2/game/url', '', body)?.game
 */
export function vendorRequestFacts(api: OperatorApi, catalog: Catalog) {
  const routes: [OperatorRoute, RegExp][] = api.routes.map((route) => [
    route,
    pathPattern(`${api.basePath}${route.path}`.replace(/\/$/, ''), { capture: false, trailingSlash: true }),
  ]);
  return (method: string, path: string, query: string, body: Buffer | undefined): RequestFacts | undefined => {
    const candidates = routes.filter(([route, pattern]) => route.method === method && pattern.test(path));
    if (candidates.length === 0) return undefined;
    const facts: RequestFacts = { method, path };
    for (const [route] of candidates) {
      let fields: Readonly<Record<string, string>>;
      let parsed: unknown;
      try {
        const parts = requestParts(route.encoding, body ?? new Uint8Array(), {}, new URLSearchParams(query), {});
        fields = parts.fields;
        parsed = route.encoding === 'json' ? JSON.parse(Buffer.from(parts.rawBody).toString('utf8')) : { ...parts.params };
      } catch {
        return facts; // Not what the route reads: the route refuses it; a rule still matches by method and path.
      }
      if (route.selector && fields[route.selector.field] !== route.selector.equals) continue;
      facts.body = parsed;
      for (const [field, spec] of Object.entries(route.request)) {
        const value = fields[field];
        if (value === undefined || value === '') continue;
        if (spec.to === 'gameId' && facts.game === undefined) {
          const game = /^\d{1,9}$/.test(value) ? catalog.games[Number(value) - 1] : findGame(catalog, value.toLowerCase());
          facts.game = game?.id ?? value;
          facts.provider = game?.provider;
        }
        if (spec.to === 'player') facts.player ??= value;
      }
      return facts;
    }
    return facts;
  };
}
