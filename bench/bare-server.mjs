/**
 * The practical limit for a listing: a bare node:http server answering prebuilt bytes with the
 * headers aggmock sent for them (ETag, Cache-Control, the security headers, Content-Type,
 * Content-Length), and no routing beyond one Map lookup. Started by bench/listings.ts as
 * `node bench/bare-server.mjs <manifest.json>`; the manifest maps a request target to a file and
 * the headers to send as flat name/value pairs.
 */
import { readFileSync } from 'node:fs';
import http from 'node:http';

const manifest = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const routes = new Map(
  Object.entries(manifest).map(([target, { file, headers }]) => [target, { body: readFileSync(file), headers }]),
);

const server = http.createServer((req, res) => {
  const route = routes.get(req.url);
  if (!route) {
    res.writeHead(404).end();
    return;
  }
  res.writeHead(200, route.headers);
  res.end(route.body);
});
server.listen(0, '127.0.0.1', () => {
  console.log(`bare server listening on http://127.0.0.1:${server.address().port}`);
});
