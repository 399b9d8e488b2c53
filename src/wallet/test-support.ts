/**
 * Test helpers for the wallet's tests: a real server on 127.0.0.1:0 and a client that signs
 * callbacks the way aggmock's dispatcher does. Not part of the wallet itself.
 */
import { type AggmockConfig, type AggmockConfigInput, configSchema } from '../config/index.ts';
import { parseJsonOr } from '../shared/index.ts';
import { type SigningScheme, signPayload } from '../signing/index.ts';
import { type RunningWallet, type StartWalletOptions, startWallet } from './index.ts';

export function walletConfig(input: AggmockConfigInput = {}): AggmockConfig {
  return configSchema.parse(input);
}

export interface Reply {
  status: number;
  body: Record<string, unknown>;
  /** The body exactly as received, to compare replays byte for byte. */
  text: string;
}

export interface PostOptions {
  /** false: send no signature headers at all. */
  sign?: boolean;
  /** Overrides the configured secrets for this request (e.g. a wrong one). */
  secrets?: string[];
  scheme?: SigningScheme;
  /** Unix seconds of the signature. */
  timestamp?: number;
  contentType?: string;
  /** Sends these bytes while signing `signedBody` (a tampered request). */
  signedBody?: string;
  signal?: AbortSignal;
}

export interface WalletClient {
  post(body: unknown, options?: PostOptions): Promise<Reply>;
  debit(playerId: string, transactionId: string, amount: number): Promise<Reply>;
  credit(playerId: string, transactionId: string, amount: number): Promise<Reply>;
  rollback(playerId: string, transactionId: string, amount: number, referenceTransactionId?: string): Promise<Reply>;
  /** Balance via the test endpoint, in the configured wire format; undefined for an unknown player. */
  balance(playerId: string): Promise<number | undefined>;
}

/** A client for a running wallet, signing with the wallet's own `callbacks.signing` config. */
export function walletClient(wallet: Pick<RunningWallet, 'url' | 'webhookUrl'>, config: AggmockConfig): WalletClient {
  const signing = config.callbacks.signing;
  const types = config.callbacks.types;

  const post = async (body: unknown, options: PostOptions = {}): Promise<Reply> => {
    const raw = typeof body === 'string' ? body : JSON.stringify(body);
    const headers: Record<string, string> = { 'content-type': options.contentType ?? 'application/json' };
    if (options.sign !== false) {
      Object.assign(
        headers,
        signPayload({
          scheme: options.scheme ?? signing.scheme,
          secrets: options.secrets ?? signing.secrets,
          headerNames: signing.headers,
          payload: options.signedBody ?? raw,
          ...(options.timestamp === undefined ? {} : { timestamp: options.timestamp }),
        }),
      );
    }
    const response = await fetch(wallet.webhookUrl, {
      method: 'POST',
      headers,
      body: raw,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    return readReply(response);
  };

  return {
    post,
    debit: (playerId, transactionId, amount) => post({ type: types.debit, transactionId, amount, playerId }),
    credit: (playerId, transactionId, amount) => post({ type: types.credit, transactionId, amount, playerId }),
    rollback: (playerId, transactionId, amount, referenceTransactionId) =>
      post({
        type: types.rollback,
        transactionId,
        amount,
        playerId,
        ...(referenceTransactionId ? { referenceTransactionId } : {}),
      }),
    balance: async (playerId) => {
      const response = await fetch(`${wallet.url}/__players/${encodeURIComponent(playerId)}`);
      if (response.status === 404) return undefined;
      const body = (await response.json()) as { balance: number };
      return body.balance;
    },
  };
}

export async function readReply(response: Response): Promise<Reply> {
  const text = await response.text();
  return { status: response.status, body: parseJsonOr(text, { unparsed: text }) as Record<string, unknown>, text };
}

/** Starts a wallet on 127.0.0.1:0 with test endpoints on, and a signing client for it. */
export async function startTestWallet(
  options: Partial<StartWalletOptions> & { configInput?: AggmockConfigInput } = {},
): Promise<{ wallet: RunningWallet; client: WalletClient; config: AggmockConfig }> {
  const config = options.config ?? walletConfig(options.configInput);
  const wallet = await startWallet({ dbPath: ':memory:', testEndpoints: true, ...options, config, port: 0 });
  return { wallet, client: walletClient(wallet, config), config };
}

export { nowSeconds } from '../signing/index.ts';
