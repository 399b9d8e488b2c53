import type { CatalogGame, CatalogProvider } from '../catalog/index.ts';
import type { AggmockConfig } from '../config/index.ts';
import { signingKeys } from '../config/index.ts';
import type { FieldError } from '../http/errors.ts';
import { formatMinor } from '../money/index.ts';
import { requestPayload, signPayload } from '../signing/index.ts';
import { escapeHtml, layout } from './layout.ts';

/** The launch form's fields, named as `POST /getgameurl` names them, so its field errors map back 1:1. */
export const LAUNCH_FIELDS = ['username', 'money', 'platform', 'currency', 'lang', 'callback_url'] as const;
export type LaunchField = (typeof LAUNCH_FIELDS)[number];
export type LaunchFormValues = Record<LaunchField, string>;

export function defaultLaunchValues(config: AggmockConfig): LaunchFormValues {
  return { username: 'p1', money: '1000.00', platform: '1', currency: config.callbacks.currency, lang: 'en', callback_url: '' };
}

/** The submitted form as text, missing fields as ''. */
export function readLaunchForm(form: URLSearchParams): LaunchFormValues & { gameId: string } {
  const values = { gameId: form.get('gameId') ?? '' } as LaunchFormValues & { gameId: string };
  for (const field of LAUNCH_FIELDS) values[field] = form.get(field) ?? '';
  return values;
}

/**
 * The `POST /getgameurl` body for a submitted form. Text is passed on as typed (a money that is
 * not a number stays a string, so the API names the field); empty optional fields are left out.
 */
export function launchRequestBody(values: LaunchFormValues & { gameId: string }, homeUrl: string): Record<string, unknown> {
  const money = values.money.trim();
  const asNumber = money === '' ? Number.NaN : Number(money);
  return {
    username: values.username,
    gameId: values.gameId.trim(),
    money: Number.isFinite(asNumber) ? asNumber : money,
    platform: values.platform,
    home_url: homeUrl,
    ...(values.currency.trim() ? { currency: values.currency.trim() } : {}),
    ...(values.lang.trim() ? { lang: values.lang.trim() } : {}),
    ...(values.callback_url.trim() ? { callback_url: values.callback_url.trim() } : {}),
  };
}

/**
 * Headers that let the UI's own server-side call to `POST /getgameurl` through the configured
 * inbound auth: the first API key when keys are accepted, else an HMAC signature with the
 * configured scheme and secrets. The browser never sees them.
 */
export function internalAuthHeaders(
  auth: AggmockConfig['auth'],
  method: string,
  pathQuery: string,
  body: string,
  nowMs: number,
): Record<string, string> {
  if (auth.mode === 'none') return {};
  const key = auth.apiKeys[0];
  const header = auth.apiKeyHeaders[0];
  if (auth.mode !== 'hmac' && key && header) return { [header]: key };
  return signPayload({
    ...signingKeys(auth.signing),
    payload: requestPayload(method, pathQuery, body),
    timestamp: Math.floor(nowMs / 1000),
  });
}

export interface LaunchFormPage {
  game: CatalogGame;
  provider: CatalogProvider | undefined;
  values: LaunchFormValues;
  players: readonly string[];
  /** Field errors from the API, shown beside each field. */
  errors?: readonly FieldError[];
  /** A problem that is not one field's (auth, rate limit). */
  problem?: string;
  /** The configured webhook as anyone may see it (redacted: no query, no userinfo). */
  webhookUrl: string;
  /** The instance is exposed: the form carries the admin token. */
  tokenRequired?: boolean;
}

/** The launch form for one game: who plays, with what balance, where the callbacks go. */
export function launchPage(p: LaunchFormPage): string {
  const { game, values } = p;
  const errorFor = (field: string) => p.errors?.find((e) => e.field === field);
  const fieldErrors = (p.errors ?? []).filter((e) => !(LAUNCH_FIELDS as readonly string[]).includes(e.field));
  const invalid = (field: LaunchField) => {
    const error = errorFor(field);
    return error ? ` aria-invalid="true" aria-describedby="err-${field}"` : '';
  };
  const note = (field: LaunchField) => {
    const error = errorFor(field);
    return error
      ? `<span class="field-error" id="err-${field}" data-testid="error-${field}">${escapeHtml(field)}: ${escapeHtml(error.message)}${error.received === undefined ? '' : ` (got ${escapeHtml(JSON.stringify(error.received))})`}</span>`
      : '';
  };
  const summary =
    p.errors?.length || p.problem
      ? `<div class="banner bad" role="alert" data-testid="form-error">${p.problem ? escapeHtml(p.problem) : `The launch was refused; fix ${escapeHtml((p.errors ?? []).map((e) => e.field).join(', '))}.`}${
          fieldErrors.length
            ? `<ul>${fieldErrors.map((e) => `<li>${escapeHtml(e.field)}: ${escapeHtml(e.message)}</li>`).join('')}</ul>`
            : ''
        }</div>`
      : '';
  const players = p.players.map((id) => `<option value="${escapeHtml(id)}">`).join('');
  const body = `<style>${CSS}</style>
<p><a href="/">← Games</a></p>
<div class="launch">
<section class="panel game">
<img src="${escapeHtml(game.imgPath)}" alt="" width="220" height="220">
<h1 data-testid="launch-game-name">${escapeHtml(game.name)}</h1>
<p class="muted">${escapeHtml(p.provider?.name ?? game.provider)} · ${game.type} · RTP ${game.rtp.toFixed(2)}% · ${escapeHtml(game.volatility)} volatility</p>
<p class="muted">Bet ${formatMinor(game.minBetMinor)} to ${formatMinor(game.maxBetMinor)} · <span class="mono">${game.id}</span></p>
<p class="muted small">Testing your client's error handling? <a href="/ui/requests#break" data-testid="break-next-call">Break the next call</a> (a 503, a timeout, a reset, an expired link…) and see every request it sent.</p>
</section>
<form class="panel form" method="post" action="/ui/launch" data-testid="launch-form" novalidate>
<h2>Launch</h2>
${summary}
<input type="hidden" name="gameId" value="${escapeHtml(game.id)}">
<label class="field">Player id<input name="username" list="players" value="${escapeHtml(values.username)}" autocomplete="off" required data-testid="field-username"${invalid('username')}>
<span class="hint">Callbacks carry it as playerId.</span>${note('username')}</label>
<datalist id="players">${players}</datalist>
<label class="field">Balance at launch<input name="money" inputmode="decimal" value="${escapeHtml(values.money)}" required data-testid="field-money"${invalid('money')}>
<span class="hint">The player's balance the game opens with, e.g. 1000.00.</span>${note('money')}</label>
<div class="row">
<label class="field">Platform<select name="platform" data-testid="field-platform"${invalid('platform')}>
<option value="1"${values.platform === '2' ? '' : ' selected'}>desktop</option><option value="2"${values.platform === '2' ? ' selected' : ''}>mobile</option></select>${note('platform')}</label>
<label class="field">Currency<input name="currency" value="${escapeHtml(values.currency)}" size="6" data-testid="field-currency"${invalid('currency')}>${note('currency')}</label>
<label class="field">Language<input name="lang" value="${escapeHtml(values.lang)}" size="6" data-testid="field-lang"${invalid('lang')}>${note('lang')}</label>
</div>
<label class="field">Callback URL (optional)<input name="callback_url" type="url" value="${escapeHtml(values.callback_url)}" placeholder="${escapeHtml(p.webhookUrl)}" data-testid="field-callback_url"${invalid('callback_url')}>
<span class="hint">Where this session's DEBIT and CREDIT go; empty means the configured webhook.</span>${note('callback_url')}</label>
${
  p.tokenRequired
    ? `<label class="field">Admin token<input name="admin_token" type="password" autocomplete="off" required data-testid="field-admin_token">
<span class="hint">This server is reachable from the network: launching sends signed callbacks, so it needs config admin.token (AGGMOCK_ADMIN_TOKEN).</span></label>`
    : ''
}
<button type="submit" data-testid="launch-submit">Launch game</button>
</form>
</div>`;
  return layout({ title: `Launch ${game.name}`, active: 'games', body });
}

const CSS = `
.launch{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1.2fr);gap:16px;align-items:start}
.game{text-align:center}.game img{width:220px;height:220px;border-radius:16px;box-shadow:0 10px 40px #0008}
.form{display:flex;flex-direction:column;gap:12px}
.form .row{display:flex;flex-wrap:wrap;gap:12px}.form .row .field{flex:1 1 90px}
.form button{align-self:flex-start}
.banner ul{margin:6px 0 0;padding-left:20px}
@media (max-width:760px){.launch{grid-template-columns:minmax(0,1fr)}}
`;
