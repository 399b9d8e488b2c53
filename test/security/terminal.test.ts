import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { Attempt, StoredEvent } from '../../src/callbacks/events.ts';
import { callbackLine, discrepancyLine } from '../../src/cli/commands/demo.ts';
import { renderText } from '../../src/cli/commands/send.ts';
import { configSchema } from '../../src/config/index.ts';
import { terminalSafe } from '../../src/shared/index.ts';
import { runVerify } from '../../src/verify/index.ts';
import { tableRow } from '../../src/verify/report.ts';

/**
 * Wallet text never reaches a terminal as escape sequences (security review L2): a reply that
 * erases the line above, paints a green "ALL CHECKS PASSED" and retitles the window is printed
 * with its control characters made visible, in `demo`, `send` and `verify`.
 */

const ESC = '\u001b';
/** What ansi-wallet.mjs of the review answers: erase, move up, a forged green verdict, a window title, an OSC 8 link. */
const FORGED = `${ESC}[2K${ESC}[1A${ESC}[2K\r${ESC}[32mALL CHECKS PASSED${ESC}[0m ${ESC}]0;owned-title\u0007${ESC}]8;;https://x.invalid/\u0007click${ESC}]8;;\u0007\nPASS \u009b2J \u202eevil`;

/** Any character that would steer a terminal, or start a line of its own inside a one-line field. */
const STEERING = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0)) await fn();
});

const config = configSchema.parse({});

function event(reply: unknown, extra: Partial<StoredEvent> = {}): StoredEvent {
  return {
    id: 1,
    kind: 'debit',
    transactionId: 'tx_1',
    playerId: 'p1',
    amountMinor: 500,
    source: 'manual',
    orderingKey: 'p1',
    url: 'http://x.invalid/cb',
    body: '{}',
    status: 'rejected',
    attemptCount: 1,
    createdAt: 1,
    settledAt: 2,
    reply: { status: 200, body: reply },
    error: `HTTP 200 with business rejection ${FORGED}`,
    ...extra,
  };
}

describe('terminalSafe', () => {
  it('writes C0, C1, DEL, line separators and bidi overrides as visible escapes, and keeps tab and line feed', () => {
    expect(terminalSafe(`${ESC}[32mPASS\u0007\r\u009b\u007f\u202e\t\n`)).toBe('\\x1b[32mPASS\\x07\\r\\x9b\\x7f\\u202e\t\n');
  });

  it('escapes tab and line feed too in one-line fields', () => {
    expect(terminalSafe('a\nPASS\tb', { oneLine: true })).toBe('a\\nPASS\\tb');
  });

  it('leaves ordinary text, accents and emoji alone', () => {
    expect(terminalSafe('Spieler müde ✓ 🎰 €5')).toBe('Spieler müde ✓ 🎰 €5');
  });
});

describe('printing wallet text', () => {
  it('demo: a callback line carries no escape sequence of the wallet', () => {
    const line = callbackLine(event({ error: FORGED, message: FORGED }), config);
    expect(line).not.toMatch(STEERING);
    expect(line).toContain('\\x1b[32mALL CHECKS PASSED');
  });

  it('demo: a discrepancy line carries none either', () => {
    const line = discrepancyLine({ kind: 'balance-drift', playerId: 'p1', message: FORGED } as Parameters<
      typeof discrepancyLine
    >[0]);
    expect(line).not.toMatch(STEERING);
  });

  it('send: the request, the reply and the verdict carry none, and the reply cannot start a line of its own', () => {
    const attempt: Attempt = {
      eventId: 1,
      n: 1,
      startedAt: 1,
      latencyMs: 2,
      requestHeaders: { 'content-type': 'application/json' },
      requestBody: '{}',
      responseStatus: 200,
      responseBody: FORGED,
      outcome: 'rejected',
    };
    const text = renderText(event(FORGED), [attempt]);
    for (const line of text.split('\n')) expect(line).not.toMatch(STEERING);
    expect(text.split('\n').some((line) => line.startsWith('PASS'))).toBe(false);
  });

  it('verify: a row of the console table carries only its own colour codes', () => {
    const row = tableRow(
      { kind: 'check', id: 'malformed-json', rule: 'r', status: 'fail', durationMs: 1, reason: FORGED, notes: [], exchanges: [] },
      true,
    );
    expect(row.replace(/\u001b\[31m|\u001b\[0m/g, '').replace(/\n$/, '')).not.toMatch(STEERING);
  });

  it('verify: against a live webhook answering with escape sequences, the whole console output carries none of them', async () => {
    const server = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(500, { 'content-type': 'text/plain' }).end(FORGED));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise((resolve) => server.close(() => resolve())));
    let out = '';
    await runVerify({
      webhookUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/cb`,
      only: ['malformed-json', 'debit-applies'],
      reportDir: false,
      timeoutMs: 3_000,
      write: (text) => {
        out += text;
      },
    });
    expect(out).toContain('\\x1b');
    expect(out.replace(/\n/g, '')).not.toMatch(STEERING);
  });
});
