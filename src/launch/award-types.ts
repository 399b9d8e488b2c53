/*
 * The shapes of a free-round award and a campaign, apart from the class that keeps them (awards.ts)
 * and the tables that store them (award-store.ts), which both use them.
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

/** A free-round campaign (Caleta's): a template of game, currency, rounds, stake and period that awards name. */
export interface FreeRoundCampaign {
  id: string;
  name: string;
  gameIds: readonly string[];
  currency?: string | undefined;
  rounds: number;
  bet?: string | undefined;
  /** Epoch ms of its start and end, when named. */
  validFrom?: number | undefined;
  validUntil?: number | undefined;
  createdAt: number;
}
