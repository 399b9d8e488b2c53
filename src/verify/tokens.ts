import type { CallbacksConfig } from '../callbacks/events.ts';
import { type CallFacts, type Dialect, type ReadReply, sessionTokenFor, tokenHandedOver } from '../dialects/index.ts';
import { verifyWireOf } from './wire.ts';

/* The session tokens verify makes up, and the run's rule that `--skip pact:authenticate` sends none. */

/** What of a run's settings the tokens need (CheckSettings has them). */
export interface TokenSettings {
  runId: string;
  callbacks: CallbacksConfig;
  players: string[];
  sessionTokens?: Map<string, string>;
  authenticates?: boolean;
}

/**
 * The token verify makes up for a player when neither --token nor an authenticate call gave one:
 * `verify-<runId>-token-<player>`, padded with hex digits to the shortest token the dialect allows
 * (Red Tiger validates 32 to 128 characters), at most its longest.
 */
export function madeUpToken(settings: { runId: string; callbacks: CallbacksConfig }, playerId: string): string {
  return sessionTokenFor(verifyWireOf(settings.callbacks).dialect, `verify-${settings.runId}-token-${playerId}`);
}

/**
 * Without `--skip pact:authenticate` nothing; with it, every player without a token gets a made-up
 * one now, so no part of the run (the contracts' child either) authenticates to fetch one.
 */
export function tokensWithoutAuthenticate(settings: TokenSettings): void {
  if (settings.authenticates !== false) return;
  settings.sessionTokens ??= new Map();
  for (const p of settings.players) if (!settings.sessionTokens.has(p)) settings.sessionTokens.set(p, madeUpToken(settings, p));
}

/**
 * A reply that hands a new session token over (Evolution's /check, Caleta's /wallet/check, Red
 * Tiger's /auth; `tokenHandedOver` decides) makes it the player's token for every later call of the
 * run, when the call carried the player's current token (a check's deliberately wrong token hands
 * nothing over to the run).
 */
export function adoptHandedOver(
  settings: Pick<TokenSettings, 'sessionTokens'>,
  dialect: Dialect,
  facts: Pick<CallFacts, 'operation' | 'playerId' | 'sessionToken'>,
  read: Pick<ReadReply, 'verdict' | 'token'>,
): void {
  const tokens = settings.sessionTokens;
  const fresh = tokenHandedOver(read);
  if (fresh === undefined || tokens === undefined || facts.sessionToken === undefined) return;
  if (dialect.operations[facts.operation]?.reply?.token === undefined) return;
  if (tokens.get(facts.playerId) === facts.sessionToken) tokens.set(facts.playerId, fresh);
}

/**
 * The session tokens the wallet handed over during a run: each player whose token at the end is
 * neither the one the run started with (--token, --tokens) nor one verify made up. A wallet that
 * rotates its token on authenticate makes the start token stale: these are the ones to start the
 * next run with.
 */
export function handedOverTokens(
  settings: Pick<TokenSettings, 'runId' | 'callbacks' | 'sessionTokens'>,
  start: Readonly<Record<string, string>>,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [player, token] of settings.sessionTokens ?? []) {
    if (token === start[player] || token === madeUpToken(settings, player)) continue;
    out[player] = token;
  }
  return out;
}

/** The flags that start the next run with `tokens`, e.g. `--token p1=abc --token p2=def`. */
export function tokenFlags(tokens: Readonly<Record<string, string>>): string {
  return Object.keys(tokens)
    .sort()
    .map((player) => `--token ${shellWord(`${player}=${tokens[player]}`)}`)
    .join(' ');
}

/** A word a POSIX shell reads back as it is: quoted when it holds anything but safe characters. */
function shellWord(word: string): string {
  return /^[A-Za-z0-9_.,:=@%+/-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}
