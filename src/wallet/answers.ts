import {
  type CallFacts,
  type Dialect,
  type FieldProblem,
  type OutcomeCode,
  type WalletAnswer,
  writeAmount,
  writeReply,
} from '../dialects/index.ts';
import type { ExtraCurrencies } from '../money/index.ts';
import { setAt } from '../shared/index.ts';
import type { ReplyWriter, WalletReply } from './replies.ts';

/*
 * The wallet's answers in a dialect: the store keeps neutral answers (accepted with a balance, or
 * refused with aggmock's name for the refusal), so a repeat's stored first answer is said in the
 * dialect again; `render` says one in the dialect's words (`writeReply`), for every wire alike.
 */

/** A neutral answer as the store keeps it: rendered in the dialect when it is sent. */
export type NeutralBody =
  | { accepted: true; balanceMinor: number }
  | {
      accepted: false;
      refusal: OutcomeCode;
      message: string;
      balanceMinor?: number;
      /** An HTTP status of its own (409: a bet cancelled before it arrived; 413, 415), where the wire answers refusals by status. */
      status?: number;
      /** One entry per bad field (INVALID_REQUEST). */
      errors?: readonly FieldProblem[];
    };

/**
 * The store's reply writer in dialect mode: neutral answers, so a stored first answer can be
 * rendered again in the dialect for a duplicate. A 409 (a bet cancelled before it arrived) is
 * "already settled" where the dialect has a code for it.
 */
export function dialectAnswers(dialect: Dialect): ReplyWriter {
  return {
    balance: (balanceMinor) => ({ status: 200, body: { accepted: true, balanceMinor } }),
    reject: (code, message, options = {}) => {
      const settled = options.status === 409 && dialect.reply.codes.ALREADY_SETTLED !== undefined;
      // A 409 is kept where the wire answers its refusals by HTTP status (default: 409 INVALID_REQUEST).
      const status =
        options.status !== undefined && !settled && (options.status !== 409 || dialect.reply.statuses.INVALID_REQUEST)
          ? options.status
          : undefined;
      return {
        status: 400,
        body: {
          accepted: false,
          refusal: settled ? 'ALREADY_SETTLED' : code,
          message,
          ...(options.balanceMinor === undefined ? {} : { balanceMinor: options.balanceMinor }),
          ...(status === undefined ? {} : { status }),
          ...(options.errors?.length ? { errors: options.errors } : {}),
        },
      };
    },
  };
}

/**
 * The store's reply writer when the store is used alone (its tests, a tool): the neutral answers
 * rendered in the dialect at once, as the wallet would send them.
 */
export function renderedAnswers(dialect: Dialect, currency: string, currencies?: ExtraCurrencies): ReplyWriter {
  const neutral = dialectAnswers(dialect);
  const rendered = (reply: WalletReply, own = currency): WalletReply => {
    const answer = neutralOf(reply);
    if (!answer) return reply;
    const out = render(dialect, { operation: 'bet', currency: own }, answer, undefined, undefined, currencies);
    return { status: out.status as WalletReply['status'], body: out.body as Record<string, unknown> };
  };
  return {
    balance: (balanceMinor, own) => rendered(neutral.balance(balanceMinor, own), own),
    reject: (code, message, options = {}) => rendered(neutral.reject(code, message, options), options.currency),
  };
}

export function neutralOf(reply: WalletReply): NeutralBody | undefined {
  const body = reply.body as Partial<NeutralBody>;
  return typeof body.accepted === 'boolean' ? (body as NeutralBody) : undefined;
}

export type Rendered = { status: number; body: unknown };

export const refused = (
  refusal: OutcomeCode,
  message: string,
  balanceMinor?: number,
  extra: { status?: number; errors?: readonly FieldProblem[] } = {},
): NeutralBody => ({
  accepted: false,
  refusal,
  message,
  ...(balanceMinor === undefined ? {} : { balanceMinor }),
  ...extra,
});

/** Whether the wire says "no" only in the body (a success flag and no code: Betnex), so every refusal is HTTP 200. */
function refusesInBodyOnly(dialect: Dialect): boolean {
  return dialect.reply.success !== undefined && dialect.reply.code === undefined;
}

/**
 * A neutral answer in the dialect's words (`writeReply`), members in the order a reader expects
 * them: the success flag and the code, the message, the rest; a refusal's bad fields in `errors`.
 * A wire whose refusals carry no real balance writes 0 there. `status` overrides the dialect's
 * (404 for no such path, 413), as does the answer's own (409, 415), except on a wire that refuses
 * in the body only.
 */
export function render(
  dialect: Dialect,
  facts: Pick<CallFacts, 'operation' | 'currency'> & Partial<CallFacts>,
  answer: NeutralBody,
  status?: number,
  token?: string,
  currencies?: ExtraCurrencies,
): Rendered {
  const walletAnswer: WalletAnswer = answer.accepted
    ? { accepted: true, balanceMinor: answer.balanceMinor }
    : {
        accepted: false,
        refusal: spokenRefusal(dialect, answer.refusal),
        balanceMinor: dialect.reply.balanceOnRejection ? answer.balanceMinor : 0,
      };
  const reply = writeReply(dialect, facts, walletAnswer, (minor) => writeAmount(dialect, facts.currency, minor, currencies));
  let body = reply.body;
  const messagePath = dialect.reply.message[0];
  if (!answer.accepted && messagePath && !messagePath.includes('.') && !Object.hasOwn(body, messagePath)) {
    const lead = [dialect.reply.success?.path, dialect.reply.code].map((p) => p?.split('.')[0]);
    const entries = Object.entries(body);
    body = Object.fromEntries([
      ...entries.filter(([key]) => lead.includes(key)),
      [messagePath, answer.message],
      ...entries.filter(([key]) => !lead.includes(key)),
    ]);
  } else if (!answer.accepted && messagePath && Object.hasOwn(body, messagePath) && !messagePath.includes('.')) {
    // A constant written there on acceptance (Betnex's msg "success") is the message on a refusal.
    body[messagePath] = answer.message;
  }
  if (!answer.accepted && answer.errors?.length) body.errors = answer.errors;
  const tokenPath = dialect.operations[facts.operation]?.reply?.token;
  // Where the reply names the session token (Caleta's token, Red Tiger's result.token): the one it holds.
  if (answer.accepted && token && tokenPath) setAt(body, tokenPath, token);
  const own = answer.accepted ? undefined : answer.status;
  const override = status ?? own;
  return { status: override !== undefined && !refusesInBodyOnly(dialect) ? override : reply.status, body };
}

/**
 * A refusal the wire has no code for (100HP documents no "not enough money") is answered as the
 * wire's invalid request, when it has one: a code the sender knows is a refusal, rather than a
 * word it has never seen.
 */
function spokenRefusal(dialect: Dialect, refusal: OutcomeCode): OutcomeCode {
  const codes = dialect.reply.codes;
  return codes[refusal] === undefined && codes.INVALID_REQUEST !== undefined ? 'INVALID_REQUEST' : refusal;
}
