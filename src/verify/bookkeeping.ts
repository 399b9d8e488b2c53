import { formatMinor, toMajor } from '../money/index.ts';
import { messageOf } from '../shared/index.ts';
import { describeOutcome } from './client.ts';
import { STATE_START_BALANCE_MINOR, type Step, WalletUnderTest } from './wallet-under-test.ts';

/*
 * What a check leaves behind, and how it is put right: the cleanups it registers (give back a
 * DEBIT, take back a CREDIT, undo what a faulty wallet moved), run newest first after the check
 * whatever its outcome; the expectations judged only after them; and, in players mode, each
 * player put back at the balance it started from.
 */
export class Bookkeeping extends WalletUnderTest {
  private readonly cleanups: { label: string; fn: () => Promise<void> }[] = [];
  private readonly afterCleanups: (() => Promise<void>)[] = [];
  /** Players mode: the balance each player had when the check first read it, to restore afterwards. */
  private readonly startBalances = new Map<string, number>();

  onCleanup(label: string, fn: () => Promise<void>): void {
    this.cleanups.push({ label, fn });
  }

  /** Runs the cleanups, newest first; a failing cleanup is noted, never a failure of the check. */
  async cleanUp(): Promise<void> {
    for (const { label, fn } of this.cleanups.splice(0).reverse()) {
      try {
        await fn();
      } catch (error) {
        this.notes.push(`cleanup "${label}" did not complete: ${messageOf(error)}`);
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
        const label = `restore: ${short ? 'CREDIT' : 'DEBIT'} ${this.money(amount)} (${playerId} was left ${short ? 'short' : 'over'})`;
        const step = short ? await this.credit(label, playerId, amount) : await this.debit(label, playerId, amount);
        const restored = step.reply.accepted;
        outcome = {
          restored,
          note: restored
            ? `${playerId} held ${this.money(now)} afterwards instead of ${this.money(start)}; restored with a ${short ? 'CREDIT' : 'DEBIT'} of ${this.money(amount)}`
            : `${playerId} holds ${this.money(now)} afterwards instead of ${this.money(start)}, and restoring it failed: ${describeOutcome(step.exchange)}`,
        };
      } catch (error) {
        outcome = {
          restored: false,
          note: `could not check ${playerId}'s balance afterwards: ${messageOf(error)}`,
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

  /** Gives money a (faulty) wallet took back after the check: a CREDIT of the amount. */
  giveBack(playerId: string, amountMinor: number, why: string): void {
    if (amountMinor <= 0) return;
    this.onCleanup(`give back ${this.money(amountMinor)} (${why})`, async () => {
      const step = await this.credit(`cleanup: CREDIT ${this.money(amountMinor)} (${why})`, playerId, amountMinor);
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

  /** Gives an accepted DEBIT back after the check: its ROLLBACK, or a CREDIT of its amount on a wire without one. */
  undoDebit(playerId: string, debitTx: string, amountMinor: number): void {
    this.onCleanup(`give back DEBIT ${debitTx}`, async () => {
      const step = await this.reverse(`cleanup: give back DEBIT ${debitTx}`, playerId, debitTx, amountMinor);
      if (!step.reply.accepted) throw new Error(describeOutcome(step.exchange));
    });
  }

  /** A DEBIT given back after the check when the wallet accepts it. */
  async debitGivenBack(...args: Parameters<WalletUnderTest['debit']>): ReturnType<WalletUnderTest['debit']> {
    const step = await this.debit(...args);
    if (step.reply.accepted) this.undoDebit(args[1], step.transactionId, args[2]);
    return step;
  }

  /** Takes an accepted CREDIT back after the check (a DEBIT of the same amount). */
  undoCredit(playerId: string, amountMinor: number): void {
    this.onCleanup(`take back CREDIT of ${this.money(amountMinor)}`, async () => {
      const step = await this.debit(
        `cleanup: DEBIT ${this.money(amountMinor)} (takes the test CREDIT back)`,
        playerId,
        amountMinor,
      );
      if (!step.reply.accepted) throw new Error(describeOutcome(step.exchange));
    });
  }
}
