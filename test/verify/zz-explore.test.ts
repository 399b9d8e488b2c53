import { it } from 'vitest';
import { configSchema } from '../../src/config/index.ts';
import { runVerify } from '../../src/verify/run.ts';
import { DIALECTS_UNDER_TEST, RECEIVER_PLAYERS } from '../../test/verify/dialect-receivers.ts';

const which = (process.env.DV ?? 'hub88').split(',');
it('explores', async () => {
  for (const d of DIALECTS_UNDER_TEST.filter((d) => which.includes(d.dialect))) {
    const receiver = await d.start(RECEIVER_PLAYERS);
    const config = configSchema.parse({ callbacks: { profile: d.dialect, credentials: d.credentials } });
    const out = await runVerify({
      webhookUrl: receiver.url, config, players: ['player01', 'player02'], reportDir: false,
      tokens: Object.fromEntries(RECEIVER_PLAYERS.map((p) => [p.playerId, p.token as string])),
      ...(process.env.ONLY ? { only: process.env.ONLY.split(',') } : {}),
    });
    console.log(d.dialect, out.exitCode, out.error, JSON.stringify(out.report?.summary), out.report?.firstCause?.summary, out.report?.notices);
    for (const r of out.report?.results ?? []) if (r.status !== 'pass') console.log(`  ${r.status} ${r.id}: ${r.reason?.slice(0, 600)}`);
    console.log('receiver errors', receiver.errors.length, receiver.errors.slice(0, 5));
    await receiver.stop();
  }
}, 300_000);
