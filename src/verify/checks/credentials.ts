import { carriedSecrets, carriesSessionToken, credentialsIn, hasStaticCredential } from '../../dialects/capabilities.ts';
import type { Credentials, Dialect, Field, Rendered, UnsignedRequest } from '../../dialects/index.ts';
import { describeOutcome } from '../client.ts';
import { type CheckContext, fail, type Step } from '../context.ts';
import type { SendOptions } from '../dialect-client.ts';
import type { VerifyWire } from '../wire.ts';
import { affordable, type Check, playerAndBalance } from './shared.ts';

/*
 * Who may call the wallet: the static credential a wire carries as it is (a query token, a body
 * passkey, an Authorization header, a caller password) and the session token a player's
 * authenticate/check call is made with. A wallet that ignores either lets anyone move money.
 */

export const CREDENTIAL_CHECKS: readonly Check[] = [
  {
    id: 'wrong-credential',
    rule: 'A callback whose static credential (query token, body passkey, Authorization key, caller password) is wrong is refused and moves no money.',
    hint: 'Compare every credential the call carries with yours (in constant time) before anything else; refuse a mismatch with the vendor’s authentication error.',
    source:
      'Evolution authToken → HTTP 401 (valkyrie provider/evolution/middleware.go); Red Tiger Basic key → HTTP 401 code 100 (valkyrie provider/redtiger/middleware.go); Habanero auth.passkey → INVALID_PASSKEY; Blue Ocean callerId/callerPassword (docs/research/vendor-rules.md)',
    appliesTo: (wire) => carriesStaticSecret(wire),
    async run(ctx) {
      await eachCredentialRefused(ctx, 'wrong', (name) => ({
        credentials: (real: Credentials) => ({ ...real, [name]: `aggmock-wrong-${name}` }),
      }));
    },
  },
  {
    id: 'missing-credential',
    rule: 'A callback without its static credential (the query parameter, body field or header left out) is refused and moves no money.',
    hint: 'Treat a missing credential like a wrong one: refuse before reading amounts or players, never fall back to a default.',
    source: 'as wrong-credential',
    appliesTo: (wire) => carriesStaticSecret(wire),
    async run(ctx) {
      await eachCredentialRefused(ctx, 'missing', (name) => ({
        request: (req: UnsignedRequest) => leaveOut(ctx.wire.dialect, req, name),
      }));
    },
  },
  {
    id: 'session-takeover',
    rule: 'An authenticate/check call for a known player with a session token the wallet never issued is refused, also when it is sent again.',
    hint: 'Look the token up in the sessions you issued and require it to belong to the player; never create or adopt a session from a token a caller made up.',
    source:
      'Evolution Test_checkUsingInvalidUserId/INVALID_SID; Red Tiger 301 on an invalid token (valkyrie); 100HP 604 session not found; GrooveTech gamesessionid checked on getaccount (docs/research/vendor-rules.md)',
    appliesTo: checksTokenOnAuthenticate,
    async run(ctx) {
      const p = ctx.player;
      const guessed = `verify-${ctx.settings.runId}-guessed-token-${p}-0123456789abcdef`.slice(0, 128);
      const call = { operation: 'authenticate' as const, playerId: p, sessionToken: guessed };
      const auth = await ctx.call(`authenticate ${p} with a session token the wallet never issued`, call);
      if (auth.reply.verdict !== 'rejected')
        fail(
          `an authenticate of the known player ${p} with the made-up token ${guessed}: expected a refusal (else anyone can take the session over), got ${describeOutcome(auth.exchange)}`,
        );
      // Refused, it stays invalid: a wallet that refuses a made-up token but keeps it as a session accepts it the second time.
      const again = await ctx.call(`the same authenticate again (${p}, the same made-up token)`, call);
      if (again.reply.verdict !== 'rejected')
        fail(
          `the same made-up token sent again: expected a refusal again, got an acceptance (the wallet kept the token it refused as a session): ${describeOutcome(again.exchange)}`,
        );
    },
  },
];

/** Why each check does not apply, for index.ts's report of checks not run. */
export const CREDENTIAL_NOT_APPLICABLE: Record<string, string> = {
  'wrong-credential':
    'carries no secret as it is outside a top-level body field (its keys, if any, are judged by the signature checks or wrong-api-key)',
  'missing-credential':
    'carries no secret as it is outside a top-level body field (its keys, if any, are judged by the signature checks or missing-api-key)',
  'session-takeover': 'has no authenticate call that checks a session token',
};

/** Whether the wire carries a secret as it is that wrong-api-key (top-level body fields) does not already try. */
function carriesStaticSecret(wire: VerifyWire): boolean {
  return !hasStaticCredential(wire.dialect) && carriedSecrets(wire.dialect).length > 0;
}

function checksTokenOnAuthenticate(wire: VerifyWire): boolean {
  return wire.has('authenticate') && carriesSessionToken(wire.dialect) && wire.dialect.session.checkedOn.includes('authenticate');
}

/** The request without whatever carries credential `name`: its header, query parameter or (nested) body field. */
export function leaveOut(dialect: Dialect, req: UnsignedRequest, name: string): void {
  const carries = (field: Field) => credentialsIn(field).includes(name);
  const op = dialect.operations.bet;
  for (const [header, field] of [...Object.entries(dialect.request.headers), ...Object.entries(op?.headers ?? {})])
    if (carries(field)) delete req.headers[header.toLowerCase()];
  for (const [param, field] of Object.entries(dialect.request.query)) if (carries(field)) delete req.query[param];
  leaveOutOf(op?.fields ?? {}, req.fields, carries);
}

function leaveOutOf(fields: Record<string, Field>, rendered: Record<string, Rendered>, carries: (f: Field) => boolean): void {
  for (const [key, field] of Object.entries(fields)) {
    if (!carries(field)) continue;
    const value = rendered[key];
    if ('object' in field && value !== null && typeof value === 'object' && !Array.isArray(value))
      leaveOutOf(field.object, value as Record<string, Rendered>, carries);
    else delete rendered[key];
  }
}

/**
 * For each secret the wire carries, a DEBIT with it `how` (wrong or missing): each must be refused
 * and move no money. The refusal may be any (a bare 401 is Evolution's); the failure names the
 * dialect's code for it.
 */
async function eachCredentialRefused(
  ctx: CheckContext,
  how: 'wrong' | 'missing',
  forgeryOf: (name: string) => SendOptions['forgery'],
): Promise<void> {
  const { p, before } = await playerAndBalance(ctx);
  const amount = affordable(ctx, before, p, 1);
  for (const name of carriedSecrets(ctx.wire.dialect)) {
    const what = `a DEBIT with a ${how} ${name}`;
    const tx = ctx.tx();
    const debit = { kind: 'debit' as const, playerId: p, amountMinor: amount, transactionId: tx };
    const step = await ctx.send(`DEBIT ${ctx.money(amount)} with a ${how} ${name}`, debit, { forgery: forgeryOf(name) });
    ctx.undoWhatMoved(step, p, before, what);
    if (step.reply.accepted && step.reply.balanceMinor === undefined) ctx.undoDebit(p, tx, amount);
    expectRefused(ctx, step, what);
    await ctx.expectBalanceNow(p, before, `${what} must move no money`);
  }
}

function expectRefused(ctx: CheckContext, step: Step, what: string): void {
  if (step.reply.verdict === 'rejected') return;
  const codes = ctx.wire.codesOf(['INVALID_SIGNATURE']) ?? [];
  const status = ctx.wire.dialect.reply.statuses.INVALID_SIGNATURE;
  const named = [codes.join(' or '), status === undefined ? '' : `HTTP ${status}`].filter(Boolean).join(' at ');
  fail(
    `${what}: expected a refusal${named === '' ? '' : ` (the ${ctx.wire.name} dialect's: ${named})`}, got ${describeOutcome(step.exchange)}`,
  );
}
