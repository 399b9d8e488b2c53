import { describe, expect, it } from 'vitest';
import { builtinDialect } from '../../src/dialects/index.ts';
import type { Exchange } from '../../src/verify/client.ts';
import { failureGroups, likelyCause, readFirst, withReadingAids } from '../../src/verify/read-first.ts';
import {
  htmlReport,
  inReadingOrder,
  junitXml,
  type ResultEntry,
  summarise,
  summaryLine,
  type VerifyReport,
} from '../../src/verify/report.ts';
import { VENDOR_SUITES } from '../../src/verify/vendor-cases.ts';

/** The report a person reads first (issue 32 item 6), on hand-made results: no wallet, no server. */

const evolution = builtinDialect('evolution');

function exchange(status: number, body: string): Exchange {
  return {
    label: 'DEBIT 1.00',
    request: { method: 'POST', url: 'http://x.invalid/debit', headers: {}, body: '{}' },
    response: { status, headers: {}, body, json: JSON.parse(body) },
    latencyMs: 1,
  };
}

function result(id: string, status: ResultEntry['status'], exchanges: Exchange[] = [], notes: string[] = []): ResultEntry {
  return {
    kind: id.startsWith('pact:') ? 'pact' : 'check',
    id,
    rule: `the ${id} rule`,
    hint: 'fix it.',
    status,
    durationMs: 1,
    notes,
    exchanges,
  };
}

const refusedSid = exchange(200, '{"status":"INVALID_SID","balance":10,"bonus":0,"uuid":"u"}');
const ok = exchange(200, '{"status":"OK","balance":10,"bonus":0,"uuid":"u"}');

function report(results: ResultEntry[]): VerifyReport {
  return {
    tool: 'aggmock verify',
    version: '0',
    webhookUrl: 'http://x.invalid/',
    mode: 'players',
    players: ['p1'],
    scheme: 'none',
    profile: 'evolution',
    runId: 'r',
    startedAt: '2026-11-28T00:00:00Z',
    durationMs: 5,
    summary: summarise(results),
    ...readFirst(results, evolution, false),
    notices: [],
    results,
  };
}

describe('failures grouped under the answer they share', () => {
  const results = [
    result('debit-applies', 'pass', [ok]),
    withReadingAids(result('idempotent-debit', 'fail', [ok, refusedSid]), evolution),
    withReadingAids(result('credit-applies', 'fail', [refusedSid]), evolution),
    withReadingAids(result('rollback-unknown', 'fail', [ok]), evolution),
    result('zero-amount', 'warn', [ok], ['WARNING: zero-amount broke a safer reading (fails under --strict)']),
    result('pact:bad-signature', 'blocked'),
  ];

  it("names the first reply that was no acceptance, under aggmock's name for its code", () => {
    expect(likelyCause([ok, refusedSid], evolution)).toBe('refused with INVALID_SID (INVALID_TOKEN)');
    expect(likelyCause([ok], evolution)).toBeUndefined();
    expect(likelyCause([{ ...ok, response: undefined, timedOut: true }], evolution)).toBe('no answer within --timeout');
    expect(likelyCause([exchange(503, '{"status":"TEMPORARY_ERROR"}')], evolution)).toMatch(/^HTTP 503 .*retries/);
  });

  it('groups failures that share an answer as one likely cause, the largest first, with what it likely means', () => {
    expect(failureGroups(results)).toEqual([
      {
        cause: expect.stringMatching(
          /^refused with INVALID_SID \(INVALID_TOKEN\): the wallet refuses the session token: pass --token/,
        ),
        ids: ['idempotent-debit', 'credit-applies'],
      },
      { cause: 'the unknown-rollback rule', ids: ['rollback-unknown'] },
    ]);
  });

  it("puts the rule's source and the vendor's case ids beside a result, and the vendor's allowance in a failure's hint", () => {
    const debit = results[1] as ResultEntry;
    expect(debit.wireRule).toMatchObject({
      name: 'repeat',
      grade: 'vendor',
      source: expect.stringContaining('evo_integration_test.go'),
    });
    expect(debit.vendorCases).toEqual(['Test_debitBetAlreadyExist']);
    expect(debit.hint).toMatch(/^fix it\. The vendor allows: a repeated debit may answer BET_ALREADY_EXIST or OK/);
    // A passing result keeps its hint as it was.
    expect(withReadingAids(result('idempotent-debit', 'pass'), evolution).hint).toBe('fix it.');
  });

  it('orders results for reading: failures, warnings, blocked, skipped, passed', () => {
    expect(inReadingOrder(results).map((r) => r.status)).toEqual(['fail', 'fail', 'fail', 'warn', 'blocked', 'pass']);
  });

  it('says it all on the console after the table, in JUnit and in HTML', () => {
    const r = report(results);
    expect(r.summary).toMatchObject({ failed: 3, warned: 1, blocked: 1 });
    const text = summaryLine(r);
    expect(text).toMatch(/READ FIRST: .*\n {2}2 × refused with INVALID_SID/);
    expect(text).toMatch(/- idempotent-debit {2}\[repeat rule, vendor: .*evo_integration_test/);
    expect(text).toMatch(/WARNINGS: .*\n {2}- zero-amount: WARNING: /);
    expect(text).toMatch(/Not covered yet of Evolution wallet test tool .*Test_debitCreditBetDoesNotExist/);
    expect(text).toMatch(/FAILED: 1 passed, 3 failed, 1 warned \(aggmock's safer readings; --strict fails them\)/);
    const junit = junitXml(r);
    expect(junit.indexOf('name="idempotent-debit"')).toBeLessThan(junit.indexOf('name="debit-applies"'));
    expect(junit).toMatch(/Wire rule: repeat \(vendor\): .*evo_integration_test/);
    expect(junit).toMatch(/name="zero-amount"[^<]*>\s*<system-out>WARNING: /);
    const html = htmlReport(r);
    expect(html).toMatch(/<h2>Read first: failures by likely cause<\/h2>/);
    expect(html).toContain('<span class="pill warn">1 warned</span>');
    expect(html.indexOf('<td class="st fail">')).toBeLessThan(html.indexOf('<td class="st pass">'));
  });

  it('keeps a run without warnings as it was: no warned count', () => {
    expect(summarise([result('debit-applies', 'pass')])).toEqual({ total: 1, passed: 1, failed: 0, skipped: 0, blocked: 0 });
  });
});

describe("the vendors' own test cases", () => {
  it('name only checks and contract interactions that exist', async () => {
    const { CHECK_IDS } = await import('../../src/verify/checks/index.ts');
    const pacts = ['pact:authenticate', 'pact:balance', 'pact:bet-accepted', 'pact:duplicate-bet', 'pact:insufficient-funds'];
    for (const suite of VENDOR_SUITES)
      for (const c of suite.cases)
        for (const id of c.checks) expect([...CHECK_IDS, ...pacts], `${suite.dialect} ${c.id}`).toContain(id);
  });
});
