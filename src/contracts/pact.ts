import './no-tracking.ts';
import { createHash } from 'node:crypto';
import { HTTPResponseStatusClass, MatchersV3, type PactV4 } from '@pact-foundation/pact';
import { buildCallbackBody, type CallbacksConfig, type EnqueueRequest } from '../callbacks/events.ts';
import { encodeAmount } from '../money/index.ts';
import { signCallback, type Wire, wireOf } from '../profiles/index.ts';
import { setAt } from '../shared/index.ts';
import { DEFAULT_HEADER_NAMES, type SigningScheme } from '../signing/index.ts';
import { CONTRACT_WEBHOOK_PATH, type ContractInteraction, WRONG_SECRET } from './interactions.ts';

const { like, regex, matchStatus } = MatchersV3;

/** What `PactV4.addInteraction()` hands back (the type is not exported by name). */
export type UnconfiguredInteraction = ReturnType<PactV4['addInteraction']>;

/**
 * The moment every contract example is stamped with (2025-01-01T00:00:00Z): the engine runs on a
 * fake clock set to it, so the pact file is the same bytes on every run.
 */
export const CONTRACT_EPOCH_MS = Date.parse('2025-01-01T00:00:00.000Z');

/** The media type a reply must have: JSON, with any parameters, in any case (Pact matches the whole value). */
export const JSON_CONTENT_TYPE = String.raw`(?i)^\s*application/json\s*(;.*)?$`;

/** What each scheme's signature header values look like, whatever the secret (any number of them: rotation). */
export function signatureHeaderPatterns(
  scheme: SigningScheme,
): Record<'signature' | 'webhookId' | 'webhookTimestamp' | 'webhookSignature', string | undefined> {
  switch (scheme) {
    case 'timestamped':
      return {
        signature: String.raw`^t=\d+(,v1=[0-9a-f]{64})+$`,
        webhookId: undefined,
        webhookTimestamp: undefined,
        webhookSignature: undefined,
      };
    case 'hmac-hex':
      return {
        signature: '^[0-9a-f]{64}(,[0-9a-f]{64})*$',
        webhookId: undefined,
        webhookTimestamp: undefined,
        webhookSignature: undefined,
      };
    case 'standard-webhooks':
      return {
        signature: undefined,
        webhookId: String.raw`^\S+$`,
        webhookTimestamp: String.raw`^\d+$`,
        webhookSignature: '^v1,[A-Za-z0-9+/]{43}=( v1,[A-Za-z0-9+/]{43}=)*$',
      };
  }
}

/** The engine request that produces this interaction's callback. */
export function enqueueRequestOf(interaction: ContractInteraction): EnqueueRequest {
  const e = interaction.event;
  if (e.kind === 'rollback') {
    return {
      kind: 'rollback',
      playerId: e.playerId,
      amountMinor: e.amountMinor,
      referenceTransactionId: e.transactionId,
      ...(e.rollbackTransactionId === undefined ? {} : { transactionId: e.rollbackTransactionId }),
    };
  }
  return { kind: e.kind, playerId: e.playerId, amountMinor: e.amountMinor, transactionId: e.transactionId };
}

/** The exact body bytes the engine sends for this interaction under `config` (same builder as the engine). */
export function contractBody(interaction: ContractInteraction, config: CallbacksConfig): string {
  const e = interaction.event;
  const byReference = e.kind === 'rollback' && wireOf(config).rollbackStyle === 'reference';
  // On a wire with the API key in the body, the bad-signature rule is a wrong key.
  const sender = interaction.signature === 'wrong-secret' ? { ...config, apiKey: WRONG_SECRET } : config;
  return buildCallbackBody(
    {
      kind: e.kind,
      transactionId: byReference ? (e.rollbackTransactionId ?? `${e.transactionId}-reversal`) : e.transactionId,
      ...(e.kind === 'rollback' ? { referenceTransactionId: e.transactionId } : {}),
      playerId: e.playerId,
      amountMinor: e.amountMinor,
      createdAt: CONTRACT_EPOCH_MS,
    },
    sender,
  );
}

/** Sources whose value is aggmock's choice and varies per event: their fields are matched by type only. */
const BY_TYPE_SOURCES = [
  'transactionId',
  'referenceTransactionId',
  'roundId',
  'gameId',
  'timestamp',
  'timestampSeconds',
] as const;

/** The body fields of `kind` matched by type on this wire (default: transactionId, referenceTransactionId, …). */
function byTypeFields(wire: Wire, kind: ContractInteraction['event']['kind']): Set<string> {
  return new Set(BY_TYPE_SOURCES.map((s) => wire.fieldOf(kind, s)).filter((f): f is string => f !== undefined));
}

/** An object with `value` at a dotted path: "data.money" → `{data: {money: value}}`. */
function atPath(path: string, value: unknown, target: Record<string, unknown> = {}): Record<string, unknown> {
  setAt(target, path, value);
  return target;
}

/**
 * A balance as the wallet may write it: a JSON number or a decimal string ("995.29"), the example
 * in the wire's own form. Pact's regex matcher reads a number by its text, so one rule takes both;
 * whether the amount is exact is verify's money checks' business, as it is for `like`.
 */
function balanceMatcher(example: number | string): unknown {
  return { 'pact:matcher:type': 'regex', regex: BALANCE_TEXT, value: example };
}
export const BALANCE_TEXT = String.raw`^-?\d+(\.\d+)?$`;

/** The reply body the rule requires, in the wire's shape: the balance (and success flag), or the rejection's code or flag. */
function replyTemplate(wire: Wire, reply: ContractInteraction['reply']): Record<string, unknown> {
  const { rules } = wire.reading();
  const success = rules.success;
  if (reply.accepted) {
    // Set one after the other: two paths under one parent ("data.ok", "data.money") must both stay.
    const body = success ? atPath(success.path, success.equals) : {};
    return atPath(rules.balance, balanceMatcher(encodeAmount(reply.balanceMinor, wire.codec())), body);
  }
  const code = wire.code(reply.error);
  if (code !== undefined) return atPath(rules.error, code);
  // A wire without codes (Betnex): a refusal is its success flag saying no.
  return success && typeof success.equals === 'boolean' ? atPath(success.path, !success.equals) : {};
}

/** The signature headers of the example request: a real signature at the contract epoch. */
function exampleSignatureHeaders(
  interaction: ContractInteraction,
  config: CallbacksConfig,
  body: string,
): Record<string, unknown> {
  const signing = config.signing;
  const wire = wireOf(config);
  if (wire.signingScheme === 'none') return {};
  const names = { ...DEFAULT_HEADER_NAMES, ...signing.headers };
  const headers = signCallback(wire, { ...signing, headers: names }, body, {
    ...(interaction.signature === 'wrong-secret' ? { secrets: [WRONG_SECRET] } : {}),
    timestamp: Math.floor(CONTRACT_EPOCH_MS / 1000),
    id: `msg_${createHash('sha256').update(interaction.event.transactionId).digest('hex').slice(0, 24)}`,
  });
  const patterns = signatureHeaderPatterns(wire.signingScheme);
  const out: Record<string, unknown> = {};
  for (const key of ['signature', 'webhookId', 'webhookTimestamp', 'webhookSignature'] as const) {
    const pattern = patterns[key];
    const name = names[key];
    const example = headers[name];
    if (pattern && example !== undefined) out[name] = regex(pattern, example);
  }
  return out;
}

/**
 * Adds one interaction to a Pact: states with params, the request exactly as the engine builds it
 * (signature headers and ids by pattern/type), the reply the rule requires.
 */
export function describeInteraction(builder: UnconfiguredInteraction, interaction: ContractInteraction, config: CallbacksConfig) {
  let b = builder;
  for (const state of interaction.states) b = b.given(state.name, state.params);
  const body = contractBody(interaction, config);
  const wire = wireOf(config);
  const byType = byTypeFields(wire, interaction.event.kind);
  const template: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(JSON.parse(body) as Record<string, unknown>)) {
    template[key] = byType.has(key) ? like(value) : value;
  }
  const reply = interaction.reply;
  return b
    .uponReceiving(interaction.description)
    .withRequest('POST', CONTRACT_WEBHOOK_PATH, (req) => {
      req.headers({ 'Content-Type': 'application/json', ...exampleSignatureHeaders(interaction, config, body) } as never);
      req.jsonBody(template);
    })
    .willRespondWith(
      reply.accepted
        ? matchStatus(200, HTTPResponseStatusClass.Success)
        : reply.status === 401 && wire.code('INVALID_SIGNATURE') !== undefined
          ? 401
          : // A wire without codes answers every refusal alike (Betnex: HTTP 200), the bad key too.
            matchStatus(reply.status === 401 ? 400 : reply.status, HTTPResponseStatusClass.ClientError),
      (res) => {
        // Any JSON media type, any parameters, any case: Express and Fastify answer "application/json; charset=utf-8".
        res.headers({ 'Content-Type': regex(JSON_CONTENT_TYPE, 'application/json') } as never);
        res.jsonBody(replyTemplate(wire, reply));
      },
    );
}
