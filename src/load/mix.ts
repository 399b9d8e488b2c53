import type { Dialect } from '../dialects/index.ts';

/**
 * The round mix: which kinds of round a load run plays and how often. A round is one player's
 * game round as an aggregator sends it, its calls one after another (the win after the bet's
 * answer); rounds of one player may overlap, as they do when a player has two games open.
 */
export const ROUND_KINDS = ['bet-win', 'bet-lose', 'rollback', 'duplicate', 'promo', 'balance'] as const;
export type RoundKind = (typeof ROUND_KINDS)[number];

export type Mix = Readonly<Record<RoundKind, number>>;

export const DEFAULT_MIX: Mix = { 'bet-win': 45, 'bet-lose': 40, rollback: 5, duplicate: 5, promo: 2, balance: 3 };

export class MixError extends Error {
  override name = 'MixError';
}

/**
 * `--mix bet-win=50,rollback=10`: the weights given replace the defaults' (kinds not named weigh 0).
 * A kind the dialect cannot play (promo without promoWin, balance without a balance call) is
 * refused when named, and dropped from the default mix.
 */
export function parseMix(text: string | undefined, dialect: Dialect): Mix {
  const playable = (kind: RoundKind) =>
    kind === 'promo'
      ? dialect.operations.promoWin !== undefined
      : kind === 'balance'
        ? dialect.operations.balance !== undefined
        : true;
  if (text === undefined) {
    return Object.fromEntries(ROUND_KINDS.map((k) => [k, playable(k) ? DEFAULT_MIX[k] : 0])) as unknown as Mix;
  }
  const mix = Object.fromEntries(ROUND_KINDS.map((k) => [k, 0])) as Record<RoundKind, number>;
  for (const part of text.split(',')) {
    const [name = '', weight, extra] = part.split('=').map((s) => s.trim());
    const w = weight === undefined ? Number.NaN : Number(weight);
    if (!(ROUND_KINDS as readonly string[]).includes(name) || extra !== undefined || !Number.isFinite(w) || w < 0)
      throw new MixError(
        `--mix: ${JSON.stringify(part)}: expected <kind>=<weight> with a kind of ${ROUND_KINDS.join(', ')} and a weight ≥ 0, e.g. bet-win=50,rollback=5.`,
      );
    if (w > 0 && !playable(name as RoundKind))
      throw new MixError(
        `--mix: ${name}: the ${dialect.name} dialect has no ${name === 'promo' ? 'promoWin' : 'balance'} call; drop ${name} from the mix.`,
      );
    mix[name as RoundKind] = w;
  }
  if (Object.values(mix).every((w) => w === 0))
    throw new MixError('--mix: every weight is 0; expected at least one kind above 0.');
  return mix;
}

/** Picks a round kind from a uniform draw in [0, 1). */
export function pickRound(mix: Mix, draw: number): RoundKind {
  let total = 0;
  for (const k of ROUND_KINDS) total += mix[k];
  let at = draw * total;
  for (const k of ROUND_KINDS) {
    at -= mix[k];
    if (at < 0 && mix[k] > 0) return k;
  }
  return ROUND_KINDS.findLast((k) => mix[k] > 0) as RoundKind;
}

/** How many calls a round of each kind makes when every call is accepted (for a rate given in calls). */
export function callsPerRound(mix: Mix, dialect: Dialect): number {
  const end = dialect.operations.endRound ? 1 : 0;
  const calls: Record<RoundKind, number> = {
    'bet-win': 2 + end,
    'bet-lose': 2,
    rollback: 2,
    duplicate: 3 + end,
    promo: 1,
    balance: 1,
  };
  let total = 0;
  let weighted = 0;
  for (const k of ROUND_KINDS) {
    total += mix[k];
    weighted += mix[k] * calls[k];
  }
  return total === 0 ? 1 : weighted / total;
}
