import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import {
  type Credentials,
  credentialMask,
  type Dialect,
  maskedRequest,
  type ShownRequest,
  type SignOptions,
} from '../dialects/index.ts';
import { cached } from '../shared/index.ts';
import { type AggmockConfig, API_KEY_CREDENTIAL, dialectOfSetting, signingKeys } from './schema.ts';

type CallbacksSettings = AggmockConfig['callbacks'];

/*
 * The dialect the callbacks settings speak, with its credentials: the one place a surface asks
 * which wire it talks and with which keys. `default` and `betnex` are built-in dialects like the
 * vendors'; a profile file was converted to a dialect when the configuration was validated.
 */

const dialects = new WeakMap<CallbacksSettings, Dialect>();
const credentials = new WeakMap<CallbacksSettings, Credentials>();
const masks = new WeakMap<CallbacksSettings, (text: string) => string>();
const signOptions = new WeakMap<CallbacksSettings, SignOptions>();

/**
 * The dialect of `callbacks.dialect`: the one resolver (`default` is built from the four settings
 * it reads). The same object for the same settings.
 *
 * @example dialectOf(config.callbacks).operations.bet?.path // '/transaction/bet' under hub88
 */
export function dialectOf(callbacks: CallbacksSettings): Dialect {
  return cached(dialects, callbacks, (c) => dialectOfSetting(c.dialect, c));
}

/** Thrown when a credential cannot be read (a private key file that is missing). */
export class CredentialError extends Error {
  override name = 'CredentialError';
}

/**
 * The credentials by the vendor's names: the dialect's development values, overridden by
 * `callbacks.credentials` (`--credential`); an `apiKey` with no development value is
 * `callbacks.apiKey` (Betnex's `api_key`). A private key given as a file path is read here,
 * relative to the working folder. The config's validation has already refused unknown names and
 * missing values.
 */
export function credentialsOf(callbacks: CallbacksSettings, cwd = process.cwd()): Credentials {
  return cached(credentials, callbacks, (c) => {
    const dialect = dialectOf(c);
    const out: Record<string, string> = {};
    for (const [name, spec] of Object.entries(dialect.credentials)) {
      const given = Object.hasOwn(c.credentials, name) ? c.credentials[name] : undefined;
      const value = given ?? spec.default ?? (name === API_KEY_CREDENTIAL ? c.apiKey : undefined);
      if (value === undefined) continue;
      out[name] =
        spec.kind === 'private-key' && given !== undefined
          ? pemText(`callbacks.credentials.${name}`, given, cwd, CredentialError)
          : value;
    }
    return Object.freeze(out);
  });
}

/**
 * A key given as PEM text, or as the path (from `cwd`) of a file that holds it: the dialects' private
 * keys and the operator APIs' public keys. A file that cannot be read is a `Refusal` naming `setting`.
 */
export function pemText(setting: string, value: string, cwd: string, Refusal: new (message: string) => Error): string {
  if (value.includes('-----BEGIN')) return value;
  const path = resolve(cwd, value);
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw new Refusal(
      `${setting}: expected PEM text or the path of a PEM file; ${path} cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
    );
  }
}

/**
 * A rendered request as it may be kept and shown (journal, inspector, `send`, verify's reports):
 * the secret credentials of the configured dialect masked, in the path and query, the headers and
 * the body. The one place every surface masks them.
 *
 * @example shownRequest(config.callbacks, { path: '?callerPassword=pw', headers: {}, body: '' }).path // '?callerPassword=[masked]'
 */
export function shownRequest<T extends ShownRequest>(callbacks: CallbacksSettings, request: T): T {
  const mask = cached(masks, callbacks, (c) => credentialMask(dialectOf(c), credentialsOf(c)));
  return maskedRequest(mask, request);
}

/** What signing needs besides the credentials: aggmock's header schemes (`signing: {algorithm: "scheme"}`). The same object for the same settings. */
export function signOptionsOf(callbacks: CallbacksSettings): Readonly<SignOptions> {
  return cached(signOptions, callbacks, (c) => Object.freeze({ scheme: signingKeys(c.signing) }));
}
