import { type Command, InvalidArgumentError } from 'commander';
import type { ScheduleEntry } from '../../config/index.ts';

/*
 * `--players` and `--token` for the commands that play (demo, serve), as verify takes them: which
 * players the schedule plays, and the session token each one's calls carry.
 */

export interface PlayerFlags {
  /** The players, as given: a count (`3`: p1,p2,p3) or a list (`1001,1002`). */
  players?: string[];
  /** `--token player=token`, repeated. */
  token?: Record<string, string>;
}

/** The most players a count may name. */
const MAX_PLAYERS = 1_000;

/** `--players 3` is p1,p2,p3 (at most `max`); `--players 1001,1002` those ids. */
export function parsePlayers(value: string, max = MAX_PLAYERS): string[] {
  const text = value.trim();
  if (/^\d+$/.test(text)) {
    const n = Number(text);
    if (n < 1 || n > max)
      throw new InvalidArgumentError(`expected a number of players from 1 to ${max}, or ids such as p1,p2; got ${text}.`);
    return Array.from({ length: n }, (_, i) => `p${i + 1}`);
  }
  const ids = text.split(',').map((id) => id.trim());
  if (ids.some((id) => id === '') || ids.length === 0)
    throw new InvalidArgumentError(`expected a number of players or ids such as p1,p2, got ${JSON.stringify(value)}.`);
  return [...new Set(ids)];
}

/** `--token p1=abc` (repeatable) into `{p1: 'abc'}`. */
export function collectToken(value: string, previous: Record<string, string> = {}): Record<string, string> {
  const eq = value.indexOf('=');
  if (eq <= 0 || eq === value.length - 1)
    throw new InvalidArgumentError(`expected player=token such as p1=tok-123, got ${JSON.stringify(value)}.`);
  return { ...previous, [value.slice(0, eq)]: value.slice(eq + 1) };
}

export function addPlayerOptions(command: Command): Command {
  return command
    .option(
      '--players <n|ids>',
      'the players the schedule plays: a count (3 = p1,p2,p3) or comma-separated ids the wallet knows',
      (value: string) => parsePlayers(value),
    )
    .option(
      '--token <player=token>',
      "a vendor dialect: the session token the wallet issued to a player, e.g. p1=abc; repeat for several (default: the development token aggmock's wallet issues)",
      collectToken,
    );
}

/** The config layer of --token: each player's calls carry its own token. */
export function tokenLayer(flags: PlayerFlags): Record<string, string> | undefined {
  return flags.token === undefined ? undefined : { ...flags.token };
}

/**
 * The schedule playing only `players`: each entry keeps the players of the list it names, and an
 * entry that names none of them plays them all (so every kind of round still runs).
 */
export function scheduleFor(schedule: readonly ScheduleEntry[], players: readonly string[]): ScheduleEntry[] {
  return schedule.map((entry) => {
    const kept = entry.players.filter((p) => players.includes(p));
    return { ...entry, players: kept.length > 0 ? kept : [...players] };
  });
}
