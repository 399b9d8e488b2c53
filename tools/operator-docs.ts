/**
 * The operator half of a dialect page (docs/dialects/<name>.md): the vendor's operator API that
 * `aggmock serve --dialect <name>` serves (casino → aggregator) — its routes, how the operator
 * authenticates, its credentials, its sources and unknowns — and a worked example launch, signed
 * with the development credentials by aggmock's operator client, that
 * test/dialects/operator-docs-examples.test.ts sends from the committed page. tools/dialect-docs.ts
 * calls {@link operatorSection} once per page; nothing else of that generator is touched here.
 */
import { validateConfig } from '../src/config/index.ts';
import { operatorApiOf } from '../src/dialects/builtin/operator/index.ts';
import type { Dialect } from '../src/dialects/index.ts';
import type { OperatorApi, OperatorAuth } from '../src/dialects/operator.ts';
import { operatorRequest, operatorRouteFor } from '../src/dialects/operator-client.ts';
import { loadCatalog } from '../src/runtime.ts';

/** Where `aggmock serve` listens in the examples. */
export const AGGREGATOR_URL = 'http://127.0.0.1:4000';
/** The example's clock and its one random value (a nonce, a request uuid), fixed so the page is stable. */
export const OPERATOR_EXAMPLE_AT = Date.parse('2026-01-15T12:00:00.000Z');
const EXAMPLE_RANDOM = '3f2a0c1e-7b4d-4e8a-9c61-0d5e8b2f4a17';

const code = (text: string) => `\`${text}\``;
const cell = (text: string) => text.replaceAll('|', '\\|').replaceAll('\n', ' ');

function authSummary(auth: OperatorAuth): string {
  switch (auth.kind) {
    case 'rsa-body':
      return `an RSA-${auth.hash.toUpperCase()} signature (PKCS#1 v1.5, base64) of the raw body by the operator's private key, in ${code(auth.header)}; aggmock checks it with the public key (credential ${code(auth.publicKey)})`;
    case 'hmac-body':
      return `the HMAC-${auth.hash.toUpperCase()} (${auth.encoding}) of the raw body keyed by ${code(auth.secret)}, in ${code(auth.header)}`;
    case 'sorted-params': {
      const place = 'field' in auth.place ? `the parameter ${code(auth.place.field)}` : `the header ${code(auth.place.header)}`;
      const how =
        auth.mode === 'hmac'
          ? `the HMAC-${auth.hash.toUpperCase()} keyed by ${code(auth.secret)}`
          : `the ${auth.hash.toUpperCase()} of the text with ${code(auth.secret)} appended`;
      const headers = auth.includeHeaders.length ? ` and the headers ${auth.includeHeaders.map(code).join(', ')}` : '';
      const time = auth.timestamp
        ? `; ${code(auth.timestamp.header)} must be within ${auth.timestamp.toleranceSeconds} s of the clock`
        : '';
      return `${how} (hex) of the parameters${headers} sorted by name and joined \`k=v&k=v\`${auth.encodeValues === 'php-urlencode' ? ' (values PHP-urlencoded)' : ''}, in ${place}${time}`;
    }
    case 'static':
      return `the credentials carried as they are: ${Object.entries(auth.fields)
        .map(([field, credential]) => `${code(field)} = ${code(credential)}`)
        .join(', ')}`;
    case 'basic':
      return `HTTP Basic with ${code(auth.user)}:${code(auth.password)}`;
  }
}

function routesTable(api: OperatorApi): string {
  const rows = api.routes.map((route) => {
    const selector = route.selector ? ` (${route.selector.field} = ${code(route.selector.equals)})` : '';
    const required = [...route.required, ...route.requiredWhenReal.map((f) => `${f} (real money)`)];
    const auth = route.auth ? `; ${authSummary(route.auth)}` : '';
    return `| ${code(`${route.method} ${api.basePath}${route.path}`)}${selector} | ${route.does}${route.mode ? ` (${route.mode})` : ''} | ${route.encoding} | ${cell(required.join(', ') || '—')}${cell(auth)} |`;
  });
  return ['| route | does | encoding | required |', '|---|---|---|---|', ...rows].join('\n');
}

/** The example launch: a real-money launch for p1 in EUR with the operator's token, as the page prints it. */
function exampleLaunch(d: Dialect, api: OperatorApi): string[] {
  const route = operatorRouteFor(api, 'launch', 'real');
  if (!route) return [];
  const config = validateConfig({ callbacks: { dialect: d } });
  const game = loadCatalog(config).games.find((g) => g.currencies.includes('EUR'));
  if (!game) return [];
  const credentials = Object.fromEntries(Object.entries(api.credentials).map(([name, c]) => [name, c.default]));
  const call = operatorRequest(
    api,
    route,
    { player: 'p1', gameId: game.id, currency: 'EUR', token: 'aggmock-session-p1', language: 'en', platform: 'desktop' },
    credentials,
    { nowMs: OPERATOR_EXAMPLE_AT, random: () => EXAMPLE_RANDOM },
  );
  const host = new URL(AGGREGATOR_URL).host;
  return [
    '### The example launch',
    '',
    `A real-money launch of game ${code(game.id)} (${game.name}, default catalog) for player ${code('p1')} in EUR carrying the operator's token ${code('aggmock-session-p1')}, signed with the development credentials on ${new Date(OPERATOR_EXAMPLE_AT).toISOString()}, as the operator's client sends it:`,
    '',
    '```http',
    `${call.method} ${call.path} HTTP/1.1`,
    `Host: ${host}`,
    ...Object.entries(call.headers).map(([name, value]) => `${name}: ${value}`),
    ...(call.body === undefined ? [] : ['', call.body]),
    '```',
    '',
    `aggmock answers with the vendor's launch reply; its link opens the play page of the launch session it opened (the same as \`POST /getgameurl\` opens), whose spins send this dialect's wallet calls${api.sessionToken === 'issued' ? ' with the token aggmock issued' : ' carrying the launch token'}. From the command line: the MCP tool \`launch_vendor_game\`, or \`aggmock demo --dialect ${d.name}\`, which launches this way and prints the play page.`,
    '',
  ];
}

/**
 * The "operator API" section of a dialect page, or '' when the dialect has none.
 *
 * @example operatorSection(builtinDialect('hub88')).startsWith('## The operator API') // true
 */
export function operatorSection(d: Dialect): string {
  const api = operatorApiOf(d);
  if (!api) return '';
  const sources = api.sources.map(
    (s) =>
      `${s.url === undefined ? s.title : `[${s.title}](${s.url})`} (${s.grade === 'primary' ? "the vendor's own text" : 'third party'})`,
  );
  const credentials = Object.entries(api.credentials).map(
    ([name, c]) =>
      `${code(name)} (${c.kind}): ${c.description}; development value ${c.kind === 'public-key' ? "aggmock's development RSA public key" : code(c.default)}`,
  );
  return [
    '## The operator API (casino → aggregator)',
    '',
    `The other half of the protocol: what the casino's backend calls on the aggregator. ${api.description}`,
    '',
    `\`aggmock serve --dialect ${d.name}\` serves it at ${code(`${AGGREGATOR_URL}${api.basePath}`)} beside the seed's own API, with its OpenAPI document at ${code(`${AGGREGATOR_URL}/operator-openapi.json`)}; fault rules and the request journal take its routes and field names ([operator APIs](../operator-apis.md)).`,
    '',
    routesTable(api),
    '',
    `**The operator authenticates with** ${authSummary(api.auth)}.${api.operatorId ? ` It names itself in ${code(api.operatorId.field ?? api.operatorId.header ?? '')}, which must equal the credential ${code(api.operatorId.credential)}.` : ''}`,
    '',
    `**Credentials** (config \`operator.credentials\`):`,
    '',
    ...credentials.map((c) => `- ${c}`),
    '',
    '**Sources of the operator half:**',
    '',
    ...sources.map((s) => `- ${s}`),
    '',
    "**What the sources don't say** (and what aggmock accepts because of it):",
    '',
    ...(api.unknown.length === 0 ? ['Nothing we know of.'] : api.unknown.map((u) => `- ${u}`)),
    '',
    ...exampleLaunch(d, api),
  ].join('\n');
}
