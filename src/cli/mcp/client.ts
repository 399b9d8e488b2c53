import type { AggmockTarget } from './target.ts';

/**
 * A tool's failure, in words the calling agent can act on: the field, what was expected, the fix.
 * The MCP server answers it as a tool error (`isError: true`), never as a crash.
 */
export class ToolError extends Error {}

/** How long a request to aggmock may take before the tool gives up (a settled wait adds its own). */
const REQUEST_TIMEOUT_MS = 30_000;

export interface AggmockRequest {
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  /** The admin API (`/__admin`): sends the bearer token. Otherwise the aggregator API: sends the API key. */
  admin?: boolean;
  timeoutMs?: number;
}

/** One request to the target aggmock; its JSON answer, or a {@link ToolError} that says what went wrong. */
export async function callAggmock(target: AggmockTarget, request: AggmockRequest): Promise<unknown> {
  const url = new URL(request.path, target.url);
  for (const [key, value] of Object.entries(request.query ?? {})) {
    if (value !== undefined) url.searchParams.set(key, String(value));
  }
  const headers: Record<string, string> = { accept: 'application/json' };
  if (request.body !== undefined) headers['content-type'] = 'application/json';
  if (request.admin) {
    if (target.adminToken) headers.authorization = `Bearer ${target.adminToken}`;
  } else {
    const key = target.config.auth.apiKeys[0];
    const header = target.config.auth.apiKeyHeaders[0];
    if (key && header) headers[header] = key;
  }
  let response: Response;
  try {
    response = await fetch(url, {
      method: request.method,
      headers,
      ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
      redirect: 'manual',
      signal: AbortSignal.timeout(request.timeoutMs ?? REQUEST_TIMEOUT_MS),
    });
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    const why = cause?.code ?? cause?.message ?? (error as Error).message;
    throw new ToolError(
      target.mode === 'remote'
        ? `cannot reach aggmock at ${target.url} (${why}). Is it running? Start it with \`npx aggmock serve\`, or run \`aggmock mcp\` without --url to embed one.`
        : `the embedded aggmock at ${target.url} did not answer ${request.method} ${url.pathname} (${why}).`,
    );
  }
  const text = await response.text();
  let json: unknown;
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch {
    throw new ToolError(
      `${target.url} answered ${request.method} ${url.pathname} with HTTP ${response.status} and a body that is not JSON: is it an aggmock?`,
    );
  }
  if (response.status >= 400) throw new ToolError(describeApiError(response.status, json, request, target));
  return json;
}

/** aggmock's JSON error (`message` and `errors[]` naming each field), as one message with the fix. */
function describeApiError(status: number, json: unknown, request: AggmockRequest, target: AggmockTarget): string {
  const body = (json ?? {}) as { message?: unknown; msg?: unknown; errors?: unknown };
  const message = typeof body.message === 'string' ? body.message : typeof body.msg === 'string' ? body.msg : `HTTP ${status}`;
  const fields = Array.isArray(body.errors)
    ? body.errors.map((e: { field?: unknown; message?: unknown; received?: unknown }) => {
        const got = e.received === undefined ? '' : ` (got ${JSON.stringify(e.received)})`;
        return `\n- ${String(e.field ?? '(body)')}: ${String(e.message ?? 'invalid')}${got}`;
      })
    : [];
  const fix =
    status === 401 && request.admin
      ? target.adminToken
        ? '\nThe admin token given to `aggmock mcp` (--admin-token, AGGMOCK_ADMIN_TOKEN) is not the one this aggmock wants.'
        : '\nThis aggmock wants an admin token: start `aggmock mcp` with --admin-token <token> (or AGGMOCK_ADMIN_TOKEN).'
      : status === 401
        ? '\nThis aggmock does not accept the API key `aggmock mcp` sends (config auth.apiKeys); give it the same --config.'
        : '';
  return `aggmock answered HTTP ${status} to ${request.method} ${request.path}: ${message}${fields.join('')}${fix}`;
}
