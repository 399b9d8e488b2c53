/**
 * The practical limit for a listing: a bare node:http server answering prebuilt bytes, with the
 * same headers aggmock sends (ETag, Cache-Control, Content-Type, Content-Length) and no routing
 * beyond one Map lookup. Started by bench/listings.ts as
 * `node bench/bare-server.mjs <manifest.json>`; the manifest maps a request target to a file.
 */
import { readFileSync } from 'node:fs';
import http from 'node:http';

const manifest = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const routes = new Map(
  Object.entries(manifest).map(([target, { file, etag }]) => {
    const body = readFileSync(file);
    const headers = [
      'etag',
      etag,
      'cache-control',
      'no-cache',
      'content-type',
      'application/json; charset=UTF-8',
      'content-length',
      String(body.byteLength),
    ];
    return [target, { body, headers }];
  }),
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
