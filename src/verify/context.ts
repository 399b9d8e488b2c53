import { isAlreadyProcessed, type OutcomeCode } from '../dialects/index.ts';
import { Bookkeeping } from './bookkeeping.ts';
import { describeOutcome, type ReadReply } from './client.ts';
import { factsOf } from './dialect-client.ts';
import { fail, WARNING_PREFIX } from './failure.ts';
import type { Step } from './wallet-under-test.ts';

/*
 * What a check works with (CheckContext): the wallet under test (wallet-under-test.ts: send, call,
 * read, balances), the bookkeeping of what to undo (bookkeeping.ts), and here the expectations, each
 * failing with what was expected and what came instead (the check's hint says how to fix it).
 */

export { CheckFailure, CheckSkipped, fail, skip } from './failure.ts';
export {
  type BalanceProbe,
  type CheckSettings,
  isFinal,
  STATE_START_BALANCE_MINOR,
  type Step,
} from './wallet-under-test.ts';

export class CheckContext extends Bookkeeping {
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
   * A business rejection with the wallet's code for `code` (or one of `codes`), as a 4xx or a 2xx:
   * the style is the wallet's choice. Never a 5xx, 408 or 429 (aggmock retries those), never garbage.
   * The wallet's own code is compared, even one other refusals share too (Blue Ocean's "403"): a
   * refusal with any other code is not the refusal the wire documents.
   */
  expectRejection(step: Step, code: OutcomeCode | readonly OutcomeCode[], what: string, status?: number): void {
    const names: OutcomeCode[] = typeof code === 'string' ? [code] : [...code];
    // A player the wallet does not know has no session token it issued: where the dialect has a code
    // for a bad token, a refusal of the token is a refusal of the player.
    if (
      names.includes('PLAYER_NOT_FOUND') &&
      factsOf(step.exchange)?.sessionToken !== undefined &&
      this.wire.dialect.reply.codes.INVALID_TOKEN !== undefined
    )
      names.push('INVALID_TOKEN');
    const codes = this.wire.codesOf(names);
    if (codes === undefined) {
      this.expectAnyRejection(step, what);
      return;
    }
    // A code aggmock guessed (the vendor documents none): any refusal passes; another code is a warning.
    if (this.wire.guessed(names) && !this.settings.strict) {
      this.expectAnyRejection(step, what);
      if (step.reply.code === undefined || !codes.includes(step.reply.code))
        this.notes.push(
          `${WARNING_PREFIX}${what}: refused with ${describeOutcome(step.exchange)}; aggmock's guessed code is ${codes.join(' or ')} (the vendor documents none: fails only under --strict)`,
        );
      return;
    }
    const codePath = this.wire.dialect.reply.code ?? 'error';
    const wanted = codes.map((c) => `{${codePath}:${JSON.stringify(c)}}`).join(' or ');
    const { reply, exchange } = step;
    if (!exchange.response) fail(`${what}: expected ${wanted}, got ${describeOutcome(exchange)}`);
    const s = reply.status ?? 0;
    if (reply.verdict === 'retry')
      fail(
        `${what}: a rejection must not be a ${s} (aggmock retries those); expected ${wanted}, got ${describeOutcome(exchange)}`,
      );
    if (reply.verdict !== 'rejected' || reply.code === undefined || !codes.includes(reply.code)) {
      fail(`${what}: expected ${status ?? '4xx (or 2xx)'} with ${wanted}, got ${describeOutcome(exchange)}`);
    }
    if (status !== undefined && s !== status)
      fail(`${what}: expected HTTP ${status} with ${wanted}, got ${describeOutcome(exchange)}`);
  }

  /**
   * Whether a repeat was answered "already done" (Evolution's BET_ALREADY_EXIST for a debit,
   * BET_ALREADY_SETTLED for a credit or cancel): on a wire that documents such a code for the
   * repeated call's operation, an acknowledgement of the repeat that moves no money.
   */
  repeatAcknowledged(step: Step): boolean {
    const operation = factsOf(step.exchange)?.operation;
    return step.reply.verdict === 'rejected' && isAlreadyProcessed(this.wire.dialect, step.reply.code, operation);
  }

  /** A repeat's verdict, an "already done" answer counted as the acknowledgement it is. */
  repeatVerdict(step: Step): ReadReply['verdict'] {
    return this.repeatAcknowledged(step) ? 'accepted' : step.reply.verdict;
  }

  /**
   * A business rejection with whatever code the wallet chose, never a retry or garbage. On a wire
   * with codes it must name one (`{error}`); on one without (Betnex: `{success:false, msg}`) the refusal is enough.
   */
  expectAnyRejection(step: Step, what: string): void {
    const { reply, exchange } = step;
    const coded = this.wire.codedReplies;
    if (reply.verdict !== 'rejected' || (coded && reply.error === undefined)) {
      const path = this.wire.dialect.reply.code ?? 'error';
      fail(`${what}: expected a refusal${coded ? ` with {${path}:<code>}` : ''}, got ${describeOutcome(exchange)}`);
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
