import type { EventKind } from '../callbacks/events.ts';

/**
 * The one history checker: is what a wallet answered for one player explained by SOME order of
 * the events it accepted that respects real time (an event answered before another was sent
 * comes first)? That is linearizability with the wallet as the sequential model, the question
 * Jepsen's Knossos and Porcupine answer: a depth-first search over the events that may go next,
 * memoising (events placed, wallet state) so no state is explored twice (Wing & Gong, Lowe).
 * Pure: no I/O, no clock. The shadow ledger and `aggmock verify` both ask here.
 *
 * The model: the balance in integer minor units. An applied DEBIT takes its amount (and pays its
 * win) and is refused when the balance does not cover it; a CREDIT adds; a ROLLBACK gives its
 * DEBIT back once (a rollback of a win takes its CREDIT back once); a repeated transaction (same type, player and id) moves nothing; a rejected
 * event moves nothing; an event whose outcome is unknown (no reply) may or may not have been
 * applied, at any time after it was sent. A reply without a balance constrains nothing.
 */

export type HistoryOutcome = 'accepted' | 'rejected' | 'unknown';

export interface HistoryOp {
  /** The user's handle for it: an event id, or a step number. */
  id: number;
  kind: EventKind;
  /** Its idempotency key (type, player, transactionId): a second op with the same key moves nothing. */
  key: string;
  /** ROLLBACK: the key of the DEBIT it gives back (or of the CREDIT it takes back, with `reversesCredit`). */
  reverses?: string | undefined;
  /** A rollback of a win: it takes the CREDIT's amount back instead of giving a DEBIT's back. */
  reversesCredit?: boolean | undefined;
  amountMinor: number;
  /** A whole round: the win paid with this DEBIT's bet. */
  winMinor?: number | undefined;
  outcome: HistoryOutcome;
  /** The balance its reply reported, minor units; absent when the reply carried none. */
  balanceMinor?: number | undefined;
  /** Real time, in any unit: when it was sent (or earliest could have been) and when its answer came (Infinity: never). */
  sentAt: number;
  answeredAt: number;
  /** How a person names it: "DEBIT tx_1 (event #3)". */
  label: string;
}

/** What is known of a transaction settled before this history (an earlier, closed window). */
export type PastStatus = 'applied' | 'rolled-back' | 'maybe' | 'tombstone';
export interface PastTx {
  status: PastStatus;
  amountMinor: number;
}

export interface HistoryStart {
  /** The balance before the first op; undefined when unknown (the first reply with a balance sets it). */
  balanceMinor?: number | undefined;
  /** Transactions from before, by key. */
  past?: (key: string) => PastTx | undefined;
}

/** One possible wallet state: the balance and what this history did to each transaction key. */
export interface WalletState {
  balance: number | undefined;
  /** Key → what happened to it within this history. */
  touched: ReadonlyMap<string, PastTx>;
}

/** Why the reply no order explains is wrong, in the model's terms. */
export type HistoryCause =
  | 'overdraft'
  | 'moved-on-duplicate'
  | 'rollback-not-restored'
  | 'rollback-moved-money'
  | 'rejected-moved-money'
  | 'drift';

export interface HistoryExplanation {
  /** The reply no order explains (given the replies answered before it). */
  op: HistoryOp;
  cause: HistoryCause;
  /** What the model would have had the balance be, nearest to the reported one first (the balance before, for an overdraft). */
  expected: number;
  /** The balance just before it, in the order that comes closest (undefined when unknown). */
  before: number | undefined;
  /**
   * What `possible` assumes: every other reply right (`others`), or, when they cannot all be, the
   * replies answered before this one (`earlier`).
   */
  basis: 'others' | 'earlier';
  /** Every balance some order could have given this reply (sorted, at most {@link MAX_LISTED}). */
  possible: number[];
  /** The ops that overlap in time with it (itself included): the events involved. */
  involved: HistoryOp[];
}

export type HistoryVerdict =
  | {
      linearizable: true;
      /** Every distinct state the wallet can be in after all ops; `complete` false when the search budget cut the enumeration short. */
      finals: WalletState[];
      complete: boolean;
    }
  | { linearizable: false; explanation: HistoryExplanation }
  /** Too many overlapping events to search within the budget: neither cleared nor blamed. */
  | { linearizable: undefined };

export interface HistoryLimits {
  /** Search nodes per search; past it the answer is "undetermined". */
  budget?: number;
}

/** Search nodes per search: ample for bursts of dozens of events whose replies carry balances. */
export const DEFAULT_BUDGET = 50_000;
const MAX_LISTED = 12;

/**
 * Judges one player's history. Ops are given in any order; real time comes from `sentAt` and
 * `answeredAt`.
 *
 * @example
 * const verdict = checkHistory(ops, { balanceMinor: 10_000 });
 * if (verdict.linearizable === false) console.log(verdict.explanation.op.label, verdict.explanation.possible);
 */
export function checkHistory(ops: readonly HistoryOp[], start: HistoryStart = {}, limits: HistoryLimits = {}): HistoryVerdict {
  const budget = limits.budget ?? DEFAULT_BUDGET;
  const lone = ops.length === 1 ? loneOp(ops[0] as HistoryOp, start) : undefined;
  if (lone) return lone;
  const all = search(ops, start, { constrained: () => true, budget, exhaustive: true });
  if (all.found) return { linearizable: true, finals: [...all.finals.values()], complete: !all.cut };
  if (all.cut || all.blocker === undefined) return { linearizable: undefined };
  // The reply no order gets past, as Porcupine reports the longest partial linearization: the op
  // whose answer blocked the search at its furthest point in time. Freed of its own constraint, the
  // others' orders say what it could have reported.
  const culprit = all.blocker;
  const others = search(ops, start, { constrained: (i) => i !== culprit, budget, exhaustive: true, watch: culprit });
  if (others.watched.length > 0)
    return { linearizable: false, explanation: explain(ops[culprit] as HistoryOp, others.watched, ops, 'others') };
  // Other replies are wrong too: what the replies answered before it allow.
  const earlier = (i: number) => answeredBefore(ops, i, culprit);
  const seen = search(ops, start, { constrained: earlier, budget, exhaustive: true, watch: culprit });
  return { linearizable: false, explanation: explain(ops[culprit] as HistoryOp, seen.watched, ops, 'earlier') };
}

/** The common case, one event on its own, without the search's machinery; undefined when it fails (the search explains). */
function loneOp(op: HistoryOp, start: HistoryStart): HistoryVerdict | undefined {
  const past = start.past ?? (() => undefined);
  const s = Node.root(start.balanceMinor);
  const statusOf = (n: Node, key: string) => n.touched.get(key) ?? past(key);
  const finals: Node[] = [];
  for (const apply of op.outcome === 'unknown' ? [false, true] : [op.outcome === 'accepted']) {
    for (const move of effects(s, op, apply, statusOf, true, undefined)) {
      const balance = afterReply(move.balance, op.balanceMinor);
      if (balance === null) continue;
      // No memo here, so no state hashes: a lone op leaves at most three states, compared entry by entry.
      const after = s.after(move, balance);
      if (!finals.some((f) => f.sameAs(after))) finals.push(after);
    }
  }
  return finals.length > 0 ? { linearizable: true, finals: finals.map(stateOf), complete: true } : undefined;
}

/**
 * The balance after an op whose reply reported `reported`, given the balance the model reaches:
 * the reported one when the model did not know it, null when they disagree.
 */
function afterReply(reached: number | undefined, reported: number | undefined): number | undefined | null {
  if (reported === undefined) return reached;
  if (reached === undefined) return reported;
  return reached === reported ? reached : null;
}

function stateOf(n: Node): WalletState {
  return { balance: n.balance, touched: n.touched };
}

/** Whether op `i` was answered before op `j` (ties: given first). */
export function answeredBefore(ops: readonly HistoryOp[], i: number, j: number): boolean {
  const x = (ops[i] as HistoryOp).answeredAt;
  const y = (ops[j] as HistoryOp).answeredAt;
  return x < y || (x === y && i < j);
}

/** Where the watched op was placed: the state before it and what the model would make of it. */
interface Placement {
  pre: number | undefined;
  /** Balances the model allows after it, overdraft allowed. */
  posts: number[];
  /** The balance after it on the path taken. */
  post?: number | undefined;
  overdraft: boolean;
  duplicate: boolean;
  /** A ROLLBACK whose DEBIT was applied and not yet given back. */
  restoring: boolean;
  /** Its own movement if applied fresh (−bet + win, +credit, +the DEBIT's amount). */
  movement: number;
}

interface SearchOptions {
  /** Whether op i's constraint (its reported balance; a DEBIT covered by the balance) holds. */
  constrained: (i: number) => boolean;
  budget: number;
  /** Enumerate every final state (else stop at the first linearization). */
  exhaustive: boolean;
  watch?: number;
}

interface SearchResult {
  /** Where a failed search got furthest: the unplaced op with the earliest answer at the latest such time. */
  blocker?: number;
  found: boolean;
  cut: boolean;
  finals: Map<string, WalletState>;
  watched: Placement[];
}

/** One change a step makes to what the history did to a transaction key. */
interface Change {
  key: string;
  tx: PastTx;
}

/**
 * What one op does to a state, before it is built: the balance after it and the keys it touches.
 * The search builds a state (a copied map) only for the moves a reply's balance allows.
 */
interface Move {
  balance: number | undefined;
  changes: readonly Change[];
}

const NO_CHANGES: readonly Change[] = [];
const NONE: readonly Node[] = [];
const STATUS_CODES: Record<PastStatus, number> = { applied: 1, 'rolled-back': 2, maybe: 3, tombstone: 4 };

/**
 * Per search, each key's two 32-bit hashes, computed once: a state's hash is updated per change
 * from integers, never by re-reading the key's characters.
 */
class KeyHashes {
  private readonly known = new Map<string, readonly [number, number]>();
  of(key: string): readonly [number, number] {
    let pair = this.known.get(key);
    if (!pair) {
      pair = [textHash(key, 0x811c9dc5), textHash(key, 0x01000193)];
      this.known.set(key, pair);
    }
    return pair;
  }
}

/** One wallet state in the search: the balance and what this history did to each key, with an order-independent hash of the latter. */
class Node {
  private text: string | undefined;
  private constructor(
    readonly balance: number | undefined,
    readonly touched: ReadonlyMap<string, PastTx>,
    /** Order-independent 2×32-bit hash of `touched` (0 when built without hashing). */
    private readonly h1: number,
    private readonly h2: number,
  ) {}

  static root(balance: number | undefined): Node {
    return new Node(balance, new Map(), 0, 0);
  }

  /** The state `move` leaves, at `balance`; the hash kept up to date by removing each old entry and adding the new one. */
  after(move: Move, balance: number | undefined, hashes?: KeyHashes): Node {
    if (move.changes.length === 0) return balance === this.balance ? this : new Node(balance, this.touched, this.h1, this.h2);
    const touched = new Map(this.touched);
    let { h1, h2 } = this;
    for (const { key, tx } of move.changes) {
      if (hashes) {
        const [k1, k2] = hashes.of(key);
        const old = touched.get(key);
        if (old) {
          h1 = (h1 - entryHash(k1, old)) | 0;
          h2 = (h2 - entryHash(k2, old)) | 0;
        }
        h1 = (h1 + entryHash(k1, tx)) | 0;
        h2 = (h2 + entryHash(k2, tx)) | 0;
      }
      touched.set(key, tx);
    }
    return new Node(balance, touched, h1, h2);
  }

  /** Canonical text of the state, for the memo (states built with hashing only). */
  get id(): string {
    this.text ??= `${this.balance === undefined ? '?' : this.balance}|${this.touched.size}|${this.h1}|${this.h2}`;
    return this.text;
  }

  sameAs(other: Node): boolean {
    if (other.balance !== this.balance || other.touched.size !== this.touched.size) return false;
    for (const [key, tx] of this.touched) {
      const theirs = other.touched.get(key);
      if (!theirs || theirs.status !== tx.status || theirs.amountMinor !== tx.amountMinor) return false;
    }
    return true;
  }
}

function textHash(text: string, seed: number): number {
  let h = seed;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h;
}

function entryHash(keyHash: number, tx: PastTx): number {
  let h = Math.imul(keyHash ^ STATUS_CODES[tx.status], 0x01000193);
  h = Math.imul(h ^ (tx.amountMinor | 0), 0x01000193);
  h = Math.imul(h ^ Math.floor(tx.amountMinor / 0x1_0000_0000), 0x01000193);
  h ^= h >>> 15;
  return Math.imul(h, 0x2c1b3c6d) ^ (h >>> 12);
}

function search(ops: readonly HistoryOp[], start: HistoryStart, options: SearchOptions): SearchResult {
  const n = ops.length;
  const done = new Uint8Array(n);
  const words = new Int32Array(Math.ceil(n / 31) || 1);
  const visited = new Set<string>();
  const finals = new Map<string, WalletState>();
  const watched: Placement[] = [];
  const past = start.past ?? (() => undefined);
  /** The watched op's placement on the path being explored, and which placement each of its resulting states came from. */
  let placement: Placement | undefined;
  const placedBy = new WeakMap<Node, Placement>();
  let furthest = { time: Number.NEGATIVE_INFINITY, depth: -1, op: -1 };
  let visits = 0;
  let found = false;
  let cut = false;

  const statusOf = (s: Node, key: string): PastTx | undefined => s.touched.get(key) ?? past(key);
  const hashes = new KeyHashes();

  /** The states one op can leave, or none when its constraint fails; only those are built. */
  const step = (s: Node, op: HistoryOp, constrained: boolean, record: boolean): readonly Node[] => {
    // Every move leaves the balance where it was or moves it by what the op moves when fresh
    // (effects): a reply reporting neither rules the op out here, with nothing built.
    const reported = constrained && !record ? op.balanceMinor : undefined;
    if (
      reported !== undefined &&
      s.balance !== undefined &&
      reported !== s.balance &&
      reported !== s.balance + fresh(op, s, statusOf)
    )
      return NONE;
    const out: Node[] = [];
    const consider = (apply: boolean) => {
      const noted: Placement[] = [];
      for (const move of effects(s, op, apply, statusOf, constrained, record ? noted : undefined)) {
        const balance = constrained ? afterReply(move.balance, op.balanceMinor) : move.balance;
        if (balance === null) continue;
        const next = s.after(move, balance, hashes);
        if (record && noted[0]) placedBy.set(next, { ...noted[0], post: move.balance });
        out.push(next);
      }
    };
    if (op.outcome === 'unknown') {
      consider(false);
      consider(true);
    } else consider(op.outcome === 'accepted');
    return out;
  };

  /** `alone`: every state on the path to `s` had one successor, so no other path reaches `s` and the memo is not asked. */
  const dfs = (count: number, s: Node, alone: boolean): void => {
    if (found && !options.exhaustive) return;
    if (++visits > options.budget) {
      cut = true;
      return;
    }
    if (count === n) {
      found = true;
      finals.set(s.id, stateOf(s));
      // Only orders that place every op count: the watched op's placement on this path is one.
      if (placement) watched.push(placement);
      return;
    }
    if (!alone) {
      const memo = `${words.join(',')}|${s.id}|${placement ? `${placement.pre}>${placement.post}` : ''}`;
      if (visited.has(memo)) return;
      visited.add(memo);
    }

    let earliestAnswer = Number.POSITIVE_INFINITY;
    let blocking = -1;
    for (let i = 0; i < n; i++) {
      const answered = (ops[i] as HistoryOp).answeredAt;
      if (!done[i] && answered < earliestAnswer) {
        earliestAnswer = answered;
        blocking = i;
      }
    }
    if (blocking >= 0 && (earliestAnswer > furthest.time || (earliestAnswer === furthest.time && count > furthest.depth))) {
      furthest = { time: earliestAnswer, depth: count, op: blocking };
    }
    const candidates: number[] = [];
    for (let i = 0; i < n; i++) if (!done[i] && (ops[i] as HistoryOp).sentAt <= earliestAnswer) candidates.push(i);

    // An op that may go now and leaves the state as it is can always go first: placing it earlier
    // frees the ops that must follow it and changes nothing else (partial-order reduction).
    const steps: (readonly Node[])[] = [];
    for (const i of candidates) {
      const op = ops[i] as HistoryOp;
      const next = step(s, op, options.constrained(i), i === options.watch);
      steps.push(next);
      const only = next.length === 1 ? (next[0] as Node) : undefined;
      if (
        op.outcome !== 'unknown' &&
        i !== options.watch &&
        only &&
        (only === s || (only.balance === s.balance && only.id === s.id))
      ) {
        place(i, count, only, alone);
        return;
      }
    }
    let successors = 0;
    for (const next of steps) successors += next.length;
    for (const [c, i] of candidates.entries()) {
      for (const next of steps[c] as readonly Node[]) {
        place(i, count, next, alone && successors === 1);
        if (cut || (found && !options.exhaustive)) return;
      }
    }
  };

  const place = (i: number, count: number, next: Node, alone: boolean) => {
    done[i] = 1;
    const w = (i / 31) | 0;
    words[w] = (words[w] as number) | (1 << (i % 31));
    const outer = placement;
    if (i === options.watch) placement = placedBy.get(next);
    dfs(count + 1, next, alone);
    placement = outer;
    done[i] = 0;
    words[w] = (words[w] as number) & ~(1 << (i % 31));
  };

  dfs(0, Node.root(start.balanceMinor), true);
  return { found, cut, finals, watched, ...(furthest.op >= 0 ? { blocker: furthest.op } : {}) };
}

/**
 * The model's step: the moves `op` can make from `s` when it is applied (`apply`) or not. A
 * constrained accepted DEBIT the balance does not cover makes none (a correct wallet refuses it).
 */
function effects(
  s: Node,
  op: HistoryOp,
  apply: boolean,
  statusOf: (s: Node, key: string) => PastTx | undefined,
  constrained: boolean,
  watched: Placement[] | undefined,
): Move[] {
  const own = statusOf(s, op.key);
  const duplicate = apply && own !== undefined && own.status !== 'tombstone' && own.status !== 'maybe';
  const plus = (delta: number) => (s.balance === undefined ? undefined : s.balance + delta);
  const stay: Move = { balance: s.balance, changes: NO_CHANGES };
  let out: Move[];
  let movement = 0;
  let restoring = false;
  let overdraft = false;
  if (!apply) out = [stay];
  else if (duplicate) {
    out = [stay];
    movement = fresh(op, s, statusOf);
  } else if (op.kind === 'credit') {
    movement = op.amountMinor;
    out = [{ balance: plus(movement), changes: [{ key: op.key, tx: { status: 'applied', amountMinor: op.amountMinor } }] }];
  } else if (op.kind === 'debit') {
    movement = -op.amountMinor + (op.winMinor ?? 0);
    overdraft = s.balance !== undefined && op.amountMinor > s.balance;
    const taken: Move = {
      balance: plus(movement),
      changes: [{ key: op.key, tx: { status: 'applied', amountMinor: op.amountMinor } }],
    };
    // A DEBIT after its own ROLLBACK: a wallet may take it or acknowledge it without taking money.
    out =
      own?.status === 'tombstone'
        ? [taken, { balance: s.balance, changes: [{ key: op.key, tx: { status: 'rolled-back', amountMinor: 0 } }] }]
        : [taken];
  } else {
    const debitKey = op.reverses ?? op.key;
    const debit = statusOf(s, debitKey);
    if (debit?.status === 'applied' || debit?.status === 'maybe') {
      restoring = debit.status === 'applied';
      movement = reversal(op, debit.amountMinor);
      const back: Change[] = [
        { key: debitKey, tx: { status: 'rolled-back', amountMinor: debit.amountMinor } },
        { key: op.key, tx: APPLIED_ROLLBACK },
      ];
      out = [{ balance: plus(movement), changes: back }];
      // A DEBIT whose fate is unknown may never have taken anything to give back.
      if (debit.status === 'maybe') out.push({ balance: s.balance, changes: back });
    } else {
      const tomb: Change[] = debit === undefined ? [{ key: debitKey, tx: TOMBSTONE }] : [];
      out = [{ balance: s.balance, changes: [...tomb, { key: op.key, tx: APPLIED_ROLLBACK }] }];
    }
  }
  // A copy of an op whose first delivery has an unknown fate: that one may have moved the money already.
  if (apply && own?.status === 'maybe')
    out.push({ balance: s.balance, changes: [{ key: op.key, tx: { status: 'applied', amountMinor: own.amountMinor } }] });
  if (watched && s.balance !== undefined) {
    const posts = out.flatMap((o) => (o.balance === undefined ? [] : [o.balance]));
    watched.push({ pre: s.balance, posts, overdraft, duplicate, restoring, movement });
  }
  if (apply && constrained && overdraft && op.kind === 'debit' && !duplicate) return [];
  return out;
}

const APPLIED_ROLLBACK: PastTx = { status: 'applied', amountMinor: 0 };
const TOMBSTONE: PastTx = { status: 'tombstone', amountMinor: 0 };

/** What a repeated op would have moved had it been the first: to recognise a double debit or credit. */
function fresh(op: HistoryOp, s: Node, statusOf: (s: Node, key: string) => PastTx | undefined): number {
  if (op.kind === 'credit') return op.amountMinor;
  if (op.kind === 'debit') return -op.amountMinor + (op.winMinor ?? 0);
  return reversal(op, statusOf(s, op.reverses ?? op.key)?.amountMinor ?? 0);
}

/** What a rollback moves: a DEBIT's amount given back, or a CREDIT's taken back. */
function reversal(op: HistoryOp, amountMinor: number): number {
  return op.reversesCredit ? -amountMinor : amountMinor;
}

function explain(
  op: HistoryOp,
  placements: readonly Placement[],
  ops: readonly HistoryOp[],
  basis: HistoryExplanation['basis'],
): HistoryExplanation {
  const actual = op.balanceMinor as number;
  const possible = [...new Set(placements.flatMap((p) => (p.post === undefined ? [] : [p.post])))].sort((a, b) => a - b);
  const involved = ops.filter((o) => o === op || (o.sentAt < op.answeredAt && op.sentAt < o.answeredAt));
  const nearest = (values: readonly number[]) =>
    values.reduce((best, v) => (Math.abs(v - actual) < Math.abs(best - actual) ? v : best), values[0] ?? actual);
  const found = (cause: HistoryCause, expected: number, before?: number): HistoryExplanation => ({
    op,
    cause,
    expected,
    basis,
    before: before ?? placements.find((p) => p.posts.includes(expected))?.pre,
    possible: possible.slice(0, MAX_LISTED),
    involved,
  });
  const at = (test: (p: Placement & { pre: number }) => boolean) =>
    placements.find((p): p is Placement & { pre: number } => p.pre !== undefined && test(p as Placement & { pre: number }));

  const over = at((p) => p.overdraft && (op.balanceMinor === undefined || p.posts.includes(actual)));
  if (over && op.outcome !== 'rejected') return found('overdraft', over.pre, over.pre);
  if (op.outcome === 'rejected') {
    const moved = at((p) => actual !== p.pre);
    if (moved) return found('rejected-moved-money', moved.pre, moved.pre);
  }
  const twice = at((p) => p.duplicate && p.movement !== 0 && actual - p.pre === p.movement);
  if (twice) return found('moved-on-duplicate', twice.pre, twice.pre);
  if (op.kind === 'rollback' && op.outcome === 'accepted') {
    const kept = at((p) => p.restoring && actual === p.pre);
    if (kept) return found('rollback-not-restored', nearest(kept.posts), kept.pre);
    const stray = at((p) => !p.restoring && !p.duplicate && actual !== p.pre);
    if (stray) return found('rollback-moved-money', stray.pre, stray.pre);
  }
  return found('drift', nearest(possible));
}
