import { DEFAULT_WIRE_SETTINGS, defaultWireDialect, type OutcomeCode } from '../dialects/index.ts';
import { type AmountFormat, currencyExponent, DEFAULT_EXPONENT, type ExtraCurrencies, formatMinor } from '../money/index.ts';
import { type Database, openDatabase } from '../storage/index.ts';
import { renderedAnswers } from './answers.ts';
import type { WalletEvent, WalletEventKind } from './events.ts';
import type { RejectOptions, ReplyWriter, WalletReply } from './replies.ts';

/**
 * Where a stored transaction ended up:
 * - DEBIT: `accepted`, `rejected` (not charged) or `rolled_back` (charged, then restored);
 * - CREDIT: `accepted` or `rolled_back` (paid, then taken back by a rollback of the win);
 * - ROLLBACK: `restored` (money given back), `noop` (nothing to give back: the DEBIT was rejected
 *   or already rolled back) or `tombstone` (the DEBIT was never seen; it will be refused if it comes).
 */
export type TransactionStatus = 'accepted' | 'rejected' | 'rolled_back' | 'restored' | 'noop' | 'tombstone';

export interface StoredTransaction {
  playerId: string;
  kind: WalletEventKind;
  transactionId: string;
  /** ROLLBACK: the DEBIT it reverses. */
  debitTransactionId: string | null;
  amountMinor: number;
  status: TransactionStatus;
  reply: WalletReply;
  createdAt: string;
}

/** A player's opening balance in minor units of their currency, and that currency (default: the store's). */
export type OpeningBalance = number | { balanceMinor: number; currency: string };

export interface WalletStoreOptions {
  /** SQLite file path (its folder is created if missing), or `:memory:`. Tables are created on open. */
  path: string;
  /** How balances are written in replies on the documented wire, when no `replies` writer is given. */
  amountFormat: AmountFormat;
  /** The reply writer (default: the default dialect's replies in `amountFormat`, rendered at once). */
  replies?: ReplyWriter;
  /** The currency of players created without one (`wallet.currency`). Default EUR. */
  currency?: string;
  /** Extra currencies and their decimals (`callbacks.currencies`). */
  currencies?: ExtraCurrencies;
  /** Player id → opening balance. Missing players are inserted; existing balances and currencies are never reset. */
  players?: Record<string, OpeningBalance>;
  /**
   * How far below zero a DEBIT may take a balance, in minor units. 0 for a real-money wallet; only
   * the `negative-balance` faulty variant raises it (to Infinity).
   */
  overdraftLimitMinor?: number;
  /** Injected clock for `created_at`. */
  now?: () => Date;
  /** Session tokens issued at launch, token → player (dialects that carry one); existing ones are kept. */
  sessions?: Record<string, string>;
}

/** The wallet's money and memory, usable without HTTP. Every amount is in minor units. */
export interface WalletStore {
  readonly db: Database;
  readonly replies: ReplyWriter;
  /** The balance in minor units, or `undefined` for an unknown player. */
  balanceOf(playerId: string): number | undefined;
  /** The player's currency (the store's default for players created without one), or `undefined` for an unknown player. */
  currencyOf(playerId: string): string | undefined;
  /** Sets (or creates) a player's balance. */
  setBalance(playerId: string, balanceMinor: number): void;
  /** The player a session token was issued to, or `undefined` for a token this wallet never issued. */
  playerOfToken(token: string): string | undefined;
  /** Issues (records) a session token for a player. */
  addSession(token: string, playerId: string): void;
  /** Deletes a player and everything the wallet remembers about them. */
  removePlayer(playerId: string): void;
  findTransaction(playerId: string, kind: WalletEventKind, transactionId: string): StoredTransaction | undefined;
  /** Drops the idempotency record of one transaction (used by the `double-debit` faulty variant). */
  forgetTransaction(playerId: string, kind: WalletEventKind, transactionId: string): void;
  /** The first reply to this transaction, if it was seen before. */
  replayIfDuplicate(event: WalletEvent): WalletReply | undefined;
  /** Stores a transaction and its reply so a duplicate gets the same answer. */
  recordTransaction(event: WalletEvent, status: TransactionStatus, reply: WalletReply): void;
  /**
   * Applies one callback atomically: duplicate check, rule checks, balance change and idempotency
   * record happen in one IMMEDIATE SQLite transaction, so no two requests can interleave.
   */
  applyEvent(event: WalletEvent): WalletReply;
  close(): void;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS players (
  id            TEXT PRIMARY KEY,
  balance_minor INTEGER NOT NULL,
  currency      TEXT              -- NULL: the wallet's currency
);
CREATE TABLE IF NOT EXISTS transactions (
  player_id    TEXT NOT NULL,
  type         TEXT NOT NULL CHECK (type IN ('DEBIT', 'CREDIT', 'ROLLBACK')),
  tx_id        TEXT NOT NULL,
  ref_tx_id    TEXT,               -- ROLLBACK: the DEBIT it reverses
  amount_minor INTEGER NOT NULL,
  status       TEXT NOT NULL,
  reply_status INTEGER NOT NULL,   -- the first reply, replayed verbatim to duplicates
  reply_body   TEXT NOT NULL,
  created_at   TEXT NOT NULL,
  -- The idempotency key: the same id for two players, or for a DEBIT and its ROLLBACK, is not a duplicate.
  PRIMARY KEY (player_id, type, tx_id)
);
-- Session tokens the wallet issued at launch (dialects that carry one): token -> player.
CREATE TABLE IF NOT EXISTS sessions (
  token     TEXT PRIMARY KEY,
  player_id TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS transactions_by_reversed_debit ON transactions (player_id, ref_tx_id) WHERE type = 'ROLLBACK';
`;

interface TransactionRow {
  player_id: string;
  type: WalletEventKind;
  tx_id: string;
  ref_tx_id: string | null;
  amount_minor: number;
  status: TransactionStatus;
  reply_status: number;
  reply_body: string;
  created_at: string;
}

/**
 * Opens (or creates) the wallet database and seeds the configured players.
 *
 * @example
 * const store = openWalletStore({ path: ':memory:', amountFormat: 'decimal', players: { p1: 100_000 } });
 * store.applyEvent({ kind: 'DEBIT', playerId: 'p1', transactionId: 'tx-1', amountMinor: 1_000 }); // {status:200, body:{balance:990}}
 */
export function openWalletStore(options: WalletStoreOptions): WalletStore {
  // WAL lets readers (GET /__players, a second process) run while a callback writes; the busy
  // timeout makes a second writer wait for the lock instead of failing.
  const db = openDatabase(options.path);
  db.exec(SCHEMA);
  addCurrencyColumn(db);

  const defaultCurrency = options.currency ?? 'EUR';
  const replies =
    options.replies ??
    renderedAnswers(defaultWireDialect(DEFAULT_WIRES[options.amountFormat]), defaultCurrency, options.currencies);
  const overdraftLimit = options.overdraftLimitMinor ?? 0;
  const now = options.now ?? (() => new Date());

  const sql = {
    balance: db.prepare<[string], { balance_minor: number; currency: string | null }>(
      'SELECT balance_minor, currency FROM players WHERE id = ?',
    ),
    seedPlayer: db.prepare('INSERT OR IGNORE INTO players (id, balance_minor, currency) VALUES (?, ?, ?)'),
    upsertBalance: db.prepare(
      'INSERT INTO players (id, balance_minor) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET balance_minor = excluded.balance_minor',
    ),
    deletePlayer: db.prepare('DELETE FROM players WHERE id = ?'),
    deletePlayerTransactions: db.prepare('DELETE FROM transactions WHERE player_id = ?'),
    findTransaction: db.prepare<[string, WalletEventKind, string], TransactionRow>(
      'SELECT * FROM transactions WHERE player_id = ? AND type = ? AND tx_id = ?',
    ),
    findRollbackOf: db.prepare<[string, string], TransactionRow>(
      "SELECT * FROM transactions WHERE player_id = ? AND type = 'ROLLBACK' AND ref_tx_id = ? LIMIT 1",
    ),
    insertTransaction: db.prepare(
      `INSERT INTO transactions (player_id, type, tx_id, ref_tx_id, amount_minor, status, reply_status, reply_body, created_at)
       VALUES (@player_id, @type, @tx_id, @ref_tx_id, @amount_minor, @status, @reply_status, @reply_body, @created_at)`,
    ),
    setStatus: db.prepare('UPDATE transactions SET status = ? WHERE player_id = ? AND type = ? AND tx_id = ?'),
    deleteTransaction: db.prepare('DELETE FROM transactions WHERE player_id = ? AND type = ? AND tx_id = ?'),
    playerOfToken: db.prepare<[string], { player_id: string }>('SELECT player_id FROM sessions WHERE token = ?'),
    addSession: db.prepare(
      'INSERT INTO sessions (token, player_id) VALUES (?, ?) ON CONFLICT (token) DO UPDATE SET player_id = excluded.player_id',
    ),
    deletePlayerSessions: db.prepare('DELETE FROM sessions WHERE player_id = ?'),
  };

  const seed = db.transaction((players: Record<string, OpeningBalance>) => {
    for (const [id, opening] of Object.entries(players)) {
      if (typeof opening === 'number') sql.seedPlayer.run(id, opening, null);
      else sql.seedPlayer.run(id, opening.balanceMinor, opening.currency);
    }
  });
  seed(options.players ?? {});
  db.transaction((sessions: Record<string, string>) => {
    for (const [token, playerId] of Object.entries(sessions)) sql.addSession.run(token, playerId);
  })(options.sessions ?? {});

  const balanceOf = (playerId: string) => sql.balance.get(playerId)?.balance_minor;
  const currencyOf = (playerId: string) => {
    const row = sql.balance.get(playerId);
    return row && (row.currency ?? defaultCurrency);
  };
  /** A player's amount for people, in their currency's decimals: 1050 → "10.50" (EUR), "1050" (JPY). */
  const money = (playerId: string, minor: number) => {
    const currency = currencyOf(playerId) ?? defaultCurrency;
    return formatMinor(minor, currencyExponent(currency, options.currencies) ?? DEFAULT_EXPONENT);
  };

  const findTransaction = (playerId: string, kind: WalletEventKind, transactionId: string) => {
    const row = sql.findTransaction.get(playerId, kind, transactionId);
    return row && toStoredTransaction(row);
  };

  const recordTransaction = (event: WalletEvent, status: TransactionStatus, reply: WalletReply) => {
    sql.insertTransaction.run({
      player_id: event.playerId,
      type: event.kind,
      tx_id: event.transactionId,
      ref_tx_id: event.debitTransactionId ?? null,
      amount_minor: event.amountMinor,
      status,
      reply_status: reply.status,
      reply_body: JSON.stringify(reply.body),
      created_at: now().toISOString(),
    });
  };

  /** Records the outcome and returns it: every decision below ends here, so none can forget the record. */
  const decide = (event: WalletEvent, status: TransactionStatus, reply: WalletReply) => {
    recordTransaction(event, status, reply);
    return reply;
  };

  // ---- The rules, one function per event kind. Each runs inside the transaction of applyEvent. ----

  /** A retry of something already answered gets the first answer and moves no money. */
  const replayIfDuplicate = (event: WalletEvent): WalletReply | undefined =>
    findTransaction(event.playerId, event.kind, event.transactionId)?.reply;

  /** The player's balance reply, in their currency. */
  const balanceReply = (event: WalletEvent, balanceMinor: number) => replies.balance(balanceMinor, currencyOf(event.playerId));
  const rejectFor = (event: WalletEvent, code: OutcomeCode, message: string, options: RejectOptions = {}) =>
    replies.reject(code, message, { ...options, currency: currencyOf(event.playerId) ?? defaultCurrency });

  /** Refuses (and records) a movement the balance cannot pay: `what` the player has less than. */
  const refuseFunds = (event: WalletEvent, balance: number, what: string) => {
    const message = `Player ${event.playerId} has ${money(event.playerId, balance)}, less than ${what}.`;
    return decide(event, 'rejected', rejectFor(event, 'INSUFFICIENT_FUNDS', message, { balanceMinor: balance }));
  };

  const applyDebit = (event: WalletEvent, balance: number): WalletReply => {
    // A ROLLBACK for this bet arrived first (it was sent because the aggregator gave up on the
    // DEBIT). Charging now would take money for a bet the aggregator already cancelled, so the
    // late DEBIT is refused. 409: it conflicts with what the wallet already knows.
    if (sql.findRollbackOf.get(event.playerId, event.transactionId)) {
      const message = `DEBIT ${event.transactionId} of player ${event.playerId} was already cancelled by a ROLLBACK received before it; it is refused so a cancelled bet is never charged.`;
      return decide(event, 'rejected', rejectFor(event, 'INVALID_REQUEST', message, { balanceMinor: balance, status: 409 }));
    }
    const after = balance - event.amountMinor;
    // Recorded too: a retry of a refused bet is refused again, even if the player has won since.
    if (after < -overdraftLimit) return refuseFunds(event, balance, `the bet of ${money(event.playerId, event.amountMinor)}`);
    if (event.winMinor) return applyRound(event, event.winMinor, after);
    sql.upsertBalance.run(event.playerId, after);
    return decide(event, 'accepted', balanceReply(event, after));
  };

  /**
   * A whole round in one callback: the bet (already checked against the balance) and the win land
   * together, and both are recorded under the round's transaction id with the one final reply, so
   * a repeat of the round (or of either half) replays it and moves nothing.
   */
  const applyRound = (event: WalletEvent, winMinor: number, afterBet: number): WalletReply => {
    const after = afterBet + winMinor;
    sql.upsertBalance.run(event.playerId, after);
    const reply = balanceReply(event, after);
    const { winMinor: _win, ...bet } = event;
    recordTransaction({ ...bet, kind: 'CREDIT', amountMinor: winMinor }, 'accepted', reply);
    return decide(bet, 'accepted', reply);
  };

  const applyCredit = (event: WalletEvent, balance: number): WalletReply => {
    const after = balance + event.amountMinor;
    sql.upsertBalance.run(event.playerId, after);
    return decide(event, 'accepted', balanceReply(event, after));
  };

  /**
   * A rollback of a win takes the CREDIT back once: unknown → acknowledged with nothing moved (a
   * tombstone), already taken back → acknowledged, a balance that cannot pay it back → refused.
   */
  const applyWinRollback = (event: WalletEvent, balance: number): WalletReply => {
    const winId = event.debitTransactionId ?? event.transactionId;
    const win = findTransaction(event.playerId, 'CREDIT', winId);
    if (!win) return decide(event, 'tombstone', balanceReply(event, balance));
    if (win.amountMinor !== event.amountMinor) {
      const message =
        `amount: ROLLBACK ${event.transactionId} takes back CREDIT ${winId} of ${money(event.playerId, win.amountMinor)}, ` +
        `but its amount is ${money(event.playerId, event.amountMinor)}; a rollback of a win takes back exactly what it paid.`;
      return rejectFor(event, 'INVALID_REQUEST', message, { balanceMinor: balance });
    }
    if (win.status !== 'accepted') return decide(event, 'noop', balanceReply(event, balance));
    const after = balance - win.amountMinor;
    if (after < -overdraftLimit)
      return refuseFunds(event, balance, `the win of ${money(event.playerId, win.amountMinor)} to take back`);
    sql.upsertBalance.run(event.playerId, after);
    sql.setStatus.run('rolled_back', event.playerId, 'CREDIT', winId);
    return decide(event, 'restored', balanceReply(event, after));
  };

  const applyRollback = (event: WalletEvent, balance: number): WalletReply => {
    if (event.reverses === 'CREDIT') return applyWinRollback(event, balance);
    const debitId = event.debitTransactionId ?? event.transactionId;
    const debit = findTransaction(event.playerId, 'DEBIT', debitId);
    if (!debit) {
      // Unknown DEBIT: acknowledge (the aggregator only wants the bet gone, and it is) and leave a
      // tombstone so the DEBIT, should it arrive late, is refused instead of charged.
      return decide(event, 'tombstone', balanceReply(event, balance));
    }
    if (debit.amountMinor !== event.amountMinor) {
      // Not recorded: like any malformed request, a corrected retry must be able to succeed.
      const message =
        `amount: ROLLBACK ${event.transactionId} reverses DEBIT ${debitId} of ${money(event.playerId, debit.amountMinor)}, ` +
        `but its amount is ${money(event.playerId, event.amountMinor)}; a rollback restores exactly the amount of its DEBIT.`;
      return rejectFor(event, 'INVALID_REQUEST', message, { balanceMinor: balance });
    }
    if (debit.status !== 'accepted') {
      // The DEBIT was refused (no money was taken) or already reversed by another ROLLBACK id.
      return decide(event, 'noop', balanceReply(event, balance));
    }
    const after = balance + debit.amountMinor;
    sql.upsertBalance.run(event.playerId, after);
    sql.setStatus.run('rolled_back', event.playerId, 'DEBIT', debitId);
    return decide(event, 'restored', balanceReply(event, after));
  };

  const applyOnce = (event: WalletEvent): WalletReply => {
    const previous = replayIfDuplicate(event);
    if (previous) return previous;
    const balance = balanceOf(event.playerId);
    if (balance === undefined) {
      // Not recorded: there is no player to attach it to, and once the player exists the same
      // transaction should go through.
      return replies.reject('PLAYER_NOT_FOUND', `Player ${JSON.stringify(event.playerId)} does not exist in this wallet.`);
    }
    const currency = currencyOf(event.playerId);
    if (event.currency !== undefined && event.currency !== currency) {
      // Not recorded, like any request the wallet cannot take as sent: nothing moved, and a corrected retry may pass.
      const message = `currency: player ${event.playerId} plays in ${currency}, but this ${event.kind} is in ${event.currency}; no money moved.`;
      return rejectFor(event, 'WRONG_CURRENCY', message, { balanceMinor: balance });
    }
    switch (event.kind) {
      case 'DEBIT':
        return applyDebit(event, balance);
      case 'CREDIT':
        return applyCredit(event, balance);
      case 'ROLLBACK':
        return applyRollback(event, balance);
    }
  };
  const applyAtomically = db.transaction(applyOnce);

  return {
    db,
    replies,
    balanceOf,
    currencyOf,
    setBalance: (playerId, balanceMinor) => {
      sql.upsertBalance.run(playerId, balanceMinor);
    },
    playerOfToken: (token) => sql.playerOfToken.get(token)?.player_id,
    addSession: (token, playerId) => {
      sql.addSession.run(token, playerId);
    },
    removePlayer: db.transaction((playerId: string) => {
      sql.deletePlayerTransactions.run(playerId);
      sql.deletePlayerSessions.run(playerId);
      sql.deletePlayer.run(playerId);
    }),
    findTransaction,
    forgetTransaction: (playerId, kind, transactionId) => {
      sql.deleteTransaction.run(playerId, kind, transactionId);
    },
    replayIfDuplicate,
    recordTransaction,
    // The transaction takes the write lock before the first read (BEGIN IMMEDIATE), so even another
    // process sharing the file cannot read the same balance and write a stale one.
    applyEvent: applyAtomically,
    close: () => db.close(),
  };
}

function toStoredTransaction(row: TransactionRow): StoredTransaction {
  return {
    playerId: row.player_id,
    kind: row.type,
    transactionId: row.tx_id,
    debitTransactionId: row.ref_tx_id,
    amountMinor: row.amount_minor,
    status: row.status,
    reply: { status: row.reply_status as WalletReply['status'], body: JSON.parse(row.reply_body) },
    createdAt: row.created_at,
  };
}

/** The default wire in each amount format, the same object each time (its dialect is built once). */
const DEFAULT_WIRES: Record<AmountFormat, typeof DEFAULT_WIRE_SETTINGS> = {
  decimal: DEFAULT_WIRE_SETTINGS,
  minor: Object.freeze({ ...DEFAULT_WIRE_SETTINGS, amountFormat: 'minor' as const }),
};

/** A database from before currencies has no currency column: add it (every player keeps the wallet's currency). */
function addCurrencyColumn(db: Database): void {
  const columns = db.prepare<[], { name: string }>('PRAGMA table_info(players)').all();
  if (!columns.some((c) => c.name === 'currency')) db.exec('ALTER TABLE players ADD COLUMN currency TEXT');
}
