import type { AggmockConfig } from '../../config/index.ts';
import { dialsLoopback } from '../../http/loopback.ts';
import { startAggmock } from '../../runtime.ts';
import { httpUrl } from '../../shared/index.ts';
import { startWallet } from '../../wallet/index.ts';

/**
 * The aggmock the MCP tools drive: a running one reached by its URL, or one `aggmock mcp` started
 * itself. The tools talk to both the same way, over HTTP (the aggregator API and the admin API), so
 * an embedded aggmock behaves exactly as the one a person would start.
 */
export interface AggmockTarget {
  mode: 'embedded' | 'remote';
  /** Base URL of the aggregator, e.g. `http://127.0.0.1:4000`. */
  url: string;
  /** What the tools sign and judge with: API key, wire profile, `callbacks.allowedUrls`, secrets. */
  config: AggmockConfig;
  /** `Authorization: Bearer` of the admin API, when it wants one. */
  adminToken?: string | undefined;
  /** The reference wallet started alongside an embedded aggmock (absent with `--webhook`). */
  wallet?: { url: string; webhookUrl: string; stateUrl: string; players: string[] } | undefined;
  /** The operator's RSA private key (PEM) the vendor tools sign with (`--operator-key`); else aggmock's development key. */
  operatorKey?: string | undefined;
  close(): Promise<void>;
}

/** A usage problem of `aggmock mcp` itself (a bad --url), reported before the server starts. */
export class TargetError extends Error {}

/**
 * A running aggmock at `url`. Only loopback unless `allowRemote`: the tools send it admin requests
 * (with the token) that make it sign callbacks, so where they go is the user's explicit choice.
 */
export function remoteTarget(
  url: string,
  config: AggmockConfig,
  options: { adminToken?: string | undefined; allowRemote?: boolean },
): AggmockTarget {
  const parsed = httpUrl(url, '--url (the base URL of a running aggmock)', 'http://127.0.0.1:4000', TargetError);
  if (parsed.username || parsed.password)
    throw new TargetError('--url: expected a URL without credentials; give the admin token with --admin-token.');
  if (!dialsLoopback(parsed.hostname) && !options.allowRemote) {
    throw new TargetError(
      `--url: ${parsed.hostname} is not this machine; the MCP server drives a loopback aggmock (127.0.0.1, localhost) unless you add --allow-remote.`,
    );
  }
  return {
    mode: 'remote',
    url: parsed.origin,
    config,
    adminToken: options.adminToken ?? config.admin.token,
    close: async () => {},
  };
}

/**
 * Starts aggmock on 127.0.0.1 (port from the config, usually 0) and, unless the config's webhook is
 * to be used (`ownWebhook`), the reference wallet with its test endpoints, pointed at each other.
 */
export async function embeddedTarget(config: AggmockConfig, options: { ownWebhook: boolean }): Promise<AggmockTarget> {
  const local = { ...config, host: '127.0.0.1' };
  const wallet = options.ownWebhook
    ? undefined
    : await startWallet({ config: local, dbPath: ':memory:', port: 0, host: '127.0.0.1', testEndpoints: true });
  const started = wallet ? { ...local, callbacks: { ...local.callbacks, webhookUrl: wallet.webhookUrl } } : local;
  let aggmock: Awaited<ReturnType<typeof startAggmock>>;
  try {
    aggmock = await startAggmock(started);
  } catch (error) {
    await wallet?.close();
    throw error;
  }
  return {
    mode: 'embedded',
    url: aggmock.url,
    config: started,
    adminToken: started.admin.token,
    wallet: wallet && {
      url: wallet.url,
      webhookUrl: wallet.webhookUrl,
      stateUrl: `${wallet.url}/__state`,
      players: Object.keys(started.wallet.players),
    },
    close: async () => {
      await aggmock.close();
      await wallet?.close();
    },
  };
}
