import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { runCli } from './process.ts';

/** What a user sees for a typo or a broken file: exit 2, the place, the key, the fix; no stack trace. */
describe('aggmock refuses configuration it cannot use (a real process)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'aggmock-cli-config-'));
  const noStack = /\n\s+at /;

  it('exits 2 for an unknown key in the config file, naming the file, the key and the nearest valid key', async () => {
    writeFileSync(join(dir, 'typo.json'), JSON.stringify({ callbacks: { timescale: 0.01 } }));
    const cli = runCli(['serve', '--config', join(dir, 'typo.json'), '--port', '0', '--db', ':memory:']);
    expect(await cli.exited).toBe(2);
    expect(cli.stderr()).toBe(
      `aggmock: Config file ${join(dir, 'typo.json')}:\n  unknown key "callbacks.timescale" (did you mean callbacks.timeScale?)\n`,
    );
  });

  it('exits 2 for an unknown AGGMOCK_* variable, naming the nearest valid variable', async () => {
    const cli = runCli(['serve', '--port', '0', '--db', ':memory:'], { AGGMOCK_CALLBACKS__TIMESCALE: '0.01' }, dir);
    expect(await cli.exited).toBe(2);
    expect(cli.stderr()).toContain('AGGMOCK_CALLBACKS__TIMESCALE is no setting (did you mean AGGMOCK_CALLBACKS__TIME_SCALE');
    expect(cli.stderr()).not.toMatch(noStack);
  });

  it('exits 2 for a fault rule no request can match, naming the key and what was expected', async () => {
    const rule = (match: object) => JSON.stringify({ api: { faults: [{ match, fault: { kind: 'maintenance' } }] } });
    writeFileSync(join(dir, 'no-provider.json'), rule({ provider: 'NOSUCHPROV' }));
    const provider = runCli(['serve', '--config', join(dir, 'no-provider.json'), '--port', '0', '--db', ':memory:']);
    // A build that takes the rule would serve on: stopped by its PID however the test ends.
    onTestFinished(() => void provider.stop());
    expect(await provider.exited).toBe(2);
    expect(provider.stderr()).toMatch(
      /^aggmock: Invalid configuration:\n {2}api\.faults\.0\.match\.provider: no such provider in the catalog; expected a provider code or name .*\(got "NOSUCHPROV"\)\n$/,
    );
    writeFileSync(join(dir, 'no-route.json'), rule({ path: '/nosuch' }));
    const path = runCli(['serve', '--config', join(dir, 'no-route.json'), '--port', '0', '--db', ':memory:']);
    onTestFinished(() => void path.stop());
    expect(await path.exited).toBe(2);
    expect(path.stderr()).toContain('api.faults.0.match.path: no API route /nosuch; expected an API route');
    expect(path.stderr()).not.toMatch(noStack);
  });

  it('exits 2 for a broken catalog fixture with the file, the JSON path and what was expected', async () => {
    const fixture = join(dir, 'catalog.json');
    writeFileSync(fixture, JSON.stringify({ games: [{ name: 'Gold Rush', type: 'slott', provider: 'PGSOFT' }] }));
    writeFileSync(join(dir, 'with-fixture.json'), JSON.stringify({ catalog: { fixture } }));
    const cli = runCli(['serve', '--config', join(dir, 'with-fixture.json'), '--port', '0', '--db', ':memory:']);
    expect(await cli.exited).toBe(2);
    expect(cli.stderr()).toContain(`Invalid catalog fixture ${fixture}:`);
    expect(cli.stderr()).toMatch(/games\[0\]\.type: .*expected one of "slot".*\(got "slott"\)/);
    expect(cli.stderr()).not.toMatch(noStack);
  });
});
