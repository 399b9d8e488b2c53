import { randomFillSync } from 'node:crypto';
import { ApiError } from '../http/errors.ts';
import { FreeRoundAwards } from './awards.ts';

/** A launched game session: who plays what, with which balance, until when. */
export interface LaunchSession {
  id: string;
  playerId: string;
  gameId: string;
  gameName: string;
  provider: string;
  currency: string;
  lang: string;
  platform: 1 | 2;
  homeUrl: string;
  /** Where this session's wallet callbacks go, when the launch named one; else the configured webhook. */
  callbackUrl?: string;
  /** The operator's session token given at launch: every call of the session carries it. */
  token?: string;
  balanceAtLaunchMinor: number;
  createdAt: number;
  expiresAt: number;
  /** When the link was spent by an earlier open (a client fault: one-time links), if it was. */
  usedAt?: number;
}

export type SessionLookup =
  | { status: 'active'; session: LaunchSession }
  | { status: 'expired'; session: LaunchSession }
  | { status: 'used'; session: LaunchSession }
  | { status: 'unknown' };

export interface CreateSessionOptions {
  expiresInSeconds: number;
  /** Sessions kept at most (live and recently expired); the oldest is forgotten first. Default 10,000. */
  maxSessions?: number;
  /**
   * At the cap, forget expired sessions only and then refuse the launch (503) rather than forget a
   * live one: on an exposed instance, anonymous launches must not end the testers' open games.
   */
  refuseAtCap?: boolean;
}

/** Default of config `launch.maxSessions`. */
export const DEFAULT_MAX_SESSIONS = 10_000;

/** How long an expired session is still recognised as "expired" (410) rather than "unknown" (404). */
const EXPIRED_MEMORY_MS = 24 * 3_600_000;

/**
 * Launch sessions, in memory. Expired ones are kept a day so a stale link answers 410 Gone
 * with an explanation instead of a bare 404, then pruned. At most `maxSessions` are kept: a loop
 * of launches cannot grow memory without bound (the oldest session is forgotten first).
 */
export class LaunchSessions {
  private readonly sessions = new Map<string, LaunchSession>();
  /**
   * Ids in creation order, oldest at `head`: the session to forget first. (Asking the Map for its
   * first key instead walks past every entry deleted since its last rehash: thousands per launch
   * once the cap is reached.) Ids pruned meanwhile are skipped when their turn comes.
   */
  private order: string[] = [];
  private head = 0;
  private created = 0;
  /**
   * Free rounds awarded through a vendor's operator API, played by these sessions' play pages: in
   * memory unless given awards with a store (`serve` keeps them in its SQLite file).
   */
  readonly awards: FreeRoundAwards;

  constructor(
    private readonly now: () => number = () => Date.now(),
    awards?: FreeRoundAwards,
  ) {
    this.awards = awards ?? new FreeRoundAwards(now);
  }

  create(input: Omit<LaunchSession, 'id' | 'createdAt' | 'expiresAt'>, options: CreateSessionOptions): LaunchSession {
    const createdAt = this.now();
    if (options.refuseAtCap) this.refuseAtCap(options.maxSessions ?? DEFAULT_MAX_SESSIONS, createdAt);
    // The id before the spread: V8 copies `{ ...input, id }` through a slow path (~5 µs here, ~0.3 µs this way).
    const session: LaunchSession = {
      id: sessionId(),
      ...input,
      createdAt,
      expiresAt: createdAt + options.expiresInSeconds * 1000,
    };
    this.sessions.set(session.id, session);
    this.order.push(session.id);
    if (++this.created % 1000 === 0) this.prune();
    const max = options.maxSessions ?? DEFAULT_MAX_SESSIONS;
    while (this.sessions.size > max && this.head < this.order.length) this.sessions.delete(this.order[this.head++] as string);
    // Drop the forgotten ids from the front now and then (amortised: at most once per half of the array).
    if (this.head > 1024 && this.head * 2 > this.order.length) {
      this.order = this.order.slice(this.head);
      this.head = 0;
    }
    return session;
  }

  /** At the cap: expired sessions leave; when every one is live, the launch is refused (503, naming launch.maxSessions). */
  private refuseAtCap(max: number, now: number): void {
    if (this.sessions.size < max) return;
    for (const [id, session] of this.sessions) if (session.expiresAt <= now) this.sessions.delete(id);
    if (this.sessions.size < max) return;
    throw new ApiError(
      503,
      `The launch is refused: ${this.sessions.size} live game sessions, the most this instance keeps (launch.maxSessions ${max}). Open games are not ended for new launches on an exposed instance; try again when sessions expire, or raise launch.maxSessions.`,
      { extra: { error: 'SESSIONS_FULL' }, headers: { 'Retry-After': '60' } },
    );
  }

  lookup(id: string): SessionLookup {
    const session = this.sessions.get(id);
    if (!session) return { status: 'unknown' };
    if (this.now() >= session.expiresAt) return { status: 'expired', session };
    return session.usedAt === undefined ? { status: 'active', session } : { status: 'used', session };
  }

  /** Marks a session's link as already used (a client fault: a one-time link someone opened first). */
  markUsed(id: string): boolean {
    const session = this.sessions.get(id);
    if (!session) return false;
    session.usedAt ??= this.now();
    return true;
  }

  /** Makes a session's link expired from now on (a client fault: the link the client got is already dead). */
  expire(id: string): boolean {
    const session = this.sessions.get(id);
    if (!session) return false;
    session.expiresAt = Math.min(session.expiresAt, this.now());
    return true;
  }

  /**
   * Ends a player's live sessions (of one game, when named) now: their links answer 410 from then on
   * (a vendor's close-session or logout call). Answers how many were ended.
   */
  closeFor(playerId: string, gameId?: string): number {
    const now = this.now();
    let closed = 0;
    for (const session of this.sessions.values()) {
      if (session.playerId !== playerId || session.expiresAt <= now) continue;
      if (gameId !== undefined && session.gameId !== gameId) continue;
      session.expiresAt = now;
      closed++;
    }
    return closed;
  }

  get size(): number {
    return this.sessions.size;
  }

  prune(): void {
    const cutoff = this.now() - EXPIRED_MEMORY_MS;
    for (const [id, session] of this.sessions) if (session.expiresAt < cutoff) this.sessions.delete(id);
    // The Map keeps creation order: the eviction queue starts again from what is left.
    this.order = [...this.sessions.keys()];
    this.head = 0;
  }
}

/** Session ids drawn per pool fill: one call into the CSPRNG per 256 launches instead of one per launch. */
const ID_BYTES = 16;
const idPool = Buffer.alloc(ID_BYTES * 256);
let idOffset = idPool.length;

/** 128 random bits as 32 hex characters; each pool byte is used once. */
function sessionId(): string {
  if (idOffset === idPool.length) {
    randomFillSync(idPool);
    idOffset = 0;
  }
  const id = idPool.toString('hex', idOffset, idOffset + ID_BYTES);
  idOffset += ID_BYTES;
  return id;
}
