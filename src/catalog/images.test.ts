import { describe, expect, it } from 'vitest';
import { GAME_TYPES } from './catalog.ts';
import { applyFixture, parseCatalogFixture } from './fixture.ts';
import { generateCatalog } from './generate.ts';
import { escapeXml, renderGameImage, renderProviderLogo, wrapText } from './images.ts';

/**
 * A strict well-formedness check for the XML subset the renderers emit: one root element,
 * balanced tags, double-quoted attributes, no raw `<` in text or attributes, and every `&`
 * starting one of the five predefined entities.
 */
function expectWellFormedSvg(xml: string): void {
  expect(xml.startsWith('<svg ')).toBe(true);
  expect(xml).toContain('xmlns="http://www.w3.org/2000/svg"');
  const token = /<(\/?)([A-Za-z][\w:-]*)((?:\s+[\w:-]+="[^"<]*")*)\s*(\/?)>|([^<]+)/y;
  const badAmpersand = /&(?!(?:amp|lt|gt|quot|apos);)/;
  const stack: string[] = [];
  let roots = 0;
  let position = 0;
  while (position < xml.length) {
    token.lastIndex = position;
    const match = token.exec(xml);
    if (!match) throw new Error(`not well-formed at ${position}: ${xml.slice(position, position + 60)}`);
    position = token.lastIndex;
    const [, closing, name, attributes, selfClosing, text] = match;
    if (text !== undefined) {
      expect(stack.length, `text outside the root: ${text}`).toBeGreaterThan(0);
      expect(text).not.toMatch(badAmpersand);
      continue;
    }
    expect(attributes ?? '').not.toMatch(badAmpersand);
    if (closing) {
      expect(stack.pop(), `closing </${name}>`).toBe(name);
    } else {
      if (stack.length === 0) roots++;
      if (!selfClosing) stack.push(name!);
    }
  }
  expect(stack).toEqual([]);
  expect(roots).toBe(1);
}

describe('renderGameImage', () => {
  const catalog = generateCatalog({ seed: 42, providers: 60, games: 3000 });

  it('renders a well-formed, self-contained SVG for every game type', () => {
    for (const type of GAME_TYPES) {
      const game = catalog.games.find((g) => g.type === type)!;
      const svg = renderGameImage(game, catalog.providerByCode.get(game.provider)!);
      expectWellFormedSvg(svg);
      expect(svg).toContain('viewBox="0 0 320 320"');
      expect(svg).toContain(`>${type.toUpperCase()}<`);
      expect(svg).not.toMatch(/href|url\((?!#)|@import|<image|<script/);
    }
  });

  it('is deterministic and differs between games', () => {
    const [a, b] = [catalog.games[0]!, catalog.games[1]!];
    const provider = catalog.providerByCode.get(a.provider)!;
    expect(renderGameImage(a, provider)).toBe(renderGameImage(a, provider));
    expect(renderGameImage(a, provider)).not.toBe(renderGameImage(b, provider));
  });

  it('escapes &, <, >, " and \' in a fixture game name and provider name', () => {
    const name = `Tom & Jerry's <Big> "Quoted" Win`;
    const withFixture = applyFixture(
      catalog,
      parseCatalogFixture({
        providers: [{ code: 'QA', name: `Q&A <Studio> "Ltd" 'X'` }],
        games: [{ name, type: 'slot', provider: 'QA' }],
      }),
    );
    const game = withFixture.gamesByProvider.get('QA')![0]!;
    const svg = renderGameImage(game, withFixture.providerByCode.get('QA')!);
    expectWellFormedSvg(svg);
    expect(svg).toContain('Tom &amp; Jerry&apos;s');
    expect(svg).toContain('&lt;Big&gt;');
    expect(svg).toContain('&quot;Quoted&quot;');
    expect(svg).toContain('Q&amp;A &lt;Studio&gt; &quot;Ltd&quot; &apos;X&apos;');
    expect(svg).not.toContain('<Big>');
    expectWellFormedSvg(renderProviderLogo(withFixture.providerByCode.get('QA')!));
  });

  it('wraps a long name onto at most three lines and shortens the rest with an ellipsis', () => {
    const svg = renderGameImage(
      { id: 'f'.repeat(32), name: 'The Incredibly Long Adventures Of The Golden Dragon Megaways Deluxe Edition', type: 'slot' },
      { name: 'Some Provider' },
    );
    expectWellFormedSvg(svg);
    expect(svg.match(/<tspan /g)).toHaveLength(3);
    expect(svg).toContain('…</tspan>');
  });

  it('drops characters XML cannot carry', () => {
    const svg = renderGameImage({ id: 'a'.repeat(32), name: 'Bell\u0007 \uD800Game', type: 'slot' }, { name: 'P' });
    expectWellFormedSvg(svg);
    expect(svg).toContain('Bell Game');
  });
});

describe('renderProviderLogo', () => {
  it('renders a well-formed SVG with the name and a monogram', () => {
    const svg = renderProviderLogo({ code: 'PGSOFT', name: 'PG Soft' });
    expectWellFormedSvg(svg);
    expect(svg).toContain('>PG Soft<');
    expect(svg).toContain('>PS<');
    expect(renderProviderLogo({ code: 'PGSOFT', name: 'PG Soft' })).toBe(svg);
  });
});

describe('text helpers', () => {
  it('escapes the five XML special characters', () => {
    expect(escapeXml(`&<>"'`)).toBe('&amp;&lt;&gt;&quot;&apos;');
  });

  it('wraps words greedily and cuts a word longer than a line', () => {
    expect(wrapText('Gates of Olympus', 15, 3)).toEqual(['Gates of', 'Olympus']);
    expect(wrapText('Supercalifragilistic', 10, 3)).toEqual(['Supercali…']);
    expect(wrapText('a b c d', 1, 2)).toEqual(['a', '…']);
  });
});
