/**
 * What every receiver's `style` and `bugs` options share (issue 32's proof: two correct wallets per
 * vendor in different vendor-allowed styles, and wallets with a bug planted on purpose).
 *
 * - Style 'A' (the default) is each receiver as first written: it keeps its session tokens and
 *   answers a repeat the lenient way its header describes.
 * - Style 'B' is a second correct wallet of the same vendor: where the vendor allows another answer
 *   (an "already processed" code, a fresh session token on authenticate, the documented refusal of
 *   an unknown rollback, …) it gives that one. Each receiver's header says what B changes and cites
 *   the vendor text that allows it.
 * - A planted bug makes the receiver wrong in one known way; each receiver lists the bugs it can
 *   plant and refuses to start with one it cannot (so a test never passes against a bug that is not
 *   there).
 *
 * Vendor-neutral (node:crypto only); nothing here is read from aggmock.
 */
import { randomBytes } from 'node:crypto';
import type { ReceiverPlayer } from './receiver-kit.ts';

export type ReceiverStyle = 'A' | 'B';

export const PLANTED_BUGS = [
  /** The static credential (query token, body secret or passkey, Authorization header, caller id/password) is not checked. */
  'ignores-credential',
  /** authenticate/check with a known player and a token the wallet never issued is accepted and makes that token valid. */
  'session-takeover',
  /** Funds are checked before the duplicate check: a repeat of an applied bet, after the balance fell below it, is refused. */
  'funds-before-duplicate',
  /** The dedupe memory is a bounded cache of the last FORGETFUL_MEMORY transactions: an older repeat is applied again. */
  'forgetful-dedupe',
  /** The signature is checked over JSON.stringify(JSON.parse(body)) instead of the bytes received. */
  'reserialised-signature',
  /** A request missing a required parameter (a body or query cut short) crashes the handler: HTTP 500 instead of the refusal. */
  'crashes-on-cut-request',
  /** An amount parameter that is there but is no number crashes the handler: HTTP 500 instead of the refusal. */
  'crashes-on-malformed-param',
  /**
   * authenticate/check hands a new session token over (as style B does) but the token it replaced
   * still places bets, where the vendor retires it (Evolution's INVALID_SID, Caleta's RS_ERROR_TOKEN_EXPIRED).
   */
  'accepts-old-token',
  /** A win or rollback carrying a token the wallet replaced is refused, where the vendor checks the token on bets only (Caleta). */
  'refuses-old-token-settlement',
] as const;

/** What a wallet that crashes answers: its framework's bare HTTP 500 (the crashes-on-cut-request bug). */
export const CRASH_REPLY = { status: 500, body: 'Internal Server Error' } as const;
export type PlantedBug = (typeof PLANTED_BUGS)[number];

/** How many transactions a forgetful dedupe memory keeps. */
export const FORGETFUL_MEMORY = 200;

/** The options every receiver's start function takes. */
export interface ReceiverOptions {
  credentials: Record<string, string>;
  players: ReceiverPlayer[];
  /** 'A' (default) or 'B'; see the receiver's header for what B changes. */
  style?: ReceiverStyle;
  /** Bugs planted on purpose (unit-tested in each receiver's *.bugs.test.ts). */
  bugs?: readonly PlantedBug[];
}

/** The bugs asked for, refusing one this receiver cannot plant. */
export function plantedBugs(
  vendor: string,
  requested: readonly PlantedBug[] | undefined,
  supported: readonly PlantedBug[],
): ReadonlySet<PlantedBug> {
  for (const bug of requested ?? []) {
    if (!supported.includes(bug)) {
      throw new Error(`${vendor} receiver: cannot plant ${JSON.stringify(bug)}; it plants ${supported.join(', ') || 'none'}`);
    }
  }
  return new Set(requested ?? []);
}

/**
 * Which transactions the dedupe check still remembers. A correct wallet remembers every one; with
 * `forgetful` only the last FORGETFUL_MEMORY noted, so an older repeat looks new.
 */
export class DedupeRecall {
  private readonly recent = new Set<string>();
  constructor(private readonly forgetful: boolean) {}

  /** Call when a transaction is first applied. */
  note(key: string): void {
    if (!this.forgetful) return;
    this.recent.delete(key);
    this.recent.add(key);
    while (this.recent.size > FORGETFUL_MEMORY) {
      const oldest = this.recent.values().next().value as string;
      this.recent.delete(oldest);
    }
  }

  /** Whether a stored transaction is seen as a repeat (always, unless forgetful and evicted). */
  remembers(key: string): boolean {
    return !this.forgetful || this.recent.has(key);
  }
}

/**
 * The bytes a signature is checked over: the raw body, or (the planted bug) the receiver's own
 * JSON re-serialisation of it, which differs from what was signed whenever the sender's key
 * order, spacing, number form (1.0) or escapes (\u00e9) differ from JSON.stringify's.
 */
export function signedBytes(raw: Buffer, reserialise: boolean): Buffer {
  if (!reserialise) return raw;
  try {
    return Buffer.from(JSON.stringify(JSON.parse(raw.toString('utf8'))));
  } catch {
    return raw;
  }
}

/**
 * The wallet's session tokens and whose they are: the launch tokens of the fixture, and tokens a
 * style-B wallet issues when it rotates one on authenticate/check.
 */
export class SessionBook {
  private readonly owners = new Map<string, string>();
  constructor(players: readonly ReceiverPlayer[]) {
    for (const p of players) if (p.token) this.owners.set(p.token, p.playerId);
  }

  owner(token: string): string | undefined {
    return this.owners.get(token);
  }

  belongsTo(token: string, playerId: string): boolean {
    return this.owners.get(token) === playerId;
  }

  /**
   * A fresh token (48 hex characters after the prefix) in place of `old`, which stops working
   * (unless `keepOld`: the accepts-old-token bug).
   */
  rotate(old: string, playerId: string, prefix = 'rot', keepOld = false): string {
    const fresh = `${prefix}-${randomBytes(24).toString('hex')}`;
    if (!keepOld) this.owners.delete(old);
    this.owners.set(fresh, playerId);
    return fresh;
  }

  /** Makes `token` a valid session of `playerId` (only the session-takeover bug does this with a guessed token). */
  adopt(token: string, playerId: string): void {
    this.owners.set(token, playerId);
  }
}
