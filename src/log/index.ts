/**
 * Structured logging (pino, to stderr). Foundation: it imports nothing from aggmock.
 */
import pino, { type Logger } from 'pino';

export type { Logger } from 'pino';

/** Structured logs go to stderr so stdout stays for the lines people read (URLs, callback summaries). */
export function createLogger(level: string, name = 'aggmock'): Logger {
  return pino({ name, level, base: undefined }, pino.destination({ fd: 2, sync: false }));
}

export const silentLogger: Logger = pino({ level: 'silent' });
