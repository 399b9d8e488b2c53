import { withCurrencies } from '../callbacks/call.ts';
import type { CallbacksConfig } from '../callbacks/events.ts';
import { credentialsOf, signOptionsOf } from '../config/dialect.ts';
import { carriesSessionToken, negatesDebits, signsWithHeaderScheme, winsBelongToARound } from '../dialects/capabilities.ts';
import { fitId } from '../dialects/ids.ts';
import {
  type CallFacts,
  type ReadReply as DialectReadReply,
  type Operation,
  type OutcomeCode,
  replyBalanceRule,
  requestIdOf,
  roundIdOf,
  statusIn,
} from '../dialects/index.ts';
import { formatMinor } from '../money/index.ts';
import { type CallbackSpec, describeOutcome, type Exchange, type ReadReply, WebhookClient } from './client.ts';
import { DialectClient, type DialectForgery, factsOf, readDialectExchange, type SendOptions } from './dialect-client.ts';
import { fail } from './failure.ts';
import { readUnder } from './read.ts';
import { adoptHandedOver, madeUpToken } from './tokens.ts';
import { type VerifyWire, verifyWireOf } from './wire.ts';

/*
 * The wallet under test, as a check sees it: one client for every wire (DialectClient builds and
 * signs each request, WebhookClient sends and records it), the reply of each exchange read by the
 * wire's dialect, fresh ids, session tokens, and the balance read through the webhook itself.
 * Bookkeeping (what to undo afterwards) is bookkeeping.ts; the expectations are context.ts.
 */

/** The balance a check starts a player at when a state URL lets it choose: 100.00. */
export const STATE_START_BALANCE_MINOR = 10_000;

export interface CheckSettings {
  webhookUrl: string;
  callbacks: CallbacksConfig;
  /** Known player ids; the first is the main one. */
  players: string[];
  /** Provider-state endpoint; when present, checks set exact balances. */
  stateUrl?: string;
  timeoutMs: number;
  /** p95 reply time the reply-latency check allows. */
  maxLatencyMs: number;
  /** Parallel DEBITs in concurrent-debits. */
  concurrency: number;
  /** Prefix of every transactionId this run sends: `verify-<runId>-<n>`. */
  runId: string;
  /** How balances are read (see WalletUnderTest.readBalance); the preflight switches away from a probe that moves money. Default 'neutral'. */
  balanceProbe?: BalanceProbe;
  /**
   * Wires whose calls carry session tokens: each player's (--token p1=<token>), and the ones verify
   * got from the dialect's authenticate call or made up, kept for the whole run.
   */
  sessionTokens?: Map<string, string>;
  /** `verify --strict`: aggmock's safer readings beyond the vendor's text fail instead of warning. */
  strict?: boolean;
  /** false: the run sends no authenticate call (`--skip pact:authenticate`), not even to fetch a token. Default true. */
  authenticates?: boolean;
}

/**
 * How verify reads a balance through the webhook. 'neutral': a ROLLBACK of a transaction the
 * wallet never saw (a CREDIT of 0 on a wire without ROLLBACK), falling back to 'round-trip' when
 * its reply carries no balance. 'round-trip': a DEBIT of 0.01 and its reversal.
 */
export type BalanceProbe = 'neutral' | 'round-trip';

/** A reply that settles the question (acceptance or rejection), not one aggmock would retry. */
export function isFinal(reply: ReadReply): boolean {
  return reply.verdict === 'accepted' || reply.verdict === 'rejected';
}

export interface Step {
  exchange: Exchange;
  reply: ReadReply;
}

/** A call's facts before verify fills in its time, request id and (by default) currency. */
export type PartialFacts = Omit<CallFacts, 'createdAt' | 'requestId' | 'currency'> & { currency?: string };

/** Attempts of one call whose reply asks for a retry in a 2xx (Pragmatic 100), as the engine would make them. */
const MAX_RETRY_CODE_ATTEMPTS = 3;

let sequence = 0;
/** The suffix of the bet that opens a win's round (`<win id>-round`). */
const ROUND_SUFFIX = '-round';

export class WalletUnderTest {
  /** The transport and recorder: every exchange of the check, for the report. */
  readonly client: WebhookClient;
  /** The wire under test: which calls exist, how replies read, what a refusal code is called. */
  readonly wire: VerifyWire;
  /** Builds and signs every request, as the engine does, to the wallet's URL. */
  private readonly requests: DialectClient;
  /** Whether a win on this wire is sent after a bet that opens its round (asked of the dialect once). */
  private readonly winsInRounds: boolean;
  /** Whether calls on this wire carry the player's session token (asked of the dialect once). */
  private readonly tokens: boolean;
  /** Requests of this check in flight now: a balance read follows a reply without a balance only when none is. */
  private inFlight = 0;
  readonly notes: string[] = [];
  /** The probe the last successful readBalance used: which rule it relied on, if it moved money. */
  lastProbe: BalanceProbe | undefined;

  constructor(
    readonly settings: CheckSettings,
    readonly checkId: string,
  ) {
    this.client = new WebhookClient(settings.webhookUrl, settings.callbacks, settings.timeoutMs);
    this.wire = verifyWireOf(settings.callbacks);
    this.winsInRounds = winsBelongToARound(this.wire.dialect);
    this.tokens = carriesSessionToken(this.wire.dialect);
    this.requests = new DialectClient(
      settings.webhookUrl,
      this.wire.dialect,
      credentialsOf(settings.callbacks),
      signOptionsOf(settings.callbacks),
      this.client,
    );
  }

  /** How an exchange's reply reads under the wire's dialect. */
  read(exchange: Exchange): ReadReply {
    return readUnder(this.wire, exchange, readDialectExchange(this.wire.dialect, exchange));
  }

  get players(): string[] {
    return this.settings.players;
  }

  get player(): string {
    return this.settings.players[0] as string;
  }

  get hasState(): boolean {
    return this.settings.stateUrl !== undefined;
  }

  /**
   * A transaction id no webhook has seen: `verify-<runId>-<n>`, or where the dialect caps ids (Red
   * Tiger's 32 characters) a shorter one derived from it, leaving room for the `-round` of a win's bet.
   */
  tx(): string {
    sequence += 1;
    return fitId(`verify-${this.settings.runId}-${sequence}`, this.wire.dialect.calls.idMaxLength, ROUND_SUFFIX.length);
  }

  /**
   * A player id no wallet knows: `verifyghost<runId><n>`. Letters and digits only: vendor ids often
   * are (Groove's accountid), and a ghost must be a well-formed id the wallet does not know, not a
   * malformed one refused for its form.
   */
  ghostPlayer(): string {
    sequence += 1;
    return `verifyghost${this.settings.runId.replace(/[^A-Za-z0-9]/g, '')}${sequence}`;
  }

  /** An amount for people, with the decimals of the players' currency. */
  money(minor: number): string {
    return formatMinor(minor, this.wire.codec().exponent);
  }

  /** Whether a step was refused for this reason (on a wire without a code of its own for it: refused at all). */
  isRejection(step: Step, code: OutcomeCode): boolean {
    const named = this.wire.code(code);
    return step.reply.verdict === 'rejected' && (named === undefined || step.reply.error === named);
  }

  // ---- sending ----

  /**
   * Sends one of aggmock's events as the wire's call: DEBIT → bet (a bet-and-win with its win),
   * CREDIT → win, ROLLBACK → rollback. On a wire whose wins belong to a round, a CREDIT's round is
   * opened first with a bet of 0, as a free round is (a repeat repeats both); where a bet of 0 is no
   * bet (Habanero), with 0.01 that the win pays back.
   */
  async send(label: string, spec: CallbackSpec, options: SendOptions = {}): Promise<Step> {
    const dialect = this.wire.dialect;
    const rounds = this.winsInRounds;
    const common = {
      playerId: spec.playerId,
      ...(this.tokens ? { sessionToken: await this.tokenOf(spec.playerId) } : {}),
      ...(spec.currency === undefined ? {} : { currency: spec.currency }),
      ...(spec.bonus === undefined ? {} : { bonus: spec.bonus }),
    };
    const withRound = (tx: string) => {
      const roundId = spec.roundId ?? (rounds ? roundIdOf(tx) : undefined);
      return roundId === undefined ? {} : { roundId };
    };
    let facts: PartialFacts;
    if (spec.kind === 'debit') {
      facts = {
        ...common,
        operation: spec.winMinor !== undefined && this.wire.has('betWin') ? 'betWin' : 'bet',
        transactionId: spec.transactionId,
        amountMinor: spec.amountMinor,
        ...withRound(spec.transactionId),
        ...(spec.winMinor === undefined ? {} : { winMinor: spec.winMinor }),
      };
    } else if (spec.kind === 'credit' && rounds && negatesDebits(dialect) && this.wire.has('betWin')) {
      // Where a bet of 0.00 is no bet (Habanero books an amount >= 0 as a payout, so a win would name
      // a bet that does not exist), the round is one call: a bet of 0.01 and a win that pays it back on
      // top, so the balance moves by the credit's amount at once (as the history checker models it).
      facts = {
        ...common,
        operation: 'betWin',
        transactionId: spec.transactionId,
        amountMinor: 1,
        winMinor: spec.amountMinor + 1,
        ...withRound(spec.transactionId),
      };
    } else if (spec.kind === 'credit' && rounds) {
      const bet = `${spec.transactionId}${ROUND_SUFFIX}`;
      // Where a bet of 0.00 is no bet (Habanero books an amount >= 0 as a payout, so the win would name
      // a bet that does not exist), the round opens with 0.01 and the win pays it back on top.
      const opening = negatesDebits(dialect) ? 1 : 0;
      await this.call(`${label}: its round opens with a bet of ${this.money(opening)}`, {
        ...common,
        operation: 'bet',
        transactionId: bet,
        amountMinor: opening,
        ...withRound(bet),
      });
      facts = {
        ...common,
        operation: 'win',
        transactionId: spec.transactionId,
        betTransactionId: bet,
        amountMinor: spec.amountMinor + opening,
        ...withRound(bet),
        roundClosed: true,
      };
    } else if (spec.kind === 'credit') {
      facts = {
        ...common,
        operation: 'win',
        transactionId: spec.transactionId,
        amountMinor: spec.amountMinor,
        ...withRound(spec.transactionId),
      };
    } else {
      const reference = spec.referenceTransactionId ?? spec.transactionId;
      facts = {
        ...common,
        operation: 'rollback',
        transactionId: spec.transactionId,
        betTransactionId: reference,
        amountMinor: spec.amountMinor,
        ...withRound(reference),
      };
    }
    const { sign, secrets, tamperAmount, replayOf, forgery: other, ...same } = options;
    const replayed = replayOf ? factsOf(replayOf.exchange) : undefined;
    const forgery: DialectForgery = {
      ...same,
      ...(sign === false ? { unsigned: true as const } : {}),
      ...(secrets === undefined ? {} : signsWithHeaderScheme(dialect) ? { secrets } : { wrongKeys: true as const }),
      ...(replayed ? { signatureOf: replayed } : {}),
      ...other,
    };
    if (tamperAmount) {
      const tampered = this.tampered({ ...facts, currency: facts.currency ?? this.wire.currency });
      forgery.signedAs = tampered.signedAs;
      facts = tampered.sent;
    }
    return this.call(label, facts, forgery);
  }

  /** The session token of a player: --token, else the one the dialect's authenticate call gives (unless skipped), else a fresh one. */
  async tokenOf(playerId: string): Promise<string> {
    this.settings.sessionTokens ??= new Map();
    const tokens = this.settings.sessionTokens;
    const known = tokens.get(playerId);
    if (known !== undefined) return known;
    const fresh = madeUpToken(this.settings, playerId);
    tokens.set(playerId, fresh);
    if (this.wire.has('authenticate') && this.settings.authenticates !== false) {
      // A token the reply hands over becomes the player's (adoptHandedOver).
      await this.call(`authenticate ${playerId} (its session token)`, {
        operation: 'authenticate',
        playerId,
        sessionToken: fresh,
      });
    }
    return tokens.get(playerId) as string;
  }

  /**
   * Sends one call and reads its reply under the dialect: a retry code in a 2xx (Pragmatic 100) is
   * retried as the engine would, and an accepted reply without a balance (Pragmatic's refund) is
   * followed by the dialect's balance call when nothing else is in flight.
   */
  async call(label: string, partial: PartialFacts, forgery: DialectForgery = {}): Promise<Step> {
    const dialect = this.wire.dialect;
    const unique = partial.transactionId === undefined ? this.tx() : undefined;
    const base = { ...partial, currency: partial.currency ?? this.wire.currency };
    const facts: CallFacts = withCurrencies(
      { ...base, requestId: requestIdOf(base, unique), createdAt: Date.now() },
      this.settings.callbacks.currencies,
    );
    this.inFlight += 1;
    let exchange: Exchange;
    let read: DialectReadReply | undefined;
    try {
      for (let attempt = 1; ; attempt++) {
        // As the engine sends attempts: the call's time and ids fixed, the attempt's own time fresh.
        const sent = { ...facts, sentAt: Date.now() };
        // A changed amount carries the signature of the same request as it was signed, before the change.
        const { signedAs, ...rest } = forgery;
        const signatureOf = signedAs === undefined ? rest.signatureOf : { ...sent, ...signedAs };
        exchange = await this.requests.call(
          attempt === 1 ? label : `${label} (retry ${attempt - 1}: the wallet asked for one)`,
          sent,
          { ...rest, ...(signatureOf ? { signatureOf } : {}) },
        );
        read = readDialectExchange(dialect, exchange);
        const retryCode =
          read?.verdict === 'retry' && statusIn(read.status, dialect.reply.status.answer) && read.code !== undefined;
        if (!retryCode || attempt >= MAX_RETRY_CODE_ATTEMPTS) break;
      }
    } finally {
      this.inFlight -= 1;
    }
    const reply = readUnder(this.wire, exchange, read);
    if (read !== undefined) adoptHandedOver(this.settings, this.wire.dialect, facts, read);
    if (
      reply.accepted &&
      reply.balanceMinor === undefined &&
      replyBalanceRule(dialect, facts.operation as Operation) === 'none' &&
      this.wire.has('balance') &&
      this.inFlight === 0 &&
      facts.operation !== 'balance'
    ) {
      const after = await this.call(`balance read: the ${facts.operation} reply carries no balance`, {
        operation: 'balance',
        playerId: facts.playerId,
        currency: facts.currency,
        ...(facts.sessionToken === undefined ? {} : { sessionToken: facts.sessionToken }),
      });
      if (after.reply.balanceMinor !== undefined) reply.balanceMinor = after.reply.balanceMinor;
    }
    return { exchange, reply };
  }

  /**
   * A call changed after signing: its amount 0.01 higher, or, when the call carries no amount (Hub88's
   * rollback), its own transaction id changed.
   */
  private tampered(facts: Omit<CallFacts, 'createdAt' | 'requestId'>): { sent: typeof facts; signedAs: Partial<CallFacts> } {
    const fixed = { requestId: 'r', createdAt: 0 };
    const bytes = (f: typeof facts) => {
      const req = this.requests.request({ ...f, ...fixed });
      return `${req.path} ${req.body ?? ''}`;
    };
    const more = { ...facts, amountMinor: (facts.amountMinor ?? 0) + 1 };
    if (bytes(more) !== bytes(facts)) return { sent: more, signedAs: { amountMinor: facts.amountMinor } };
    return {
      sent: { ...facts, transactionId: `${facts.transactionId}-changed` },
      signedAs: { transactionId: facts.transactionId },
    };
  }

  async debit(label: string, playerId: string, amountMinor: number, transactionId = this.tx(), options?: SendOptions) {
    return { ...(await this.send(label, { kind: 'debit', playerId, amountMinor, transactionId }, options)), transactionId };
  }

  async credit(label: string, playerId: string, amountMinor: number, transactionId = this.tx(), options?: SendOptions) {
    return { ...(await this.send(label, { kind: 'credit', playerId, amountMinor, transactionId }, options)), transactionId };
  }

  /**
   * A ROLLBACK of `debitTx` in the wire's style ('original': its transactionId is the DEBIT's;
   * 'reference': `rollbackTx` plus the DEBIT's id). Pass the same `rollbackTx` to repeat it.
   */
  async rollback(label: string, playerId: string, debitTx: string, amountMinor: number, rollbackTx = this.tx()) {
    const spec = { kind: 'rollback' as const, playerId, amountMinor, transactionId: rollbackTx, referenceTransactionId: debitTx };
    return { ...(await this.send(label, spec)), rollbackTx };
  }

  /** Reverses an accepted DEBIT now: its ROLLBACK, or a CREDIT of its amount on a wire without ROLLBACK. */
  reverse(label: string, playerId: string, debitTx: string, amountMinor: number): Promise<Step> {
    return this.wire.hasRollback
      ? this.rollback(label, playerId, debitTx, amountMinor)
      : this.credit(`${label} (a CREDIT: this wire has no ROLLBACK)`, playerId, amountMinor);
  }

  // ---- reading balances ----

  /**
   * Reads a player's balance through the webhook itself, moving no money: the dialect's balance
   * call where it has one, else a ROLLBACK of a transaction the wallet never saw. Whatever the
   * wallet answers it with (an acknowledgement, `TRANSACTION_NOT_FOUND`, 2xx or 4xx), any `balance`
   * in the reply is read. Only when the reply carries none, or the preflight found that probe moving
   * money (settings.balanceProbe 'round-trip'): a DEBIT of 0.01 and its ROLLBACK. And when that
   * DEBIT is refused for want of funds without a balance (the balance is 0.00, and the wallet's
   * refusals carry none): a CREDIT of 0.01, taken straight back with a DEBIT of 0.01. A request with
   * no answer at all ends the read at once: another would only wait out --timeout again.
   */
  async readBalance(playerId: string): Promise<number> {
    const tried: { what: string; step: Step }[] = [];
    const unanswered = (step: Step) => {
      if (!step.exchange.response) {
        fail(`could not read the balance of player ${playerId}: ${tried.at(-1)?.what} got ${describeOutcome(step.exchange)}`);
      }
    };
    if (this.wire.has('balance')) {
      // The dialect's own balance call: no probe transactions.
      const read = await this.call(`balance read: the ${this.wire.name} balance call (moves no money)`, {
        operation: 'balance',
        playerId,
        ...(this.tokens ? { sessionToken: await this.tokenOf(playerId) } : {}),
      });
      this.lastProbe = 'neutral';
      if (read.reply.accepted && read.reply.balanceMinor !== undefined) return read.reply.balanceMinor;
      fail(
        `could not read the balance of player ${playerId} with the ${this.wire.name} balance call: got ${describeOutcome(read.exchange)}. ` +
          `Check --players (and --token ${playerId}=<its session token> when the wallet checks tokens on balance calls).`,
      );
    }
    if ((this.settings.balanceProbe ?? 'neutral') === 'neutral') {
      const probe = this.wire.hasRollback
        ? await this.rollback('balance read: ROLLBACK of a never-seen transaction (moves no money)', playerId, this.tx(), 1)
        : await this.credit('balance read: CREDIT of 0 (moves no money)', playerId, 0);
      tried.push({ what: this.wire.hasRollback ? 'a ROLLBACK of an unknown transaction' : 'a CREDIT of 0', step: probe });
      unanswered(probe);
      if (probe.reply.balanceMinor !== undefined && isFinal(probe.reply)) {
        this.lastProbe = 'neutral';
        return probe.reply.balanceMinor;
      }
    }
    this.lastProbe = 'round-trip';
    const unit = this.money(1);
    const debit = await this.debit(`balance read: DEBIT ${unit}`, playerId, 1);
    tried.push({ what: `a DEBIT of ${unit}`, step: debit });
    unanswered(debit);
    // A refusal that carries the balance (INSUFFICIENT_FUNDS at 0.00, say) is a read too.
    if (debit.reply.verdict === 'rejected' && debit.reply.balanceMinor !== undefined) return debit.reply.balanceMinor;
    if (debit.reply.accepted && debit.reply.balanceMinor !== undefined) {
      const back = await this.reverse(`balance read: give that DEBIT ${unit} back`, playerId, debit.transactionId, 1);
      if (!back.reply.accepted)
        this.notes.push(`the balance-read DEBIT of ${unit} (${debit.transactionId}) could not be rolled back`);
      return debit.reply.balanceMinor + 1;
    }
    // A player at 0.00 whose wallet refuses without a balance: a correct wallet, and a state every
    // check that bets the whole balance leaves behind. A CREDIT reads it, a DEBIT undoes the CREDIT.
    if (this.isRejection(debit, 'INSUFFICIENT_FUNDS')) {
      const credit = await this.credit('balance read: CREDIT 0.01 (a DEBIT of 0.01 was refused for want of funds)', playerId, 1);
      tried.push({ what: 'a CREDIT of 0.01', step: credit });
      if (credit.reply.accepted && credit.reply.balanceMinor !== undefined) {
        const back = await this.debit('balance read: take that CREDIT 0.01 back', playerId, 1);
        if (!back.reply.accepted)
          this.notes.push(`the balance-read CREDIT of 0.01 (${credit.transactionId}) could not be taken back`);
        return credit.reply.balanceMinor - 1;
      }
    }
    fail(
      `could not read the balance of player ${playerId} (unknown to the wallet, or not holding ${this.wire.currency}, the currency verify writes amounts in?): ` +
        `${tried.map(({ what, step }) => `${what} got ${describeOutcome(step.exchange)}`).join(', ')}; no reply carried {balance}. ` +
        `Check --players; for players in another currency say which (--currency JPY, or config callbacks.currency).`,
    );
  }

  /** Puts the wallet in a state through the provider-state URL (none: nothing to do). */
  async setState(state: string, params: Record<string, unknown>): Promise<void> {
    const url = this.settings.stateUrl;
    if (url === undefined) return;
    try {
      await this.client.postState(url, state, params);
    } catch (error) {
      fail((error as Error).message);
    }
  }
}
