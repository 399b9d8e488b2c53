import { createHmac, randomBytes, randomUUID, sign } from 'node:crypto';
import { valueAt } from '../shared/index.ts';
import { DEV_RSA_PRIVATE_KEY, DEV_RSA_PUBLIC_KEY } from './dev-keys.ts';
import type { OperatorApi, OperatorAuth, OperatorConcept, OperatorRoute, ReplyNode } from './operator.ts';
import { sortedParamsDigest, sortedParamsText } from './operator-auth.ts';

/*
 * The operator's side of a vendor's operator API, written from the same data the aggregator serves
 * it from: a request for one route built from aggmock's launch concepts (the vendor's field names,
 * value maps, demo markers, the operator's id and credentials), then signed the vendor's way with
 * the recipe operator-auth.ts verifies (one rule, one home: the sorted-parameter text is the same
 * function). The MCP tools and the demo call the vendor routes with it. Pure but for the nonce.
 */

/** A request ready to send: the path under the aggregator's origin (query included), headers, body. */
export interface OperatorCall {
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
}

/** What the caller asks for, in aggmock's words (`mode: 'demo'` for demo play). */
export type OperatorValues = Partial<Record<OperatorConcept, string>>;

export class OperatorClientError extends Error {
  override name = 'OperatorClientError';
}

/** The value written for a field the vendor requires that aggmock does not read (Slotegrator's player_name). */
export const PLACEHOLDER = 'aggmock';

/**
 * The first route that does `does` (for a launch: the demo route when demo play is asked and the
 * vendor has one), or undefined.
 *
 * @example operatorRouteFor(api, 'launch', 'demo')?.path // '/games/init-demo' (Slotegrator)
 */
export function operatorRouteFor(
  api: OperatorApi,
  does: OperatorRoute['does'],
  mode: 'real' | 'demo' = 'real',
): OperatorRoute | undefined {
  const routes = api.routes.filter((r) => r.does === does);
  return routes.find((r) => r.mode === mode) ?? routes.find((r) => r.mode === undefined) ?? routes[0];
}

/**
 * One signed request for a route. `credentials` are the operator's by the vendor's names (the
 * server's view: an RSA recipe holds the *public* key there); an RSA recipe signs with
 * `privateKey`, or with aggmock's development private key when the public key is the development one.
 *
 * @example operatorRequest(api, operatorRouteFor(api, 'launch')!, { player: 'p1', gameId, currency: 'EUR', token: 't' }, credentials)
 */
export function operatorRequest(
  api: OperatorApi,
  route: OperatorRoute,
  values: OperatorValues,
  credentials: Readonly<Record<string, string>>,
  options: {
    nowMs?: number;
    privateKey?: string;
    /** A fresh random token (a nonce, a request uuid); the docs pass a fixed one so their example is stable. */
    random?: () => string;
  } = {},
): OperatorCall {
  const random = options.random ?? (() => randomBytes(16).toString('hex'));
  const recipe = route.auth ?? api.auth;
  const demo = values.mode === 'demo' || route.mode === 'demo';
  const fields = fieldsOf(route, values, demo);
  if (api.operatorId?.field !== undefined) fields.set(api.operatorId.field, credential(credentials, api.operatorId.credential));
  if (recipe.kind === 'static')
    for (const [field, name] of Object.entries(recipe.fields)) fields.set(field, credential(credentials, name));
  if (route.selector) fields.set(route.selector.field, route.selector.equals);
  const signatureField = recipe.kind === 'sorted-params' && 'field' in recipe.place ? recipe.place.field : undefined;
  for (const field of [...route.required, ...(demo ? [] : route.requiredWhenReal)]) {
    if (field === signatureField || fields.has(field) || fields.has(`${field}.0`)) continue;
    fields.set(field, field === 'uuid' ? (options.random ? random() : randomUUID()) : PLACEHOLDER);
  }

  // `:name` segments take their field's value and leave the body.
  const path = `${api.basePath}${route.path}`.replace(/:([A-Za-z0-9_]+)/g, (_, name: string) => {
    const value = fields.get(name);
    if (value === undefined) throw new OperatorClientError(`${route.path}: no value for the path parameter ${name}`);
    fields.delete(name);
    return encodeURIComponent(value);
  });

  // query+json (Pragmatic's FRB create): the nested fields travel as the JSON body, the rest as the signed query.
  const jsonPart = new Map<string, string>();
  if (route.encoding === 'query+json')
    for (const [field, value] of fields)
      if (field.includes('.')) {
        jsonPart.set(field, value);
        fields.delete(field);
      }

  const headers: Record<string, string> = {};
  if (api.operatorId?.header !== undefined) headers[api.operatorId.header] = credential(credentials, api.operatorId.credential);
  const inBody = route.encoding === 'json' || route.encoding === 'form';
  if (recipe.kind === 'sorted-params') {
    const nowSeconds = Math.floor((options.nowMs ?? Date.now()) / 1000);
    if (recipe.timestamp) headers[recipe.timestamp.header] = String(nowSeconds);
    for (const name of recipe.includeHeaders) headers[name] ??= name.toLowerCase().includes('nonce') ? random() : '';
    const params = paramsOf(route.encoding, fields);
    const lowerHeaders = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
    const text = sortedParamsText(recipe, { params, headers: lowerHeaders });
    const digest = sortedParamsDigest(recipe, text, credential(credentials, recipe.secret));
    if ('field' in recipe.place) fields.set(recipe.place.field, digest);
    else headers[recipe.place.header] = digest;
  }

  const body = inBody ? encodeBody(route.encoding, fields) : jsonPart.size > 0 ? JSON.stringify(nested(jsonPart)) : undefined;
  const query = inBody ? '' : new URLSearchParams([...fields]).toString();
  if (body !== undefined)
    headers['content-type'] = route.encoding === 'form' ? 'application/x-www-form-urlencoded' : 'application/json';
  signBody(recipe, body ?? '', headers, credentials, options.privateKey);
  return { method: route.method, path: query ? `${path}?${query}` : path, headers, ...(body === undefined ? {} : { body }) };
}

function credential(credentials: Readonly<Record<string, string>>, name: string): string {
  const value = credentials[name];
  if (value === undefined) throw new OperatorClientError(`the operator credential ${name} is not configured`);
  return value;
}

/** The route's fields for the concepts given: the first field of each concept, its value mapped back to the vendor's. */
function fieldsOf(route: OperatorRoute, values: OperatorValues, demo: boolean): Map<string, string> {
  const fields = new Map<string, string>();
  const done = new Set<OperatorConcept>();
  for (const [field, spec] of Object.entries(route.request)) {
    if (demo && spec.demoWhen !== undefined) {
      fields.set(field, spec.demoWhen);
      done.add(spec.to);
      continue;
    }
    const wanted = spec.to === 'mode' && route.mode === undefined ? (demo ? 'demo' : 'real') : values[spec.to];
    if (wanted === undefined || done.has(spec.to)) continue;
    const vendorValue = spec.map ? Object.entries(spec.map).find(([, ours]) => ours === wanted)?.[0] : undefined;
    const written = spec.exponent === undefined ? (vendorValue ?? wanted) : scaledInteger(field, wanted, spec.exponent);
    // A JSON list field carries the one value as a list of one (SoftSwiss games: ["…"]).
    fields.set(spec.list === 'json' ? `${field}.0` : field, written);
    done.add(spec.to);
  }
  return fields;
}

/** A stake in major units ("1.5") as the vendor's integer of 10^-exponent units ("150000" for 5). */
function scaledInteger(field: string, major: string, exponent: number): string {
  const match = /^(\d{1,9})(?:\.(\d{1,8}))?$/.exec(major);
  if (!match || (match[2] ?? '').length > exponent)
    throw new OperatorClientError(`${field}: expected an amount in major units with at most ${exponent} decimals, got ${major}`);
  const digits = `${match[1]}${(match[2] ?? '').padEnd(exponent, '0')}`.replace(/^0+(?=\d)/, '');
  return digits;
}

/** What a sorted-params recipe signs of these fields: a JSON body's top level, or the pairs as sent. */
function paramsOf(encoding: OperatorRoute['encoding'], fields: Map<string, string>): Record<string, string> {
  if (encoding !== 'json') return Object.fromEntries(fields);
  const body = nested(fields);
  return Object.fromEntries(Object.entries(body).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]));
}

function encodeBody(encoding: OperatorRoute['encoding'], fields: Map<string, string>): string {
  if (encoding === 'form') return new URLSearchParams([...fields]).toString();
  return JSON.stringify(nested(fields));
}

/** Dotted paths as nested objects (Evolution's player.session.id). */
function nested(fields: Map<string, string>): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  for (const [path, value] of fields) {
    const segments = path.split('.');
    let node = root;
    // A numeric segment is a list index (Pragmatic's gameList.0.gameId → {"gameList":[{"gameId":…}]}).
    segments.slice(0, -1).forEach((segment, i) => {
      const list = /^\d{1,3}$/.test(segments[i + 1] as string);
      if (typeof node[segment] !== 'object' || node[segment] === null) node[segment] = list ? [] : {};
      node = node[segment] as Record<string, unknown>;
    });
    node[segments[segments.length - 1] as string] = value;
  }
  return root;
}

function signBody(
  recipe: OperatorAuth,
  body: string,
  headers: Record<string, string>,
  credentials: Readonly<Record<string, string>>,
  privateKey: string | undefined,
): void {
  switch (recipe.kind) {
    case 'rsa-body': {
      const key = privateKey ?? (credentials[recipe.publicKey] === DEV_RSA_PUBLIC_KEY ? DEV_RSA_PRIVATE_KEY : undefined);
      if (key === undefined)
        throw new OperatorClientError(
          `${recipe.header} is an RSA signature by the operator's private key: aggmock holds only its public key (credential ${recipe.publicKey}) and signs with its development key pair alone; give the matching private key (aggmock mcp --operator-key <file>)`,
        );
      headers[recipe.header] = sign(recipe.hash, Buffer.from(body), key).toString('base64');
      return;
    }
    case 'hmac-body':
      headers[recipe.header] = createHmac(recipe.hash, credential(credentials, recipe.secret))
        .update(body)
        .digest(recipe.encoding);
      return;
    case 'basic':
      headers.Authorization = `Basic ${Buffer.from(`${credential(credentials, recipe.user)}:${credential(credentials, recipe.password)}`).toString('base64')}`;
      return;
    default:
      return;
  }
}

/**
 * Where a reply template puts the launch's link: the dotted path of its `launch.url` (or
 * `launch.path`) node, and whether it is a path under the aggregator's origin.
 *
 * @example launchLinkOf(route.reply.body) // { path: ['url'], relative: false } (Hub88)
 */
export function launchLinkOf(body: ReplyNode | undefined): { path: string[]; relative: boolean } | undefined {
  if (body === undefined) return undefined;
  if ('from' in body && (body.from === 'launch.url' || body.from === 'launch.path'))
    return { path: [], relative: body.from === 'launch.path' };
  if ('object' in body) {
    // A plain source first: Evolution's `entry` before its `entryEmbedded` template.
    for (const [key, child] of Object.entries(body.object)) {
      const found = launchLinkOf(child);
      if (found) return { path: [key, ...found.path], relative: found.relative };
    }
  }
  return undefined;
}

/** The absolute launch link in a launch reply, or undefined when the reply does not hold one. */
export function launchLinkIn(route: OperatorRoute, reply: unknown, origin: string): string | undefined {
  const link = launchLinkOf(route.reply.body);
  if (!link) return undefined;
  const value = valueAt(reply, link.path);
  if (typeof value !== 'string' || value === '') return undefined;
  return link.relative ? new URL(value, origin).toString() : value;
}

/**
 * The games of a listing reply, as the vendor lists them: the items at the template's `games` node
 * (or the members of a `gamesKeyed` one), or undefined when the reply does not hold them.
 */
export function gamesIn(route: OperatorRoute, reply: unknown): unknown[] | undefined {
  const walk = (node: ReplyNode | undefined, value: unknown): unknown[] | undefined => {
    if (node === undefined || value === null || typeof value !== 'object') return undefined;
    if ('games' in node) return Array.isArray(value) ? value : undefined;
    if ('gamesKeyed' in node) return Object.values(value as Record<string, unknown>);
    if ('object' in node) {
      for (const [key, child] of Object.entries(node.object)) {
        const found = walk(child, (value as Record<string, unknown>)[key]);
        if (found) return found;
      }
    }
    return undefined;
  };
  return walk(route.reply.body, reply);
}

/**
 * What a paged listing reply says of its pages: the numbers at the template's `paging.*` nodes
 * (Slotegrator's `_meta`), or undefined when the reply does not say them.
 *
 * @example pagingIn(route, reply) // { totalCount: 120, pageCount: 3, currentPage: 1, perPage: 50 }
 */
export function pagingIn(
  route: OperatorRoute,
  reply: unknown,
): { totalCount?: number; pageCount?: number; currentPage?: number; perPage?: number } | undefined {
  const found: Record<string, number> = {};
  const walk = (node: ReplyNode | undefined, value: unknown): void => {
    if (node === undefined) return;
    if ('from' in node && node.from.startsWith('paging.')) {
      const n = Number(value);
      if (Number.isInteger(n) && n >= 0) found[node.from.slice('paging.'.length)] = n;
      return;
    }
    if ('object' in node && value !== null && typeof value === 'object')
      for (const [key, child] of Object.entries(node.object)) walk(child, (value as Record<string, unknown>)[key]);
  };
  walk(route.reply.body, reply);
  return Object.keys(found).length > 0 ? found : undefined;
}
