import { Hono } from 'hono';
import { z } from 'zod';
import {
  type CallbackEngine,
  callNameOf,
  exponentOf,
  type Random,
  replyReadingOf,
  type StoredEvent,
} from '../callbacks/index.ts';
import type { Catalog } from '../catalog/index.ts';
import { dialectOf } from '../config/dialect.ts';
import type { AggmockConfig } from '../config/index.ts';
import { operatorApiOf } from '../dialects/builtin/operator/index.ts';
import { parseJsonBody, type RawBodyVariables, readRawBody } from '../http/body.ts';
import { ApiError, describeFieldErrors, fieldErrors } from '../http/errors.ts';
import { credentialGuard, isExposed, refuseAggmockCallbacks } from '../http/exposure.ts';
import { localPortOf } from '../http/loopback.ts';
import { sameOriginGuard } from '../http/same-origin.ts';
import type { CallbackUrlPolicy } from '../launch/callback-url.ts';
import type { LaunchSession, LaunchSessions } from '../launch/sessions.ts';
import { isAccepted, replyBalance } from '../ledger/index.ts';
import { formatMinor, toMajor, toMinor } from '../money/index.ts';
import { sessionWin } from '../scenarios/plan.ts';
import { type RoundWire, roundSteps, roundWireOf, type ScenarioStep, withSessionCalls } from '../scenarios/round.ts';
import { playInOrder } from '../scenarios/run.ts';
import { maskedJson } from '../shared/secrets.ts';
import { type PlayMoney, playMoney } from './currency.ts';
import { backgroundPlay, errorPage, playPage } from './page.ts';

export interface PlayDeps {
  config: AggmockConfig;
  catalog: Catalog;
  sessions: LaunchSessions;
  /** Sends the spins' DEBIT and CREDIT; without it the page shows but cannot spin. */
  engine?: Pick<CallbackEngine, 'enqueue' | 'nextTransactionId'>;
  /** Draws spin outcomes; seed it for reproducible rounds. */
  random?: Random;
  /** How long a spin waits for the wallet before answering "pending" (the engine keeps retrying). */
  waitMs?: number;
  /** The launch `callback_url` policy (the app's one), asked again before a session's callbacks are sent. */
  callbackUrls: CallbackUrlPolicy;
}

/** One callback of a spin, as the page shows it. */
export interface SpinStep {
  kind: StoredEvent['kind'];
  type: string;
  amount: number;
  eventId: number;
  transactionId: string;
  status: StoredEvent['status'];
  httpStatus?: number;
  reply?: unknown;
  error?: string;
  accepted: boolean;
}

const spinSchema = z.object({
  bet: z.number({ error: 'expected the bet as a number in major units, e.g. 1.5' }).positive({ error: 'expected a bet above 0' }),
});

/**
 * `GET /play/:session` (the page behind every launch URL) and `POST /play/:session/spin`.
 * A spin sends the wallet a DEBIT for the bet; only when the wallet accepts it does a win follow
 * as a CREDIT, drawn from the game's RTP. An unknown session is a 404 and an expired one a 410,
 * as HTML for a browser and JSON for anything else.
 */
export function playRoutes(deps: PlayDeps): Hono<{ Variables: RawBodyVariables }> {
  const app = new Hono<{ Variables: RawBodyVariables }>();
  const waitMs = deps.waitMs ?? 15_000;
  const { callbackUrls } = deps;
  const tokenRequired = isExposed(deps.config);
  let rounds = 0;
  // The configured wire's rounds: a dialect's game opens with authenticate/balance before its first bet, a round ends with endRound.
  const wire = roundWireOf(deps.config.callbacks);
  /** Launch sessions whose game opened (the wallet accepted its opening calls). */
  const opened = new Set<string>();

  // Where a dead link sends the player: the configured vendor's launch route, else the seed's.
  const relaunch = `Request a new one with ${launchRouteOf(deps.config)}.`;
  const activeSession = (id: string, wantsHtml: boolean): LaunchSession | Response => {
    const found = deps.sessions.lookup(id);
    if (found.status === 'active') return found.session;
    // Launch sessions do not outlive a restart, awards do: a link that played one says what is left.
    const award = found.status === 'unknown' ? deps.sessions.awards.endedSession(id) : undefined;
    const status = found.status === 'unknown' && !award ? 404 : 410;
    const message =
      found.status === 'expired'
        ? `This launch link expired at ${new Date(found.session.expiresAt).toISOString()}. ${relaunch}`
        : found.status === 'used'
          ? `This launch link was already used at ${new Date(found.session.usedAt ?? 0).toISOString()}: a link opens one game session once. ${relaunch}`
          : award
            ? `This game session ended when aggmock restarted (launch sessions are kept in memory; free-round awards are not): the free-round award ${JSON.stringify(award.awardId)} still has ${award.left} round${award.left === 1 ? '' : 's'} for player ${JSON.stringify(award.player)}. Launch the game again for that player: its play page plays them. ${relaunch}`
            : `No game session ${JSON.stringify(id)}: the link is wrong, or the server restarted since it was made. ${relaunch}`;
    const title = award
      ? 'Game session ended by a restart'
      : { expired: 'Launch link expired', used: 'Launch link already used', unknown: 'Unknown game session' }[found.status];
    if (wantsHtml) {
      return new Response(errorPage(title, message), {
        status,
        headers: { 'content-type': 'text/html; charset=UTF-8' },
      });
    }
    throw new ApiError(status, message, {
      errors: [{ field: 'sessionId', message: award ? 'ended by a restart' : found.status, received: id }],
      ...(award ? { extra: { freeRound: { awardId: award.awardId, player: award.player, left: award.left } } } : {}),
    });
  };

  app.get('/play/:sessionId', (c) => {
    const session = activeSession(c.req.param('sessionId'), (c.req.header('accept') ?? '').includes('text/html'));
    if (session instanceof Response) return session;
    const game = deps.catalog.gameById.get(session.gameId);
    const background = backgroundPlay(deps.config.schedule, session.playerId);
    const free = deps.sessions.awards.leftFor(session.playerId, session.gameId, session.currency);
    return c.html(
      playPage(session, game, deps.engine !== undefined, playMoney(deps.config, session, game), tokenRequired, background, free),
    );
  });

  const sameOrigin = sameOriginGuard({ bindHost: deps.config.host, publicUrl: deps.config.publicUrl });
  // A spin moves money and sends signed callbacks: exposed, it needs the admin token.
  const credentials = credentialGuard({
    host: deps.config.host,
    publicUrl: deps.config.publicUrl,
    token: deps.config.admin.token,
    require: 'when-exposed',
    what: 'Spinning',
  });
  const ownCallbacks = refuseAggmockCallbacks('The spin endpoint');
  app.post('/play/:sessionId/spin', sameOrigin, ownCallbacks, credentials, readRawBody(16 * 1024), parseJsonBody(), async (c) => {
    const session = activeSession(c.req.param('sessionId'), false) as LaunchSession;
    const engine = deps.engine;
    if (!engine || !deps.random)
      throw new ApiError(503, 'Spins need the callback engine; start aggmock with `aggmock serve` or `aggmock demo`.');
    const parsed = spinSchema.safeParse(c.get('jsonBody'));
    if (!parsed.success) {
      const errors = fieldErrors(parsed.error.issues, c.get('jsonBody'));
      throw new ApiError(400, `Invalid spin: ${describeFieldErrors(errors)}.`, { errors });
    }
    // Judged again where it is used: a session made some other way (LaunchSessions is public) or a
    // launch judged before the server knew its own port must not make this spin sign and send.
    const refusal =
      session.callbackUrl === undefined
        ? undefined
        : callbackUrls.refusal(session.callbackUrl, {
            port: localPortOf(c.env),
            origins: [new URL(c.req.url).origin, deps.config.publicUrl],
          });
    if (refusal) {
      throw new ApiError(409, `This session's callback_url is not allowed (${refusal}); launch the game again.`, {
        errors: [{ field: 'callback_url', message: refusal, expected: 'callbacks.allowedUrls', received: session.callbackUrl }],
      });
    }
    const game = deps.catalog.gameById.get(session.gameId);
    const money = playMoney(deps.config, session, game);
    const free = deps.sessions.awards.take(session.playerId, session.gameId, session.currency, session.id);
    // A free round stakes the award's bet (the game's smallest where the award names none) and sends a bet of 0.
    const stakeMinor = free ? freeRoundStake(free.award.bet, money) : spinBet(parsed.data.bet, money, game);
    const betMinor = free ? 0 : stakeMinor;
    const major = (minor: number) => toMajor(minor, money.exponent);
    const freeRound = free ? { freeRound: { awardId: free.award.id, left: free.left } } : {};

    rounds++;
    // A launch-level callback_url may name any service the policy allows: its reply is judged
    // (verdict, balance), never handed back, so a spin cannot read another service's answers.
    const showReply = ownWebhook(session.callbackUrl, deps.config.callbacks.webhookUrl);
    const winMinor = sessionWin(deps.random, stakeMinor, (game?.rtp ?? 96) / 100);
    // The round as every surface plans one; the game opens on the first spin of its session, before
    // the bet: a refusal (a token the wallet does not know) ends the spin there, and the next spin
    // tries to open the game again.
    const plan = spinPlan(wire, session, { betMinor, winMinor, round: `${session.id.slice(0, 12)}-${rounds}` }, () =>
      engine.nextTransactionId(),
    );
    const steps = withSessionCalls(plan, { ...wire.calls, open: opened.has(session.id) ? [] : wire.calls.open }, () =>
      engine.nextTransactionId(),
    );
    // Every call of a free round names its award, as the vendor's free-round calls do (is_free/reward_uuid,
    // bonusCode, type freespin, is_freeround_bet): the dialect's bonus fields (docs/operator-apis.md).
    if (free) for (const step of plan) step.request.bonus = { kind: 'free-spins', id: free.award.id, left: free.left };
    const roundId = plan[0]?.request.roundId as string;
    const played = await playInOrder(engine, steps, waitMs);
    // Refused (the game did not open, or the wallet refused the free bet): the round was not played.
    if (free && played.refused) deps.sessions.awards.giveBack(free);
    const shown = played.events.map((event) => spinStep(event, deps.config, showReply));
    if (played.pending) return c.json({ ...pending(played.pending), steps: shown, ...freeRound }, 202);
    const refused = played.refused;
    const notOpened = refused?.request.operation === 'authenticate' || refused?.request.operation === 'balance';
    if (!notOpened && wire.calls.open.length > 0) {
      if (opened.size >= MAX_OPENED_SESSIONS) opened.clear();
      opened.add(session.id);
    }
    if (refused) {
      const event = played.events.at(-1) as StoredEvent;
      return c.json({
        outcome: 'refused',
        roundId,
        bet: major(betMinor),
        win: 0,
        steps: shown,
        balance: balanceOf(event, deps.config),
        message: notOpened
          ? `The game did not open: the wallet refused its ${refused.request.operation} call${showReply && event.error ? ` (${event.error})` : ''}. No bet was sent; launch the game again with a session token the wallet knows.`
          : refusalMessage(event, showReply),
      });
    }
    // The balance after the round's last money call (an endRound moves none).
    const last = played.events.filter((e) => e.facts?.operation !== 'endRound').at(-1) as StoredEvent;
    return c.json({
      outcome: winMinor > 0 ? 'win' : 'lose',
      roundId,
      bet: major(betMinor),
      win: major(winMinor),
      steps: shown,
      balance: balanceOf(last, deps.config),
      ...freeRound,
    });
  });
  return app;
}

/** The route that launches a game on this instance: the vendor's own (`POST /operator/generic/v2/game/url`), else `POST /getgameurl`. */
function launchRouteOf(config: AggmockConfig): string {
  const api = operatorApiOf(dialectOf(config.callbacks));
  const route = api?.routes.find((r) => r.does === 'launch' && r.mode !== 'demo');
  if (!api || !route) return 'POST /getgameurl';
  const selector = route.selector ? ` (${route.selector.field} ${route.selector.equals})` : '';
  return `${route.method} ${api.basePath}${route.path}${selector} or POST /getgameurl`;
}

/** Opened sessions remembered at most; past it the set starts over (a game then opens once more). */
const MAX_OPENED_SESSIONS = 10_000;

/** One spin as a round: its bet on the session's player and game, and its win when it won. */
function spinPlan(
  wire: RoundWire,
  session: LaunchSession,
  spin: { betMinor: number; winMinor: number; round: string },
  ids: () => string,
): ScenarioStep[] {
  const base = {
    playerId: session.playerId,
    gameId: session.gameId,
    currency: session.currency,
    source: 'play',
    ...(session.callbackUrl ? { url: session.callbackUrl } : {}),
    ...(session.token === undefined ? {} : { sessionToken: session.token }),
  };
  return roundSteps(
    wire,
    base,
    ids,
    { key: '', roundName: spin.round, betMinor: spin.betMinor, winMinor: spin.winMinor, after: [] },
    { bet: "the spin's bet", win: "the spin's win", whole: 'the spin, bet and win in one callback' },
  );
}

/** What a spin says of a launch-level URL's refusal: its status, never its words. */
function hiddenReplyError(status: number): string {
  const redirect = status >= 300 && status < 400 ? ', redirects are not followed' : '';
  return `HTTP ${status} (the reply of a launch's own callback_url is not shown${redirect}; see the deliveries inspector)`;
}

/** Whether a session's callbacks go to the configured webhook (no launch-level URL, or the same one). */
function ownWebhook(callbackUrl: string | undefined, webhookUrl: string): boolean {
  if (callbackUrl === undefined) return true;
  return URL.canParse(callbackUrl) && URL.canParse(webhookUrl) && new URL(callbackUrl).href === new URL(webhookUrl).href;
}

function spinStep(event: StoredEvent, config: AggmockConfig, showReply: boolean): SpinStep {
  return {
    kind: event.kind,
    type: callNameOf(config.callbacks, event),
    amount: toMajor(event.amountMinor, exponentOf(config.callbacks, event.currency)),
    eventId: event.id,
    transactionId: event.transactionId,
    status: event.status,
    ...(event.reply ? { httpStatus: event.reply.status, ...(showReply ? { reply: maskedJson(event.reply.body) } : {}) } : {}),
    ...(event.error ? { error: showReply || !event.reply ? event.error : hiddenReplyError(event.reply.status) } : {}),
    accepted: isAccepted(event),
  };
}

function balanceOf(event: StoredEvent, config: AggmockConfig): number | undefined {
  const balance = replyBalance(event, replyReadingOf(config.callbacks, event));
  return balance.kind === 'ok' ? toMajor(balance.minor, exponentOf(config.callbacks, event.currency)) : undefined;
}

function refusalMessage(event: StoredEvent, showReply: boolean): string {
  const body = showReply ? (event.reply?.body as { error?: string; message?: string } | undefined) : undefined;
  if (body?.error) return `The wallet refused the bet: ${body.error}${body.message ? ` (${body.message})` : ''}.`;
  return event.status === 'failed'
    ? `The wallet did not answer: ${event.error ?? 'delivery failed'}.`
    : 'The wallet refused the bet.';
}

function pending(event: StoredEvent) {
  return {
    outcome: 'pending',
    message: `The wallet has not answered yet; aggmock keeps retrying. See /__admin/deliveries/${event.id}.`,
    eventId: event.id,
  };
}

/** A free round's stake in the session currency's minor units: the award's bet, else the game's smallest. */
function freeRoundStake(bet: string | undefined, money: PlayMoney): number {
  const minor = bet === undefined ? undefined : toMinor(Number(bet), money.exponent);
  return minor === undefined || minor <= 0 ? money.minBetMinor : minor;
}

/** The bet in minor units of the session's currency, within the game's limits; else a 400 naming `bet`. */
function spinBet(bet: number, money: PlayMoney, game: { name: string } | undefined): number {
  const betMinor = toMinor(bet, money.exponent);
  if (betMinor === undefined) {
    const message =
      money.exponent === 2 ? 'expected at most two decimals' : `expected at most ${money.exponent} decimals (${money.currency})`;
    throw new ApiError(400, `Invalid spin: bet: ${message}.`, { errors: [{ field: 'bet', message, received: bet }] });
  }
  const { minBetMinor: min, maxBetMinor: max, exponent } = money;
  if (game && (betMinor < min || betMinor > max)) {
    const message = `expected ${formatMinor(min, exponent)} to ${formatMinor(max, exponent)}`;
    throw new ApiError(400, `bet: ${message} for ${game.name}.`, { errors: [{ field: 'bet', message, received: bet }] });
  }
  return betMinor;
}
