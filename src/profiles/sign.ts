import { type HeaderNames, signPayload } from '../signing/index.ts';
import type { Wire } from './wire.ts';

/** The `callbacks.signing` settings a callback is signed with. */
export interface CallbackSigning {
  secrets: string[];
  headers: HeaderNames;
}

export interface SignCallbackOptions {
  /** Unix seconds; default now. */
  timestamp?: number;
  /** standard-webhooks message id; default a fresh one. */
  id?: string;
  /** Sign with these secrets instead of the configured ones (a wrong secret, say). */
  secrets?: string[];
}

/**
 * The signature headers of one callback under the wire: the profile's scheme (or the configured
 * one), the configured secrets and header names; none at all when the profile signs with `none`
 * (its wallets check an API key in the body instead). The engine, verify and the contracts all
 * sign here.
 */
export function signCallback(
  wire: Wire,
  signing: CallbackSigning,
  payload: string,
  options: SignCallbackOptions = {},
): Record<string, string> {
  if (wire.signingScheme === 'none') return {};
  return signPayload({
    scheme: wire.signingScheme,
    secrets: options.secrets ?? signing.secrets,
    headerNames: signing.headers,
    payload,
    ...(options.timestamp === undefined ? {} : { timestamp: options.timestamp }),
    ...(options.id === undefined ? {} : { id: options.id }),
  });
}
