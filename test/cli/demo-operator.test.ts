import { describe, expect, it } from 'vitest';
import { launchAsOperator } from '../../src/aggregator/vendor/index.ts';
import { validateConfig } from '../../src/config/index.ts';
import { loadCatalog } from '../../src/runtime.ts';
import { runCli } from './process.ts';

/**
 * `aggmock demo --dialect <vendor>`: the demo's launch goes through the vendor's own launch route,
 * so its play page is a session the one launch path opened, and a spin there sends the vendor's
 * wallet calls with the operator's token to the reference wallet, which accepts them.
 */
describe('aggmock demo --dialect hub88 (a real process)', () => {
  it("launches the first player's game through Hub88's /game/url, and its play page spins against the wallet", async () => {
    const cli = runCli(['demo', '--dialect', 'hub88', '--port', '0', '--wallet-port', '0', '--db', ':memory:', '--quiet']);
    try {
      await cli.waitFor(/Press Ctrl-C to stop/);
      const banner = cli.stdout();
      const line =
        /^ {2}play {8}(http:\/\/127\.0\.0\.1:\d+\/play\/[0-9a-f]+) {3}\(p1, launched through POST \/operator\/generic\/v2\/game\/url as the operator's client does\)$/m.exec(
          banner,
        );
      expect(line, banner).not.toBeNull();
      const play = line?.[1] as string;
      const spin = await fetch(`${play}/spin`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ bet: 1 }),
      });
      const body = (await spin.json()) as { steps: { kind: string; status: string }[] };
      expect(spin.status, JSON.stringify(body)).toBe(200);
      expect(body.steps.map((s) => s.status)).not.toContain('failed');
      expect(
        body.steps.some((s) => s.kind === 'debit' && s.status === 'delivered'),
        JSON.stringify(body),
      ).toBe(true);
      // The launch is on record as the client's call, accepted by Hub88's own signature check.
      const origin = new URL(play).origin;
      const journal = (await (await fetch(`${origin}/__admin/requests?path=/operator/generic/v2/game/url`)).json()) as {
        requests: { status: number; auth?: { ok: boolean; method?: string } }[];
      };
      expect(journal.requests).toEqual([
        expect.objectContaining({ status: 200, auth: expect.objectContaining({ ok: true, method: 'operator' }) }),
      ]);
    } finally {
      expect(await cli.stop('SIGINT')).toBe(0);
    }
  }, 60_000);

  it('launches nothing for a dialect without an operator API (the default, betnex): no play line', async () => {
    for (const dialect of ['default', 'betnex']) {
      const config = validateConfig({ callbacks: { dialect } });
      // A name that never resolves: nothing is dialled when there is no operator API.
      expect(await launchAsOperator(config, 'http://x.invalid', loadCatalog(config), 'p1')).toBeUndefined();
    }
  });
});
