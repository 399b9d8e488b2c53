import { Cron } from 'croner';
import { parseDuration, SCENARIOS, type ScheduleEntry, scheduleEntrySchema } from '../config/index.ts';

/**
 * The `--schedule` flag: a compact form of the config's `schedule` entries.
 *
 *   --schedule "bet-win@2s,session@*\/10 * * * * *;size=20;rtp=0.9,burst@30s;players=p1;size=8;count=3"
 *
 * - Entries are separated by commas; a comma only starts a new entry when a scenario name and
 *   `@` follow it, so cron lists such as `0,30 * * * * *` stay intact.
 * - `<scenario>@<when>`: `when` is a duration (`500ms`, `2s`, `5m`, `1h` → `every`) or a cron
 *   pattern with 5 fields, or 6 with seconds first, or a nickname such as `@hourly` (→ `cron`).
 * - Options follow as `;key=value`: `players=p1+p2` (also `|`), `amount=5` or `amount=1-20`
 *   (major units), `count=N`, `size=N`, `rtp=0.96`. Missing options take the config defaults.
 */
export class ScheduleFlagError extends Error {
  override readonly name = 'ScheduleFlagError';
}

const ENTRY_START = /,(?=\s*[a-z][a-z0-9-]*\s*@)/i;

export function parseScheduleFlag(text: string): ScheduleEntry[] {
  const trimmed = text.trim();
  if (trimmed === '')
    throw new ScheduleFlagError('--schedule: expected entries such as "bet-win@2s,session@*/10 * * * * *", got an empty value.');
  return trimmed.split(ENTRY_START).map((part, i) => parseEntry(part.trim(), i));
}

function parseEntry(part: string, index: number): ScheduleEntry {
  const where = `--schedule entry ${index + 1} (${JSON.stringify(part)})`;
  const at = part.indexOf('@');
  if (at < 1) throw new ScheduleFlagError(`${where}: expected <scenario>@<when>, e.g. "bet-win@2s" or "session@*/10 * * * * *".`);
  const scenario = part.slice(0, at).trim();
  const [when = '', ...options] = part
    .slice(at + 1)
    .split(';')
    .map((s) => s.trim());
  if (!(SCENARIOS as readonly string[]).includes(scenario)) {
    throw new ScheduleFlagError(
      `${where}: unknown scenario ${JSON.stringify(scenario)}; expected one of ${SCENARIOS.join(', ')}.`,
    );
  }
  const raw: Record<string, unknown> = { scenario, ...timing(when, where) };
  for (const option of options) {
    if (option === '') continue;
    const eq = option.indexOf('=');
    const key = eq < 0 ? option : option.slice(0, eq).trim();
    const value = eq < 0 ? '' : option.slice(eq + 1).trim();
    switch (key) {
      case 'players':
        raw.players = value
          .split(/[+|]/)
          .map((p) => p.trim())
          .filter(Boolean);
        break;
      case 'amount': {
        const m = /^(\d+(?:\.\d{1,2})?)(?:\s*(?:-|\.\.)\s*(\d+(?:\.\d{1,2})?))?$/.exec(value);
        if (!m)
          throw new ScheduleFlagError(
            `${where}: amount: expected major units such as "5" or a range "1-20", got ${JSON.stringify(value)}.`,
          );
        raw.amount = { min: Number(m[1]), max: Number(m[2] ?? m[1]) };
        break;
      }
      case 'count':
      case 'size':
      case 'rtp':
        raw[key] = value;
        break;
      default:
        throw new ScheduleFlagError(
          `${where}: unknown option ${JSON.stringify(key)}; expected players, amount, count, size or rtp.`,
        );
    }
  }
  const parsed = scheduleEntrySchema.safeParse(raw);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join('.') || 'entry'}: ${i.message}`).join('; ');
    throw new ScheduleFlagError(`${where}: ${issues}.`);
  }
  return parsed.data;
}

function timing(when: string, where: string): { every: string } | { cron: string } {
  if (when === '') throw new ScheduleFlagError(`${where}: expected a duration ("2s") or a cron pattern after "@".`);
  const ms = parseDuration(when);
  if (ms !== undefined) {
    if (ms <= 0) throw new ScheduleFlagError(`${where}: the interval must be longer than 0, got ${JSON.stringify(when)}.`);
    return { every: when };
  }
  const fields = when.split(/\s+/).length;
  if (!when.startsWith('@') && (fields < 5 || fields > 6)) {
    throw new ScheduleFlagError(
      `${where}: ${JSON.stringify(when)} is neither a duration ("500ms", "2s", "5m") nor a cron pattern of 5 or 6 fields ("*/10 * * * * *").`,
    );
  }
  try {
    new Cron(when, { paused: true });
  } catch (error) {
    throw new ScheduleFlagError(`${where}: ${JSON.stringify(when)} is not a valid cron pattern: ${(error as Error).message}.`);
  }
  return { cron: when };
}

/** The flag form of entries, for printing a schedule back to the user. */
export function formatScheduleFlag(entries: readonly ScheduleEntry[]): string {
  return entries
    .map((e) => {
      const parts = [`${e.scenario}@${e.every ?? e.cron}`, `players=${e.players.join('+')}`];
      parts.push(`amount=${e.amount.min === e.amount.max ? e.amount.min : `${e.amount.min}-${e.amount.max}`}`);
      if (e.count !== undefined) parts.push(`count=${e.count}`);
      if (e.size !== undefined) parts.push(`size=${e.size}`);
      if (e.rtp !== undefined) parts.push(`rtp=${e.rtp}`);
      return parts.join(';');
    })
    .join(',');
}
