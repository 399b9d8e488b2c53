import { randomBytes } from 'node:crypto';
import type { AggmockConfig } from '../config/index.ts';
import { exposureOf } from '../http/exposure.ts';

export interface Exposure {
  /** The config to run with: an admin token generated when the instance is exposed and none was set. */
  config: AggmockConfig;
  /** Lines to print to stderr before the server starts; empty when the instance is not exposed. */
  warnings: string[];
}

/**
 * Exposed (bound beyond loopback, or published at a `publicUrl` that is not loopback: a reverse
 * proxy or tunnel), aggmock is reachable by others: its admin API can reset state and trigger
 * callbacks, its launch form and spins send signed callbacks, so they need a token. One is
 * generated (and printed once) when `admin.token` / AGGMOCK_ADMIN_TOKEN is not set.
 */
export function secureExposure(config: AggmockConfig): Exposure {
  const exposed = exposureOf(config);
  if (exposed === undefined) return { config, warnings: [] };
  const generated = config.admin.token ? undefined : randomBytes(24).toString('base64url');
  const token = config.admin.token ?? (generated as string);
  return {
    config: { ...config, admin: { ...config.admin, token } },
    warnings: [
      `WARNING: aggmock is ${exposed}: anyone who can reach it can use it.`,
      '         The admin API, the UI inspector pages, the launch form and spins need "Authorization: Bearer <admin token>";',
      "         a launch callback_url must be on callbacks.allowedUrls (default: only the webhook's origin).",
      generated
        ? `         Admin token (generated for this run; set admin.token or AGGMOCK_ADMIN_TOKEN to choose one): ${generated}`
        : '         Admin token: the configured admin.token / AGGMOCK_ADMIN_TOKEN.',
      '',
    ],
  };
}

/** Whether the config may start: an exposed instance without an admin token may not. */
export function exposureRefusal(config: AggmockConfig): string | undefined {
  const exposed = exposureOf(config);
  if (exposed === undefined || config.admin.token) return undefined;
  return `the instance is exposed (${exposed}): set admin.token (or AGGMOCK_ADMIN_TOKEN) so the admin API, the launch form and spins are not open to the network.`;
}
