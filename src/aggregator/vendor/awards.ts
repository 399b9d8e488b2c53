import { randomBytes } from 'node:crypto';
import type { Catalog, CatalogGame } from '../../catalog/index.ts';
import type { OperatorConcept, OperatorRoute } from '../../dialects/operator.ts';
import { MAX_AWARD_ROUNDS } from '../../launch/award-store.ts';
import type { FreeRoundAward, FreeRoundAwards, FreeRoundCampaign } from '../../launch/awards.ts';
import { launchedGame } from '../launch.ts';
import type { ConceptLists, Concepts } from './decide.ts';
import { Refusal } from './decide.ts';
import { type CampaignValues, numericIdOf, type RenderValues } from './render.ts';

/*
 * A free-round award or its cancel through a vendor's operator API, judged the vendor's way (the
 * players and games named, every game in the catalog, a count, a stake and an end that read) and
 * recorded in the launch sessions' awards, which the play page plays (src/play/routes.ts).
 * aggmock keeps no player register: any player id is taken, as a reward for a player who never
 * played is (Caleta's OAS: "rewards for users that never played are created").
 */

/** The vendor's name of the request field that carries a concept (for a refusal naming it). */
export function fieldOf(route: OperatorRoute, concept: OperatorConcept): string {
  return Object.entries(route.request).find(([, spec]) => spec.to === concept)?.[0] ?? concept;
}

/** A game by its catalog id, or by its 1-based number in the catalog (vendors with integer ids). */
export function gameOf(catalog: Catalog, id: string, field: string): CatalogGame {
  if (/^\d{1,9}$/.test(id)) {
    const game = catalog.games[Number(id) - 1];
    if (game) return game;
  }
  return launchedGame(catalog, id, field);
}

/**
 * Records the award a request asks for and answers what its reply shows.
 *
 * @example const award = awardFreeRounds(route, values, lists, catalog, sessions.awards, Date.now());
 */
export function awardFreeRounds(
  route: OperatorRoute,
  values: Concepts,
  lists: ConceptLists,
  catalog: Catalog,
  awards: FreeRoundAwards,
  nowMs: number,
): NonNullable<RenderValues['award']> {
  const players = lists.player ?? [];
  if (players.length === 0) throw new Refusal('bad-request', `${fieldOf(route, 'player')} is required`);
  // A campaign's reward takes the campaign's game, rounds, stake and end (Caleta's OAS, rewards/create).
  const campaign = values.campaignId === undefined ? undefined : campaignOf(route, values.campaignId, awards);
  const { award } = awards.create({
    id: values.awardId ?? `aggmock-award-${randomBytes(8).toString('hex')}`,
    players: [...new Set(players)],
    ...(campaign
      ? {
          gameIds: campaign.gameIds,
          currency: campaign.currency ?? values.currency?.toUpperCase(),
          rounds: campaign.rounds,
          bet: campaign.bet,
          validUntil: campaign.validUntil,
        }
      : {
          gameIds: namedGames(route, lists, catalog).map((game) => game.id),
          currency: values.currency?.toUpperCase(),
          ...terms(route, values),
        }),
  });
  return shownAward(award, nowMs);
}

/** The games an award or campaign names, each in the catalog; else the vendor's refusal naming the field. */
function namedGames(route: OperatorRoute, lists: ConceptLists, catalog: Catalog): CatalogGame[] {
  const gameField = fieldOf(route, 'gameId');
  const named = lists.gameId ?? [];
  if (named.length === 0) throw new Refusal('bad-request', `${gameField} is required`);
  return named.map((id) => gameOf(catalog, id, gameField));
}

/** The rounds, stake and end a request names (or the route's defaults), each read or refused naming its field. */
function terms(
  route: OperatorRoute,
  values: Concepts,
): { rounds: number; bet: string | undefined; validUntil: number | undefined } {
  const rounds = values.rounds ?? route.awardDefaults?.rounds?.toString();
  if (rounds === undefined) throw new Refusal('bad-request', `${fieldOf(route, 'rounds')} is required`);
  if (!/^\d{1,5}$/.test(rounds) || Number(rounds) < 1 || Number(rounds) > MAX_AWARD_ROUNDS)
    throw new Refusal(
      'bad-request',
      `${fieldOf(route, 'rounds')}: expected a whole number from 1 to ${MAX_AWARD_ROUNDS}, got ${rounds}`,
    );
  const bet = values.betAmount ?? route.awardDefaults?.bet;
  if (bet !== undefined && !/^\d{1,9}(\.\d{1,8})?$/.test(bet))
    throw new Refusal('bad-request', `${fieldOf(route, 'betAmount')}: expected a stake such as 0.20, got ${bet}`);
  const validUntil = values.validUntil === undefined ? undefined : instant(fieldOf(route, 'validUntil'), values.validUntil);
  return { rounds: Number(rounds), bet, validUntil };
}

function campaignOf(route: OperatorRoute, id: string, awards: FreeRoundAwards): FreeRoundCampaign {
  const campaign = awards.campaign(id);
  if (!campaign)
    throw new Refusal('not-found', `${fieldOf(route, 'campaignId')} ${JSON.stringify(id)}: no free-round campaign has this id`);
  return campaign;
}

/**
 * Records the campaign a request asks for (Caleta's campaigns/create: a name, a prepaid — here a
 * game — and the rounds, stake and period rewards made from it take) and answers what its reply shows.
 */
export function createCampaign(
  route: OperatorRoute,
  values: Concepts,
  lists: ConceptLists,
  catalog: Catalog,
  awards: FreeRoundAwards,
): CampaignValues {
  const name = values.campaignName;
  if (name === undefined || name.trim() === '') throw new Refusal('bad-request', `${fieldOf(route, 'campaignName')} is required`);
  if (name.length > 200) throw new Refusal('bad-request', `${fieldOf(route, 'campaignName')}: expected at most 200 characters`);
  const games = namedGames(route, lists, catalog);
  const validFrom = values.validFrom === undefined ? undefined : instant(fieldOf(route, 'validFrom'), values.validFrom);
  const { campaign } = awards.createCampaign({
    id: values.campaignId ?? `aggmock-campaign-${randomBytes(8).toString('hex')}`,
    name,
    gameIds: games.map((game) => game.id),
    currency: values.currency?.toUpperCase(),
    ...terms(route, values),
    validFrom,
  });
  return shownCampaign(campaign, catalog);
}

/** The campaign a request names (Hub88's campaigns/info); an id no campaign has is the vendor's not-found refusal. */
export function campaignInfo(route: OperatorRoute, values: Concepts, awards: FreeRoundAwards, catalog: Catalog): CampaignValues {
  if (values.campaignId === undefined) throw new Refusal('bad-request', `${fieldOf(route, 'campaignId')} is required`);
  return shownCampaign(campaignOf(route, values.campaignId, awards), catalog);
}

/** Every campaign as a list reply shows them. */
export function listCampaigns(awards: FreeRoundAwards, catalog: Catalog): CampaignValues[] {
  return awards.campaigns().map((campaign) => shownCampaign(campaign, catalog));
}

function shownCampaign(campaign: FreeRoundCampaign, catalog: Catalog): CampaignValues {
  const gameId = campaign.gameIds[0] as string;
  const game = catalog.gameById.get(gameId);
  // Hub88's and Caleta's datetime: "ISO 8601 Extended datetime format (YYYY-MM-DDThh:mm:ss)", UTC.
  const iso = (ms: number | undefined) => (ms === undefined ? {} : { value: new Date(ms).toISOString().slice(0, 19) });
  const start = iso(campaign.validFrom);
  const end = iso(campaign.validUntil);
  return {
    id: campaign.id,
    name: campaign.name,
    gameId,
    gameNumericId: game ? numericIdOf(catalog, game) : 0,
    ...(campaign.currency === undefined ? {} : { currency: campaign.currency }),
    rounds: campaign.rounds,
    ...(campaign.bet === undefined ? {} : { betValue: Math.round(Number(campaign.bet) * 100_000) }),
    ...('value' in start ? { startTime: start.value } : {}),
    ...('value' in end ? { endTime: end.value } : {}),
  };
}

/**
 * Cancels the award a request names, or only its rounds for the players the request names (Blue
 * Ocean's removeFreeRounds playerids); an id no award has is refused as the vendor refuses an unknown one.
 */
export function cancelFreeRounds(
  route: OperatorRoute,
  values: Concepts,
  lists: ConceptLists,
  awards: FreeRoundAwards,
  nowMs: number,
): NonNullable<RenderValues['award']> {
  const field = fieldOf(route, 'awardId');
  if (values.awardId === undefined) throw new Refusal('bad-request', `${field} is required`);
  const players = lists.player ?? [];
  const removed = players.length > 0 ? awards.removePlayers(values.awardId, players) : undefined;
  const award = players.length > 0 ? awards.get(values.awardId) : awards.cancel(values.awardId);
  if (!award) throw new Refusal('not-found', `${field} ${JSON.stringify(values.awardId)}: no free-round award has this id`);
  return { ...shownAward(award, nowMs), removed: removed ?? award.players.filter((p) => (award.left.get(p) ?? 0) > 0) };
}

function shownAward(award: FreeRoundAward, nowMs: number): NonNullable<RenderValues['award']> {
  const player = award.players[0] as string;
  const expired = award.validUntil !== undefined && nowMs > award.validUntil;
  return {
    id: award.id,
    player,
    gameId: award.gameIds[0] as string,
    ...(award.currency === undefined ? {} : { currency: award.currency }),
    rounds: award.rounds,
    left: award.left.get(player) ?? 0,
    status: award.cancelledAt !== undefined ? 'cancelled' : expired ? 'expired' : 'active',
  };
}

/** An end given as Unix seconds, Unix milliseconds or a date text, as epoch ms; else a bad-request Refusal. */
function instant(field: string, text: string): number {
  if (/^\d{1,13}$/.test(text)) {
    const n = Number(text);
    return n < 100_000_000_000 ? n * 1000 : n;
  }
  // A date and time with no zone (Hub88's and Caleta's YYYY-MM-DDThh:mm:ss) is UTC, whatever the server's zone.
  const ms = Date.parse(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?$/.test(text) ? `${text}Z` : text);
  if (Number.isNaN(ms))
    throw new Refusal('bad-request', `${field}: expected Unix seconds or a date such as 2026-12-31T23:59:59Z, got ${text}`);
  return ms;
}
