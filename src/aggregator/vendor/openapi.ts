import type { OperatorApi, OperatorAuth, OperatorRoute, ReplyNode, ReplySource } from '../../dialects/operator.ts';
import { VERSION } from '../../version.ts';

/*
 * The OpenAPI 3.1 document of a vendor's operator API, generated from the same data the routes
 * are served from: each route's path, method and encoding, its request fields (dotted paths as
 * nested objects) and required ones, the success reply's shape from its template, the vendor's
 * refusals, and how the operator authenticates. Served at OPERATOR_OPENAPI_PATH.
 */

export const OPERATOR_OPENAPI_PATH = '/operator-openapi.json';

type Schema = Record<string, unknown>;

const SOURCE_TYPES: Partial<Record<ReplySource, Schema>> = {
  'game.numericId': { type: 'integer' },
  'game.rtp': { type: 'number' },
  'game.lines': { type: 'integer' },
  'game.demo': { type: 'boolean' },
  'game.mobile': { type: 'boolean' },
  'game.platforms': { type: 'array', items: { type: 'string' } },
  'game.currencies': { type: 'array', items: { type: 'string' } },
  'game.thumbnailUrl': { type: 'string', format: 'uri' },
  'launch.url': { type: 'string', format: 'uri' },
  'round.url': { type: 'string', format: 'uri' },
  'paging.totalCount': { type: 'integer' },
  'paging.pageCount': { type: 'integer' },
  'paging.currentPage': { type: 'integer' },
  'paging.perPage': { type: 'integer' },
  'award.removed': { type: 'array', items: { type: 'string' } },
  'campaign.gameNumericId': { type: 'integer' },
  'campaign.rounds': { type: 'integer' },
  'campaign.betValue': { type: 'integer' },
  'campaign.startTime': { type: 'string', format: 'date-time' },
  'campaign.endTime': { type: 'string', format: 'date-time' },
};

function constSchema(value: unknown): Schema {
  if (Array.isArray(value)) return { type: 'array', examples: [value] };
  return { const: value };
}

/** The JSON Schema of what a reply template renders. */
export function replySchema(node: ReplyNode): Schema {
  if ('from' in node) {
    if (node.as === 'string') return { type: 'string' };
    if (node.as === 'number') return { type: 'number' };
    if (node.as === 'flag') return { type: 'integer', enum: [0, 1] };
    if (node.map) return { enum: [...new Set(Object.values(node.map))], description: `from ${node.from}` };
    return { ...(SOURCE_TYPES[node.from] ?? { type: 'string' }), description: `from ${node.from}` };
  }
  if ('const' in node) return constSchema(node.const);
  if ('template' in node) return { type: 'string', description: `"${node.template}"` };
  if ('object' in node) {
    const properties = Object.fromEntries(Object.entries(node.object).map(([key, child]) => [key, replySchema(child)]));
    return { type: 'object', properties, required: Object.keys(properties) };
  }
  if ('list' in node) return { type: 'array', prefixItems: node.list.map(replySchema) };
  if ('games' in node) return { type: 'array', items: replySchema(node.games), description: 'one item per catalog game' };
  if ('campaigns' in node)
    return { type: 'array', items: replySchema(node.campaigns), description: 'one item per free-round campaign' };
  return {
    type: 'object',
    additionalProperties: replySchema(node.gamesKeyed.item),
    description: `one member per catalog game, keyed by ${node.gamesKeyed.key}`,
  };
}

/** Request fields by dotted path as one (nested) object schema. */
function requestSchema(route: OperatorRoute, pathParams: string[]): Schema {
  const root: Schema = { type: 'object', properties: {} as Record<string, Schema> };
  const required = new Set([...route.required, ...route.requiredWhenReal]);
  const fields = new Set([...Object.keys(route.request), ...required]);
  if (route.selector) fields.add(route.selector.field);
  for (const path of fields) {
    if (pathParams.includes(path)) continue;
    const segments = path.split('.');
    let node = root;
    segments.forEach((segment, i) => {
      node.properties ??= {};
      const properties = node.properties as Record<string, Schema>;
      if (i === segments.length - 1) {
        const spec = route.request[path];
        const description = [
          spec ? `aggmock reads it as ${spec.to}` : undefined,
          spec?.demoWhen ? `"${spec.demoWhen}" asks for demo play` : undefined,
          route.requiredWhenReal.includes(path) ? 'required for a real-money launch' : undefined,
        ].filter(Boolean);
        properties[segment] =
          route.selector?.field === path
            ? { const: route.selector.equals }
            : { type: 'string', ...(spec?.map ? { examples: Object.keys(spec.map) } : {}), description: description.join('; ') };
        if (route.required.includes(path) || route.selector?.field === path) {
          node.required = [...((node.required as string[] | undefined) ?? []), segment];
        }
      } else {
        properties[segment] ??= { type: 'object', properties: {} };
        node = properties[segment] as Schema;
      }
    });
  }
  return root;
}

function securityScheme(auth: OperatorAuth): Schema {
  switch (auth.kind) {
    case 'rsa-body':
      return {
        type: 'apiKey',
        in: 'header',
        name: auth.header,
        description: `base64 RSA-${auth.hash.toUpperCase()} (PKCS#1 v1.5) of the raw body by the operator's private key; checked with credential ${auth.publicKey}`,
      };
    case 'hmac-body':
      return {
        type: 'apiKey',
        in: 'header',
        name: auth.header,
        description: `${auth.encoding} HMAC-${auth.hash.toUpperCase()} of the raw body keyed by credential ${auth.secret}`,
      };
    case 'sorted-params': {
      const place = 'field' in auth.place ? auth.place.field : auth.place.header;
      const signed = `the parameters${auth.includeHeaders.length ? ` and headers ${auth.includeHeaders.join(', ')}` : ''} sorted by name, joined k=v&k=v${auth.encodeValues === 'php-urlencode' ? ' (PHP urlencode)' : ''}${auth.skipEmpty ? ', empty values left out' : ''}`;
      const how =
        auth.mode === 'hmac'
          ? `hex HMAC-${auth.hash.toUpperCase()} keyed by credential ${auth.secret}`
          : `hex ${auth.hash.toUpperCase()} of the text with credential ${auth.secret} appended`;
      return {
        type: 'apiKey',
        in: 'field' in auth.place ? 'query' : 'header',
        name: place,
        description: `${how} of ${signed}${auth.timestamp ? `; ${auth.timestamp.header} within ${auth.timestamp.toleranceSeconds} s` : ''}`,
      };
    }
    case 'static':
      return {
        type: 'apiKey',
        in: 'query',
        name: Object.keys(auth.fields).join('+'),
        description: `credentials carried as they are: ${Object.entries(auth.fields)
          .map(([field, name]) => `${field} = ${name}`)
          .join(', ')}`,
      };
    case 'basic':
      return { type: 'http', scheme: 'basic', description: `${auth.user}:${auth.password}` };
  }
}

const CONTENT_TYPES: Record<OperatorRoute['encoding'], string> = {
  json: 'application/json',
  form: 'application/x-www-form-urlencoded',
  query: 'application/x-www-form-urlencoded',
  'query+json': 'application/json',
};

/**
 * The document for one vendor.
 *
 * @example operatorOpenApi('hub88', builtinOperatorApi('hub88')).paths['/operator/generic/v2/game/url']
 */
export function operatorOpenApi(vendor: string, api: OperatorApi): Schema {
  const schemes: Record<string, Schema> = { operator: securityScheme(api.auth) };
  const paths: Record<string, Record<string, Schema>> = {};
  api.routes.forEach((route, i) => {
    const params = route.path
      .split('/')
      .filter((s) => s.startsWith(':'))
      .map((s) => s.slice(1));
    const path = `${api.basePath}${route.path}`.replace(/:([^/]+)/g, '{$1}');
    const scheme = route.auth ? `route${i}` : 'operator';
    if (route.auth) schemes[scheme] = securityScheme(route.auth);
    const request = requestSchema(route, params);
    const refusals = Object.fromEntries(
      Object.entries(api.refusals).map(([reason, template]) => [
        reason,
        { status: template.status, schema: template.body ? replySchema(template.body) : undefined },
      ]),
    );
    const responses: Record<string, Schema> = {
      [String(route.reply.status)]: {
        description: `${route.does}${route.selector ? ` (${route.selector.field} = ${route.selector.equals})` : ''}`,
        ...(route.reply.body ? { content: { 'application/json': { schema: replySchema(route.reply.body) } } } : {}),
        ...(route.reply.text !== undefined
          ? { content: { [route.reply.headers['content-type'] ?? 'text/plain']: { schema: { type: 'string' } } } }
          : {}),
      },
    };
    for (const [reason, refusal] of Object.entries(refusals)) {
      const key = String(refusal.status);
      const existing = responses[key];
      const content = refusal.schema ? { content: { 'application/json': { schema: refusal.schema } } } : {};
      responses[key] = existing
        ? { ...existing, description: `${existing.description as string}; refused: ${reason}` }
        : { description: `refused: ${reason}`, ...content };
    }
    const operation: Schema = {
      summary: `${route.does}${route.mode ? ` (${route.mode})` : ''}`,
      security: [{ [scheme]: [] }],
      parameters: [
        ...params.map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } })),
        ...(route.encoding === 'query' || route.encoding === 'query+json'
          ? Object.keys((request.properties as Record<string, unknown>) ?? {}).map((name) => ({
              name,
              in: 'query',
              required: route.required.includes(name),
              schema: { type: 'string' },
            }))
          : []),
      ],
      ...(route.encoding === 'query'
        ? {}
        : { requestBody: { required: true, content: { [CONTENT_TYPES[route.encoding]]: { schema: request } } } }),
      responses,
    };
    paths[path] ??= {};
    const methods = paths[path];
    const verb = route.method.toLowerCase();
    const prior = methods[verb];
    if (!prior) {
      methods[verb] = operation;
      return;
    }
    // One endpoint, many operations (Blue Ocean): one OpenAPI operation whose body is any of theirs.
    const type = CONTENT_TYPES[route.encoding];
    const body = ((prior.requestBody as Schema | undefined)?.content as Record<string, { schema: Schema }> | undefined)?.[type]
      ?.schema;
    const bodies = body ? ((body.oneOf as Schema[] | undefined) ?? [body]) : [];
    methods[verb] = {
      ...prior,
      summary: `${prior.summary as string} | ${operation.summary as string}`,
      requestBody: { required: true, content: { [type]: { schema: { oneOf: [...bodies, request] } } } },
      responses: { ...(operation.responses as Schema), ...(prior.responses as Schema) },
    };
  });
  return {
    openapi: '3.1.0',
    info: {
      title: `aggmock — ${vendor}'s operator API`,
      version: VERSION,
      description: `${api.description}\n\nUnknown in the vendor's public material, and what aggmock does about it:\n${api.unknown.map((u) => `- ${u}`).join('\n')}\n\nSources:\n${api.sources.map((s) => `- ${s.title}${s.url ? ` (${s.url})` : ''}`).join('\n')}`,
    },
    paths,
    components: { securitySchemes: schemes },
  };
}
