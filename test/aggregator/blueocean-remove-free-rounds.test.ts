import { readFileSync } from 'node:fs';
import { afterAll, expect, it } from 'vitest';
import { onCleanup, runCleanups } from '../../src/callbacks/test-engine.ts';
import { validateConfig } from '../../src/config/index.ts';
import { startAggmock } from '../../src/runtime.ts';

/*
 * Blue Ocean's removeFreeRounds, served on a real instance: the worked example on
 * docs/dialects/blueocean.md, sent as printed, takes one player's rounds back and answers the
 * printed reply; the other player keeps his; an unknown freeround_id and a missing one are refused
 * the vendor's way (error 1, HTTP 200); every call is journaled under the vendor's route.
 */

afterAll(runCleanups);

/** The printed requests and replies of the page's example, in order. */
function example(): { body: string; reply: string }[] {
  const page = readFileSync(new URL('../../docs/dialects/blueocean.md', import.meta.url), 'utf8');
  const section = page.split('### Worked example: removing free rounds')[1]?.split('<!-- end hand-written -->')[0] ?? '';
  const blocks = [...section.matchAll(/```(?:http|json)\n([\s\S]*?)\n```/g)].map((m) => m[1] as string);
  const out = [];
  for (let i = 0; i + 1 < blocks.length; i += 2)
    out.push({ body: (blocks[i] as string).split('\n\n')[1] ?? '', reply: blocks[i + 1] as string });
  return out;
}

it('takes back the rounds of the players named, as the page shows; refuses an unknown or missing freeround_id', async () => {
  const aggmock = await startAggmock(validateConfig({ port: 0, db: ':memory:', callbacks: { dialect: 'blueocean' } }));
  onCleanup(() => aggmock.close());
  const post = async (body: string) => {
    const res = await fetch(`${aggmock.url}/blueocean`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    return [res.status, await res.json()] as const;
  };
  const [add, remove] = example();
  if (!add || !remove) throw new Error('the page has no worked example');
  const [addStatus, added] = await post(add.body);
  const id = (added as { response?: { freeround_id?: string } }).response?.freeround_id as string;
  expect([addStatus, added]).toEqual([200, JSON.parse(add.reply.replace('<freeround_id>', id))]);
  const game = '487fefaa61507428d94cddb6e6a5e7f2';
  expect(aggmock.sessions.awards.leftFor('player01', game, 'EUR')).toEqual({ awardId: id, left: 5 });

  expect(await post(remove.body.replace('<freeround_id>', id))).toEqual([200, JSON.parse(remove.reply)]);
  expect(aggmock.sessions.awards.leftFor('player01', game, 'EUR')).toBeUndefined();
  expect(aggmock.sessions.awards.leftFor('player02', game, 'EUR')).toEqual({ awardId: id, left: 5 });
  // Again: player01 has nothing left to take.
  expect(await post(remove.body.replace('<freeround_id>', id))).toEqual([
    200,
    { error: 0, response: { successfull_removals: [] } },
  ]);

  const credentials = '"api_login":"aggmock-dev-login","api_password":"aggmock-dev-secret","method":"removeFreeRounds"';
  expect(await post(`{${credentials},"freeround_id":"nope"}`)).toEqual([
    200,
    { error: 1, message: 'freeround_id "nope": no free-round award has this id' },
  ]);
  expect(await post(`{${credentials},"playerids":"player02"}`)).toEqual([200, { error: 1, message: 'freeround_id is required' }]);
  // No playerids: every player's rounds are taken.
  expect(await post(`{${credentials},"freeround_id":"${id}"}`)).toEqual([
    200,
    { error: 0, response: { successfull_removals: ['player02'] } },
  ]);
  expect(aggmock.sessions.awards.leftFor('player02', game, 'EUR')).toBeUndefined();
  expect(aggmock.requests.count({ path: '/blueocean', body: { method: 'removeFreeRounds' } })).toBe(5);
});
