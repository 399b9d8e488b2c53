/** What every test wallet takes and returns (only types are shared: each wallet is written independently). */
export interface WalletOptions {
  /** SQLite file or JSON file; persistent across restarts. */
  dbPath: string;
  /** Wire amount format; only the minor-units wallet speaks 'minor'. */
  amountFormat?: 'decimal' | 'minor';
  secret?: string;
  /** Players created when absent, balances in major units (1000 = 1000.00). Existing players keep their balance. */
  players?: Record<string, number>;
}

export interface StartedWallet {
  url: string;
  webhookUrl: string;
  stateUrl?: string;
  close(): Promise<void>;
}
