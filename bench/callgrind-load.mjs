/**
 * A fixed amount of work for valgrind's callgrind, which counts the instructions a process runs
 * whatever else the machine is doing (a shared machine's load changes the time, not the count):
 *   valgrind --tool=callgrind --smc-check=all --callgrind-out-file=… node bench/callgrind-load.mjs <variant> <calls>
 * `variant` is `generator` (aggmock load, built, bet-win rounds: two calls each, every round
 * released at once so the count does not depend on the clock) or `bare` (the bare keep-alive POST
 * loop with a timestamped HMAC per request over aggmock's transport, 32 in flight). Run each with
 * two counts and divide the difference in instructions by the difference in calls: start-up and
 * module loading cancel out. The sink runs in a child process, outside valgrind. Plain JavaScript
 * (no tsx) so that nothing is compiled under valgrind but the work itself; needs dist/ built.
 */
import { fork } from 'node:child_process';
import http from 'node:http';

if (process.argv[2] === '--sink') {
  const reply = Buffer.from('{"balance":100000}');
  const server = http.createServer({ keepAliveTimeout: 60_000 }, (req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': reply.length });
      res.end(reply);
    });
  });
  server.listen(0, '127.0.0.1', () => process.send?.({ port: server.address().port }));
  process.on('disconnect', () => process.exit(0));
} else {
  const [variant, callsText] = process.argv.slice(2);
  const calls = Number(callsText);
  if (!['generator', 'bare'].includes(variant) || !(calls > 0)) {
    console.error('usage: node bench/callgrind-load.mjs generator|bare <calls>');
    process.exit(2);
  }
  const sink = fork(new URL(import.meta.url).pathname, ['--sink'], { execArgv: [], stdio: 'inherit' });
  const port = await new Promise((resolve) => sink.once('message', (m) => resolve(m.port)));
  const url = `http://127.0.0.1:${port}`;
  const inFlight = 32;
  try {
    if (variant === 'bare') {
      const { createTransport } = await import('../dist/callbacks/transport.js');
      const { signPayload } = await import('../dist/signing/index.js');
      const transport = createTransport({ maxSockets: inFlight, timeoutMs: 60_000 });
      let next = 0;
      await Promise.all(
        Array.from({ length: inFlight }, async () => {
          while (next < calls) {
            const n = next++;
            const body = `{"type":"DEBIT","transactionId":"tx_bench_${n}","amount":1.5,"playerId":"p${n % 50}"}`;
            const headers = signPayload({
              scheme: 'timestamped',
              secrets: ['aggmock-dev-secret'],
              payload: body,
              timestamp: Math.floor(Date.now() / 1000),
            });
            headers['content-type'] = 'application/json';
            const answer = await transport.post(`${url}/`, headers, body);
            if (answer.status !== 200) throw new Error(`the sink answered ${answer.status}`);
          }
        }),
      );
      transport.close();
    } else {
      const { configSchema, dialectOf } = await import('../dist/config/index.js');
      const { parseMix, runLoad } = await import('../dist/load/index.js');
      const config = configSchema.parse({});
      const rounds = Math.round(calls / 2);
      const result = await runLoad({
        config,
        url,
        // Every round due within the first millisecond: started at once, none dropped.
        schedule: { startRate: rounds * 1000, stages: [{ durationMs: 1, rate: rounds * 1000 }] },
        players: Array.from({ length: 50 }, (_, i) => `p${i + 1}`),
        mix: parseMix('bet-win=1', dialectOf(config.callbacks)),
        stakeMinor: 100,
        currency: 'EUR',
        maxInFlight: rounds + 1,
        connections: inFlight,
        dropMs: 1e9,
        timeoutMs: 600_000,
      });
      console.error(`generator: ${result.stats.calls} calls, ${result.stats.dropped} dropped, errors ${result.stats.errorRate}`);
    }
  } finally {
    sink.kill();
  }
}
