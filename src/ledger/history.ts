import { explain, type HistoryExplanation, type Placement } from './explain.ts';
import {
  type HistoryOp,
  type Move,
  type PastStatus,
  type PastTx,
  type StatusOf,
  WALLET_MODEL,
  type WalletModel,
  type WalletState,
} from './wallet-model.ts';

/**
 * The one history checker: is what a wallet answered for one player explained by SOME order of
 * the events it accepted that respects real time (an event answered before another was sent
 * comes first)? That is linearizability with the wallet as the sequential model, the question
 * Jepsen's Knossos and Porcupine answer: a depth-first search over the events that may go next,
 * memoising (events placed, wallet state) so no state is explored twice (Wing & Gong, Lowe).
 * Pure: no I/O, no clock. The shadow ledger and `aggmock verify` both ask here.
 *
 * The model is a parameter (`WalletModel`, wallet-model.ts; by default the wallet's balance rules),
 * as Porcupine's checker takes its Model: the checker only searches orders. An event whose outcome
 * is unknown (no reply) may or may not have been applied, at any time after it was sent; a reply
 * without a balance constrains nothing. Why a reply no order explains is wrong is explain.ts's.
 */

export type { HistoryCause, HistoryExplanation } from './explain.ts';
export type {
  HistoryKind,
  HistoryOp,
  HistoryOutcome,
  PastStatus,
  PastTx,
  StatusOf,
  WalletModel,
  WalletState,
} from './wallet-model.ts';
export { WALLET_MODEL } from './wallet-model.ts';

export interface HistoryStart {
  /** The balance before the first op; undefined when unknown (the first reply with a balance sets it). */
  balanceMinor?: number | undefined;
  /** Transactions from before, by key. */
  past?: (key: string) => PastTx | undefined;
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

/**
 * Judges one player's history under a wallet model (default the wallet's balance rules). Ops are
 * given in any order; real time comes from `sentAt` and `answeredAt`.
 *
 * @example
 * const verdict = checkHistory(ops, { balanceMinor: 10_000 });
 * if (verdict.linearizable === false) console.log(verdict.explanation.op.label, verdict.explanation.possible);
 */
export function checkHistory(
  ops: readonly HistoryOp[],
  start: HistoryStart = {},
  limits: HistoryLimits = {},
  model: WalletModel = WALLET_MODEL,
): HistoryVerdict {
  const budget = limits.budget ?? DEFAULT_BUDGET;
  const lone = ops.length === 1 ? loneOp(ops[0] as HistoryOp, start, model) : undefined;
  if (lone) return lone;
  const search = (options: SearchOptions) => searchOrders(ops, start, options, model);
  const all = search({ constrained: () => true, budget });
  if (all.found) return { linearizable: true, finals: [...all.finals.values()], complete: !all.cut };
  if (all.cut || all.blocker === undefined) return { linearizable: undefined };
  // The reply no order gets past, as Porcupine reports the longest partial linearization: the op
  // whose answer blocked the search at its furthest point in time. Freed of its own constraint, the
  // others' orders say what it could have reported.
  const culprit = all.blocker;
  const others = search({ constrained: (i) => i !== culprit, budget, watch: culprit });
  if (others.watched.length > 0)
    return { linearizable: false, explanation: explain(ops[culprit] as HistoryOp, others.watched, ops, 'others') };
  // Other replies are wrong too: what the replies answered before it allow.
  const earlier = (i: number) => answeredBefore(ops, i, culprit);
  const seen = search({ constrained: earlier, budget, watch: culprit });
  return { linearizable: false, explanation: explain(ops[culprit] as HistoryOp, seen.watched, ops, 'earlier') };
}

/** The common case, one event on its own, without the search's machinery; undefined when it fails (the search explains). */
function loneOp(op: HistoryOp, start: HistoryStart, model: WalletModel): HistoryVerdict | undefined {
  const past = start.past ?? (() => undefined);
  const s = Node.of(model.init(start.balanceMinor));
  const statusOf: StatusOf = (key) => s.touched.get(key) ?? past(key);
  const finals: Node[] = [];
  for (const apply of op.outcome === 'unknown' ? [false, true] : [op.outcome === 'accepted']) {
    for (const move of model.step(s, op, apply, statusOf, true).moves) {
      const balance = afterReply(move.balance, op.balanceMinor);
      if (balance === null) continue;
      // No memo here, so no state hashes: a lone op leaves at most three states, compared entry by entry.
      const after = s.after(move, balance);
      if (!finals.some((f) => model.equal(f, after))) finals.push(after);
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

interface SearchOptions {
  /** Whether op i's constraint (its reported balance; a DEBIT covered by the balance) holds. */
  constrained: (i: number) => boolean;
  budget: number;
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

  /** The model's initial state, hashed entry by entry when it has touched keys already. */
  static of(state: WalletState, hashes?: KeyHashes): Node {
    const root = new Node(state.balance, new Map(), 0, 0);
    if (state.touched.size === 0) return root;
    return root.after(
      { balance: state.balance, changes: [...state.touched].map(([key, tx]) => ({ key, tx })) },
      state.balance,
      hashes,
    );
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

function searchOrders(ops: readonly HistoryOp[], start: HistoryStart, options: SearchOptions, model: WalletModel): SearchResult {
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

  const hashes = new KeyHashes();

  /** The states one op can leave, or none when its constraint fails; only those are built. */
  const step = (s: Node, op: HistoryOp, constrained: boolean, record: boolean): readonly Node[] => {
    // Every move leaves the balance where it was or moves it by what the op moves when fresh
    // (the model's step): a reply reporting neither rules the op out here, with nothing built.
    const statusOf: StatusOf = (key) => s.touched.get(key) ?? past(key);
    const reported = constrained && !record ? op.balanceMinor : undefined;
    if (
      reported !== undefined &&
      s.balance !== undefined &&
      reported !== s.balance &&
      reported !== s.balance + model.fresh(s, op, statusOf)
    )
      return NONE;
    const out: Node[] = [];
    const consider = (apply: boolean) => {
      const { moves, facts } = model.step(s, op, apply, statusOf, constrained);
      // The watched op's placement: what the diagnostics (explain.ts) read of where it went.
      const noted: Placement | undefined =
        record && s.balance !== undefined
          ? { pre: s.balance, posts: moves.flatMap((m) => (m.balance === undefined ? [] : [m.balance])), ...facts }
          : undefined;
      for (const move of moves) {
        const balance = constrained ? afterReply(move.balance, op.balanceMinor) : move.balance;
        if (balance === null) continue;
        const next = s.after(move, balance, hashes);
        if (noted) placedBy.set(next, { ...noted, post: move.balance });
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
        if (cut) return;
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

  dfs(0, Node.of(model.init(start.balanceMinor), hashes), true);
  return { found, cut, finals, watched, ...(furthest.op >= 0 ? { blocker: furthest.op } : {}) };
}
