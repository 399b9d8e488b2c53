import { type Catalog, type CatalogGame, findGame } from '../catalog/index.ts';
import type { AggmockConfig } from '../config/index.ts';
import { ApiError } from '../http/errors.ts';
import { isExposed } from '../http/exposure.ts';
import type { CallbackUrlPolicy } from '../launch/callback-url.ts';
import type { LaunchSession, LaunchSessions } from '../launch/sessions.ts';
import { currencyExponent, toMinor } from '../money/index.ts';
import type { LaunchRequest, LaunchResponse } from './schemas.ts';

export interface LaunchDeps {
  config: AggmockConfig;
  catalog: Catalog;
  sessions: LaunchSessions;
  /** Which `callback_url`s a launch may name (config callbacks.allowedUrls). */
  callbackUrls: CallbackUrlPolicy;
  /** Called after a launch, e.g. to log it or show it in the UI. */
  onLaunch?: (session: LaunchSession) => void;
}

/**
 * A launch (`POST /getgameurl`) after its credentials and body shape are checked: the game, the
 * currency, the balance and the callback URL are judged, then the session is created and the reply
 * built. Every refusal is thrown as the ApiError to answer, before anything is created, so a caller
 * may answer it or hand the request on. The Hono route and the launch fast path both call this.
 *
 * `ownPort` is the port the launch request came in on (aggmock's own): a `callback_url` there, or at
 * `baseUrl`, is refused even when the policy does not know where the server listens.
 *
 * @example const reply = launchGame(deps, c.req.valid('json'), 'http://127.0.0.1:4000', 4000);
 */
export function launchGame(deps: LaunchDeps, request: LaunchRequest, baseUrl: string, ownPort?: number): LaunchResponse {
  const { config, catalog } = deps;
  const game = launchedGame(catalog, request.gameId);
  const { currency, exponent } = launchCurrency(request.currency, game, config);
  const balance = toMinor(request.money, exponent);
  if (balance === undefined) {
    const decimals = exponent === 2 ? 'two decimals' : `${exponent} decimals (${currency})`;
    throw new ApiError(400, `money: expected a balance with at most ${decimals}.`, {
      errors: [{ field: 'money', message: `expected at most ${decimals}`, received: request.money }],
    });
  }
  const callback =
    request.callback_url === undefined
      ? undefined
      : deps.callbackUrls.judge(request.callback_url, { port: ownPort, origins: [baseUrl] });
  if (callback && 'refusal' in callback) {
    const { refusal } = callback;
    throw new ApiError(400, `callback_url: ${refusal}.`, {
      errors: [{ field: 'callback_url', message: refusal, expected: 'callbacks.allowedUrls', received: request.callback_url }],
    });
  }
  const session = openLaunchSession(deps, {
    playerId: request.username,
    gameId: game.id,
    gameName: game.name,
    provider: game.provider,
    currency,
    lang: request.lang ?? 'en',
    platform: request.platform,
    homeUrl: request.home_url,
    // As the policy parsed it: the URL stored is the URL judged and the URL dialled.
    ...(callback ? { callbackUrl: callback.url } : {}),
    ...(request.token === undefined ? {} : { token: request.token }),
    balanceAtLaunchMinor: balance,
  });
  return {
    code: 0,
    msg: 'Success',
    success: true,
    payload: {
      game_launch_url: `${baseUrl}/play/${session.id}`,
      game_name: game.name,
      provider: game.provider,
      expires_in: config.launch.expiresIn,
      session_id: session.id,
    },
  };
}

/**
 * The one way a launch opens its session, for `POST /getgameurl` and every vendor's launch route
 * alike: the configured lifetime and cap (refused at the cap when exposed), then `onLaunch`. The
 * play page it links to spins with the configured dialect's wallet calls, carrying the session's
 * player, currency and token.
 *
 * @example const session = openLaunchSession(deps, { playerId: 'p1', gameId, gameName, provider, currency: 'EUR', lang: 'en', platform: 1, homeUrl: '', balanceAtLaunchMinor: 0 });
 */
export function openLaunchSession(
  deps: Pick<LaunchDeps, 'config' | 'sessions' | 'onLaunch'>,
  input: Omit<LaunchSession, 'id' | 'createdAt' | 'expiresAt'>,
): LaunchSession {
  const { config } = deps;
  const session = deps.sessions.create(input, {
    expiresInSeconds: config.launch.expiresIn,
    maxSessions: config.launch.maxSessions,
    refuseAtCap: isExposed(config),
  });
  deps.onLaunch?.(session);
  return session;
}

/** The game a launch names, or the 404 ApiError naming `gameId` (the seed's API and the vendors' alike). */
export function launchedGame(catalog: Catalog, gameId: string, field = 'gameId'): CatalogGame {
  const game = findGame(catalog, gameId.toLowerCase());
  if (!game) {
    throw new ApiError(404, `Unknown game ${JSON.stringify(gameId)}. Use an id from /getallgamesandprovider.`, {
      errors: [{ field, message: 'expected a game id from /getallgamesandprovider', received: gameId }],
    });
  }
  return game;
}

/**
 * The launch's currency (default `callbacks.currency`) and its decimals: a code aggmock knows
 * (ISO 4217 or `callbacks.currencies`) that the game takes. The configured currencies are taken
 * by every game (the seeded catalog cannot know them); any other must be in the game's `currencies`.
 */
export function launchCurrency(
  requested: string | undefined,
  game: CatalogGame,
  config: AggmockConfig,
): { currency: string; exponent: number } {
  const currency = (requested ?? config.callbacks.currency).toUpperCase();
  const { currencies: extra } = config.callbacks;
  const exponent = currencyExponent(currency, extra);
  const refuse = (message: string) =>
    new ApiError(400, `currency: ${message}.`, { errors: [{ field: 'currency', message, received: requested ?? currency }] });
  if (exponent === undefined)
    throw refuse(`expected an ISO 4217 code or one of callbacks.currencies, got ${JSON.stringify(currency)}`);
  const configured = currency === config.callbacks.currency || Object.hasOwn(extra, currency);
  if (!configured && !game.currencies.includes(currency)) {
    throw refuse(`game ${game.id} (${game.name}) does not take ${currency}; it takes ${game.currencies.join(', ')}`);
  }
  return { currency, exponent };
}
