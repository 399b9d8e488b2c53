/**
 * A vendor's game list (the default catalog: 1,500 games) against aggmock's own listing on the
 * same server and a bare node:http server answering the same bytes: Hub88's /game/list (an RSA
 * signature checked on every request) and Pragmatic's getCasinoGames (an MD5 over sorted form
 * parameters). Rounds alternate the targets; medians and the median per-round ratio to the bare
 * server are printed. Run: `npx tsc -p tsconfig.build.json --noCheck && npx tsx bench/operator-listings.ts`.
 */
import { createHash, sign } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { DEV_RSA_PRIVATE_KEY } from '../src/dialects/dev-keys.ts';
import { DEV_KEY, load, median, removeTempDir, round, startAggmock, stop, tempDir } from './lib.ts';

const ROUNDS = Number(process.env.ROUNDS ?? 5);
const DURATION = Number(process.env.DURATION ?? 2);
const CONNECTIONS = 10;

const hubBody = '{"operator_id":1}';
const hub = {
  'content-type': 'application/json',
  'X-Hub88-Signature': sign('sha256', Buffer.from(hubBody), DEV_RSA_PRIVATE_KEY).toString('base64'),
};
const ppParams = 'options=GetFrbDetails&secureLogin=aggmock-dev-login';
const ppBody = `${ppParams}&hash=${createHash('md5').update(`${ppParams}aggmock-dev-secret`).digest('hex')}`;
const pp = { 'content-type': 'application/x-www-form-urlencoded' };

async function bare(bytes: Buffer) {
  const server = createServer((_req, res) => {
    _req.resume();
    _req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json; charset=UTF-8', 'content-length': bytes.length });
      res.end(bytes);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => server.close() };
}

for (const vendor of ['hub88', 'pragmatic'] as const) {
  const aggmock = await startAggmock(['--profile', vendor, '--webhook', 'http://127.0.0.1:9/'], `aggmock ${vendor}`);
  const path =
    vendor === 'hub88' ? '/operator/generic/v2/game/list' : '/IntegrationService/v3/http/CasinoGameAPI/getCasinoGames/';
  const headers = vendor === 'hub88' ? hub : pp;
  const body = vendor === 'hub88' ? hubBody : ppBody;
  const listBytes = Buffer.from(await (await fetch(`${aggmock.url}${path}`, { method: 'POST', headers, body })).arrayBuffer());
  const seedBytes = Buffer.from(await (await fetch(`${aggmock.url}/getallgamesandprovider`, { headers: DEV_KEY })).arrayBuffer());
  const bareServer = await bare(listBytes);
  // The same aggmock with its request journal off: the gap to it is what journaling costs.
  const dir = tempDir('operator-listings');
  const off = join(dir, 'journal-off.json');
  writeFileSync(off, JSON.stringify({ api: { journal: false } }));
  const unjournaled = await startAggmock(
    ['--config', off, '--profile', vendor, '--webhook', 'http://127.0.0.1:9/'],
    `aggmock ${vendor}, journal off`,
  );
  const targets = {
    vendor: () => load(`${aggmock.url}${path}`, { connections: CONNECTIONS, duration: DURATION, method: 'POST', headers, body }),
    'journal off': () =>
      load(`${unjournaled.url}${path}`, { connections: CONNECTIONS, duration: DURATION, method: 'POST', headers, body }),
    bare: () => load(bareServer.url, { connections: CONNECTIONS, duration: DURATION, method: 'POST', headers, body }),
    seed: () => load(`${aggmock.url}/getallgamesandprovider`, { connections: CONNECTIONS, duration: DURATION, headers: DEV_KEY }),
  };
  const rps: Record<string, number[]> = { vendor: [], 'journal off': [], bare: [], seed: [] };
  const ratios: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const order = Object.keys(targets) as (keyof typeof targets)[];
    if (r % 2) order.reverse();
    const got: Record<string, number> = {};
    for (const name of order) got[name] = (await targets[name]()).rps;
    for (const [name, value] of Object.entries(got)) rps[name]?.push(value);
    ratios.push((got.vendor as number) / (got.bare as number));
  }
  console.log(
    `${vendor}: list ${listBytes.length} B (seed list ${seedBytes.length} B); req/s median vendor ${round(median(rps.vendor as number[]))}, journal off ${round(median(rps['journal off'] as number[]))}, bare ${round(median(rps.bare as number[]))}, seed listing ${round(median(rps.seed as number[]))}; vendor/bare per-round median ${round(median(ratios), 2)}`,
  );
  bareServer.close();
  await stop(aggmock.child);
  await stop(unjournaled.child);
  removeTempDir(dir);
}
