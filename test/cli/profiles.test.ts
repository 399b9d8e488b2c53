import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { dialectSchema } from '../../src/dialects/index.ts';
import { profileDefinitionSchema } from '../../src/profiles/index.ts';
import { runCli } from './process.ts';

/** `aggmock profiles` and `--profile`, as a user runs them (a real process from the built package). */
describe('aggmock profiles', () => {
  const dir = mkdtempSync(join(tmpdir(), 'aggmock-cli-profiles-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('lists the built-in profiles and marks the active one', async () => {
    const cli = runCli(['profiles'], { AGGMOCK_CALLBACKS__PROFILE: 'betnex' }, dir);
    expect(await cli.exited).toBe(0);
    expect(cli.stdout()).toMatch(/^ {2}default +aggmock's documented wire/m);
    expect(cli.stdout()).toMatch(/^\* betnex +Betnex casino API callbacks/m);
  });

  it('shows a profile as a file that loads back as the same profile, and prints the JSON Schema', async () => {
    const show = runCli(['profiles', 'show', 'betnex'], {}, dir);
    expect(await show.exited).toBe(0);
    const file = join(dir, 'my-wire.json');
    writeFileSync(file, show.stdout());
    const parsed = profileDefinitionSchema.parse(JSON.parse(show.stdout()));
    expect(parsed.name).toBe('betnex');
    writeFileSync(join(dir, 'aggmock.config.json'), JSON.stringify({ callbacks: { profile: 'my-wire.json' } }));
    const list = runCli(['profiles'], {}, dir);
    expect(await list.exited).toBe(0);
    expect(list.stdout()).toMatch(/^\* betnex +\(from a profile file\)/m);
    rmSync(join(dir, 'aggmock.config.json'));
    const schema = runCli(['profiles', 'schema'], {}, dir);
    expect(await schema.exited).toBe(0);
    expect(JSON.parse(schema.stdout())).toMatchObject({ title: 'aggmock wire profile', type: 'object' });
  });

  it('exits 2 naming the field for a broken profile file, and for an unknown profile name', async () => {
    const broken = join(dir, 'broken.json');
    writeFileSync(
      broken,
      JSON.stringify({ name: 'x', events: { debit: { body: { id: { from: 'transactionId' } } }, credit: { body: {} } } }),
    );
    const cli = runCli(['serve', '--port', '0', '--db', ':memory:', '--profile', broken], {}, dir);
    expect(await cli.exited).toBe(2);
    expect(cli.stderr()).toContain('callbacks.profile.events.debit.body: no field carries the playerId');
    expect(cli.stderr()).toContain(`(callbacks.profile was read from ${broken})`);
    expect(cli.stderr()).not.toMatch(/\n\s+at /);
    const unknown = runCli(['profiles', 'show', 'betnix'], {}, dir);
    expect(await unknown.exited).toBe(2);
    expect(unknown.stderr()).toContain('unknown profile "betnix" (built-in: default, betnex; vendor dialects: hub88,');
  });

  it('lists the vendor dialects with the commands that speak them and shows one as a dialect file, naming the credentials it needs', async () => {
    const list = runCli(['profiles'], {}, dir);
    expect(await list.exited).toBe(0);
    expect(list.stdout()).toMatch(
      /Vendor dialects \(--profile <name> on serve, demo, send, wallet, verify and contracts\):\n {2}hub88 +Hub88's Operator Wallet API\n/,
    );
    expect(list.stdout()).toMatch(/^ {2}pragmatic +Pragmatic Play's Seamless Wallet API$/m);
    const show = runCli(['profiles', 'show', 'pragmatic'], {}, dir);
    expect(await show.exited).toBe(0);
    expect(dialectSchema.parse(JSON.parse(show.stdout()))).toMatchObject({ name: 'pragmatic', request: { encoding: 'form' } });
    expect(show.stderr()).toContain('pragmatic needs these credentials:\n  secretKey: the secret key appended');
  });
});
