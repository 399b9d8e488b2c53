import { afterEach, describe, expect, it } from 'vitest';
import { configSchema } from '../../src/config/index.ts';
import { runVerify } from '../../src/verify/index.ts';
import { DIALECTS_UNDER_TEST, RECEIVER_PLAYERS } from './dialect-receivers.ts';
import { failures } from './helpers.ts';

const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const s of stops.splice(0)) await s();
});
const pick = (process.env.WV_DIALECTS ?? 'blueocean,100hp,habanero').split(',');
const only = (process.env.WV_ONLY ?? 'excess-decimals,malformed-json').split(',');
describe.each(DIALECTS_UNDER_TEST.filter((d) => pick.includes(d.dialect)))('$dialect', (d) => {
  it('probe', async () => {
    const receiver = await d.start(RECEIVER_PLAYERS);
    stops.push(() => receiver.stop());
    const t0 = Date.now();
    const outcome = await runVerify({
      webhookUrl: receiver.url,
      config: configSchema.parse({ callbacks: { profile: d.dialect, credentials: d.credentials } }),
      players: RECEIVER_PLAYERS.map((p) => p.playerId),
      tokens: Object.fromEntries(RECEIVER_PLAYERS.map((p) => [p.playerId, p.token as string])),
      reportDir: false,
      ...(only[0] === 'all' ? {} : { only }),
    });
    const rows = (outcome.report?.results ?? []).filter((r) => only[0] === 'all' || only.includes(r.id));
    console.log(d.dialect, Date.now() - t0, 'ms', JSON.stringify(failures(outcome), null, 1));
    for (const r of rows)
      if (r.status === 'fail')
        console.log(
          r.id,
          JSON.stringify(
            r.exchanges
              .slice(-3)
              .map((x) => [x.label, x.request.body.slice(0, 300), x.response?.status, x.response?.body.slice(0, 200)]),
            null,
            1,
          ),
        );
    expect(true).toBe(true);
  }, 300_000);
});
