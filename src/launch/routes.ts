import { Hono } from 'hono';
import type { Catalog } from '../catalog/index.ts';
import { ApiError } from '../http/errors.ts';
import { formatMinor } from '../money/index.ts';
import type { LaunchSession, LaunchSessions } from './sessions.ts';

export interface PlayDeps {
  catalog: Catalog;
  sessions: LaunchSessions;
  /** Renders the page behind a launch URL; the default names the game and the player. */
  renderPlayPage?: (session: LaunchSession) => string;
}

/**
 * `GET /play/:sessionId`, the page behind every launch URL. An unknown session is a 404 and an
 * expired one a 410, as HTML for a browser and JSON for anything else.
 */
export function playRoutes(deps: PlayDeps): Hono {
  const app = new Hono();
  app.get('/play/:sessionId', (c) => {
    const id = c.req.param('sessionId');
    const found = deps.sessions.lookup(id);
    const wantsHtml = (c.req.header('accept') ?? '').includes('text/html');
    if (found.status !== 'active') {
      const status = found.status === 'expired' ? 410 : 404;
      const message =
        found.status === 'expired'
          ? `This launch link expired at ${new Date(found.session.expiresAt).toISOString()}. Request a new one with POST /getgameurl.`
          : `No game session ${JSON.stringify(id)}: the link is wrong, or the server restarted since it was made. Request a new one with POST /getgameurl.`;
      if (wantsHtml) return c.html(errorPage(status === 410 ? 'Launch link expired' : 'Unknown game session', message), status);
      throw new ApiError(status, message, [
        { field: 'sessionId', message: status === 410 ? 'expired' : 'unknown', received: id },
      ]);
    }
    const render = deps.renderPlayPage ?? ((s: LaunchSession) => minimalPlayPage(s, deps.catalog));
    return c.html(render(found.session));
  });
  return app;
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch] ?? ch);
}

function minimalPlayPage(session: LaunchSession, catalog: Catalog): string {
  const game = catalog.gameById.get(session.gameId);
  const img = game ? (game.imgUrl ?? game.imgPath) : '';
  return `<!doctype html>
<html lang="${escapeHtml(session.lang)}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(session.gameName)} — aggmock</title>
<style>body{font-family:system-ui,sans-serif;background:#111827;color:#f9fafb;display:grid;place-items:center;min-height:100vh;margin:0}
main{text-align:center}img{width:240px;height:240px;border-radius:16px}dl{display:grid;grid-template-columns:auto auto;gap:4px 16px;text-align:left}</style></head>
<body><main>
<img src="${escapeHtml(img)}" alt="">
<h1 data-testid="game-name">${escapeHtml(session.gameName)}</h1>
<dl>
<dt>Player</dt><dd data-testid="player">${escapeHtml(session.playerId)}</dd>
<dt>Provider</dt><dd>${escapeHtml(session.provider)}</dd>
<dt>Balance at launch</dt><dd data-testid="balance">${formatMinor(session.balanceAtLaunchMinor)} ${escapeHtml(session.currency)}</dd>
</dl>
<p><a href="${escapeHtml(session.homeUrl)}">Back to the casino</a></p>
</main></body></html>`;
}

function errorPage(title: string, message: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)} — aggmock</title></head>
<body style="font-family:system-ui,sans-serif;max-width:40rem;margin:4rem auto"><h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p></body></html>`;
}
