import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PactExchange, record } from '../../src/verify/pact-runner.ts';

/**
 * The Pact phase judges a wallet's reply in the proxy (a repeated bet answered with another balance
 * than the first). The judgement is made before the reply goes out to the Verifier: once the
 * Verifier has the last reply, the run may end and read the exchanges, so nothing may be left to
 * an event that fires later (the response's 'finish').
 */
describe('the Pact proxy records and judges a reply before it goes out', () => {
  let server: Server;
  let url: string;
  const seen: { judgedBeforeEndReturned: boolean; body?: string; status?: number }[] = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      let judged: PactExchange | undefined;
      record(
        { path: req.url ?? '/', url: req.url ?? '/', body: '', headers: req.headers },
        '',
        res,
        'http://x.invalid/',
        (exchange) => {
          judged = exchange;
          exchange.problem = 'judged';
        },
      );
      // As the Verifier's proxy answers: status and headers set, then the body.
      res.statusCode = req.url === '/redirect' ? 302 : 200;
      res.setHeader('content-type', 'application/json');
      if (req.url === '/redirect') res.setHeader('location', '/elsewhere');
      res.end('{"balance":"990.00"}');
      seen.push({
        judgedBeforeEndReturned: judged?.problem === 'judged',
        body: judged?.response?.body,
        status: judged?.response?.status,
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('hands the whole reply to the judge inside end(), for a reply and for a redirect turned into a 502', async () => {
    const ok = await fetch(`${url}/bet`);
    expect(await ok.json()).toEqual({ balance: '990.00' });
    const redirect = await fetch(`${url}/redirect`, { redirect: 'manual' });
    expect(redirect.status).toBe(502);
    await redirect.arrayBuffer();
    expect(seen).toEqual([
      { judgedBeforeEndReturned: true, body: '{"balance":"990.00"}', status: 200 },
      { judgedBeforeEndReturned: true, body: '{"balance":"990.00"}', status: 302 },
    ]);
  });
});
