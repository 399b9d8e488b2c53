/**
 * Game launches: the sessions a /getgameurl creates (sessions.ts), the free rounds a vendor's operator API awards (awards.ts, kept in SQLite by award-store.ts) and the policy for which
 * callback_url a launch may name (callback-url.ts). An engine: it imports config and http; it
 * must not import surfaces or the CLI.
 */

export { AwardStore, type UnreadableAward } from './award-store.ts';
export {
  type EndedSessionAward,
  type FreeRoundAward,
  FreeRoundAwards,
  type FreeRoundCampaign,
  type TakenRound,
} from './awards.ts';
export { type AggmockSelf, type CallbackUrlPolicy, callbackUrlPolicy } from './callback-url.ts';
export { type LaunchSession, LaunchSessions } from './sessions.ts';
