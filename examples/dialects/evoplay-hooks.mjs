/**
 * Hooks of the example Evoplay dialect (evoplay.json): the text its MD5 signature covers, which no
 * recipe payload can say. Evoplay signs `project*version*<values>*secret`: the project id, the API
 * version, then each body field's value in the order sent, a nested object's values joined by ':',
 * then the secret key, all joined by '*'.
 *
 * A hook is one pure function: aggmock calls it to sign what it sends, and its reference wallet
 * calls it to check what it receives, so both sides agree by construction. It gets the request's
 * parts (method, path, query, body, params, fields, headers: see docs/dialects.md) and the
 * credentials by the dialect's names, and returns a string.
 */

/** A value as Evoplay's PHP writes it into the signed text: nested values joined by ':', true as 1, false and null as ''. */
function written(value) {
  if (value === null || value === undefined) return '';
  if (Array.isArray(value)) return value.map(written).join(':');
  if (typeof value === 'object') return Object.values(value).map(written).join(':');
  if (typeof value === 'boolean') return value ? '1' : '';
  return String(value);
}

export function signedText(parts, credentials) {
  const values = Object.values(parts.fields).map(written);
  return [credentials.projectId, credentials.version, ...values, credentials.secretKey].join('*');
}
