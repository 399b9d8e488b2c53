/**
 * The dialect engine of an exported k6 script, as the JavaScript text it carries: a port of
 * aggmock's request rendering (dialects/request.ts) and signing (dialects/sign.ts) onto k6's
 * modules — WebCrypto (`crypto.subtle`: HMAC, RSASSA-PKCS1-v1_5, ECDSA with its raw r‖s turned
 * into DER) and `k6/crypto` (MD5, SHA-1, SHA-256 digests). k6 cannot run here: test/load/k6.test.ts
 * runs this text under Node with k6's modules shimmed and proves each request byte for byte equal
 * to aggmock's own (a signature aside for ECDSA, which is randomised) and accepted by every vendor
 * receiver.
 */
export const K6_RUNTIME = String.raw`
// ---- the dialect engine: a port of aggmock's dialects/request.ts and sign.ts ----
const MONEY = { bet: 'debit', win: 'credit', betWin: 'debit', rollback: 'reverse', rollbackWin: 'reverse', promoWin: 'credit' };
const ATTEMPT_FACTS = ['sentTimestamp', 'sentTimestampSeconds', 'sentTimestampMs', 'nonce'];

function writeAmount(minor) {
  const a = AMOUNTS;
  const scaled = a.shift >= 0 ? minor * 10 ** a.shift : minor / 10 ** -a.shift;
  if (a.as === 'string') return a.format === 'minor' ? String(scaled) : formatMinor(scaled, a.exponent);
  return a.format === 'minor' ? scaled : Number((scaled / 10 ** a.exponent).toFixed(a.exponent));
}

function formatMinor(minor, exponent) {
  const sign = minor < 0 ? '-' : '';
  const abs = Math.abs(minor);
  if (exponent === 0) return sign + abs;
  const unit = 10 ** exponent;
  return sign + Math.floor(abs / unit) + '.' + String(abs % unit).padStart(exponent, '0');
}

function factValue(facts, fact) {
  const money = MONEY[facts.operation];
  switch (fact) {
    case 'operation': return facts.operation;
    case 'type': return money === 'debit' ? 'DEBIT' : money === 'credit' ? 'CREDIT' : money === 'reverse' ? 'ROLLBACK' : undefined;
    case 'amount': return facts.amountMinor === undefined ? undefined : writeAmount(facts.amountMinor);
    case 'betAmount': return facts.amountMinor === undefined ? undefined : writeAmount(money === 'credit' ? 0 : facts.amountMinor);
    case 'winAmount':
      if (money === 'credit') return facts.amountMinor === undefined ? undefined : writeAmount(facts.amountMinor);
      return writeAmount(facts.winMinor || 0);
    case 'timestamp': return new Date(facts.createdAt).toISOString();
    case 'timestampSeconds': return Math.floor(facts.createdAt / 1000);
    case 'timestampMs': return facts.createdAt;
    case 'sentTimestamp': return new Date(facts.sentAt ?? facts.createdAt).toISOString();
    case 'sentTimestampSeconds': return Math.floor((facts.sentAt ?? facts.createdAt) / 1000);
    case 'sentTimestampMs': return facts.sentAt ?? facts.createdAt;
    case 'bonusKind': return facts.bonus ? facts.bonus.kind : undefined;
    case 'bonusId': return facts.bonus ? facts.bonus.id : undefined;
    case 'freeRoundId': return facts.bonus && facts.bonus.kind === 'free-spins' ? facts.bonus.id : undefined;
    case 'freeRoundsLeft': return facts.bonus && facts.bonus.kind === 'free-spins' ? facts.bonus.left : undefined;
    case 'roundClosed': return facts.roundClosed;
    case 'nonce': return facts.nonce ?? derivedNonce(facts);
    default: return facts[fact];
  }
}

function derivedNonce(facts) {
  const id = facts.requestId ?? facts.transactionId ?? (facts.operation + ':' + facts.playerId);
  return k6crypto.sha256(id + '|' + (facts.sentAt ?? facts.createdAt), 'hex').slice(0, 32);
}

function credentialValue(name) {
  const v = Object.prototype.hasOwnProperty.call(CREDENTIALS, name) ? CREDENTIALS[name] : undefined;
  if (v === undefined || v === '') throw new Error('the credential "' + name + '" is not set');
  return v;
}

function fillTemplate(template, value) {
  return template.replace(/\{\{|\}\}|\{([A-Za-z][A-Za-z0-9_.]*)\}/g, (match, name) => (name === undefined ? match[0] : value(name)));
}

function placeholder(facts, name) {
  if (name.startsWith('credential.')) return credentialValue(name.slice('credential.'.length));
  const value = FACTS.includes(name) ? factValue(facts, name) : undefined;
  return value === undefined ? '' : String(value);
}

function negate(value) {
  if (typeof value === 'number') return value === 0 ? 0 : -value;
  if (typeof value === 'string' && /^\d/.test(value) && !/^0(\.0+)?$/.test(value)) return '-' + value;
  return value;
}

function renderField(facts, field) {
  if ('const' in field) return field.const;
  if ('credential' in field) return credentialValue(field.credential);
  if ('template' in field) return fillTemplate(field.template, (name) => placeholder(facts, name));
  if ('list' in field) return field.list.map((f) => renderField(facts, f)).filter((v) => v !== undefined);
  if ('object' in field) {
    const out = renderFields(facts, field.object);
    return field.omitWhenEmpty && Object.keys(out).length === 0 ? undefined : out;
  }
  if ('json' in field) {
    const inner = renderField(facts, field.json);
    return inner === undefined ? undefined : JSON.stringify(inner);
  }
  const list = typeof field.from === 'string' ? [field.from] : field.from;
  let value;
  for (const fact of list) {
    value = factValue(facts, fact);
    if (value !== undefined) break;
  }
  if (value !== undefined && field.map) {
    const key = String(value);
    value = Object.prototype.hasOwnProperty.call(field.map, key) ? field.map[key] : field.default;
  }
  if (value === undefined) return field.default;
  if (field.as === 'string') return String(value);
  if (field.as === 'number') return typeof value === 'number' ? value : Number(value);
  if (field.as === 'negate') return negate(value);
  return value;
}

function renderFields(facts, fields) {
  const out = {};
  for (const name of Object.keys(fields)) {
    const value = renderField(facts, fields[name]);
    if (value !== undefined) out[name] = value;
  }
  return out;
}

function unsignedRequest(facts) {
  const op = DIALECT.operations[facts.operation];
  if (!op) throw new Error('the dialect has no ' + facts.operation + ' call');
  const headers = {};
  const all = Object.entries(DIALECT.request.headers).concat(Object.entries(op.headers || {}));
  for (const [name, field] of all) {
    const value = renderField(facts, field);
    if (value !== undefined && typeof value !== 'object') headers[name.toLowerCase()] = String(value);
  }
  return {
    method: op.method || 'POST',
    path: fillTemplate(op.path, (name) => encodeURIComponent(placeholder(facts, name))),
    encoding: op.encoding || DIALECT.request.encoding,
    headers,
    fields: renderFields(facts, op.fields),
    query: renderFields(facts, DIALECT.request.query),
  };
}

function flatParams(fields) {
  const out = [];
  const visit = (prefix, value) => {
    if (Array.isArray(value)) value.forEach((v, i) => visit(prefix + '[' + i + ']', v));
    else if (value !== null && typeof value === 'object') for (const k of Object.keys(value)) visit(prefix + '[' + k + ']', value[k]);
    else out.push([prefix, String(value)]);
  };
  for (const k of Object.keys(fields)) visit(k, fields[k]);
  return out;
}

/** application/x-www-form-urlencoded, as URLSearchParams writes it (k6 has no URLSearchParams). */
function formComponentOf(text) {
  return encodeURIComponent(text).replace(/[!'()~]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase()).replace(/%20/g, '+');
}
function formText(pairs) {
  return pairs.map(([k, v]) => formComponentOf(k) + '=' + formComponentOf(v)).join('&');
}
/** PHP's urlencode inside http_build_query: * escaped too. */
function phpComponent(text) {
  return formComponentOf(text).replace(/\*/g, '%2A');
}

function paramsOf(req) {
  if (req.encoding === 'query') return flatParams(Object.assign({}, req.query, req.fields));
  if (req.encoding === 'form') return flatParams(req.fields);
  return Object.entries(req.fields).map(([k, v]) => [k, typeof v === 'object' ? JSON.stringify(v) : String(v)]);
}

function serialise(req) {
  const always = flatParams(req.query);
  if (req.encoding === 'json') return { body: JSON.stringify(req.fields), query: formText(always) };
  if (req.encoding === 'form') return { body: formText(flatParams(req.fields)), query: formText(always) };
  return { body: undefined, query: formText(always.concat(flatParams(req.fields))) };
}

function signedText(recipe, parts) {
  const ph = (name) => {
    if (name === 'body') return parts.body ?? '';
    if (name === 'query') return parts.query;
    if (name === 'method') return parts.method;
    if (name === 'path') return parts.path;
    if (name.startsWith('credential.')) return credentialValue(name.slice('credential.'.length));
    throw new Error('the signing template names {' + name + '}');
  };
  const p = recipe.payload;
  if (p.over === 'body') return parts.body ?? parts.query;
  if (p.over === 'template') return fillTemplate(p.template, ph);
  const own = 'field' in recipe.place ? recipe.place.field : 'query' in recipe.place ? recipe.place.query : undefined;
  const excluded = new Set(p.exclude.concat(own ? [own] : []));
  const signedHeaders = p.headers.map((name) => {
    const value = parts.headers[name.toLowerCase()];
    if (value === undefined) throw new Error('the ' + name + ' header, which the signature covers, is missing');
    return [name, value];
  });
  let params = parts.params.concat(signedHeaders).filter(([k, v]) => !excluded.has(k) && !(p.skipEmpty && v === ''));
  if (p.sort === 'key') params = params.slice().sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const write = p.escape === 'form' ? phpComponent : (t) => t;
  const joined = params.map(([k, v]) => write(k) + p.pair + write(v)).join(p.join);
  return fillTemplate(p.prefix, ph) + joined + fillTemplate(p.suffix, ph);
}

// ---- bytes and encodings (k6 has no TextEncoder or Buffer) ----
function utf8(text) {
  const out = [];
  for (const ch of text) {
    let c = ch.codePointAt(0);
    if (c < 0x80) out.push(c);
    else if (c < 0x800) out.push(0xc0 | (c >> 6), 0x80 | (c & 63));
    else if (c < 0x10000) out.push(0xe0 | (c >> 12), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
    else out.push(0xf0 | (c >> 18), 0x80 | ((c >> 12) & 63), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
  }
  return new Uint8Array(out);
}
const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
function base64(bytes) {
  let s = '';
  for (let i = 0; i < bytes.length; i += 3) {
    const n = (bytes[i] << 16) | ((bytes[i + 1] ?? 0) << 8) | (bytes[i + 2] ?? 0);
    s += B64[(n >> 18) & 63] + B64[(n >> 12) & 63] + (i + 1 < bytes.length ? B64[(n >> 6) & 63] : '=') + (i + 2 < bytes.length ? B64[n & 63] : '=');
  }
  return s;
}
function unbase64(text) {
  const clean = text.replace(/[^A-Za-z0-9+/]/g, '');
  const out = [];
  for (let i = 0; i < clean.length; i += 4) {
    const n = (B64.indexOf(clean[i]) << 18) | (B64.indexOf(clean[i + 1]) << 12) | ((B64.indexOf(clean[i + 2]) & 63) << 6) | (B64.indexOf(clean[i + 3]) & 63);
    out.push((n >> 16) & 255);
    if (clean[i + 2] !== undefined) out.push((n >> 8) & 255);
    if (clean[i + 3] !== undefined) out.push(n & 255);
  }
  return new Uint8Array(out);
}
function hex(bytes) {
  let s = '';
  for (const b of bytes) s += (b < 16 ? '0' : '') + b.toString(16);
  return s;
}
function encodeBytes(bytes, encoding) {
  if (encoding === 'hex') return hex(bytes);
  if (encoding === 'HEX') return hex(bytes).toUpperCase();
  const b = base64(bytes);
  return encoding === 'base64url' ? b.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '') : b;
}
function fromHex(text) {
  const out = new Uint8Array(text.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(text.slice(2 * i, 2 * i + 2), 16);
  return out;
}

/** WebCrypto's ECDSA signature is r‖s (IEEE P1363); vendors verify DER (jsrsasign SHA256withECDSA, OpenSSL). */
function derOfRawEcdsa(raw) {
  const half = raw.length / 2;
  const integer = (bytes) => {
    let i = 0;
    while (i < bytes.length - 1 && bytes[i] === 0) i++;
    let v = Array.from(bytes.slice(i));
    if (v[0] & 0x80) v = [0].concat(v);
    return [0x02, v.length].concat(v);
  };
  const body = integer(raw.slice(0, half)).concat(integer(raw.slice(half)));
  return new Uint8Array([0x30, body.length].concat(body));
}

const keyCache = {};
async function importedKey(recipe) {
  const name = recipe.key;
  const id = recipe.algorithm + ':' + name;
  if (keyCache[id]) return keyCache[id];
  let key;
  if (recipe.algorithm.startsWith('hmac-')) {
    const hash = { 'hmac-sha1': 'SHA-1', 'hmac-sha256': 'SHA-256', 'hmac-sha512': 'SHA-512' }[recipe.algorithm];
    key = await crypto.subtle.importKey('raw', utf8(credentialValue(name)), { name: 'HMAC', hash }, false, ['sign']);
  } else {
    const der = unbase64(PRIVATE_KEYS[name]);
    const algorithm = recipe.algorithm === 'rsa-sha256' ? { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' } : { name: 'ECDSA', namedCurve: 'P-256' };
    key = await crypto.subtle.importKey('pkcs8', der.buffer, algorithm, false, ['sign']);
  }
  keyCache[id] = key;
  return key;
}

async function signatureOf(recipe, text) {
  switch (recipe.algorithm) {
    case 'hmac-sha1':
    case 'hmac-sha256':
    case 'hmac-sha512':
      return encodeBytes(new Uint8Array(await crypto.subtle.sign('HMAC', await importedKey(recipe), utf8(text))), recipe.encoding);
    case 'md5':
    case 'sha1':
    case 'sha256':
      return encodeBytes(fromHex(k6crypto[recipe.algorithm](text, 'hex')), recipe.encoding);
    case 'rsa-sha256':
      return encodeBytes(new Uint8Array(await crypto.subtle.sign('RSASSA-PKCS1-v1_5', await importedKey(recipe), utf8(text))), recipe.encoding);
    case 'ecdsa-sha256': {
      const raw = new Uint8Array(await crypto.subtle.sign({ name: 'ECDSA', hash: 'SHA-256' }, await importedKey(recipe), utf8(text)));
      return encodeBytes(derOfRawEcdsa(raw), recipe.encoding);
    }
  }
  throw new Error('unknown signing algorithm ' + recipe.algorithm);
}

function hookFields(req) {
  if (req.encoding === 'json') return req.fields;
  return Object.fromEntries(req.encoding === 'query' ? flatParams(Object.assign({}, req.query, req.fields)) : flatParams(req.fields));
}

/** The signed request of one call: { method, path (with its query), headers, body }. */
export async function buildRequest(facts) {
  const req = unsignedRequest(facts);
  const recipe = DIALECT.signing;
  const headers = Object.assign({}, req.headers);
  if (req.encoding !== 'query') headers['content-type'] = req.encoding === 'json' ? 'application/json' : 'application/x-www-form-urlencoded';
  const { body, query } = serialise(req);
  const withQuery = (q) => (q ? req.path + '?' + q : req.path);
  if (recipe.algorithm === 'none') return { method: req.method, path: withQuery(query), headers, body };
  const text = signedText(recipe, { method: req.method, path: req.path, query, body, params: paramsOf(req), fields: hookFields(req), headers });
  const signature = await signatureOf(recipe, text);
  const place = recipe.place;
  if ('header' in place) {
    headers[place.header.toLowerCase()] = (place.prefix || '') + signature;
    return { method: req.method, path: withQuery(query), headers, body };
  }
  if ('query' in place) {
    const pair = formText([[place.query, signature]]);
    return { method: req.method, path: withQuery(query ? query + '&' + pair : pair), headers, body };
  }
  const fields = Object.assign({}, req.fields, { [place.field]: signature });
  const signed = serialise(Object.assign({}, req, { fields }));
  return { method: req.method, path: withQuery(signed.query), headers, body: signed.body };
}
`;
