import { z } from 'zod';
import { credentialName, fieldName } from './schema-parts.ts';

/* How a dialect signs a request (sign.ts follows the recipe both ways): where, over what, with what. */

/** Where a signature is written. */
const placement = z.union([
  z.strictObject({ header: z.string().min(1).max(128), prefix: z.string().max(64).optional() }),
  z.strictObject({ field: fieldName.describe('a body field (JSON or form), written last') }),
  z.strictObject({ query: fieldName.describe('a query parameter, appended last') }),
]);

/** What is signed. */
const payload = z.union([
  z.strictObject({ over: z.literal('body').describe('the body bytes as sent (without a signature field)') }),
  z.strictObject({
    over: z.literal('params').describe('the request parameters (form or query fields, or a JSON body\u2019s top level)'),
    exclude: z.array(fieldName).default([]).describe('parameters left out (the signature field is always left out)'),
    sort: z.enum(['key', 'none']).default('key'),
    pair: z.string().max(4).default('='),
    join: z.string().max(4).default('&'),
    skipEmpty: z.boolean().default(false).describe('leave out parameters whose value is empty'),
    prefix: z.string().max(256).default('').describe('template written before, e.g. "{credential.salt}"'),
    suffix: z.string().max(256).default('').describe('template written after, e.g. "{credential.secretKey}"'),
    headers: z
      .array(z.string().regex(/^[A-Za-z0-9-]{1,128}$/, 'expected a header name such as "X-Nonce"'))
      .max(8)
      .default([])
      .describe(
        'request headers signed as if they were parameters, under these names (Slotegrator: X-Merchant-Id, X-Timestamp, X-Nonce)',
      ),
    escape: z
      .enum(['none', 'form'])
      .default('none')
      .describe(
        'how names and values are written: as they are, or escaped as PHP\u2019s http_build_query writes them (spaces as +, all but letters, digits, - _ . as %XX)',
      ),
  }),
  z.strictObject({
    over: z.literal('template'),
    template: z.string().max(512).describe('text with {body}, {query}, {method}, {path} and {credential.name}'),
  }),
  z.strictObject({
    over: z
      .literal('hook')
      .describe('the text the hooks module\u2019s signedText returns (Evoplay joins values with "*"); needs `hooks`'),
    credentials: z
      .array(credentialName)
      .max(8)
      .default([])
      .describe(
        'the credentials the hook writes into the text (a secret suffix): verify signs with wrong ones to test the wallet',
      ),
  }),
]);

export const SIGNING_ALGORITHMS = [
  'hmac-sha1',
  'hmac-sha256',
  'hmac-sha512',
  'md5',
  'sha1',
  'sha256',
  'rsa-sha256',
  'ecdsa-sha256',
] as const;
export type SigningAlgorithm = (typeof SIGNING_ALGORITHMS)[number];

/** A signature's characters in each encoding, as a regular expression without anchors (contracts and OpenAPI match by it). */
export const SIGNATURE_CHARACTERS = {
  hex: '[0-9a-f]+',
  HEX: '[0-9A-F]+',
  base64: '[A-Za-z0-9+/]+=*',
  base64url: '[A-Za-z0-9_-]+=*',
} as const;

/** How a request is signed: a recipe, or aggmock's own header schemes (`timestamped`, `hmac-hex`, `standard-webhooks`). */
export const recipeSchema = z.union([
  z.strictObject({ algorithm: z.literal('none') }),
  z.strictObject({
    algorithm: z.literal('scheme').describe("aggmock's header schemes, keyed by callbacks.signing"),
    scheme: z.enum(['timestamped', 'hmac-hex', 'standard-webhooks']).optional().describe('absent: callbacks.signing.scheme'),
  }),
  z.strictObject({
    algorithm: z.enum(SIGNING_ALGORITHMS),
    key: credentialName
      .optional()
      .describe('the credential that keys an HMAC or holds the private key (PEM); digests take the secret from the payload'),
    payload,
    encoding: z.enum(['hex', 'HEX', 'base64', 'base64url']).default('hex'),
    place: placement,
  }),
]);
export type Recipe = z.infer<typeof recipeSchema>;
export type SignedRecipe = Extract<Recipe, { place: unknown }>;
