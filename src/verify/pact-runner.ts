/**
 * The Pact Verifier side of `aggmock verify`, run in a child process (pact-child.ts): the Pact
 * core prints its report straight to the process's stdout from native code, so running it apart
 * keeps `--json` output and test logs clean. The parent reads the Verifier's JSON results.
 */
import '../contracts/no-tracking.ts';
import type { IncomingHttpHeaders } from 'node:http';
import { Verifier } from '@pact-foundation/pact';
import { CONTRACT_WEBHOOK_PATH, WRONG_SECRET } from '../contracts/interactions.ts';
import { DEFAULT_HEADER_NAMES, type HeaderNames, type SigningScheme, signPayload } from '../signing/index.ts';

export interface PactRunnerInput {
  pactFile: string;
  /** Origin of the webhook, e.g. http://127.0.0.1:4001. */
  providerBaseUrl: string;
  /** Path (and query) of the webhook, e.g. /callback/webhook. */
  webhookPath: string;
  stateUrl?: string;
  signing: { scheme: SigningScheme; secrets: string[]; headers: HeaderNames };
  /** Transaction ids of interactions that must arrive signed with a wrong secret. */
  wrongSecretTransactionIds: string[];
  timeoutMs: number;
  resultFile: string;
}

export interface PactRunnerOutput {
  /** The Verifier's JSON report (`{errors, interactionResults, notices, output}`), when it ran. */
  report?: unknown;
  /** Why it could not run. */
  error?: string;
}

interface FilterRequest {
  path: string;
  url: string;
  body: unknown;
  headers: IncomingHttpHeaders;
}

/**
 * Re-signs each contract request as it passes the Verifier's proxy. The proxy has parsed and
 * re-serialises the JSON body, so the signature is computed over exactly the bytes that are
 * forwarded, and Content-Length is fixed to match. The bad-signature interaction is signed with
 * a wrong secret (fresh timestamp), so it arrives refused for the right reason.
 */
export function resigningFilter(input: Pick<PactRunnerInput, 'signing' | 'wrongSecretTransactionIds' | 'webhookPath'>) {
  const names = { ...DEFAULT_HEADER_NAMES, ...input.signing.headers };
  const signatureHeaders = [names.signature, names.webhookId, names.webhookTimestamp, names.webhookSignature].map((n) =>
    n.toLowerCase(),
  );
  return (req: FilterRequest, _res: unknown, next: () => void) => {
    if (req.path !== CONTRACT_WEBHOOK_PATH) {
      next();
      return;
    }
    const body = Buffer.isBuffer(req.body) ? req.body.toString('utf8') : JSON.stringify(req.body ?? {});
    let transactionId: unknown;
    try {
      transactionId = (JSON.parse(body) as { transactionId?: unknown }).transactionId;
    } catch {
      transactionId = undefined;
    }
    const wrong = typeof transactionId === 'string' && input.wrongSecretTransactionIds.includes(transactionId);
    const signed = signPayload({
      scheme: input.signing.scheme,
      secrets: wrong ? [WRONG_SECRET] : input.signing.secrets,
      headerNames: names,
      payload: body,
    });
    for (const name of signatureHeaders) delete req.headers[name];
    for (const [name, value] of Object.entries(signed)) req.headers[name.toLowerCase()] = value;
    req.headers['content-length'] = String(Buffer.byteLength(body));
    req.body = Buffer.from(body, 'utf8');
    req.url = input.webhookPath;
    next();
  };
}

export async function runPactVerifier(input: PactRunnerInput): Promise<PactRunnerOutput> {
  const verifier = new Verifier({
    provider: 'integrator-webhook',
    providerBaseUrl: input.providerBaseUrl,
    pactUrls: [input.pactFile],
    logLevel: 'error',
    timeout: input.timeoutMs,
    ...(input.stateUrl === undefined ? {} : { providerStatesSetupUrl: input.stateUrl }),
    requestFilter: resigningFilter(input) as never,
  });
  try {
    const json = await verifier.verifyProvider();
    return { report: parseReport(json) };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const report = parseReport(message);
    return report === undefined ? { error: message } : { report };
  }
}

function parseReport(text: unknown): unknown {
  if (typeof text !== 'string') return text ?? undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
