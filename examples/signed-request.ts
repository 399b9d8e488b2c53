// Calls aggmock with HMAC-signed requests from TypeScript, using the signing module aggmock exports.
// Run: npx tsx examples/signed-request.ts   (with `aggmock serve` running)
import { requestPayload, signPayload } from 'aggmock';

const base = process.env.AGGMOCK_URL ?? 'http://127.0.0.1:4000';
const secrets = [process.env.AGGMOCK_SECRET ?? 'aggmock-dev-secret'];

/** Signs `<t>.<METHOD>.<path?query>.<raw body>` and sends exactly those bytes. */
async function signedFetch(method: 'GET' | 'POST', pathQuery: string, body = ''): Promise<unknown> {
  const headers = signPayload({ scheme: 'timestamped', secrets, payload: requestPayload(method, pathQuery, body) });
  const res = await fetch(base + pathQuery, {
    method,
    headers: { ...headers, ...(body ? { 'Content-Type': 'application/json' } : {}) },
    ...(body ? { body } : {}),
  });
  const json = await res.json();
  if (!res.ok) throw new Error(`${res.status}: ${JSON.stringify(json)}`);
  return json;
}

const games = (await signedFetch('GET', '/casino/getallgamesandprovider?provider=PRAGMATIC+PLAY')) as {
  games: Array<{ id: string }>;
};
const body = JSON.stringify({
  username: 'p1',
  gameId: games.games[0]?.id,
  money: 1000,
  platform: 1,
  home_url: 'https://example.com',
});
const launch = (await signedFetch('POST', '/getgameurl', body)) as { payload: { game_launch_url: string } };
console.log(launch.payload.game_launch_url);
