/**
 * The reference wallet's behaviour: verify every signature, then apply the event atomically in the
 * store. This is the part to copy; faults.ts holds the deliberately broken variants of it.
 */
import type { AggmockConfig } from '../config/index.ts';
import { SignatureError, verifySignature } from '../signing/index.ts';
import type { UnreadableCall, WalletEvent } from './events.ts';
import type { WalletReply } from './replies.ts';
import type { WalletStore } from './store.ts';

/** What a signature check gets: the raw body, the headers and the wallet's signing settings. */
export interface SignatureInput {
  rawBody: Uint8Array;
  headers: Headers;
  signing: AggmockConfig['callbacks']['signing'];
  /** Unix seconds, injected by tests. */
  now?: number;
}

/** `undefined` when the signature is good; otherwise why not, for the 401. */
export type SignatureCheck = (input: SignatureInput) => string | undefined;

/** How the wallet turns a verified, parsed callback into a reply, and how (whether) it verifies. */
export interface WalletBehaviour {
  /** `null`: no signature check at all. */
  checkSignature: SignatureCheck | null;
  /** Only `debit-only-signature`: in a vendor dialect, the signature is checked on debits only. */
  signatureScope?: 'debits';
  /** Only `negative-amounts`: the body schema lets negative amounts through. */
  allowNegativeAmounts?: boolean;
  /** Only `malformed-json-crash`: what a body that does not parse gets instead of a 400 (undefined: the 400). */
  onUnparsable?: (parsed: UnreadableCall) => WalletReply | undefined;
  /** Only `rounds-amounts`: what the wallet does to the body bytes, after the signature check, before reading them. */
  rewriteBody?: (rawBody: Uint8Array) => Uint8Array;
  applyCallback(event: WalletEvent): Promise<WalletReply>;
}

/** The reference behaviour: verify every signature, apply each event atomically in the store. */
export function referenceBehaviour(store: WalletStore): WalletBehaviour {
  return { checkSignature: signatureRefusal, applyCallback: async (event) => store.applyEvent(event) };
}

/**
 * The reference signature check: any one valid signature of any active secret, timestamp within
 * the tolerance in both directions. The message is the signing module's ("Missing signature
 * header…", "…is 600s old…", "No signature matches…").
 */
export function signatureRefusal({ rawBody, headers, signing, now }: SignatureInput): string | undefined {
  try {
    verifySignature({
      scheme: signing.scheme,
      secrets: signing.secrets, // several while a secret is rotated: any one may match
      payload: rawBody,
      headerNames: signing.headers,
      headers,
      toleranceSeconds: signing.toleranceSeconds,
      ...(now === undefined ? {} : { now }),
    });
    return undefined;
  } catch (error) {
    if (!(error instanceof SignatureError)) throw error;
    return error.message;
  }
}
