import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, runCli } from './process.ts';

/**
 * Inputs a new user mistypes and CI misconfigures: each gets exit 2 (or 1 for an undelivered
 * callback), a message naming the flag or key, the value and what would work, and no stack trace.
 */
describe('aggmock refuses bad input with a message that names the flag (a real process)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'aggmock-cli-bad-input-'));
  const aFile = join(dir, 'a-file');
  writeFileSync(aFile, 'not a folder');
  const aFolder = join(dir, 'a-folder');
  mkdirSync(aFolder);
  const noStack = /\n\s+at /;
  const servers: Server[] = [];

  afterAll(async () => {
    await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  });

  /** A loopback port held by this test process, so the child's listen fails with EADDRINUSE. */
  async function heldPort(): Promise<number> {
    const server = createServer();
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return (server.address() as { port: number }).port;
  }

  it('serve: a port in use names the port, the flag, the env name and --port 0', async () => {
    const port = await heldPort();
    const cli = runCli(['serve', '--port', String(port), '--db', ':memory:'], {}, dir);
    expect(await cli.exited).toBe(2);
    expect(cli.stderr()).toContain(`port ${port} is already in use (EADDRINUSE)`);
    expect(cli.stderr()).toContain('--port <port> (config "port", env AGGMOCK_PORT); --port 0 takes any free port');
    expect(cli.stderr()).not.toMatch(noStack);
  });

  it('demo: a wallet port in use names --wallet-port, not --port', async () => {
    const port = await heldPort();
    const cli = runCli(['demo', '--port', '0', '--wallet-port', String(port), '--db', ':memory:'], {}, dir);
    expect(await cli.exited).toBe(2);
    expect(cli.stderr()).toContain(`the reference wallet cannot listen on 127.0.0.1:${port}: port ${port} is already in use`);
    expect(cli.stderr()).toContain('--wallet-port <port> (config "wallet.port", env AGGMOCK_WALLET__PORT)');
    expect(cli.stderr()).not.toMatch(noStack);
  });

  it('serve: a --host that does not resolve names the host and --host', async () => {
    const cli = runCli(['serve', '--port', '0', '--db', ':memory:', '--host', 'x.invalid'], {}, dir);
    expect(await cli.exited).toBe(2);
    expect(cli.stderr()).toMatch(/cannot listen on host "x\.invalid": the name does not resolve/);
    expect(cli.stderr()).toContain('Set --host (config "host", env AGGMOCK_HOST)');
    expect(cli.stderr()).not.toMatch(noStack);
  });

  it('serve: --db naming a folder, and a --data-dir that is a file, exit 2 with the path and the settings', async () => {
    const folder = runCli(['serve', '--port', '0', '--db', aFolder], {}, dir);
    expect(await folder.exited).toBe(2);
    expect(folder.stderr()).toContain(`${aFolder} is a folder; expected the path of a SQLite file in it`);
    expect(folder.stderr()).toContain('--db (config "db", env AGGMOCK_DB)');
    expect(folder.stderr()).not.toMatch(noStack);

    const file = runCli(['serve', '--port', '0', '--data-dir', aFile], {}, dir);
    expect(await file.exited).toBe(2);
    expect(file.stderr()).toContain(`cannot create the folder ${aFile}: ${aFile} is a file, not a folder`);
    expect(file.stderr()).toContain('--data-dir (config "dataDir", env AGGMOCK_DATA_DIR)');
    expect(file.stderr()).not.toMatch(noStack);
  });

  it('serve and send: a --db that is some other file is refused, and left as it was', async () => {
    const notes = join(dir, 'notes.txt');
    writeFileSync(notes, 'my notes, not a database\n');
    const serve = runCli(['serve', '--port', '0', '--db', notes], {}, dir);
    expect(await serve.exited).toBe(2);
    expect(serve.stderr()).toContain(`${notes} is not a SQLite database (it starts with "my notes, no")`);
    expect(serve.stderr()).not.toMatch(noStack);
    const send = runCli(['send', 'debit', '--player', 'p1', '--amount', '5', '--db', notes], {}, dir);
    expect(await send.exited).toBe(2);
    expect(send.stderr()).toMatch(/^aggmock send: --db: .* is not a SQLite database/);
    expect(readFileSync(notes, 'utf8')).toBe('my notes, not a database\n');
  });

  it('serve: an empty --webhook is refused, not replaced by the default; a bad scheme says what a URL looks like', async () => {
    const empty = runCli(['serve', '--port', '0', '--db', ':memory:', '--webhook', ''], {}, dir);
    expect(await empty.exited).toBe(2);
    expect(empty.stderr()).toContain('callbacks.webhookUrl: expected an http:// or https:// URL such as');
    expect(empty.stderr()).toContain('(got ""), set by --webhook');

    const ftp = runCli(['serve', '--port', '0', '--db', ':memory:', '--public-url', 'games.example.test'], {}, dir);
    expect(await ftp.exited).toBe(2);
    expect(ftp.stderr()).toContain(
      'publicUrl: expected an http:// or https:// URL such as "https://games.example.test" (got "games.example.test"), set by --public-url',
    );
  });

  it('serve: AGGMOCK_PORT=" " is refused naming the variable (it used to mean port 0, a random port)', async () => {
    const cli = runCli(['serve', '--db', ':memory:'], { AGGMOCK_PORT: ' ' }, dir);
    expect(await cli.exited).toBe(2);
    expect(cli.stderr()).toContain(
      'port: expected a port number from 0 to 65535 (0 = any free port) (got " "), set by AGGMOCK_PORT',
    );
  });

  it('serve: malformed JSON in an env variable names the variable, the line and the column', async () => {
    const cli = runCli(['serve', '--port', '0', '--db', ':memory:'], { AGGMOCK_CALLBACKS__RETRY_SCHEDULE: '["1s", ' }, dir);
    expect(await cli.exited).toBe(2);
    expect(cli.stderr()).toContain('AGGMOCK_CALLBACKS__RETRY_SCHEDULE is not valid JSON');
    expect(cli.stderr()).toContain('at line 1, column 8');
    expect(cli.stderr()).not.toMatch(noStack);
  });

  it('serve: --config naming a folder, or a file with a trailing comma, says so with the line and column', async () => {
    const folder = runCli(['serve', '--port', '0', '--db', ':memory:', '--config', aFolder], {}, dir);
    expect(await folder.exited).toBe(2);
    expect(folder.stderr()).toContain(`Config file ${aFolder} is a folder (from --config ${aFolder}); expected a JSON file`);

    const broken = join(dir, 'trailing-comma.json');
    writeFileSync(broken, '{\n  "port": 4000,\n  "callbacks": {\n    "timeScale": 0.1,\n  }\n}\n');
    const cli = runCli(['serve', '--port', '0', '--db', ':memory:', '--config', broken], {}, dir);
    expect(await cli.exited).toBe(2);
    expect(cli.stderr()).toContain(`Config file ${broken} is not valid JSON:`);
    expect(cli.stderr()).toContain('(a trailing comma before it?) at line 5, column 3:');
    expect(cli.stderr()).not.toMatch(noStack);
  });

  it('send: a webhook that is down is reported as failed with exit 1, not a silent exit 0', async () => {
    const port = await freePort();
    const cli = runCli(
      ['send', 'debit', '--player', 'p1', '--amount', '5', '--to', `http://127.0.0.1:${port}/callback/webhook`],
      {},
      dir,
    );
    expect(await cli.exited).toBe(1);
    expect(cli.stdout()).toMatch(/failed: DEBIT tx_\S+ for p1, amount 5\.00 \(3 attempts\): connect ECONNREFUSED/);
  });

  it('send: --db naming a folder exits 2 naming --db', async () => {
    const cli = runCli(['send', 'debit', '--player', 'p1', '--amount', '5', '--db', aFolder], {}, dir);
    expect(await cli.exited).toBe(2);
    expect(cli.stderr()).toBe(
      `aggmock send: --db: ${aFolder} is a folder; expected the path of a SQLite file in it, such as ${join(aFolder, 'aggmock.db')}, or :memory:.\n`,
    );
  });

  it('verify: a --report-dir under a file exits 2 naming --report-dir before any request', async () => {
    const port = await freePort();
    const cli = runCli(['verify', `http://127.0.0.1:${port}/callback/webhook`, '--report-dir', join(aFile, 'reports')], {}, dir);
    expect(await cli.exited).toBe(2);
    expect(cli.stderr()).toBe(
      `aggmock verify: --report-dir: cannot create the folder ${join(aFile, 'reports')}: ${aFile} is a file, not a folder (or give --no-reports to write none).\n`,
    );
  });

  it('contracts: --out naming a file, or a folder under a file, exits 2 naming --out', async () => {
    const file = runCli(['contracts', '--out', aFile], {}, dir);
    expect(await file.exited).toBe(2);
    expect(file.stderr()).toBe(
      `aggmock contracts: --out ${aFile}: ${aFile} is a file; expected a folder to write the contracts into.\n`,
    );

    const under = runCli(['contracts', '--out', join(aFile, 'pacts')], {}, dir);
    expect(await under.exited).toBe(2);
    expect(under.stderr()).toContain(`cannot create the folder ${join(aFile, 'pacts')}: ${aFile} is a file, not a folder`);
    expect(under.stderr()).not.toMatch(noStack);
  });
});
