import type { CallbacksConfig } from '../callbacks/events.ts';
import { credentialsOf, signOptionsOf } from '../config/dialect.ts';
import {
  type CallFacts,
  type ReadReply as DialectReadReply,
  isAlreadyProcessed,
  type Operation,
  type OutcomeCode,
  replyBalanceRule,
  requestIdOf,
  roundIdOf,
  statusIn,
} from '../dialects/index.ts';
import { readBoundedText } from '../http/index.ts';
import { formatMinor, toMajor } from '../money/index.ts';
import {
  type CallbackSpec,
  describeOutcome,
  type Exchange,
  type ReadReply,
  readReply,
  type SendOptions,
  WebhookClient,
} from './client.ts';
import { DialectClient, type DialectForgery, factsOf, readDialectExchange } from './dialect-client.ts';
import { type VerifyWire, verifyWireOf } from './wire.ts';

/** A check found the webhook breaking its rule. */
export class CheckFailure extends Error {
  override readonly name = 'CheckFailure';
}

/** A check cannot run with what it was given (one player only, a scheme without timestamps…). */
export class CheckSkipped extends Error {
  override readonly name = 'CheckSkipped';
}

export function fail(message: string): never {
  throw new CheckFailure(message);
}

export function skip(reason: string): never {
  throw new CheckSkipped(reason);
}

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
  /** How balances are read (see CheckContext.readBalance); the preflight switches away from a probe that moves money. Default 'neutral'. */
  balanceProbe?: BalanceProbe;
  /**
   * Vendor dialects: each player's session token (--token p1=<token>), and the ones verify got
   * from the dialect's authenticate call or made up, kept for the whole run.
   */
  sessionTokens?: Map<string, string>;
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

let sequence = 0;

/**
 * What a check works with: a signing client that records every exchange, fresh transaction ids,
 * balance set-up and read-back, and a cleanup list run after the check whatever its outcome.
 */
export class CheckContext {
  readonly client: WebhookClient;
  /** The wire under test: which events exist, how replies read, what a rejection code is called. */
  readonly wire: VerifyWire;
  /** A vendor dialect's client (requests built by the dialect, to the wallet's base URL); undefined for a profile. */
  readonly dialectClient: DialectClient | undefined;
  /** Requests of this check in flight now: a balance read follows a reply without a balance only when none is. */
  private inFlight = 0;
  readonly notes: string[] = [];
  private readonly cleanups: { label: string; fn: () => Promise<void> }[] = [];
  private readonly afterCleanups: (() => Promise<void>)[] = [];
  /** Players mode: the balance each player had when the check first read it, to restore afterwards. */
  private readonly startBalances = new Map<string, number>();
  /** The probe the last successful readBalance used: which rule it relied on, if it moved money. */
  lastProbe: BalanceProbe | undefined;

  constructor(
    readonly settings: CheckSettings,
    readonly checkId: string,
  ) {
    this.client = new WebhookClient(settings.webhookUrl, settings.callbacks, settings.timeoutMs);
    this.wire = verifyWireOf(settings.callbacks);
    this.dialectClient = this.wire.vendor
      ? new DialectClient(
          settings.webhookUrl,
          this.wire.vendor,
          credentialsOf(settings.callbacks),
          signOptionsOf(settings.callbacks),
          this.client,
        )
      : undefined;
  }

  /** Whether the wire under test is a vendor dialect (its requests built by the dialect). */
  get isVendor(): boolean {
    return this.dialectClient !== undefined;
  }

  /** How an exchange's reply reads under the wire (the profile's judge, or the dialect's reply rules). */
  read(exchange: Exchange): ReadReply {
    if (!this.wire.vendor) return readReply(exchange, this.settings.callbacks);
    return fromDialect(readDialectExchange(this.wire.vendor, exchange));
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

  /** A transaction id no webhook has seen: `verify-<runId>-<n>`. */
  tx(): string {
    sequence += 1;
    return `verify-${this.settings.runId}-${sequence}`;
  }

  /** An amount for people, with the decimals of the players' currency. */
  money(minor: number): string {
    return formatMinor(minor, this.wire.codec().exponent);
  }

  onCleanup(label: string, fn: () => Promise<void>): void {
    this.cleanups.push({ label, fn });
  }

  /** Runs the cleanups, newest first; a failing cleanup is noted, never a failure of the check. */
  async cleanUp(): Promise<void> {
    for (const { label, fn } of this.cleanups.splice(0).reverse()) {
      try {
        await fn();
      } catch (error) {
        this.notes.push(`cleanup "${label}" did not complete: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  }

  /**
   * An expectation checked after the cleanups ran (e.g. "both players hold what they held
   * before"): it fails the check like any other, so a wallet whose own cleanup corrupts balances is caught.
   */
  expectAfterCleanup(fn: () => Promise<void>): void {
    this.afterCleanups.push(fn);
  }

  /** Runs the after-cleanup expectations; throws the first CheckFailure. */
  async checkAfterCleanup(): Promise<void> {
    for (const fn of this.afterCleanups.splice(0)) await fn();
  }

  /**
   * Players mode: puts every player the check touched back at the balance it started from, when
   * the cleanups did not (a wallet whose ROLLBACKs do not restore). Without this, one broken
   * rule would drain the test players and every later check would be skipped, not judged.
   */
  async restoreStartBalances(): Promise<{ restored: boolean; note: string }[]> {
    const outcomes: { restored: boolean; note: string }[] = [];
    for (const [playerId, start] of this.startBalances) {
      let outcome: { restored: boolean; note: string };
      try {
        const now = await this.readBalance(playerId);
        if (now === start) continue;
        const short = now < start;
        const amount = Math.abs(start - now);
        const label = `restore: ${short ? 'CREDIT' : 'DEBIT'} ${formatMinor(amount)} (${playerId} was left ${short ? 'short' : 'over'})`;
        const step = short ? await this.credit(label, playerId, amount) : await this.debit(label, playerId, amount);
        outcome = step.reply.accepted
          ? {
              restored: true,
              note: `${playerId} held ${formatMinor(now)} afterwards instead of ${formatMinor(start)}; restored with a ${short ? 'CREDIT' : 'DEBIT'} of ${formatMinor(amount)}`,
            }
          : {
              restored: false,
              note: `${playerId} holds ${formatMinor(now)} afterwards instead of ${formatMinor(start)}, and restoring it failed: ${describeOutcome(step.exchange)}`,
            };
      } catch (error) {
        outcome = {
          restored: false,
          note: `could not check ${playerId}'s balance afterwards: ${error instanceof Error ? error.message : String(error)}`,
        };
      }
      this.notes.push(outcome.note);
      outcomes.push(outcome);
    }
    return outcomes;
  }

  /** Players mode: the balance to put `playerId` back at afterwards, when a probe moved money before it could be read. */
  restoreTo(playerId: string, balanceMinor: number): void {
    this.startBalances.set(playerId, balanceMinor);
  }

  /** A player id no wallet knows: `verify-ghost-<runId>-<n>`. */
  ghostPlayer(): string {
    sequence += 1;
    // Vendor ids are often letters and digits only (Groove's accountid): a ghost must be a well-formed
    // id the wallet does not know, not a malformed one refused for its form.
    if (this.isVendor) return `verifyghost${this.settings.runId.replace(/[^A-Za-z0-9]/g, '')}${sequence}`;
    return `verify-ghost-${this.settings.runId}-${sequence}`;
  }

  /** Gives money a (faulty) wallet took back after the check: a CREDIT of the amount. */
  giveBack(playerId: string, amountMinor: number, why: string): void {
    if (amountMinor <= 0) return;
    this.onCleanup(`give back ${formatMinor(amountMinor)} (${why})`, async () => {
      const step = await this.credit(`cleanup: CREDIT ${formatMinor(amountMinor)} (${why})`, playerId, amountMinor);
      if (!step.reply.accepted) throw new Error(describeOutcome(step.exchange));
    });
  }

  /**
   * When an accepted step reports a balance other than `beforeMinor` (the wallet moved money it
   * should not have), gives it back or takes it back after the check, so the player ends where it began.
   */
  undoWhatMoved(step: Step, playerId: string, beforeMinor: number, why: string): void {
    if (!step.reply.accepted || step.reply.balanceMinor === undefined) return;
    const moved = step.reply.balanceMinor - beforeMinor;
    if (moved > 0) this.takeBack(playerId, moved);
    if (moved < 0) this.giveBack(playerId, -moved, `${why} took it`);
  }

  /** Takes back money a (faulty) wallet paid out: a DEBIT after the check. */
  takeBack(playerId: string, amountMinor: number): void {
    if (amountMinor > 0) this.undoCredit(playerId, amountMinor);
  }

  // ---- sending ----

  async send(label: string, spec: CallbackSpec, options?: SendOptions): Promise<Step> {
    if (this.dialectClient) return this.sendCall(label, spec, options);
    const profileOptions: SendOptions | undefined =
      options?.tamperAmount || options?.replayOf
        ? {
            ...options,
            ...(options.tamperAmount ? { sentBody: this.client.body({ ...spec, amountMinor: spec.amountMinor + 1 }) } : {}),
            ...(options.replayOf ? { replayHeaders: { ...options.replayOf.exchange.request.headers } } : {}),
          }
        : options;
    const exchange = await this.client.callback(label, spec, profileOptions);
    return { exchange, reply: readReply(exchange, this.settings.callbacks) };
  }

  /** The session token of a player under a vendor dialect: --token, else the dialect's authenticate call's, else a fresh one. */
  async tokenOf(playerId: string): Promise<string> {
    this.settings.sessionTokens ??= new Map();
    const tokens = this.settings.sessionTokens;
    const known = tokens.get(playerId);
    if (known !== undefined) return known;
    const fresh = `verify-${this.settings.runId}-token-${playerId}`.slice(0, 128);
    tokens.set(playerId, fresh);
    if (this.wire.has('authenticate') && !playerId.startsWith(`verify-ghost-${this.settings.runId}`)) {
      const step = await this.call(`authenticate ${playerId} (its session token)`, {
        operation: 'authenticate',
        playerId,
        sessionToken: fresh,
      });
      if (step.reply.token) tokens.set(playerId, step.reply.token);
    }
    return tokens.get(playerId) as string;
  }

  /**
   * Sends one call of a vendor dialect and reads its reply under the dialect: a retry code in a
   * 2xx (Pragmatic 100) is retried as the engine would, and an accepted reply without a balance
   * (Pragmatic's refund) is followed by the dialect's balance call when nothing else is in flight.
   */
  async call(
    label: string,
    partial: Omit<CallFacts, 'createdAt' | 'requestId' | 'currency'> & { currency?: string },
    forgery: DialectForgery = {},
  ): Promise<Step & { dialectReply?: DialectReadReply }> {
    const client = this.dialectClient as DialectClient;
    const dialect = client.dialect;
    const unique = partial.transactionId === undefined ? this.tx() : undefined;
    const base = { ...partial, currency: partial.currency ?? this.wire.currency };
    const facts: CallFacts = { ...base, requestId: requestIdOf(base, unique), createdAt: Date.now() };
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
        exchange = await client.call(attempt === 1 ? label : `${label} (retry ${attempt - 1}: the wallet asked for one)`, sent, {
          ...rest,
          ...(signatureOf ? { signatureOf } : {}),
        });
        read = readDialectExchange(dialect, exchange);
        const retryCode =
          read?.verdict === 'retry' && statusIn(read.status, dialect.reply.status.answer) && read.code !== undefined;
        if (!retryCode || attempt >= MAX_RETRY_CODE_ATTEMPTS) break;
      }
    } finally {
      this.inFlight -= 1;
    }
    const reply = fromDialect(read);
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
    return { exchange, reply, ...(read ? { dialectReply: read } : {}) };
  }

  /** A profile's callback as a dialect call: DEBIT → bet, CREDIT → win of a round opened with a bet of 0, ROLLBACK → rollback. */
  private async sendCall(label: string, spec: CallbackSpec, options: SendOptions = {}): Promise<Step> {
    const playerId = spec.playerId;
    const sessionToken = await this.tokenOf(playerId);
    const common = {
      playerId,
      sessionToken,
      ...(spec.currency === undefined ? {} : { currency: spec.currency }),
      ...(spec.bonus === undefined ? {} : { bonus: spec.bonus }),
    };
    let facts: Omit<CallFacts, 'createdAt' | 'requestId' | 'currency'> & { currency?: string };
    if (spec.kind === 'debit') {
      facts = {
        ...common,
        operation: spec.winMinor !== undefined && this.wire.has('betWin') ? 'betWin' : 'bet',
        transactionId: spec.transactionId,
        amountMinor: spec.amountMinor,
        roundId: spec.roundId ?? roundIdOf(spec.transactionId),
        ...(spec.winMinor === undefined ? {} : { winMinor: spec.winMinor }),
      };
    } else if (spec.kind === 'credit') {
      // A win settles a bet: its round is opened with a bet of 0, as a free round is (a repeat repeats both).
      const bet = `${spec.transactionId}-round`;
      await this.call(`${label}: its round opens with a bet of ${this.money(0)}`, {
        ...common,
        operation: 'bet',
        transactionId: bet,
        amountMinor: 0,
        roundId: spec.roundId ?? roundIdOf(bet),
      });
      facts = {
        ...common,
        operation: 'win',
        transactionId: spec.transactionId,
        betTransactionId: bet,
        amountMinor: spec.amountMinor,
        roundId: spec.roundId ?? roundIdOf(bet),
        roundClosed: true,
      };
    } else {
      const reference = spec.referenceTransactionId ?? spec.transactionId;
      facts = {
        ...common,
        operation: 'rollback',
        transactionId: spec.transactionId,
        betTransactionId: reference,
        amountMinor: spec.amountMinor,
        roundId: spec.roundId ?? roundIdOf(reference),
      };
    }
    const forgery: DialectForgery = {
      ...(options.sign === false ? { unsigned: true as const } : {}),
      ...(options.secrets !== undefined ? { wrongKeys: true as const } : {}),

      ...(options.replayOf && factsOf(options.replayOf.exchange)
        ? { signatureOf: factsOf(options.replayOf.exchange) as CallFacts }
        : {}),
    };
    if (options.tamperAmount) {
      const tampered = this.tampered({ ...facts, currency: facts.currency ?? this.wire.currency });
      forgery.signedAs = tampered.signedAs;
      facts = tampered.sent;
    }
    return this.call(label, facts, forgery);
  }

  /**
   * A call changed after signing: its amount 0.01 higher, or, when the call carries no amount (Hub88's
   * rollback), its own transaction id changed.
   */
  private tampered(facts: Omit<CallFacts, 'createdAt' | 'requestId'>): {
    sent: typeof facts;
    signedAs: Partial<CallFacts>;
  } {
    const client = this.dialectClient as DialectClient;
    const fixed = { requestId: 'r', createdAt: 0 };
    const bytes = (f: typeof facts) => {
      const req = client.request({ ...f, ...fixed });
      return `${req.path} ${req.body ?? ''}`;
    };
    const more = { ...facts, amountMinor: (facts.amountMinor ?? 0) + 1 };
    if (bytes(more) !== bytes(facts)) return { sent: more, signedAs: { amountMinor: facts.amountMinor } };
    return {
      sent: { ...facts, transactionId: `${facts.transactionId}-changed` },
      signedAs: { transactionId: facts.transactionId },
    };
  }

  /** Sends raw body bytes (a tampered body, say), signed over those bytes. */
  async post(label: string, body: string, options?: SendOptions): Promise<Step> {
    if (this.isVendor) skip(`sends a raw JSON body, which the ${this.wire.name} dialect does not write`);
    const exchange = await this.client.post(label, body, options);
    return { exchange, reply: readReply(exchange, this.settings.callbacks) };
  }

  debit(label: string, playerId: string, amountMinor: number, transactionId = this.tx(), options?: SendOptions) {
    return this.send(label, { kind: 'debit', playerId, amountMinor, transactionId }, options).then((s) => ({
      ...s,
      transactionId,
    }));
  }

  credit(label: string, playerId: string, amountMinor: number, transactionId = this.tx(), options?: SendOptions) {
    return this.send(label, { kind: 'credit', playerId, amountMinor, transactionId }, options).then((s) => ({
      ...s,
      transactionId,
    }));
  }

  /**
   * A ROLLBACK of `debitTx` in the configured style ('original': its transactionId is the DEBIT's;
   * 'reference': `rollbackTx` plus referenceTransactionId). Pass the same `rollbackTx` to repeat it.
   */
  rollback(label: string, playerId: string, debitTx: string, amountMinor: number, rollbackTx = this.tx()) {
    return this.send(label, {
      kind: 'rollback',
      playerId,
      amountMinor,
      transactionId: rollbackTx,
      referenceTransactionId: debitTx,
    }).then((s) => ({ ...s, rollbackTx }));
  }

  /** Gives an accepted DEBIT back after the check: its ROLLBACK, or a CREDIT of its amount on a wire without one. */
  undoDebit(playerId: string, debitTx: string, amountMinor: number): void {
    this.onCleanup(`give back DEBIT ${debitTx}`, async () => {
      const step = await this.reverse(`cleanup: give back DEBIT ${debitTx}`, playerId, debitTx, amountMinor);
      if (!step.reply.accepted) throw new Error(describeOutcome(step.exchange));
    });
  }

  /** Reverses an accepted DEBIT now: its ROLLBACK, or a CREDIT of its amount on a wire without ROLLBACK. */
  reverse(label: string, playerId: string, debitTx: string, amountMinor: number): Promise<Step> {
    return this.wire.hasRollback
      ? this.rollback(label, playerId, debitTx, amountMinor)
      : this.credit(`${label} (a CREDIT: this wire has no ROLLBACK)`, playerId, amountMinor);
  }

  /** Takes an accepted CREDIT back after the check (a DEBIT of the same amount). */
  undoCredit(playerId: string, amountMinor: number): void {
    this.onCleanup(`take back CREDIT of ${formatMinor(amountMinor)}`, async () => {
      const step = await this.debit(
        `cleanup: DEBIT ${formatMinor(amountMinor)} (takes the test CREDIT back)`,
        playerId,
        amountMinor,
      );
      if (!step.reply.accepted) throw new Error(describeOutcome(step.exchange));
    });
  }

  // ---- balances ----

  /**
   * The balance the check starts from. With a state URL the player is set to `wantMinor` (100.00
   * by default); otherwise the current balance is read from the webhook's own replies.
   */
  async startBalance(playerId: string, wantMinor = STATE_START_BALANCE_MINOR): Promise<number> {
    if (this.settings.stateUrl === undefined) {
      const balance = await this.readBalance(playerId);
      if (!this.startBalances.has(playerId)) this.startBalances.set(playerId, balance);
      return balance;
    }
    // Provider-state amounts have two decimals whatever the currency (as the contracts' states): 100.00 = 10,000 minor units.
    await this.setState(`player ${playerId} has balance ${formatMinor(wantMinor)}`, { playerId, balance: toMajor(wantMinor) });
    return wantMinor;
  }

  async setState(state: string, params: Record<string, unknown>): Promise<void> {
    const url = this.settings.stateUrl;
    if (url === undefined) return;
    let res: Response;
    try {
      res = await fetch(url, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ state, params, action: 'setup' }),
        signal: AbortSignal.timeout(this.settings.timeoutMs),
        redirect: 'manual',
      });
    } catch (error) {
      fail(`the state URL ${url} did not answer for state "${state}": ${error instanceof Error ? error.message : String(error)}`);
    }
    const reply = await readBoundedText(res.body).catch(() => ({ text: '', truncated: false }));
    if (!res.ok) fail(stateRefusal(url, state, res, reply.text));
  }

  /**
   * Reads a player's balance through the webhook itself, moving no money: a ROLLBACK of a
   * transaction the wallet never saw. Whatever the wallet answers it with (an acknowledgement,
   * `TRANSACTION_NOT_FOUND`, 2xx or 4xx), any `balance` in the reply is read. Only when the reply
   * carries none, or the preflight found that probe moving money (settings.balanceProbe
   * 'round-trip'): a DEBIT of 0.01 and its ROLLBACK. And when that DEBIT is refused for want of
   * funds without a balance (the balance is 0.00, and the wallet's refusals carry none): a CREDIT
   * of 0.01, taken straight back with a DEBIT of 0.01. A request with no answer at all ends the
   * read at once: another would only wait out --timeout again.
   */
  async readBalance(playerId: string): Promise<number> {
    const attempts: Step[] = [];
    const tried: string[] = [];
    const unanswered = (step: Step) => {
      if (!step.exchange.response) {
        fail(`could not read the balance of player ${playerId}: ${tried.at(-1)} got ${describeOutcome(step.exchange)}`);
      }
    };
    if (this.isVendor && this.wire.has('balance')) {
      // The dialect's own balance call: no probe transactions.
      const read = await this.call(`balance read: the ${this.wire.name} balance call (moves no money)`, {
        operation: 'balance',
        playerId,
        sessionToken: await this.tokenOf(playerId),
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
      attempts.push(probe);
      tried.push(this.wire.hasRollback ? 'a ROLLBACK of an unknown transaction' : 'a CREDIT of 0');
      unanswered(probe);
      if (probe.reply.balanceMinor !== undefined && isFinal(probe.reply)) {
        this.lastProbe = 'neutral';
        return probe.reply.balanceMinor;
      }
    }
    this.lastProbe = 'round-trip';
    const debit = await this.debit('balance read: DEBIT 0.01', playerId, 1);
    attempts.push(debit);
    tried.push('a DEBIT of 0.01');
    unanswered(debit);
    // A refusal that carries the balance (INSUFFICIENT_FUNDS at 0.00, say) is a read too.
    if (debit.reply.verdict === 'rejected' && debit.reply.balanceMinor !== undefined) return debit.reply.balanceMinor;
    if (debit.reply.accepted && debit.reply.balanceMinor !== undefined) {
      const back = await this.reverse('balance read: give that DEBIT 0.01 back', playerId, debit.transactionId, 1);
      if (!back.reply.accepted)
        this.notes.push(`the balance-read DEBIT of 0.01 (${debit.transactionId}) could not be rolled back`);
      return debit.reply.balanceMinor + 1;
    }
    // A player at 0.00 whose wallet refuses without a balance: a correct wallet, and a state every
    // check that bets the whole balance leaves behind. A CREDIT reads it, a DEBIT undoes the CREDIT.
    if (this.isRejection(debit, 'INSUFFICIENT_FUNDS')) {
      const credit = await this.credit('balance read: CREDIT 0.01 (a DEBIT of 0.01 was refused for want of funds)', playerId, 1);
      attempts.push(credit);
      tried.push('a CREDIT of 0.01');
      if (credit.reply.accepted && credit.reply.balanceMinor !== undefined) {
        const back = await this.debit('balance read: take that CREDIT 0.01 back', playerId, 1);
        if (!back.reply.accepted)
          this.notes.push(`the balance-read CREDIT of 0.01 (${credit.transactionId}) could not be taken back`);
        return credit.reply.balanceMinor - 1;
      }
    }
    fail(
      `could not read the balance of player ${playerId} (unknown to the wallet, or not holding ${this.wire.currency}, the currency verify writes amounts in?): ` +
        `${attempts.map((step, i) => `${tried[i]} got ${describeOutcome(step.exchange)}`).join(', ')}; no reply carried {balance}. ` +
        `Check --players; for players in another currency say which (--currency JPY, or config callbacks.currency).`,
    );
  }

  // ---- expectations ----

  /** A 2xx `{balance}` equal to `expectedMinor`. */
  expectBalance(step: Step, expectedMinor: number, what: string): void {
    const { reply, exchange } = step;
    if (!reply.accepted) fail(`${what}: expected 2xx {balance: ${this.money(expectedMinor)}}, got ${describeOutcome(exchange)}`);
    if (reply.balanceMinor === undefined) {
      fail(
        `${what}: expected {balance} as a number or decimal string with at most ${this.wire.codec().exponent} decimals, got balance ${JSON.stringify(reply.rawBalance)} in ${describeOutcome(exchange)}`,
      );
    }
    if (reply.balanceMinor !== expectedMinor) {
      fail(
        `${what}: expected balance ${this.money(expectedMinor)}, got ${this.money(reply.balanceMinor)} (${describeOutcome(exchange)})`,
      );
    }
  }

  /**
   * A business rejection with `{error: code}` (or one of `codes`), as a 4xx or a 2xx: the style is
   * the wallet's choice. Never a 5xx, 408 or 429 (aggmock retries those), never garbage.
   */
  expectRejection(step: Step, code: OutcomeCode | readonly OutcomeCode[], what: string, status?: number): void {
    const names: OutcomeCode[] = typeof code === 'string' ? [code] : [...code];
    // A player the wallet does not know has no session token it issued: where the dialect has a code
    // for a bad token, a refusal of the token is a refusal of the player.
    if (
      names.includes('PLAYER_NOT_FOUND') &&
      this.isVendor &&
      factsOf(step.exchange)?.sessionToken !== undefined &&
      this.wire.dialect.reply.codes.INVALID_TOKEN !== undefined
    )
      names.push('INVALID_TOKEN');
    // Under a vendor dialect the wallet's own code is compared, even one other refusals share too
    // (Blue Ocean's "403"): a refusal with any other code is not the refusal the vendor documents.
    const codes = this.wire.codesOf(names);
    if (codes === undefined) {
      this.expectAnyRejection(step, what);
      return;
    }
    const codePath = this.wire.vendor?.reply.code ?? 'error';
    const wanted = codes.map((c) => `{${codePath}:${JSON.stringify(c)}}`).join(' or ');
    const { reply, exchange } = step;
    const got = this.isVendor ? reply.code : reply.error;
    if (!exchange.response) fail(`${what}: expected ${wanted}, got ${describeOutcome(exchange)}`);
    const s = reply.status ?? 0;
    if (reply.verdict === 'retry')
      fail(
        `${what}: a rejection must not be a ${s} (aggmock retries those); expected ${wanted}, got ${describeOutcome(exchange)}`,
      );
    if (reply.verdict !== 'rejected' || got === undefined || !codes.includes(got)) {
      fail(`${what}: expected ${status ?? '4xx (or 2xx)'} with ${wanted}, got ${describeOutcome(exchange)}`);
    }
    if (status !== undefined && s !== status)
      fail(`${what}: expected HTTP ${status} with ${wanted}, got ${describeOutcome(exchange)}`);
  }

  /**
   * Whether a repeat was answered "already done" (Evolution's BET_ALREADY_SETTLED): under a vendor
   * dialect that documents such a code, an acknowledgement of the repeat that moves no money.
   */
  repeatAcknowledged(step: Step): boolean {
    return step.reply.verdict === 'rejected' && isAlreadyProcessed(this.wire.dialect, step.reply.code);
  }

  /** A repeat's verdict, an "already done" answer counted as the acknowledgement it is. */
  repeatVerdict(step: Step): ReadReply['verdict'] {
    return this.repeatAcknowledged(step) ? 'accepted' : step.reply.verdict;
  }

  /** Whether a step was refused for this reason (on a wire without codes: refused at all). */
  isRejection(step: Step, code: OutcomeCode): boolean {
    const named = this.wire.code(code);
    return step.reply.verdict === 'rejected' && (named === undefined || step.reply.error === named);
  }

  /**
   * A business rejection with whatever code the wallet chose, never a retry or garbage. On a wire
   * with codes it must name one (`{error}`); on one without (Betnex: `{success:false, msg}`) the refusal is enough.
   */
  expectAnyRejection(step: Step, what: string): void {
    const { reply, exchange } = step;
    const coded = this.wire.codedReplies;
    if (reply.verdict !== 'rejected' || (coded && reply.error === undefined)) {
      fail(`${what}: expected a refusal${coded ? ' with {error:<code>}' : ''}, got ${describeOutcome(exchange)}`);
    }
  }

  /**
   * The wallet moved no money with this step, in whichever way it chose: it refused it (any
   * business rejection, 4xx or 2xx), or it accepted it and the balance it reports is unchanged.
   * A 5xx, no answer or garbage is a failure: the aggregator would retry and cannot know.
   */
  expectNoMoneyMoved(step: Step, playerId: string, beforeMinor: number, what: string): 'accepted' | 'rejected' {
    this.undoWhatMoved(step, playerId, beforeMinor, what);
    const { reply, exchange } = step;
    if (reply.verdict === 'rejected') return 'rejected';
    if (reply.verdict !== 'accepted') {
      fail(`${what}: expected an acceptance that moves no money, or a rejection {error}; got ${describeOutcome(exchange)}`);
    }
    if (reply.balanceMinor !== undefined && reply.balanceMinor !== beforeMinor) {
      fail(
        `${what}: expected no money to move (balance ${this.money(beforeMinor)}), but the reply says ${this.money(reply.balanceMinor)} ` +
          `(moved by ${this.money(reply.balanceMinor - beforeMinor)}): ${describeOutcome(exchange)}`,
      );
    }
    return 'accepted';
  }

  /** The balance read back now equals `expectedMinor`. */
  async expectBalanceNow(playerId: string, expectedMinor: number, why: string): Promise<void> {
    const now = await this.readBalance(playerId);
    if (now !== expectedMinor) {
      fail(
        `${why}: expected player ${playerId}'s balance to be ${this.money(expectedMinor)}, got ${this.money(now)} (off by ${this.money(now - expectedMinor)})`,
      );
    }
  }
}

/** Attempts of one call whose reply asks for a retry in a 2xx (Pragmatic 100), as the engine would make them. */
const MAX_RETRY_CODE_ATTEMPTS = 3;

/** A reply read under a vendor dialect, as verify's checks read replies. */
function fromDialect(read: DialectReadReply | undefined): ReadReply {
  if (!read) return { verdict: 'none', accepted: false };
  const error = read.outcome ?? read.code;
  return {
    status: read.status,
    verdict: read.verdict,
    ...(error === undefined ? {} : { error }),
    ...(read.code === undefined ? {} : { code: read.code }),
    ...(read.balance.kind === 'ok' ? { balanceMinor: read.balance.minor } : {}),
    ...(read.balance.kind === 'invalid' ? { rawBalance: read.balance.raw } : {}),
    ...(read.token === undefined ? {} : { token: read.token }),
    accepted: read.verdict === 'accepted',
  };
}

/** Why the state URL refused a state, from its answer; a redirect is refused (it is never followed). */
export function stateRefusal(url: string, state: string, res: Response, text: string): string {
  const redirect =
    res.status >= 300 && res.status < 400
      ? ` (a redirect to ${res.headers.get('location') ?? '(no Location)'}: aggmock never follows redirects; answer at the state URL itself)`
      : '';
  return `the state URL ${url} refused state "${state}" with HTTP ${res.status}${redirect}: ${text.slice(0, 300) || '(empty body)'}`;
}
