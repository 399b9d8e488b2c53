/**
 * # The reference integrator wallet
 *
 * The webhook a casino writes to receive aggmock's (and the real aggregator's) bet, win and
 * rollback callbacks, done the way it should be done — copy it. `aggmock wallet` runs it on
 * `http://127.0.0.1:4001/callback/webhook` with players p1…p10 holding 1000.00 each.
 *
 * ## The contract it implements (SPEC §3)
 *
 * `POST /callback/webhook`, `Content-Type: application/json`, signed (SPEC §4):
 *
 * | type (configurable) | body                                                          | effect                      |
 * |---------------------|---------------------------------------------------------------|-----------------------------|
 * | `DEBIT`             | `{type, transactionId, amount, playerId}`                     | balance −= amount           |
 * | `CREDIT`            | `{type, transactionId, amount, playerId}`                     | balance += amount           |
 * | `ROLLBACK`          | `{type, transactionId: <debit id>, amount, playerId}`         | gives the DEBIT's money back |
 * |                     | or `{…, transactionId: <new id>, referenceTransactionId: <debit id>}` |                     |
 *
 * `amount` is a JSON number in major units with at most 2 decimals (`amountFormat: "minor"`:
 * an integer of cents). Extra fields (roundId, gameId, currency, timestamp) are ignored.
 *
 * Replies: `200 {balance}` — the balance after the event. Rejections are `{error, message, balance?}`
 * with a 4xx, so the aggregator does not retry them:
 * - `401 INVALID_SIGNATURE` — missing, wrong or stale signature (checked over the RAW body, first);
 * - `400 INVALID_REQUEST` — bad JSON or field (named), amount ≤ 0 or with 3 decimals, unknown type,
 *   or a ROLLBACK whose amount differs from its DEBIT; `415` for a non-JSON content type, `413` over 1 MiB;
 * - `402 INSUFFICIENT_FUNDS` — the bet is larger than the balance (nothing changes);
 * - `404 PLAYER_NOT_FOUND` — unknown player;
 * - `409 INVALID_REQUEST` — a DEBIT whose ROLLBACK arrived before it (see below);
 * - `400 WRONG_CURRENCY` — the body names a currency (extra field `currency`) that is not the player's.
 *
 * ## Other wires and currencies
 * The wallet reads and answers the configured dialect (`callbacks.dialect`, src/dialects), every
 * wire by the same code (dialect.ts); a vendor's calls arrive on its paths under the base URL. With
 * `betnex` it reads one round body (`bet_amount`/`win_amount`; both set is a whole round, applied
 * at once under its `serial_number`), checks `api_key` against `callbacks.apiKey` instead of a
 * signature, and answers `{success, msg, handle, money}` with HTTP 200 (`money: 0` on a refusal).
 * Each player has a currency (`wallet.players: {"jp": {"balance": 5000, "currency": "JPY"}}`,
 * else `wallet.currency`); balances are minor units of it and replies use its decimals.
 *
 * ## The rules that matter
 * - **Idempotency**: the key is (player, type, transactionId). A repeat gets the first reply, byte
 *   for byte, and moves no money — including a repeat of a refused bet. The same id for two
 *   players is two transactions.
 * - **Rollback**: restores the DEBIT's amount once. A repeat, or a rollback of a refused DEBIT, is
 *   acknowledged with the balance and changes nothing. A rollback of an unknown DEBIT is
 *   acknowledged (200, balance unchanged) and remembered as a *tombstone*: if that DEBIT arrives
 *   late it is refused with 409, so a bet the aggregator cancelled is never charged.
 * - **Atomicity**: each callback's read, check, write and idempotency record run in one IMMEDIATE
 *   SQLite transaction, so 50 parallel bets can neither overdraw nor lose an update.
 *
 * Money is integer minor units inside; the wire format converts (src/money).
 *
 * ## Layering
 * An engine with its own small server: it imports callbacks (wire shapes), config, http, money,
 * server.ts, shared and signing; it must not import the aggregator's surfaces or the CLI.
 *
 * @example
 * const wallet = await startWallet({ config: defaultConfig(), dbPath: '.aggmock/wallet.db', port: 4001 });
 * console.log(wallet.webhookUrl); // http://127.0.0.1:4001/callback/webhook
 * await wallet.close();
 */
import type { Hono } from 'hono';
import { type AggmockConfig, ConfigError, credentialsOf, dialectOf, signOptionsOf } from '../config/index.ts';
import { currencyExponent, toMinor } from '../money/index.ts';
import { listen } from '../server.ts';
import { numericSeed } from '../shared/index.ts';
import { createWalletApp, servedAtWebhook, WEBHOOK_PATH } from './app.ts';
import { type DialectSettings, devSessionToken, dialectAnswers } from './dialect.ts';
import { type FaultOptions, faultyBehaviour, overdraftLimitFor, type WalletFault } from './faults.ts';
import { type OpeningBalance, openWalletStore, type WalletStore } from './store.ts';

export { createWalletApp, servedAtWebhook, WEBHOOK_PATH } from './app.ts';
export { type DialectSettings, devSessionToken } from './dialect.ts';
export { WALLET_EVENT_KINDS, type WalletEvent, type WalletEventKind } from './events.ts';
export { type FaultOptions, WALLET_FAULTS, type WalletFault } from './faults.ts';
export type { WalletReply, WalletReplyBody } from './replies.ts';
export { applyProviderState, type ProviderState, parseProviderState, SUPPORTED_STATES } from './state.ts';
export {
  type OpeningBalance,
  openWalletStore,
  type StoredTransaction,
  type TransactionStatus,
  type WalletStore,
  type WalletStoreOptions,
} from './store.ts';

export interface CreateWalletOptions {
  config: AggmockConfig;
  /** SQLite file (e.g. `.aggmock/wallet.db`; its folder is created if missing) or `:memory:`. */
  dbPath: string;
  /** Switches on one deliberate bug; absent for the reference wallet. */
  fault?: WalletFault;
  /** Overrides `config.wallet.testEndpoints`: POST /__state and GET /__players/:id. */
  testEndpoints?: boolean;
  faultOptions?: FaultOptions;
  /** Clock for signature timestamps and `created_at`; injected by tests. */
  now?: () => Date;
  /** Default 127.0.0.1: a test wallet has no business listening on the network. */
  host?: string;
  /**
   * Session tokens issued at launch, token → player, for dialects that carry one. Every configured
   * player also holds {@link devSessionToken} (`aggmock-session-<id>`).
   */
  sessions?: Record<string, string>;
}

export interface Wallet {
  app: Hono;
  store: WalletStore;
  close(): void;
}

/**
 * Builds the wallet without listening: `app.request()` works in tests, `startWallet` serves it.
 *
 * @example
 * const { app, close } = createWallet({ config: defaultConfig(), dbPath: ':memory:', testEndpoints: true });
 * await app.request('/__players/p1'); // {playerId:'p1', balance:1000}
 */
export function createWallet(options: CreateWalletOptions): Wallet {
  const { config } = options;
  const now = options.now ?? (() => new Date());
  const dialect = dialectSettings(config);
  const players = openingBalances(config);
  const store = openWalletStore({
    path: options.dbPath,
    amountFormat: config.callbacks.amountFormat,
    replies: dialectAnswers(dialect.dialect),
    sessions: {
      ...Object.fromEntries(Object.keys(players).map((id) => [devSessionToken(id, dialect?.dialect), id])),
      ...options.sessions,
    },
    currency: config.wallet.currency,
    currencies: config.callbacks.currencies,
    players,
    overdraftLimitMinor: overdraftLimitFor(options.fault),
    now,
  });
  const behaviour = faultyBehaviour(options.fault, store, {
    ...options.faultOptions,
    seed: options.faultOptions?.seed ?? numericSeed(config.seed),
  });
  const app = createWalletApp({
    config,
    store,
    behaviour,
    testEndpoints: options.testEndpoints ?? config.wallet.testEndpoints,
    nowSeconds: () => Math.floor(now().getTime() / 1000),
    ...(options.host === undefined ? {} : { bindHost: options.host }),
    dialect,
  });
  return { app, store, close: () => store.close() };
}

/**
 * The dialect the wallet speaks, with its credentials. The default wire is read in both rollback
 * styles (a `referenceTransactionId`, when present, names the reversed bet), so one wallet serves
 * either aggregator setting.
 */
function dialectSettings(config: AggmockConfig): DialectSettings {
  const callbacks = config.callbacks;
  const reads = callbacks.dialect === 'default' ? { ...callbacks, rollbackStyle: 'reference' as const } : callbacks;
  const dialect = dialectOf(reads);
  return {
    dialect,
    // aggmock's own wire (its calls go to the webhook URL itself) acknowledges a rollback it never saw and remembers it.
    ...(servedAtWebhook(dialect) ? { unknownRollback: 'acknowledge' as const } : {}),
    credentials: credentialsOf(callbacks),
    signOptions: signOptionsOf(callbacks),
    signing: callbacks.signing,
    currencies: callbacks.currencies,
  };
}

export interface StartWalletOptions extends CreateWalletOptions {
  /** 0 picks a free port; the real one is reported. */
  port: number;
}

export interface RunningWallet {
  /** Base URL, e.g. `http://127.0.0.1:4001`: a vendor dialect's paths are appended to it. */
  url: string;
  /** What to give the aggregator: `url` + `/callback/webhook` for a profile, the base URL itself for a vendor dialect. */
  webhookUrl: string;
  port: number;
  store: WalletStore;
  /** Stops listening, then closes the database. */
  close(): Promise<void>;
}

/** Creates the wallet and listens. */
export async function startWallet(options: StartWalletOptions): Promise<RunningWallet> {
  const wallet = createWallet(options);
  const host = options.host ?? '127.0.0.1';
  let server: Awaited<ReturnType<typeof listen>>;
  try {
    server = await listen(wallet.app, { port: options.port, host });
  } catch (error) {
    wallet.close();
    throw error;
  }
  const { url } = server;
  return {
    url,
    webhookUrl: servedAtWebhook(dialectOf(options.config.callbacks)) ? url + WEBHOOK_PATH : url,
    port: server.port,
    store: wallet.store,
    close: async () => {
      await server.close();
      wallet.close();
    },
  };
}

/**
 * `wallet.players` (major units) → minor units of each player's currency, refusing an unknown
 * currency or more decimals than the currency has, naming the key.
 */
function openingBalances(config: AggmockConfig): Record<string, OpeningBalance> {
  const { players, currency: walletCurrency } = config.wallet;
  return Object.fromEntries(
    Object.entries(players).map(([id, opening]): [string, OpeningBalance] => {
      const { balance, currency } = typeof opening === 'number' ? { balance: opening, currency: undefined } : opening;
      const field = typeof opening === 'number' ? `wallet.players.${id}` : `wallet.players.${id}.balance`;
      const exponent = currencyExponent(currency ?? walletCurrency, config.callbacks.currencies);
      if (exponent === undefined) {
        throw new ConfigError(
          `${currency === undefined ? 'wallet.currency' : `wallet.players.${id}.currency`}: unknown currency ` +
            `${JSON.stringify(currency ?? walletCurrency)}; expected an ISO 4217 code or one of callbacks.currencies.`,
        );
      }
      const minor = toMinor(balance, exponent);
      if (minor === undefined) {
        throw new ConfigError(`${field}: expected a balance with at most ${exponent} decimals, got ${balance}.`);
      }
      return [id, currency === undefined ? minor : { balanceMinor: minor, currency }];
    }),
  );
}
