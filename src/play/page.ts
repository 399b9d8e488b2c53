import type { CatalogGame } from '../catalog/index.ts';
import type { ScheduleEntry } from '../config/index.ts';
import { AUTH_PROMPT_HTML, pageDataTag, scriptTag } from '../http/browser-scripts.ts';
import type { LaunchSession } from '../launch/sessions.ts';
import { formatMinor, toMajor } from '../money/index.ts';
import { escapeHtml } from '../shared/index.ts';
import type { PlayMoney } from './currency.ts';

export { escapeHtml };

/**
 * The URL when it is http(s), else `fallback`: every URL a page renders goes through this, so a
 * `javascript:` or `data:` URL that slipped past validation still cannot run on the page.
 */
export function httpUrl(url: string, fallback = '/'): string {
  if (!URL.canParse(url, 'http://relative.invalid')) return fallback;
  const { protocol } = new URL(url, 'http://relative.invalid');
  return protocol === 'http:' || protocol === 'https:' ? url : fallback;
}

/**
 * The page behind a launch URL: the game's art, the player's balance, a bet and a Spin button.
 * Spin posts to `/play/<session>/spin`; aggmock sends the wallet a DEBIT and, on a win, a CREDIT,
 * and the page shows each reply. Plain HTML and its script `browser/play.js`: no build step.
 */
/** The schedule's entries that play `playerId` in the background while a person plays it here. */
export function backgroundPlay(schedule: readonly ScheduleEntry[], playerId: string): ScheduleEntry[] {
  return schedule.filter((entry) => entry.players.includes(playerId));
}

function backgroundNote(playerId: string, entries: readonly Pick<ScheduleEntry, 'scenario' | 'every' | 'cron'>[]): string {
  const each = entries.map((e) => `${e.scenario} ${e.every ? `every ${e.every}` : `on cron "${e.cron}"`}`);
  return `The schedule is playing ${playerId} in the background too (${each.join(', ')}): the wallet's balance also moves between your spins.`;
}

export function playPage(
  session: LaunchSession,
  game: CatalogGame | undefined,
  spinEnabled: boolean,
  money: Pick<PlayMoney, 'exponent' | 'minBetMinor' | 'maxBetMinor'> = {
    exponent: 2,
    minBetMinor: game?.minBetMinor ?? 10,
    maxBetMinor: game?.maxBetMinor ?? 10_000,
  },
  /** The instance is exposed: spins need the admin token, which the page's prompt asks for. */
  tokenRequired = false,
  /** The schedule's entries that play this player in the background ({@link backgroundPlay}). */
  background: readonly Pick<ScheduleEntry, 'scenario' | 'every' | 'cron'>[] = [],
  /** Free rounds an operator awarded this player in this game (LaunchSessions.awards): the next spins play them. */
  freeRounds?: { awardId: string; left: number },
): string {
  const img = game ? (game.imgUrl ?? game.imgPath) : '';
  // Bets are written with the session currency's decimals (JPY: whole yen; KWD: three decimals).
  const decimals = money.exponent;
  const minBet = toMajor(money.minBetMinor, decimals);
  const maxBet = toMajor(money.maxBetMinor, decimals);
  const defaultBet = Math.min(Math.max(1, minBet), maxBet);
  return `<!doctype html>
<html lang="${escapeHtml(session.lang)}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(session.gameName)} — aggmock</title>
<style>
body{font-family:system-ui,sans-serif;background:#0f172a;color:#f1f5f9;margin:0;min-height:100vh;display:grid;place-items:center}
main{width:min(560px,94vw);text-align:center;padding:24px 0}
img{width:260px;height:260px;border-radius:18px;box-shadow:0 10px 40px #0008}
h1{margin:16px 0 4px}.sub{color:#94a3b8;margin:0 0 16px}.small{font-size:.85rem;margin-top:-4px}
.balance{font-size:2rem;font-weight:700;margin:8px 0}
form{display:flex;gap:8px;justify-content:center;align-items:center;margin:12px 0}
input{width:7rem;font-size:1.1rem;padding:8px;border-radius:8px;border:1px solid #334155;background:#1e293b;color:#f1f5f9}
button{font-size:1.1rem;padding:10px 28px;border-radius:999px;border:0;background:#f59e0b;color:#111;font-weight:700;cursor:pointer}
button:disabled{opacity:.5;cursor:wait}
#result{min-height:1.5em;font-weight:600}
ol{list-style:none;padding:0;text-align:left;font:13px ui-monospace,monospace}
li{background:#1e293b;border-radius:8px;padding:8px 10px;margin:6px 0;overflow-wrap:anywhere}
.ok{border-left:4px solid #22c55e}.bad{border-left:4px solid #ef4444}
a{color:#93c5fd}
</style></head>
<body><main>
${AUTH_PROMPT_HTML}
<img src="${escapeHtml(httpUrl(img, ''))}" alt="">
<h1 data-testid="game-name">${escapeHtml(session.gameName)}</h1>
<p class="sub"><span data-testid="player">${escapeHtml(session.playerId)}</span> · ${escapeHtml(session.provider)}</p>
<div class="balance"><span data-testid="balance">${formatMinor(session.balanceAtLaunchMinor)}</span> ${escapeHtml(session.currency)}</div>
<p class="sub small" data-testid="balance-source">at launch: the money the casino sent with the launch request</p>
${
  background.length === 0
    ? ''
    : `<p class="sub small" data-testid="background-play">${escapeHtml(backgroundNote(session.playerId, background))}</p>
`
}${
  freeRounds === undefined
    ? ''
    : `<p class="sub small" data-testid="free-rounds">${freeRounds.left} free round${freeRounds.left === 1 ? '' : 's'} left (award ${escapeHtml(freeRounds.awardId)}): the next spins are free, bets of 0 tagged with the award.</p>
`
}<form id="spin">
<label>Bet <input id="bet" data-testid="bet" type="number" min="${minBet}" max="${maxBet}" step="${decimals === 0 ? 1 : (10 ** -decimals).toFixed(decimals)}" value="${defaultBet.toFixed(decimals)}"></label>
<button id="spin-button" data-testid="spin" ${spinEnabled ? '' : 'disabled title="callbacks are not configured"'}>Spin</button>
</form>
<div id="result" data-testid="result" aria-live="polite"></div>
<ol id="log" data-testid="log"></ol>
<p><a href="${escapeHtml(httpUrl(session.homeUrl))}" data-testid="home-link">Back to the casino</a></p>
</main>
${pageDataTag({ session: session.id, currency: session.currency, decimals, minBet, maxBet, tokenRequired })}
${scriptTag('play.js')}
</body></html>`;
}

export function errorPage(title: string, message: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)} — aggmock</title></head>
<body style="font-family:system-ui,sans-serif;max-width:40rem;margin:4rem auto"><h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p></body></html>`;
}
