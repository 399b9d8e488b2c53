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

  it('shows a built-in dialect as a file that loads back as the same dialect, reads an old profile file, and prints the JSON Schema', async () => {
    const show = runCli(['profiles', 'show', 'betnex'], {}, dir);
    expect(await show.exited).toBe(0);
    writeFileSync(join(dir, 'my-wire.json'), show.stdout());
    expect(dialectSchema.parse(JSON.parse(show.stdout()))).toMatchObject({ name: 'betnex', signing: { algorithm: 'none' } });
    writeFileSync(join(dir, 'aggmock.config.json'), JSON.stringify({ callbacks: { dialect: 'my-wire.json' } }));
    const list = runCli(['profiles'], {}, dir);
    expect(await list.exited).toBe(0);
    expect(list.stdout()).toMatch(/^\* betnex +\(from a file\)/m);
    // A profile file under the old key: converted to a dialect, with the key's deprecation note.
    const profile = {
      name: 'acme',
      events: {
        debit: {
          type: 'BET',
          body: { t: { from: 'type' }, id: { from: 'transactionId' }, p: { from: 'playerId' }, a: { from: 'amount' } },
        },
        credit: {
          type: 'WIN',
          body: { t: { from: 'type' }, id: { from: 'transactionId' }, p: { from: 'playerId' }, a: { from: 'amount' } },
        },
      },
    };
    expect(profileDefinitionSchema.safeParse(profile).success).toBe(true);
    writeFileSync(join(dir, 'acme.json'), JSON.stringify(profile));
    writeFileSync(join(dir, 'aggmock.config.json'), JSON.stringify({ callbacks: { profile: 'acme.json' } }));
    const old = runCli(['profiles', 'show'], {}, dir);
    expect(await old.exited).toBe(0);
    expect(dialectSchema.parse(JSON.parse(old.stdout()))).toMatchObject({ name: 'acme', operations: { bet: { path: '' } } });
    expect(old.stderr()).toContain('callbacks.profile is now callbacks.dialect');
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
    expect(cli.stderr()).toContain('callbacks.dialect.events.debit.body: no field carries the playerId');
    expect(cli.stderr()).toContain(`(callbacks.dialect was read from ${broken})`);
    expect(cli.stderr()).not.toMatch(/\n\s+at /);
    const unknown = runCli(['profiles', 'show', 'betnix'], {}, dir);
    expect(await unknown.exited).toBe(2);
    expect(unknown.stderr()).toContain('unknown dialect "betnix" (built-in: default, betnex; vendor dialects: hub88,');
  });

  it('lists the vendor dialects with the commands that speak them and shows one as a dialect file, naming the credentials it needs', async () => {
    const list = runCli(['profiles'], {}, dir);
    expect(await list.exited).toBe(0);
    expect(list.stdout()).toMatch(
      /Vendor dialects \(--dialect <name> on serve, demo, send, wallet, verify and contracts\):\n {2}hub88 +Hub88's Operator Wallet API\n/,
    );
    expect(list.stdout()).toMatch(/^ {2}pragmatic +Pragmatic Play's Seamless Wallet API$/m);
    const show = runCli(['profiles', 'show', 'pragmatic'], {}, dir);
    expect(await show.exited).toBe(0);
    expect(dialectSchema.parse(JSON.parse(show.stdout()))).toMatchObject({ name: 'pragmatic', request: { encoding: 'form' } });
    expect(show.stderr()).toContain('pragmatic needs these credentials:\n  secretKey: the secret key appended');
  });
});
