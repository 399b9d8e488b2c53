/**
 * The preflight of `aggmock verify`: before any check, the fewest money-neutral requests that
 * tell whether the checks can mean anything. Each player's balance is read through the webhook
 * (the main player's twice), which shows at once whether the wallet answers in time, accepts
 * aggmock's signature, knows the players and their currency — and whether the balance probe
 * itself moves money.
 *
 * A prerequisite that fails is the run's first cause: reported once, with the fix in the
 * user's terms, and every check or contract interaction that needs it is BLOCKED by it instead
 * of failing with its own copy of the symptom. A probe that moves money is a finding on the rule
 * the probe relies on (one failure), and verify reads balances another way from then on.
 */

import { carriesSessionToken, signsWithHeaderScheme } from '../dialects/capabilities.ts';
import type { OutcomeCode } from '../dialects/index.ts';
import type { Exchange } from './client.ts';
import { type BalanceProbe, CheckContext, CheckFailure, type CheckSettings, isFinal } from './context.ts';

/**
 * What a check or contract interaction needs of the wallet. Every one needs it to 'answer' (in
 * time); most need aggmock's 'signature' accepted and the main 'player' known in the currency
 * verify writes; a few also the 'second-player'.
 */
export type Prerequisite = 'answers' | 'signature' | 'player' | 'second-player';

/** What a check needs unless it says otherwise (`Check.needs`). */
export const DEFAULT_NEEDS: readonly Prerequisite[] = ['answers', 'signature', 'player'];

export type CauseKind = keyof typeof CAUSE_LABELS;

/** A failed prerequisite, found before the checks: the one reason the run could not judge the wallet. */
export interface FirstCause {
  kind: CauseKind;
  /** The prerequisite that failed: every result that needs it is blocked. */
  blocks: Prerequisite;
  /** What happened, in one line, e.g. "the wallet refused aggmock's signature (401 INVALID_SIGNATURE)". */
  summary: string;
  /** What to do about it, naming the flag or setting. */
  fix: string;
  /** The requests that showed it. */
  exchanges: Exchange[];
}

/** A balance probe that moved money: a failure of the rule the probe relies on. */
export interface ProbeFinding {
  /** The check of that rule, e.g. rollback-unknown. */
  checkId: string;
  reason: string;
  exchanges: Exchange[];
}

export interface PreflightResult {
  cause?: FirstCause;
  findings: ProbeFinding[];
  /** The probe the rest of the run reads balances with. */
  balanceProbe: BalanceProbe;
}

/** Whether a result that needs `needs` is blocked by the first cause. */
export function blockedBy(cause: FirstCause | undefined, needs: readonly Prerequisite[]): boolean {
  return cause !== undefined && (cause.blocks === 'answers' || needs.includes(cause.blocks));
}

/** A first cause in two or three words, for the rows it blocks (the whole story is told once, above them). */
const CAUSE_LABELS = {
  down: 'the wallet is down',
  timeout: 'no answer within --timeout',
  signature: 'signature refused',
  'session-token': 'session token refused',
  'unknown-player': 'unknown player',
  currency: 'wrong currency',
  'state-url': 'state URL failed',
  balance: 'balance unreadable',
} as const satisfies Record<string, string>;

/** The reason a blocked result shows: short, pointing at the one place the cause is explained. */
export function blockedReason(cause: FirstCause): string {
  return `blocked by the first cause (${CAUSE_LABELS[cause.kind]}): see FIRST CAUSE`;
}

/**
 * Runs the preflight. With a state URL each player is first set up there (a refusal is the first
 * cause), then read through the webhook. In players mode a player a moving probe changed is put
 * back where it was.
 *
 * @example
 * const { cause, findings, balanceProbe } = await runPreflight(plan.settings);
 */
export async function runPreflight(settings: CheckSettings): Promise<PreflightResult> {
  // A copy: the probe it switches to is returned, not written into the caller's settings.
  const ctx = new CheckContext({ ...settings }, 'preflight');
  const findings: ProbeFinding[] = [];
  const [main, ...others] = settings.players as [string, ...string[]];
  let balanceProbe = probeOf(settings);
  /** The preflight ends here, with the first cause found (none: failures aggmock retries, the checks' to report). */
  const end = (cause?: FirstCause | null): PreflightResult => ({ ...(cause ? { cause } : {}), findings, balanceProbe });
  const refused = await tokenRefusal(ctx, main);
  if (refused !== undefined) return end(refused);
  const first = await readOnce(ctx, main, 'player', true);
  if (typeof first !== 'number') return end(first);

  // The same read again: a probe that moves money shows as a balance that moved in between.
  const probe = ctx.lastProbe ?? balanceProbe;
  const second = await readOnce(ctx, main, 'player', false);
  if (typeof second !== 'number') return end(second);
  if (second !== first) {
    const moved = second - first;
    const exchanges = [...ctx.client.exchanges];
    if (probe === 'neutral') {
      findings.push(neutralProbeFinding(ctx, main, first, second, exchanges));
      balanceProbe = 'round-trip';
      ctx.settings.balanceProbe = balanceProbe;
      // Two probes moved the balance by `moved` each: it stood at first - moved before the first.
      ctx.restoreTo(main, first - moved);
      const restored = (await ctx.restoreStartBalances()).every((r) => r.restored);
      const third = await readOnce(ctx, main, 'player', false);
      const fourth = typeof third === 'number' ? await readOnce(ctx, main, 'player', false) : third;
      if (third === null) return end(null);
      if (typeof fourth !== 'number') return end(fourth);
      if (!restored || third !== fourth) return end(noNeutralProbe(ctx, main, exchanges));
    } else {
      return end(noNeutralProbe(ctx, main, exchanges));
    }
  }
  for (const other of others) {
    const read = await readOnce(ctx, other, 'second-player', true);
    if (read !== null && typeof read !== 'number') return end(read);
  }
  return end();
}

function probeOf(settings: CheckSettings): BalanceProbe {
  return settings.balanceProbe ?? 'neutral';
}

/**
 * One balance read of `playerId` (set up first through a state URL when `setUp`): the balance, the
 * first cause it ran into, or null when it failed on answers aggmock would retry (5xx, garbage): a
 * wallet that errs like that errs in the checks too, and they say so each with its own requests.
 */
async function readOnce(
  ctx: CheckContext,
  playerId: string,
  prerequisite: Prerequisite,
  setUp: boolean,
): Promise<number | FirstCause | null> {
  const from = ctx.client.exchanges.length;
  let balance: number | undefined;
  let failure: string | undefined;
  let stateFailure = false;
  try {
    if (ctx.hasState && setUp) {
      stateFailure = true;
      await ctx.startBalance(playerId);
      stateFailure = false;
    }
    balance = await ctx.readBalance(playerId);
  } catch (error) {
    if (!(error instanceof CheckFailure)) throw error;
    failure = error.message;
  }
  const sent = ctx.client.exchanges.slice(from);
  if (failure !== undefined && stateFailure) {
    return {
      kind: 'state-url',
      blocks: prerequisite,
      summary: `the state URL could not set up player ${playerId}`,
      fix: `${failure}. Make the state URL answer POST {state, params, action:"setup"} with a 2xx (or leave --state-url out to work from the players' own balances)`,
      exchanges: sent,
    };
  }
  const cause = classify(ctx, sent, playerId, prerequisite);
  if (cause) return cause;
  if (failure !== undefined && sent.some((x) => !isFinal(ctx.read(x)))) return null;
  if (failure !== undefined || balance === undefined) {
    return {
      kind: 'balance',
      blocks: prerequisite,
      summary: `verify could not read player ${playerId}'s balance through the webhook`,
      fix: failure ?? 'no reply carried a balance',
      exchanges: sent,
    };
  }
  return balance;
}

/**
 * Where the wallet checks the token on authenticate, the game opens as a real one does: an
 * authenticate with the player's token (a token it hands over is adopted for the run). A refusal is
 * the first cause, as a refused signature is: every call of the player would be refused for it (a
 * balance call that checks no token would not show it). Not sent under `--skip pact:authenticate`.
 */
async function tokenRefusal(ctx: CheckContext, playerId: string): Promise<FirstCause | undefined> {
  const dialect = ctx.wire.dialect;
  if (!carriesSessionToken(dialect) || !ctx.wire.has('authenticate') || ctx.settings.authenticates === false) return undefined;
  if (!dialect.session.checkedOn.includes('authenticate')) return undefined;
  const from = ctx.client.exchanges.length;
  const call = { operation: 'authenticate' as const, playerId, sessionToken: await ctx.tokenOf(playerId) };
  const step = await ctx.call(`preflight: authenticate ${playerId} with its session token (the game opens)`, call);
  const sent = ctx.client.exchanges.slice(from);
  const cause = classify(ctx, sent, playerId, 'player');
  if (cause !== undefined && cause.kind !== 'unknown-player') return cause;
  if (step.reply.verdict !== 'rejected') return undefined;
  const reason = `${step.exchange.response?.status ?? '-'}${step.reply.error === undefined ? '' : ` ${step.reply.error}`}`;
  return {
    kind: 'session-token',
    blocks: 'player',
    summary: `the wallet refused the session token of player ${playerId} on authenticate (${reason})`,
    fix:
      `pass the token your wallet issued to ${playerId} with --token ${playerId}=<token>. A wallet that hands a new token over on ` +
      'authenticate makes the one it was called with stale: give verify --tokens <file> and it writes the tokens the wallet hands over ' +
      `there and starts the next run with them (the last run's summary also names them). Or name players the wallet knows with --players (now ${ctx.players.join(',')})`,
    exchanges: [step.exchange],
  };
}

/** The first of `exchanges` that shows a failed prerequisite, as a first cause. */
function classify(
  ctx: CheckContext,
  exchanges: readonly Exchange[],
  playerId: string,
  prerequisite: Prerequisite,
): FirstCause | undefined {
  const url = ctx.settings.webhookUrl;
  for (const x of exchanges) {
    if (!x.response) {
      if (x.timedOut) {
        return {
          kind: 'timeout',
          blocks: 'answers',
          summary: `the wallet did not answer within ${ctx.settings.timeoutMs} ms (--timeout)`,
          fix:
            `make ${url} answer each callback well within the timeout (aggmock gives up and retries after it), ` +
            'or raise --timeout if your wallet is slow by design; every check would only wait it out again',
          exchanges: [x],
        };
      }
      const unresolved = /ENOTFOUND|EAI_AGAIN/.test(x.error ?? '');
      return {
        kind: 'down',
        blocks: 'answers',
        summary: unresolved
          ? `the wallet's host name does not resolve (${x.error})`
          : `nothing answers at ${url} (${x.error ?? 'no answer'})`,
        fix: unresolved
          ? `check the host in the webhook URL ${url}`
          : 'start the wallet, or check the webhook URL (host, port and path) you gave verify',
        exchanges: [x],
      };
    }
    const reply = ctx.read(x);
    const refusedFor = (code: OutcomeCode) => {
      const named = ctx.wire.code(code);
      return named !== undefined && reply.verdict === 'rejected' && reply.error === named;
    };
    const reason = `${x.response.status}${reply.error === undefined ? '' : ` ${reply.error}`}`;
    if (x.response.status === 401 || refusedFor('INVALID_SIGNATURE')) {
      const scheme = ctx.wire.signingScheme;
      return {
        kind: 'signature',
        blocks: 'signature',
        summary: `the wallet refused aggmock's signature (${reason})`,
        fix: !signsWithHeaderScheme(ctx.wire.dialect)
          ? `give verify the ${ctx.wire.name} credentials your wallet verifies with (${credentialNames(ctx)}), or set callbacks.credentials; ` +
            `if they are right, compare the request below with what your wallet signs (the ${ctx.wire.name} recipe: ${scheme})`
          : 'pass the secret your wallet verifies with as --secret (repeat it for several), or set callbacks.signing.secrets; ' +
            `if it is right, check the scheme (--scheme, now ${scheme}) and the header names (callbacks.signing.headers)`,
        exchanges: [x],
      };
    }
    if (carriesSessionToken(ctx.wire.dialect) && refusedFor('INVALID_TOKEN')) {
      return {
        kind: 'unknown-player',
        blocks: prerequisite,
        summary: `the wallet refused player ${playerId}'s session token, or does not know ${playerId} (${reason})`,
        fix: `give verify the token your wallet issued to ${playerId} with --token ${playerId}=<token>, or name players the wallet knows with --players (now ${ctx.players.join(',')})`,
        exchanges: [x],
      };
    }
    if (refusedFor('PLAYER_NOT_FOUND')) {
      return {
        kind: 'unknown-player',
        blocks: prerequisite,
        summary: `the wallet does not know player ${playerId} (${reason})`,
        fix: ctx.hasState
          ? `make the state URL create ${playerId} when it sets up "player ${playerId} has balance …", or name players the wallet knows with --players`
          : `name players your wallet knows with --players (now ${ctx.players.join(',')}), or create ${ctx.players.join(' and ')} in it`,
        exchanges: [x],
      };
    }
    if (refusedFor('WRONG_CURRENCY')) {
      return {
        kind: 'currency',
        blocks: prerequisite,
        summary: `the wallet refused ${ctx.wire.currency}, the currency verify wrote, for player ${playerId} (${reason})`,
        fix: `tell verify the players' currency with --currency <code> (or config callbacks.currency), or use players that hold ${ctx.wire.currency}`,
        exchanges: [x],
      };
    }
  }
  return undefined;
}

/** The credential flags of a vendor dialect, e.g. "--credential secretKey=…". */
function credentialNames(ctx: CheckContext): string {
  const names = Object.keys(ctx.wire.dialect.credentials);
  return names.length === 0 ? 'it takes none' : names.map((n) => `--credential ${n}=…`).join(', ');
}

/** The neutral probe moved money: a finding on the rule it relies on. */
function neutralProbeFinding(
  ctx: CheckContext,
  playerId: string,
  first: number,
  second: number,
  exchanges: Exchange[],
): ProbeFinding {
  const rollback = ctx.wire.hasRollback;
  const probe = rollback ? `a ROLLBACK of a transaction the wallet never saw (claiming ${ctx.money(1)})` : 'a CREDIT of 0';
  const rule = rollback ? 'a ROLLBACK of an unknown transaction must move no money' : 'a CREDIT of 0 must move no money';
  return {
    checkId: rollback ? 'rollback-unknown' : 'zero-amount',
    reason:
      `verify's balance probe, ${probe}, moved player ${playerId}'s balance: two reads in a row gave ` +
      `${ctx.money(first)} then ${ctx.money(second)} (moved by ${ctx.money(second - first)}); ${rule}. ` +
      `verify read balances with a DEBIT of ${ctx.money(1)} and its reversal instead, and put the player back where it was`,
    exchanges,
  };
}

/** No probe reads the balance without moving money: nothing that compares balances can be judged. */
function noNeutralProbe(ctx: CheckContext, playerId: string, exchanges: Exchange[]): FirstCause {
  return {
    kind: 'balance',
    blocks: 'player',
    summary: `every way verify reads player ${playerId}'s balance moved money (two reads in a row disagreed)`,
    fix:
      `make ${ctx.wire.hasRollback ? 'a ROLLBACK of an unknown transaction and the ROLLBACK of a DEBIT' : 'a CREDIT of 0 and a DEBIT followed by a CREDIT'} ` +
      'leave the balance where it was, or give verify a --state-url so it sets balances itself; see the requests below',
    exchanges,
  };
}
