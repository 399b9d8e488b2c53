import type { OperatorApi, OperatorAuth, OperatorConcept, OperatorRoute, RefusalReason } from '../../dialects/operator.ts';
import { type OperatorRequestParts, verifyOperator } from '../../dialects/operator-auth.ts';
import type { AuthVerdict } from '../../requests/index.ts';
import { commaList, parseJsonOr } from '../../shared/index.ts';
import { maskedText, sha256Hex } from '../../shared/secrets.ts';
import { requestParts } from './request.ts';

/*
 * What a vendor route decides of a request before it answers: which of the routes sharing a method
 * and path it is (Blue Ocean's selector), whether the operator proved itself the vendor's way,
 * whether the required fields are there and the operator is the configured one, and what the fields
 * mean in aggmock's words. The Hono routes (routes.ts) and the listing fast path (fast-path.ts) both
 * call it, so both judge a request alike; a refusal is thrown with the reason that picks the reply.
 */

/** A refusal: the reason picks the vendor's reply. */
export class Refusal extends Error {
  constructor(
    readonly reason: RefusalReason,
    message: string,
    readonly expectedSigned?: string,
  ) {
    super(message);
  }
}

/** The routes served at one method and path, each with its index in the API (its cache key). */
export interface RouteGroup {
  method: string;
  path: string;
  routes: [OperatorRoute, string][];
}

/** The API's routes grouped by method and full path (several routes may share one: Blue Ocean). */
export function routeGroups(api: OperatorApi): Map<string, RouteGroup> {
  const groups = new Map<string, RouteGroup>();
  api.routes.forEach((route, i) => {
    const path = `${api.basePath}${route.path}`;
    const key = `${route.method} ${path}`;
    const group = groups.get(key) ?? { method: route.method, path, routes: [] };
    group.routes.push([route, String(i)]);
    groups.set(key, group);
  });
  return groups;
}

export type Concepts = Partial<Record<OperatorConcept, string>>;
/** Every value of a concept (a list field such as Blue Ocean's gameids gives several; others one). */
export type ConceptLists = Partial<Record<OperatorConcept, readonly string[]>>;

export interface Decision {
  route: OperatorRoute;
  routeKey: string;
  parts: OperatorRequestParts;
  values: Concepts;
  lists: ConceptLists;
  demo: boolean;
}

/** A request as it arrived, in the shape {@link decide} reads. */
export interface ArrivedRequest {
  rawBody: Uint8Array;
  /** Header names in lower case. */
  headers: Readonly<Record<string, string | undefined>>;
  query: URLSearchParams;
  pathParams: Readonly<Record<string, string>>;
}

/**
 * Judges a request to one route group; `onVerdict` hears the operator check's verdict as the
 * request journal keeps it (before a refusal is thrown). `exposure` (why the instance is exposed,
 * src/http/exposure.ts): a request proved with a public development credential is then refused, as
 * the seed's API refuses aggmock-dev-key (src/auth), since anyone can read those.
 */
export function decide(
  api: OperatorApi,
  candidates: [OperatorRoute, string][],
  request: ArrivedRequest,
  credentials: Readonly<Record<string, string>>,
  nowMs: number,
  onVerdict: (verdict: AuthVerdict) => void,
  exposure?: string,
): Decision {
  let chosen: [OperatorRoute, string] | undefined;
  let parts: OperatorRequestParts | undefined;
  for (const candidate of candidates) {
    const [route] = candidate;
    const candidateParts = requestParts(route.encoding, request.rawBody, request.headers, request.query, request.pathParams);
    if (route.selector && candidateParts.fields[route.selector.field] !== route.selector.equals) continue;
    chosen = candidate;
    parts = candidateParts;
    break;
  }
  if (!chosen || !parts) {
    const selector = candidates[0]?.[0].selector;
    const served = candidates.map(([r]) => r.selector?.equals).join(', ');
    throw new Refusal('bad-request', `${selector?.field ?? 'the request'}: expected one of ${served}`);
  }
  const [route, routeKey] = chosen;
  const recipe = route.auth ?? api.auth;
  const verified = verifyOperator(recipe, parts, credentials, nowMs);
  const dev = exposure === undefined || !verified.ok ? undefined : developmentCredential(api, recipe, credentials);
  const refusedDev = `The development ${dev} of this operator API is public and refused on an exposed instance (${exposure}): set your own in operator.credentials.${dev} and sign with it.`;
  const verdict: typeof verified = dev ? { ok: false, message: refusedDev } : verified;
  if (verdict.ok) onVerdict({ ok: true, method: 'operator', header: credentialPlace(recipe) });
  else {
    const { message, expectedSigned } = verdict;
    const error = dev ? 'DEV_CREDENTIALS_REFUSED' : expectedSigned !== undefined ? 'INVALID_SIGNATURE' : 'UNAUTHORIZED';
    onVerdict({ ok: false, error, message, ...(expectedSigned === undefined ? {} : journaledSigned(expectedSigned)) });
    throw new Refusal('auth', message, expectedSigned);
  }
  for (const field of route.required) {
    if (parts.fields[field] === undefined || parts.fields[field] === '') throw new Refusal('bad-request', `${field} is required`);
  }
  const { values, lists, demo } = conceptsOf(route, parts.fields);
  if (api.operatorId) {
    const { field, header, credential, refusal } = api.operatorId;
    const named = field !== undefined ? parts.fields[field] : request.headers[(header as string).toLowerCase()];
    if (named !== undefined && named !== credentials[credential])
      throw new Refusal(refusal, `The ${field ?? header} ${JSON.stringify(named)} doesn't correspond to any existing operator`);
  }
  return { route, routeKey, parts, values, lists, demo };
}

/** The secret credentials a recipe proves the operator with (not ids such as operator_id). */
function secretsOf(api: OperatorApi, recipe: OperatorAuth): string[] {
  switch (recipe.kind) {
    case 'rsa-body':
      return [recipe.publicKey];
    case 'hmac-body':
    case 'sorted-params':
      return [recipe.secret];
    case 'static':
      return Object.values(recipe.fields).filter((name) => api.credentials[name]?.kind !== 'text');
    case 'basic':
      return [recipe.password];
  }
}

/** The first secret the recipe checks that is still its published development default, or undefined. */
export function developmentCredential(
  api: OperatorApi,
  recipe: OperatorAuth,
  credentials: Readonly<Record<string, string>>,
): string | undefined {
  return secretsOf(api, recipe).find((name) => {
    const published = api.credentials[name]?.default;
    return published !== undefined && credentials[name]?.trim() === published.trim();
  });
}

/** The page a paged listing asks for (undefined: the route lists everything), or a bad-request Refusal. */
export function listingPage(route: OperatorRoute, values: Concepts): { page: number; perPage: number } | undefined {
  if (!route.paging) return undefined;
  const number = (text: string | undefined, fallback: number, field: string) => {
    if (text === undefined || text === '') return fallback;
    if (!/^\d{1,6}$/.test(text) || Number(text) < 1) throw new Refusal('bad-request', `${field}: expected a whole number ≥ 1`);
    return Number(text);
  };
  return {
    page: number(values.page, 1, 'page'),
    perPage: Math.min(number(values.perPage, route.paging.defaultPerPage, 'perPage'), route.paging.maxPerPage),
  };
}

/** The request's fields as aggmock's concepts, every value of a list field, and whether they ask for demo play. */
function conceptsOf(
  route: OperatorRoute,
  fields: Readonly<Record<string, string>>,
): { values: Concepts; lists: ConceptLists; demo: boolean } {
  const values: Concepts = {};
  const lists: ConceptLists = {};
  let demo = false;
  for (const [field, spec] of Object.entries(route.request)) {
    const value = fields[field];
    if (value === undefined || value === '') continue;
    if (spec.demoWhen !== undefined && value === spec.demoWhen) {
      demo = true;
      continue;
    }
    const items = spec.list !== undefined ? listItems(field, value, spec.list) : [value];
    const mapped = items.map((item) => {
      const text = spec.map && Object.hasOwn(spec.map, item) ? (spec.map[item] as string) : item;
      return spec.exponent === undefined ? text : scaledAmount(field, text, spec.exponent);
    });
    if (mapped.length === 0) continue;
    values[spec.to] ??= mapped[0] as string;
    lists[spec.to] ??= mapped;
  }
  if (values.mode === 'demo') demo = true;
  return { values, lists, demo };
}

/** Items a list field holds at most: an award names a few games or players, not a catalog. */
const MAX_LIST_ITEMS = 256;

/** The items of a list field: text separated by commas (Blue Ocean's gameids "1,2"), or a JSON list of ids (SoftSwiss games). */
function listItems(field: string, value: string, list: 'comma' | 'json'): string[] {
  let items: string[];
  if (list === 'comma') {
    items = commaList(value);
  } else {
    const parsed = parseJsonOr(value, undefined);
    if (!Array.isArray(parsed) || parsed.some((item) => typeof item !== 'string' && typeof item !== 'number'))
      throw new Refusal('bad-request', `${field}: expected a list of ids, e.g. ["game-1"]`);
    items = parsed.map(String);
  }
  if (items.length > MAX_LIST_ITEMS) throw new Refusal('bad-request', `${field}: expected at most ${MAX_LIST_ITEMS} items`);
  return items;
}

/** An integer of 10^-exponent major units as a decimal text ("356000", 5 → "3.56000"), or a bad-request Refusal. */
function scaledAmount(field: string, text: string, exponent: number): string {
  if (!/^\d{1,15}$/.test(text))
    throw new Refusal('bad-request', `${field}: expected a whole number (the amount × 10^${exponent})`);
  if (exponent === 0) return text;
  const digits = text.padStart(exponent + 1, '0');
  return `${digits.slice(0, -exponent)}.${digits.slice(-exponent)}`;
}

/** Longest prefix of the expected signed text a journal row keeps (masked); its digest and length stand for the rest. */
const MAX_JOURNALED_SIGNED = 1024;

/**
 * The text a refused signature should have covered, as the journal keeps it: bounded and masked like
 * every journaled body (a signed body may be 1 MiB and hold a player's token), with its SHA-256 and
 * length so the client can compare with what it signed.
 */
function journaledSigned(text: string): { signedPrefix: string; bodySha256: string; bodyBytes: number } {
  const shown = maskedText(text);
  return {
    signedPrefix: shown.length > MAX_JOURNALED_SIGNED ? `${shown.slice(0, MAX_JOURNALED_SIGNED)}…` : shown,
    bodySha256: sha256Hex(text),
    bodyBytes: Buffer.byteLength(text),
  };
}

/** Where the operator's proof travels, as the journal names it. */
function credentialPlace(recipe: OperatorAuth): string {
  switch (recipe.kind) {
    case 'rsa-body':
    case 'hmac-body':
      return recipe.header;
    case 'sorted-params':
      return 'field' in recipe.place ? recipe.place.field : recipe.place.header;
    case 'static':
      return Object.keys(recipe.fields).join(', ');
    case 'basic':
      return 'Authorization';
  }
}

/**
 * The request headers a recipe (and the operator's id) reads: what makes two requests with the same
 * target and body the same request to the operator check.
 */
export function headersRead(api: OperatorApi, recipe: OperatorAuth): string[] {
  const names: string[] = [];
  if (api.operatorId?.header) names.push(api.operatorId.header.toLowerCase());
  switch (recipe.kind) {
    case 'rsa-body':
    case 'hmac-body':
      names.push(recipe.header.toLowerCase());
      break;
    case 'sorted-params':
      if ('header' in recipe.place) names.push(recipe.place.header.toLowerCase());
      for (const h of recipe.includeHeaders) names.push(h.toLowerCase());
      if (recipe.timestamp) names.push(recipe.timestamp.header.toLowerCase());
      break;
    case 'basic':
      names.push('authorization');
      break;
    case 'static':
      break;
  }
  return names;
}
