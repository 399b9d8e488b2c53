import type { z } from 'zod';
import { isSecretName, MASKED, maskedJson, maskedUrl } from '../shared/secrets.ts';

/* How a config error shows its issues (src/config/load.ts `describeIssues`): unions opened, values masked. */

/**
 * A refused value as an error quotes it, with no secret in it: `[masked]` when the key holding it
 * is secret-named (`isSecretName`: `admin.token`, `callbacks.signing.secrets.1`, a misnamed
 * `credentials.authtoken`) or sits in a secret-named map (`callbacks.credentials.<any>`); a URL
 * without its userinfo and token-like query values; an object with its secret-named fields masked.
 * So a terminal or CI log never shows a secret, and the other values are still quoted.
 */
export function shownValue(path: readonly PropertyKey[], value: unknown): string {
  if (value === undefined) return 'nothing';
  const names = path.filter((key): key is string => typeof key === 'string');
  const [parent, key] = names.slice(-2).length === 2 ? names.slice(-2) : [undefined, names.at(-1)];
  const inSecretMap = parent !== undefined && !SETTINGS_SECTIONS.has(parent) && isSecretName(parent);
  if ((key !== undefined && isSecretName(key)) || inSecretMap) return MASKED;
  if (typeof value === 'string' && value.includes('://')) {
    const masked = maskedUrl(value);
    return JSON.stringify(masked.includes(MASKED) || masked.includes('…@') ? masked : value);
  }
  return JSON.stringify(maskedJson(value) ?? MASKED);
}

/** Sections whose names sound secret but hold plain settings (`auth.mode`, `callbacks.signing.scheme`). */
const SETTINGS_SECTIONS = new Set(['auth', 'signing']);

/**
 * zod reports a value that fits no branch of a union as "Invalid input". When the value has the
 * type of exactly one branch, that branch's own issues say what is wrong (`wallet.players.p2.balance:
 * expected number`); when it has none, the types the branches take are listed.
 */
export function openUnions(issues: readonly z.core.$ZodIssue[]): z.core.$ZodIssue[] {
  return issues.flatMap((issue): z.core.$ZodIssue[] => {
    if (issue.code !== 'invalid_union' || issue.errors.length === 0) return [issue];
    const wrongType = (branch: readonly z.core.$ZodIssue[]) =>
      branch.find((i) => i.path.length === 0 && i.code === 'invalid_type') as z.core.$ZodIssueInvalidType | undefined;
    const fitting = issue.errors.filter((branch) => wrongType(branch) === undefined);
    if (fitting.length === 1) {
      return openUnions((fitting[0] ?? []).map((i) => ({ ...i, path: [...issue.path, ...i.path] })));
    }
    const expected = issue.errors.map((branch) => wrongType(branch)?.expected);
    if (fitting.length === 0 && expected.every((e) => e !== undefined)) {
      const words: Record<string, string> = {
        int: 'a whole number',
        number: 'a number',
        string: 'a string',
        object: 'an object',
      };
      const kinds = [...new Set(expected.map((e) => words[e as string] ?? (e as string)))];
      return [{ ...issue, message: `expected ${kinds.join(' or ')}` }];
    }
    return [issue];
  });
}
