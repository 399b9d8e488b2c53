import type { CatalogGame, CatalogProvider, GameType } from './catalog.ts';
import { md5Hex } from './seed.ts';

/*
 * Offline artwork: every game and provider gets a self-contained SVG (no external references, no
 * web fonts), whose colours come from its id, so the same game always looks the same.
 */

const FONT = 'Helvetica, Arial, sans-serif';
const SIZE = 320;
const NAME_LINE_CHARS = 15;
const NAME_MAX_LINES = 3;

/**
 * The cover of a game: a gradient from its id, a type icon and badge, its name (wrapped to three
 * lines, then shortened with "…") and the provider's name.
 *
 * @example renderGameImage(game, provider).startsWith('<svg') // true
 */
export function renderGameImage(
  game: Pick<CatalogGame, 'id' | 'name' | 'type'>,
  provider: Pick<CatalogProvider, 'name'>,
): string {
  // Fixture ids are validated hex, but a caller may pass anything: colours then come from its hash.
  const hex = /^[0-9a-f]{32}$/.test(game.id) ? game.id : md5Hex(game.id);
  const palette = paletteFrom(hex);
  const gradientId = `bg-${hex.slice(0, 8)}`;
  const lines = wrapText(game.name, NAME_LINE_CHARS, NAME_MAX_LINES);
  // Bold sans glyphs average ~0.62 em: size the longest line to ~270 of the 320 units.
  const longest = Math.max(...lines.map((line) => [...line].length), 1);
  const fontSize = Math.max(18, Math.min(lines.length === 3 ? 28 : 36, Math.floor(270 / (longest * 0.62))));
  const lineHeight = fontSize * 1.15;
  const firstBaseline = 222 - ((lines.length - 1) * lineHeight) / 2;
  const nameText = lines
    .map((line, i) => `<tspan x="160" y="${round(firstBaseline + i * lineHeight)}">${escapeXml(line)}</tspan>`)
    .join('');
  const badge = game.type.toUpperCase();
  const badgeWidth = 20 + badge.length * 9;
  const providerName = escapeXml(shorten(provider.name, 28));

  return [
    gradientCard({
      width: SIZE,
      height: SIZE,
      rx: 24,
      diagonal: true,
      label: `${game.name} by ${provider.name}`,
      gradientId,
      palette,
    }),
    decorations(hex),
    `<g fill="none" stroke="#ffffff" stroke-width="5" stroke-linecap="round" stroke-linejoin="round" opacity="0.9">${ICONS[game.type]}</g>`,
    `<rect x="16" y="16" width="${badgeWidth}" height="26" rx="13" fill="#000000" fill-opacity="0.35"/>`,
    `<text x="${16 + badgeWidth / 2}" y="34" font-family="${FONT}" font-size="13" font-weight="700" letter-spacing="1" fill="#ffffff" text-anchor="middle">${badge}</text>`,
    `<text font-family="${FONT}" font-size="${fontSize}" font-weight="800" fill="#ffffff" text-anchor="middle">${nameText}</text>`,
    `<rect x="0" y="282" width="${SIZE}" height="38" fill="#000000" fill-opacity="0.3"/>`,
    `<text x="160" y="306" font-family="${FONT}" font-size="15" fill="#ffffff" fill-opacity="0.9" text-anchor="middle">${providerName}</text>`,
    `</svg>`,
  ].join('');
}

/**
 * A provider's logo: a monogram disc and its name on a gradient from its code, 240×80.
 *
 * @example renderProviderLogo({ code: 'PGSOFT', name: 'PG Soft' })
 */
export function renderProviderLogo(provider: Pick<CatalogProvider, 'code' | 'name'>): string {
  const palette = paletteFrom(md5Hex(provider.code));
  const gradientId = `logo-${provider.code.slice(0, 12).replace(/[^A-Za-z0-9_-]/g, '')}`;
  const initials = monogram(provider.name);
  const name = shorten(provider.name, 16);
  const fontSize = name.length > 12 ? 17 : 21;
  return [
    gradientCard({ width: 240, height: 80, rx: 14, diagonal: false, label: provider.name, gradientId, palette }),
    `<circle cx="40" cy="40" r="26" fill="#ffffff" fill-opacity="0.92"/>`,
    `<text x="40" y="48" font-family="${FONT}" font-size="22" font-weight="800" fill="${palette.to}" text-anchor="middle">${escapeXml(initials)}</text>`,
    `<text x="76" y="47" font-family="${FONT}" font-size="${fontSize}" font-weight="700" fill="#ffffff">${escapeXml(name)}</text>`,
    `</svg>`,
  ].join('');
}

/** Escapes text for XML content and attribute values, dropping characters XML 1.0 forbids. */
export function escapeXml(text: string): string {
  return text
    .replace(
      /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g,
      '',
    )
    .replace(/[&<>"']/g, (c) => XML_ENTITIES[c] ?? c);
}

const XML_ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };

/**
 * Greedy word wrap to `maxLines` lines of about `width` characters; a word longer than a line is
 * cut, and text that does not fit ends in "…".
 */
export function wrapText(text: string, width: number, maxLines: number): string[] {
  const words = text.trim().split(/\s+/).filter(Boolean);
  const lines: string[] = [];
  let current = '';
  for (const word of words) {
    const candidate = current ? `${current} ${word}` : word;
    if ([...candidate].length <= width) {
      current = candidate;
      continue;
    }
    if (current) lines.push(current);
    current = word;
  }
  if (current) lines.push(current);
  const kept = lines.slice(0, maxLines).map((line) => shorten(line, width));
  const last = kept[maxLines - 1];
  if (lines.length > maxLines && last !== undefined) {
    const chars = [...last];
    kept[maxLines - 1] = chars.length < width ? `${last}…` : `${chars.slice(0, width - 1).join('')}…`;
  }
  return kept.length > 0 ? kept : [''];
}

/** `text` cut to `max` characters (code points), ending in "…" when cut. */
function shorten(text: string, max: number): string {
  const chars = [...text];
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join('')}…`;
}

function monogram(name: string): string {
  const words = name.split(/[\s\-_.']+/).filter((w) => /\p{L}|\p{N}/u.test(w));
  const letters = words.length >= 2 ? [words[0]!, words[1]!].map((w) => [...w][0]) : [...(words[0] ?? '?')].slice(0, 2);
  return letters.join('').toUpperCase();
}

/** Two related colours from the first bytes of a hex digest. */
type Palette = { from: string; to: string };

/**
 * The opening of every image: the <svg> element with its accessible name, and a rounded card
 * filled with the palette's gradient (top-left to bottom-right when diagonal, else left to right).
 */
function gradientCard(card: {
  width: number;
  height: number;
  rx: number;
  diagonal: boolean;
  label: string;
  gradientId: string;
  palette: Palette;
}): string {
  const { width, height, gradientId, palette } = card;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" aria-label="${escapeXml(card.label)}">`,
    `<defs><linearGradient id="${gradientId}" x1="0" y1="0" x2="1" y2="${card.diagonal ? 1 : 0}">`,
    `<stop offset="0" stop-color="${palette.from}"/><stop offset="1" stop-color="${palette.to}"/>`,
    `</linearGradient></defs>`,
    `<rect width="${width}" height="${height}" rx="${card.rx}" fill="url(#${gradientId})"/>`,
  ].join('');
}

function paletteFrom(hex: string): Palette {
  const hue = parseInt(hex.slice(0, 4), 16) % 360;
  const shift = 30 + (parseInt(hex.slice(4, 6), 16) % 60);
  return { from: hslToHex(hue, 70, 48), to: hslToHex((hue + shift) % 360, 75, 24) };
}

/** Faint circles placed from the id, so covers of one type still differ at a glance. */
function decorations(id: string): string {
  const circles: string[] = [];
  for (let i = 0; i < 4; i++) {
    const byte = (offset: number) => parseInt(id.slice(8 + i * 6 + offset, 10 + i * 6 + offset), 16) || 0;
    circles.push(
      `<circle cx="${byte(0) + 32}" cy="${byte(2) + 32}" r="${20 + (byte(4) % 60)}" fill="#ffffff" fill-opacity="0.08"/>`,
    );
  }
  return circles.join('');
}

/** Line-art icons centred on (160, 110), drawn with the stroke of their group. */
const ICONS: Record<GameType, string> = {
  slot:
    '<rect x="92" y="72" width="40" height="76" rx="8"/><rect x="140" y="72" width="40" height="76" rx="8"/><rect x="188" y="72" width="40" height="76" rx="8"/>' +
    '<path d="M102 98h20l-12 30M150 98h20l-12 30M198 98h20l-12 30"/>',
  live:
    '<circle cx="160" cy="110" r="46"/><circle cx="160" cy="110" r="16"/>' +
    '<path d="M160 64v30M160 126v30M114 110h30M176 110h30M127 77l21 21M172 122l21 21M193 77l-21 21M148 122l-21 21"/>',
  crash: '<path d="M100 150h120M100 150V66"/><path d="M104 146c40-4 70-24 100-70"/><path d="M196 70l14 2-4 14"/>',
  table:
    '<rect x="112" y="70" width="52" height="76" rx="7" transform="rotate(-10 138 108)"/>' +
    '<rect x="156" y="70" width="52" height="76" rx="7" transform="rotate(10 182 108)"/><path d="M182 96l-10 16h20z"/>',
  fishing:
    '<path d="M106 110c20-30 70-36 96 0c-26 36-76 30-96 0z"/><path d="M202 110l26-22v44z"/><circle cx="130" cy="104" r="4"/>' +
    '<path d="M156 96c6 8 6 20 0 28"/>',
  bingo: '<circle cx="160" cy="110" r="44"/><circle cx="160" cy="110" r="24"/><path d="M152 100l8-6v32"/>',
  virtual:
    '<circle cx="160" cy="110" r="44"/><path d="M160 92l17 12-6 20h-22l-6-20z"/>' +
    '<path d="M160 92V66M177 104l24-8M171 124l14 20M149 124l-14 20M143 104l-24-8"/>',
};

function hslToHex(h: number, s: number, l: number): string {
  const sat = s / 100;
  const light = l / 100;
  const k = (n: number) => (n + h / 30) % 12;
  const a = sat * Math.min(light, 1 - light);
  const channel = (n: number) => {
    const value = light - a * Math.max(-1, Math.min(k(n) - 3, Math.min(9 - k(n), 1)));
    return Math.round(value * 255)
      .toString(16)
      .padStart(2, '0');
  };
  return `#${channel(0)}${channel(8)}${channel(4)}`;
}

function round(n: number): number {
  return Math.round(n * 10) / 10;
}
