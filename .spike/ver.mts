import { Verifier } from '@pact-foundation/pact';
import { startWallet } from '../src/wallet/index.ts';
import { defaultConfig } from '../src/config/index.ts';
import { signPayload } from '../src/signing/index.ts';
const config = defaultConfig();
const w = await startWallet({ config, dbPath: ':memory:', port: 0, testEndpoints: true, fault: process.argv[2] as any });
const t = Date.now();
try {
  const r = await new Verifier({
    providerBaseUrl: w.url,
    pactUrls: ['/tmp/spike/out/aggmock-integrator-webhook.json'],
    logLevel: 'error',
    stateHandlers: Object.fromEntries(['player p1 has balance 100.00','player p1 has balance 5.00','player p404 does not exist','transaction tx-contract-rollback was debited from player p1 for 10.00','transaction tx-contract-duplicate was debited from player p1 for 10.00'].map(n => [n, async (params: any) => { const res = await fetch(w.url + '/__state', {method:'POST', headers:{'content-type':'application/json'}, body: JSON.stringify({state:n, params, action:'setup'})}); console.error('STATE', n, res.status, await res.text()); return undefined; }])),
    requestFilter: (req: any, _res: any, next: any) => {
      if (req.path !== '/callback/webhook') return next();
      const body = JSON.stringify(req.body);
      const h = signPayload({ scheme: 'timestamped', secrets: ['aggmock-dev-secret'], payload: body });
      req.headers['x-signature'] = h['X-Signature'];
      req.headers['content-length'] = String(Buffer.byteLength(body));
      req.body = Buffer.from(body);
      next();
    },
  }).verifyProvider();
  console.error('RESULT OK', r);
} catch (e) { console.error('RESULT FAIL', (e as Error).message.slice(0, 3000)); }
console.error('ms', Date.now() - t);
await w.close();
