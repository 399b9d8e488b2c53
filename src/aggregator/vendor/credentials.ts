import { pemText } from '../../config/dialect.ts';
import type { OperatorApi } from '../../dialects/operator.ts';

/** Thrown when an operator credential is unknown to the vendor or cannot be read. */
export class OperatorCredentialError extends Error {
  override name = 'OperatorCredentialError';
}

/**
 * The operator credentials by the vendor's names: the operator API's development defaults,
 * overridden by config `operator.credentials`. A public key given as a file path is read here,
 * relative to the working folder.
 *
 * @example operatorCredentials(api, { publicKey: './operator.pub.pem' }).publicKey // '-----BEGIN PUBLIC KEY-----…'
 */
export function operatorCredentials(
  api: OperatorApi,
  given: Readonly<Record<string, string>>,
  vendor: string,
  cwd = process.cwd(),
): Readonly<Record<string, string>> {
  const names = Object.keys(api.credentials);
  for (const name of Object.keys(given)) {
    if (!Object.hasOwn(api.credentials, name))
      throw new OperatorCredentialError(
        `operator.credentials.${name}: the ${vendor} operator API takes ${names.length ? names.join(', ') : 'no credentials'}`,
      );
  }
  const out: Record<string, string> = {};
  for (const [name, spec] of Object.entries(api.credentials)) {
    const value = Object.hasOwn(given, name) ? (given[name] as string) : spec.default;
    out[name] = spec.kind === 'public-key' ? pemText(`operator.credentials.${name}`, value, cwd, OperatorCredentialError) : value;
  }
  return Object.freeze(out);
}
