import { isIP } from 'node:net';

// 0.0.0.0 and [::] are not loopback, but a connection to them reaches this machine.
const LOOPBACK_NAMES = new Set(['localhost', '[::1]', '::1', '0.0.0.0', '[::]']);

/** 127.0.0.0/8, ::1 and localhost (the names a laptop or CI job uses for itself). */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  return LOOPBACK_NAMES.has(host) || host.endsWith('.localhost') || /^127(\.\d{1,3}){3}$/.test(host);
}

/**
 * The port a request came in on (aggmock's own), from the Node adapter's env (`c.env`); undefined
 * when it did not come over a socket (`app.request()`).
 */
export function localPortOf(env: unknown): number | undefined {
  return (env as { incoming?: { socket?: { localPort?: number } } } | undefined)?.incoming?.socket?.localPort;
}

/**
 * Whether a connection to `hostname` reaches this machine without asking DNS: a loopback (or
 * wildcard) address literal, or `localhost` itself (the hosts file). Stricter than
 * {@link isLoopbackHost}: `wallet.localhost` and `localhost.` are looked up in DNS by Node (glibc
 * "files dns"), so where a signed request may go cannot rest on their names.
 */
export function dialsLoopback(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/^\[|\]$/g, '');
  if (host === 'localhost') return true;
  const family = isIP(host);
  if (family === 4) return host.startsWith('127.') || host === '0.0.0.0';
  return family === 6 && (host === '::1' || host === '::');
}
