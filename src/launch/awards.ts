/*
 * Free rounds awarded through a vendor's operator API (Pragmatic FRB, Slotegrator freespins,
 * Hub88/Caleta rewards, Blue Ocean addFreeRounds, SoftSwiss freespins/issue): who may play how many
 * free rounds of which games, at what bet, until when. The play page takes one round at a time for
 * the session's player and game (`take`), gives it back when the wallet refused it, and a cancel
 * stops the rest. Kept beside the launch sessions (LaunchSessions.awards); with a store (the
 * instance's SQLite file, award-store.ts) every change is written through and a restart finds each
 * award with its rounds left. The launch sessions themselves stay in memory: after a restart the
 * player launches again, and the award remembers the session that last played it, so that dead
 * link can say so (`endedSession`).
 */
import type { AwardStore, UnreadableAward } from './award-store.ts';
import type { FreeRoundAward, FreeRoundAwardInput, FreeRoundCampaign } from './award-types.ts';

export type { FreeRoundAward, FreeRoundAwardInput, FreeRoundCampaign } from './award-types.ts';

/** A round taken from an award for one player (give it back if the wallet refused it). */
export interface TakenRound {
  award: FreeRoundAward;
  player: string;
  /** Rounds left after this one. */
  left: number;
  /** The launch session it was played through, when named. */
  sessionId?: string | undefined;
}

/** A free-round award a launch session played, as its dead link reports it after a restart. */
export interface EndedSessionAward {
  awardId: string;
  player: string;
  gameIds: readonly string[];
  left: number;
}

export interface FreeRoundAwardsOptions {
  /** Where awards outlive a restart; without it they live in memory only. */
  store?: AwardStore;
  /** Told of each stored award that does not read (it is not played). */
  onUnreadable?: (award: UnreadableAward) => void;
  /** Awards kept at most (default MAX_AWARDS). */
  maxAwards?: number;
}

/** Awards kept at most; the oldest is forgotten first (a loop of awards cannot grow memory). */
export const MAX_AWARDS = 10_000;

export class FreeRoundAwards {
  private readonly awards = new Map<string, FreeRoundAward>();
  private readonly store: AwardStore | undefined;
  private readonly maxAwards: number;
  /** The launch session that last played each player's rounds of an award, by session id. */
  private readonly sessions = new Map<string, { awardId: string; player: string }>();
  /** The other way round, by award and player: a player's newer session replaces the older one. */
  private readonly lastSession = new Map<string, string>();
  private readonly campaignsById = new Map<string, FreeRoundCampaign>();
  /** Stored awards and campaigns this instance could not read at start (never played). */
  readonly unreadable: readonly UnreadableAward[];

  constructor(
    private readonly now: () => number = () => Date.now(),
    options: FreeRoundAwardsOptions = {},
  ) {
    this.store = options.store;
    this.maxAwards = options.maxAwards ?? MAX_AWARDS;
    const loaded = this.store?.load() ?? { awards: [], campaigns: [], unreadable: [] };
    for (const { award, sessions } of loaded.awards) {
      this.awards.set(award.id, award);
      for (const [player, session] of sessions) this.playedThrough(award.id, player, session);
    }
    for (const campaign of loaded.campaigns) this.campaignsById.set(campaign.id, campaign);
    this.unreadable = loaded.unreadable;
    for (const bad of loaded.unreadable) options.onUnreadable?.(bad);
    this.evictPastCap();
  }

  /**
   * Records an award; the same id again is the same award (a retried create is not a second one).
   *
   * @example awards.create({ id: 'FRB-1', players: ['p1'], gameIds: [game.id], rounds: 10, bet: '0.20' })
   */
  create(input: FreeRoundAwardInput): { award: FreeRoundAward; created: boolean } {
    const existing = this.awards.get(input.id);
    if (existing) return { award: existing, created: false };
    const award: FreeRoundAward = {
      ...input,
      createdAt: this.now(),
      left: new Map(input.players.map((player) => [player, input.rounds])),
    };
    this.awards.set(award.id, award);
    this.store?.insert(award);
    this.evictPastCap();
    return { award, created: true };
  }

  private evictPastCap(): void {
    while (this.awards.size > this.maxAwards) {
      const oldest = this.awards.keys().next().value as string;
      for (const player of this.awards.get(oldest)?.players ?? []) this.playedThrough(oldest, player, undefined);
      this.awards.delete(oldest);
      this.store?.delete(oldest);
    }
  }

  /** Remembers (or, with no session, forgets) the session that last played a player's rounds of an award. */
  private playedThrough(awardId: string, player: string, sessionId: string | undefined): void {
    const key = `${awardId}\u0000${player}`;
    const before = this.lastSession.get(key);
    const mapped = before === undefined ? undefined : this.sessions.get(before);
    if (before !== undefined && mapped?.awardId === awardId && mapped.player === player) this.sessions.delete(before);
    if (sessionId === undefined) {
      this.lastSession.delete(key);
      return;
    }
    this.lastSession.set(key, sessionId);
    this.sessions.set(sessionId, { awardId, player });
  }

  get(id: string): FreeRoundAward | undefined {
    return this.awards.get(id);
  }

  /** Records a campaign; the same id again is the same campaign. At most MAX_AWARDS are kept, the oldest forgotten first. */
  createCampaign(input: Omit<FreeRoundCampaign, 'createdAt'>): { campaign: FreeRoundCampaign; created: boolean } {
    const existing = this.campaignsById.get(input.id);
    if (existing) return { campaign: existing, created: false };
    const campaign: FreeRoundCampaign = { ...input, createdAt: this.now() };
    this.campaignsById.set(campaign.id, campaign);
    this.store?.insertCampaign(campaign);
    while (this.campaignsById.size > this.maxAwards) {
      const oldest = this.campaignsById.keys().next().value as string;
      this.campaignsById.delete(oldest);
      this.store?.deleteCampaign(oldest);
    }
    return { campaign, created: true };
  }

  campaign(id: string): FreeRoundCampaign | undefined {
    return this.campaignsById.get(id);
  }

  /** Every campaign, oldest first. */
  campaigns(): FreeRoundCampaign[] {
    return [...this.campaignsById.values()];
  }

  /** Stops an award's remaining rounds; undefined when no award has that id. */
  cancel(id: string): FreeRoundAward | undefined {
    const award = this.awards.get(id);
    if (award && award.cancelledAt === undefined) {
      award.cancelledAt = this.now();
      this.store?.cancel(id, award.cancelledAt);
    }
    return award;
  }

  /**
   * Takes an award's rounds from the players named (their count drops to 0); answers those of them
   * the award had with rounds left, or undefined when no award has that id.
   */
  removePlayers(id: string, players: readonly string[]): string[] | undefined {
    const award = this.awards.get(id);
    if (!award) return undefined;
    const removed: string[] = [];
    for (const player of new Set(players)) {
      if ((award.left.get(player) ?? 0) <= 0) continue;
      award.left.set(player, 0);
      this.store?.setLeft(id, player, 0, undefined);
      removed.push(player);
    }
    return removed;
  }

  /** The rounds a player has left in one game, over every live award (what the play page shows). */
  leftFor(player: string, gameId: string, currency: string): { awardId: string; left: number } | undefined {
    const award = this.playable(player, gameId, currency);
    return award ? { awardId: award.id, left: award.left.get(player) ?? 0 } : undefined;
  }

  /**
   * Takes one round of the oldest live award the player has for this game and currency, played
   * through the launch session named (remembered, so its link can say so after a restart).
   */
  take(player: string, gameId: string, currency: string, sessionId?: string): TakenRound | undefined {
    const award = this.playable(player, gameId, currency);
    if (!award) return undefined;
    const left = (award.left.get(player) ?? 0) - 1;
    award.left.set(player, left);
    if (sessionId !== undefined) this.playedThrough(award.id, player, sessionId);
    this.store?.setLeft(award.id, player, left, sessionId);
    return { award, player, left, sessionId };
  }

  /** Gives a taken round back (the wallet refused it, so it was not played). */
  giveBack(round: TakenRound): void {
    const left = round.award.left.get(round.player) ?? 0;
    if (left >= round.award.rounds) return;
    round.award.left.set(round.player, left + 1);
    this.store?.setLeft(round.award.id, round.player, left + 1, round.sessionId);
  }

  /**
   * The award a launch session played, with its rounds still left (for a link this instance no
   * longer knows: launch sessions do not outlive a restart, awards do); undefined when none is left.
   */
  endedSession(sessionId: string): EndedSessionAward | undefined {
    const played = this.sessions.get(sessionId);
    const award = played && this.awards.get(played.awardId);
    if (!played || !award || award.cancelledAt !== undefined) return undefined;
    if (award.validUntil !== undefined && this.now() > award.validUntil) return undefined;
    const left = award.left.get(played.player) ?? 0;
    return left > 0 ? { awardId: award.id, player: played.player, gameIds: award.gameIds, left } : undefined;
  }

  get size(): number {
    return this.awards.size;
  }

  private playable(player: string, gameId: string, currency: string): FreeRoundAward | undefined {
    const now = this.now();
    for (const award of this.awards.values()) {
      if (award.cancelledAt !== undefined) continue;
      if (award.validUntil !== undefined && now > award.validUntil) continue;
      if ((award.left.get(player) ?? 0) <= 0) continue;
      if (!award.gameIds.includes(gameId)) continue;
      if (award.currency !== undefined && award.currency !== currency) continue;
      return award;
    }
    return undefined;
  }
}
