// 0.0.0.0 and [::] are not loopback, but a connection to them reaches this machine.
const LOOPBACK_NAMES = new Set(['localhost', '[::1]', '::1', '0.0.0.0', '[::]']);

/** 127.0.0.0/8, ::1 and localhost (the names a laptop or CI job uses for itself). */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  return LOOPBACK_NAMES.has(host) || host.endsWith('.localhost') || /^127(\.\d{1,3}){3}$/.test(host);
}
