// Run as a child process with NODE_EXTRA_CA_CERTS=test/fixtures/tls-test.crt (Node reads it at start):
// delivers one signed DEBIT to an https receiver on 127.0.0.1 and prints what happened as JSON.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { createCallbackEngine } from '../../src/callbacks/index.ts';
import { validateConfig } from '../../src/config/index.ts';
import { verifySignature } from '../../src/signing/index.ts';
import { openDatabase } from '../../src/storage/index.ts';

const fixture = (name: string) => readFileSync(new URL(`../fixtures/${name}`, import.meta.url));
const received: Array<{ verified: boolean; body: string }> = [];
const server = createServer({ key: fixture('tls-test.key'), cert: fixture('tls-test.crt') }, (req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const body = Buffer.concat(chunks).toString('utf8');
    let verified = true;
    try {
      verifySignature({
        scheme: 'timestamped',
        secrets: ['aggmock-dev-secret'],
        payload: body,
        headers: req.headers as Record<string, string>,
      });
    } catch {
      verified = false;
    }
    received.push({ verified, body });
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"balance":990}');
  });
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const { port } = server.address() as AddressInfo;
const host = process.argv[2] ?? '127.0.0.1';

const config = validateConfig({
  db: ':memory:',
  callbacks: { webhookUrl: `https://${host}:${port}/callback/webhook`, retrySchedule: [0] },
});
const db = openDatabase(':memory:');
const engine = createCallbackEngine({ config, db });
engine.start();
const settled = await engine.enqueue({ kind: 'debit', playerId: 'p1', amountMinor: 1000, transactionId: 'tx-tls' }).settled;
await engine.stop();
db.close();
server.close();
console.log(JSON.stringify({ status: settled.status, reply: settled.reply, error: settled.error, received }));
