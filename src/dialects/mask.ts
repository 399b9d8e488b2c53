import type { Credentials } from './request.ts';
import type { Dialect } from './schema.ts';

/*
 * Credentials in a rendered request, masked wherever the request is kept or shown (the deliveries
 * journal, the inspector, `aggmock send`, verify's reports): a caller password in the query (Blue
 * Ocean), an API key in Authorization (Red Tiger), a passkey in the JSON body (Habanero), an auth
 * token in the query (Evolution). Signatures stay: they are made from a secret, not the secret.
 * Ids the vendor sends in the clear (kind "text": callerId, merchantId, brandId) stay too.
 */

export const MASKED_CREDENTIAL = '[masked]';

/** A request as kept or shown: its path (with its query), headers and body. */
export interface ShownRequest {
  path: string;
  headers: Record<string, string>;
  body: string;
}

/**
 * The function that masks a dialect's secret credentials in any text of a request, in each form
 * they travel in: as they are, escaped in JSON, percent-encoded in a query or a form.
 *
 * @example credentialMask(blueocean, { callerPassword: 'pw 1' })('a?callerPassword=pw+1') // 'a?callerPassword=[masked]'
 */
export function credentialMask(dialect: Dialect, credentials: Credentials): (text: string) => string {
  const forms = new Set<string>();
  for (const [name, spec] of Object.entries(dialect.credentials)) {
    const value = credentials[name];
    if (spec.kind === 'text' || value === undefined || value === '') continue;
    forms.add(value);
    forms.add(JSON.stringify(value).slice(1, -1));
    forms.add(encodeURIComponent(value));
    forms.add(new URLSearchParams({ v: value }).toString().slice(2));
  }
  // The longest first, so a secret that contains another is masked whole.
  const all = [...forms].sort((a, b) => b.length - a.length);
  if (all.length === 0) return nothingToMask;
  return (text) => {
    let out = text;
    for (const form of all) if (out.includes(form)) out = out.split(form).join(MASKED_CREDENTIAL);
    return out;
  };
}

/** The mask of a dialect with no secret credentials (a profile's): a request is shown as it is. */
const nothingToMask = (text: string): string => text;

/** A request with its credentials masked (path and query, every header value, the body); itself when there is nothing to mask. */
export function maskedRequest<T extends ShownRequest>(mask: (text: string) => string, request: T): T {
  if (mask === nothingToMask) return request;
  return {
    ...request,
    path: mask(request.path),
    headers: Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, mask(value)])),
    body: mask(request.body),
  };
}
