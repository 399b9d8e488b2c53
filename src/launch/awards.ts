/*
 * Free rounds awarded through a vendor's operator API (Pragmatic FRB, Slotegrator freespins,
 * Hub88/Caleta rewards, Blue Ocean addFreeRounds, SoftSwiss freespins/issue): who may play how many
 * free rounds of which games, at what bet, until when. The play page takes one round at a time for
 * the session's player and game (`take`), gives it back when the wallet refused it, and a cancel
 * stops the rest. Kept in memory beside the launch sessions (LaunchSessions.awards): a restart
 * forgets both, as it forgets the launch links the awards would be played through.
 */

/** An award as the operator asked for it. */
export interface FreeRoundAwardInput {
  /** The vendor's id of the award (bonusCode, freespin_id, reward_uuid) or one aggmock made. */
  id: string;
  players: readonly string[];
  /** Catalog game ids the rounds may be played in. */
  gameIds: readonly string[];
  /** The currency the award is in, when the request named one; other currencies' sessions do not play it. */
  currency?: string | undefined;
  rounds: number;
  /** Each round's stake in major units as the operator wrote it ("0.20"), when it named one. */
  bet?: string | undefined;
  /** Epoch ms after which no round is played. */
  validUntil?: number | undefined;
}

export interface FreeRoundAward extends FreeRoundAwardInput {
  createdAt: number;
  /** Rounds still to play, per player. */
  left: Map<string, number>;
  cancelledAt?: number;
}

/** A round taken from an award for one player (give it back if the wallet refused it). */
export interface TakenRound {
  award: FreeRoundAward;
  player: string;
  /** Rounds left after this one. */
  left: number;
}

/** Awards kept at most; the oldest is forgotten first (a loop of awards cannot grow memory). */
export const MAX_AWARDS = 10_000;

export class FreeRoundAwards {
  private readonly awards = new Map<string, FreeRoundAward>();

  constructor(private readonly now: () => number = () => Date.now()) {}

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
    while (this.awards.size > MAX_AWARDS) this.awards.delete(this.awards.keys().next().value as string);
    return { award, created: true };
  }

  get(id: string): FreeRoundAward | undefined {
    return this.awards.get(id);
  }

  /** Stops an award's remaining rounds; undefined when no award has that id. */
  cancel(id: string): FreeRoundAward | undefined {
    const award = this.awards.get(id);
    if (award) award.cancelledAt ??= this.now();
    return award;
  }

  /** The rounds a player has left in one game, over every live award (what the play page shows). */
  leftFor(player: string, gameId: string, currency: string): { awardId: string; left: number } | undefined {
    const award = this.playable(player, gameId, currency);
    return award ? { awardId: award.id, left: award.left.get(player) ?? 0 } : undefined;
  }

  /** Takes one round of the oldest live award the player has for this game and currency. */
  take(player: string, gameId: string, currency: string): TakenRound | undefined {
    const award = this.playable(player, gameId, currency);
    if (!award) return undefined;
    const left = (award.left.get(player) ?? 0) - 1;
    award.left.set(player, left);
    return { award, player, left };
  }

  /** Gives a taken round back (the wallet refused it, so it was not played). */
  giveBack(round: TakenRound): void {
    const left = round.award.left.get(round.player) ?? 0;
    if (left < round.award.rounds) round.award.left.set(round.player, left + 1);
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
