import { randomBytes } from 'node:crypto';
import type { AggmockConfig } from '../config/index.ts';
import { isLoopbackHost } from '../http/loopback.ts';

export interface Exposure {
  /** The config to run with: an admin token generated when the binding needs one and none was set. */
  config: AggmockConfig;
  /** Lines to print to stderr before the server starts; empty on a loopback binding. */
  warnings: string[];
}

/**
 * Bound to anything but loopback, aggmock is reachable from the network: its admin API can reset
 * state and trigger callbacks, so it must have a token. One is generated (and printed once) when
 * `admin.token` / AGGMOCK_ADMIN_TOKEN is not set.
 */
export function secureExposure(config: AggmockConfig): Exposure {
  if (isLoopbackHost(config.host) && config.host !== '0.0.0.0') return { config, warnings: [] };
  const generated = config.admin.token ? undefined : randomBytes(24).toString('base64url');
  const token = config.admin.token ?? (generated as string);
  return {
    config: { ...config, admin: { ...config.admin, token } },
    warnings: [
      `WARNING: aggmock is bound to ${config.host}, not loopback: anyone on this network can reach it.`,
      '         The admin API and the UI inspector pages need "Authorization: Bearer <admin token>".',
      generated
        ? `         Admin token (generated for this run; set admin.token or AGGMOCK_ADMIN_TOKEN to choose one): ${generated}`
        : '         Admin token: the configured admin.token / AGGMOCK_ADMIN_TOKEN.',
      '',
    ],
  };
}

/** Whether the config may start: a non-loopback binding without an admin token may not. */
export function exposureRefusal(config: AggmockConfig): string | undefined {
  if ((isLoopbackHost(config.host) && config.host !== '0.0.0.0') || config.admin.token) return undefined;
  return `host ${config.host} is not loopback: set admin.token (or AGGMOCK_ADMIN_TOKEN) so the admin API is not open to the network.`;
}
