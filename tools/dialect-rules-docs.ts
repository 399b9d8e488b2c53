/**
 * The "Rules" section of a dialect's docs page (tools/dialect-docs.ts writes the page): each wallet
 * rule as the judge reads it (src/dialects/judge.ts `rulesOf`) with its source and strictness, and
 * the vendor's own test suite case by case with the checks that try each case.
 */
import { type Dialect, rulesOf } from '../src/dialects/index.ts';
import { suiteOf } from '../src/verify/vendor-cases.ts';

const cell = (text: string) => text.replaceAll('|', '\\|').replaceAll('\n', ' ');
const code = (text: string) => `\`${text}\``;

const GRADE: Record<string, string> = {
  vendor: "the vendor's rule (its document or test tool): a failure",
  'third-party': "the vendor's rule as operators' code implements it: a failure",
  unknown: 'unknown: aggmock accepts any answer that moves no money',
  stated: 'stated by the dialect file: a failure',
};

/** Each rule with what passes, where it comes from and how strictly it is held. */
export function rulesSection(d: Dialect): string {
  const rows = rulesOf(d).map(
    (r) =>
      `| ${code(r.rule)} | ${cell(r.accepts)} | ${cell(r.source)} | ${cell(GRADE[r.grade] ?? r.grade)}${
        r.safer ? `; aggmock's safer reading (a warning, a failure under \`--strict\`): ${cell(r.safer)}` : ''
      }${r.relax ? `; the vendor allows: ${cell(r.relax)}` : ''} |`,
  );
  return [
    '## Rules and their sources',
    '',
    "What a correct wallet's reply may be, rule by rule, as the shadow ledger, `aggmock verify`, the contracts and the reference wallet all judge it ([src/dialects/judge.ts](../../src/dialects/judge.ts)). A rule the vendor states fails when broken; aggmock's safer reading beyond it is a warning, and a failure under `aggmock verify --strict`.",
    '',
    '| rule | passes | source | strictness |',
    '|---|---|---|---|',
    ...rows,
    '',
    vendorSuiteSection(d),
  ].join('\n');
}

/** The vendor's published wallet test suite, when there is one: every case with the checks that try it. */
function vendorSuiteSection(d: Dialect): string {
  const suite = suiteOf(d.name);
  if (suite === undefined) return '';
  const rows = suite.cases.map(
    (k) =>
      `| ${cell(k.id)} | ${cell(k.expects)} | ${k.checks.length ? k.checks.map(code).join(', ') : '**not covered yet**'}${
        k.partly ? ` (partly: ${cell(k.partly)})` : ''
      } |`,
  );
  const uncovered = suite.cases.filter((k) => k.checks.length === 0).length;
  return [
    "### The vendor's own test cases",
    '',
    `${suite.name}, from ${suite.source}. verify's report names these case ids beside each result; ${uncovered} of ${suite.cases.length} are not covered yet.`,
    '',
    '| case | sends → expects | tried by |',
    '|---|---|---|',
    ...rows,
    '',
  ].join('\n');
}
