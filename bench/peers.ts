/**
 * The tools a user would otherwise pick to mock the listings, each set up to answer the same
 * bodies aggmock serves, installed on demand into .bench-cache/ (never into the project's
 * dependencies). A peer that cannot be installed or started is reported as skipped, with why.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensurePeer, freePort, javaVersion, type Started, startProcess, waitForOk } from './lib.ts';

/** One listing body a target must serve. */
export interface Fixture {
  id: string;
  /** The peers' path (no query: not every peer matches on one). */
  peerPath: string;
  body: Buffer;
}

export interface RunningPeer {
  started: Started;
  url: string;
  /** Request target per fixture id. */
  targets: Record<string, string>;
}

export interface Peer {
  name: string;
  /** What it is, for the table's notes. */
  about: string;
  start(fixtures: Fixture[], dir: string): Promise<RunningPeer>;
}

const byPeerPath = (fixtures: Fixture[]) => Object.fromEntries(fixtures.map((f) => [f.id, f.peerPath]));

/** Stoplight Prism 5.14 (the last line for Node 20), mocking an OpenAPI document whose examples are the bodies. */
const prism: Peer = {
  name: 'Prism 5.14.2',
  about: 'Stoplight Prism mock server; the OpenAPI document has each body as its example',
  async start(fixtures, dir) {
    const home = ensurePeer('prism', '@stoplight/prism-cli', '5.14.2');
    const spec = {
      openapi: '3.0.3',
      info: { title: 'aggmock bench', version: '1' },
      paths: Object.fromEntries(
        fixtures.map((f) => [
          f.peerPath,
          {
            get: {
              responses: {
                200: { description: 'ok', content: { 'application/json': { example: JSON.parse(f.body.toString('utf8')) } } },
              },
            },
          },
        ]),
      ),
    };
    const file = join(dir, 'prism-openapi.json');
    writeFileSync(file, JSON.stringify(spec));
    const port = await freePort();
    const started = await startProcess(
      process.execPath,
      [join(home, 'node_modules/@stoplight/prism-cli/dist/index.js'), 'mock', '-h', '127.0.0.1', '-p', String(port), file],
      /listening on/i,
      { label: 'prism', timeoutMs: 90_000 },
    );
    return { started, url: `http://127.0.0.1:${port}`, targets: byPeerPath(fixtures) };
  },
};

/** Mockoon CLI with one inline-body route per listing (templating off, as for a static body). */
const mockoon: Peer = {
  name: 'Mockoon CLI 9.9.0',
  about: 'Mockoon CLI, one route per listing with the body inline, templating off, logging to stdout only',
  async start(fixtures, dir) {
    const home = ensurePeer('mockoon', '@mockoon/cli', '9.9.0');
    const port = await freePort();
    const routes = fixtures.map((f, i) => ({
      uuid: `route-${i}`,
      type: 'http',
      documentation: '',
      method: 'get',
      endpoint: f.peerPath.slice(1),
      responses: [
        {
          uuid: `response-${i}`,
          body: f.body.toString('utf8'),
          latency: 0,
          statusCode: 200,
          label: '',
          headers: [{ key: 'Content-Type', value: 'application/json; charset=UTF-8' }],
          bodyType: 'INLINE',
          filePath: '',
          databucketID: '',
          sendFileAsBody: false,
          rules: [],
          rulesOperator: 'OR',
          disableTemplating: true,
          fallbackTo404: false,
          default: true,
          crudKey: 'id',
          callbacks: [],
        },
      ],
      responseMode: null,
      streamingMode: null,
      streamingInterval: 0,
    }));
    const environment = {
      uuid: 'aggmock-bench',
      lastMigration: 33,
      name: 'aggmock bench',
      endpointPrefix: '',
      latency: 0,
      port,
      hostname: '127.0.0.1',
      folders: [],
      routes,
      rootChildren: routes.map((r) => ({ type: 'route', uuid: r.uuid })),
      proxyMode: false,
      proxyHost: '',
      proxyRemovePrefix: false,
      tlsOptions: { enabled: false, type: 'CERT', pfxPath: '', certPath: '', keyPath: '', caPath: '', passphrase: '' },
      cors: false,
      headers: [],
      proxyReqHeaders: [],
      proxyResHeaders: [],
      data: [],
      callbacks: [],
    };
    const file = join(dir, 'mockoon.json');
    writeFileSync(file, JSON.stringify(environment));
    const started = await startProcess(
      process.execPath,
      [join(home, 'node_modules/@mockoon/cli/bin/run.js'), 'start', '-d', file, '-p', String(port), '-l', '127.0.0.1', '-X'],
      /started on port|is listening|Server started/i,
      { label: 'mockoon', timeoutMs: 90_000 },
    );
    return { started, url: `http://127.0.0.1:${port}`, targets: byPeerPath(fixtures) };
  },
};

/** json-server 0.17.4 (the stable line) over a db.json with one object per listing. */
const jsonServer: Peer = {
  name: 'json-server 0.17.4',
  about: 'json-server over a db.json holding each body as an object (it answers them pretty-printed)',
  async start(fixtures, dir) {
    const home = ensurePeer('json-server', 'json-server', '0.17.4');
    const db = Object.fromEntries(fixtures.map((f) => [f.peerPath.slice(1), JSON.parse(f.body.toString('utf8'))]));
    const file = join(dir, 'db.json');
    writeFileSync(file, JSON.stringify(db));
    const port = await freePort();
    const started = await startProcess(
      process.execPath,
      [join(home, 'node_modules/json-server/lib/cli/bin.js'), '--host', '127.0.0.1', '--port', String(port), '--quiet', file],
      null,
      { label: 'json-server' },
    );
    await waitForOk(`http://127.0.0.1:${port}${fixtures[0]?.peerPath}`);
    return { started, url: `http://127.0.0.1:${port}`, targets: byPeerPath(fixtures) };
  },
};

/** WireMock 3.13 standalone (the npm package bundles the jar), bodies from __files, with and without its request journal. */
function wiremock(journal: boolean): Peer {
  return {
    name: `WireMock 3.13.2, journal ${journal ? 'on' : 'off'}`,
    about: `WireMock standalone on Java, one stub per listing with a body file${journal ? '' : ', --no-request-journal'}`,
    async start(fixtures, dir) {
      const java = await javaVersion();
      if (!java) throw new Error('no Java runtime (java -version failed)');
      const home = ensurePeer('wiremock', 'wiremock', '3.13.2');
      const root = join(dir, `wiremock-${journal ? 'journal' : 'nojournal'}`);
      mkdirSync(join(root, 'mappings'), { recursive: true });
      mkdirSync(join(root, '__files'), { recursive: true });
      for (const f of fixtures) {
        writeFileSync(join(root, '__files', `${f.id}.json`), f.body);
        writeFileSync(
          join(root, 'mappings', `${f.id}.json`),
          JSON.stringify({
            request: { method: 'GET', url: f.peerPath },
            response: {
              status: 200,
              bodyFileName: `${f.id}.json`,
              headers: { 'Content-Type': 'application/json; charset=UTF-8' },
            },
          }),
        );
      }
      const port = await freePort();
      const jar = join(home, 'node_modules/wiremock/build/wiremock-standalone-3.13.2.jar');
      const started = await startProcess(
        'java',
        [
          '-jar',
          jar,
          '--port',
          String(port),
          '--bind-address',
          '127.0.0.1',
          '--root-dir',
          root,
          '--disable-banner',
          ...(journal ? [] : ['--no-request-journal']),
        ],
        null,
        { label: 'wiremock' },
      );
      await waitForOk(`http://127.0.0.1:${port}/__admin/health`, 90_000);
      return { started, url: `http://127.0.0.1:${port}`, targets: byPeerPath(fixtures) };
    },
  };
}

export const PEERS: Peer[] = [prism, mockoon, jsonServer, wiremock(true), wiremock(false)];
