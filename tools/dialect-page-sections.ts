/*
 * The sections of a dialect's docs page (docs/dialects/<name>.md) that tools/dialect-docs.ts puts
 * together: its calls and fields, signing, credentials, replies, what verify checks, the worked example.
 */

import { STATUS_CODES } from 'node:http';
import { attemptRequest, renderCall, USER_AGENT } from '../src/callbacks/call.ts';
import type { StoredEvent } from '../src/callbacks/events.ts';
import { validateConfig } from '../src/config/index.ts';
import {
  type CallFacts,
  type Dialect,
  type Field,
  type Fields,
  MONEY_OPERATIONS,
  type Operation,
  OUTCOME_CODES,
  writeAmount,
  writeReply,
} from '../src/dialects/index.ts';
import { checkPlan } from '../src/verify/checks/index.ts';
import { and, cell, code, json, signingSummary } from './dialect-docs-text.ts';

/** The base URL the worked examples use: where `aggmock wallet` listens. */
const WALLET_URL = 'http://127.0.0.1:4001';

/** A field's value, in words: the fact it comes from (mapped, defaulted), a credential, a constant… */
export function fieldValue(f: Field): string {
  if ('from' in f) {
    const facts = (Array.isArray(f.from) ? f.from : [f.from]).map(code);
    let text = facts.length === 1 ? `fact ${facts[0]}` : `fact ${facts.join(', else ')}`;
    if (f.map)
      text += `, mapped ${Object.entries(f.map)
        .map(([from, to]) => `${code(from)} → ${code(JSON.stringify(to))}`)
        .join(', ')}`;
    if (f.as === 'negate') text += ', negated for a debit';
    else if (f.as) text += `, as a ${f.as}`;
    text += f.default === undefined ? '' : `; default ${code(JSON.stringify(f.default))}`;
    return text;
  }
  if ('credential' in f) return `credential ${code(f.credential)}`;
  if ('const' in f) return `constant ${code(JSON.stringify(f.const))}`;
  if ('template' in f) return `template ${code(f.template)}`;
  if ('object' in f) return f.omitWhenEmpty ? 'an object, left out when empty' : 'an object';
  if ('json' in f) return `the JSON text of ${fieldValue(f.json)}`;
  return 'a list';
}

/** Fields as table rows, nested members as dotted names and list items by index. */
export function fieldRows(fields: Fields, prefix = ''): string[] {
  return Object.entries(fields).flatMap(([name, f]) => {
    const row = `| ${code(`${prefix}${name}`)} | ${cell(fieldValue(f))} |`;
    if ('object' in f) return [row, ...fieldRows(f.object, `${prefix}${name}.`)];
    if ('list' in f) return [row, ...fieldRows(Object.fromEntries(f.list.map((item, i) => [`${i}`, item])), `${prefix}${name}.`)];
    if ('json' in f && 'object' in f.json) return [row, ...fieldRows(f.json.object, `${prefix}${name}.`)];
    return [row];
  });
}

export const fieldTable = (fields: Fields) => ['| field | value |', '|---|---|', ...fieldRows(fields)].join('\n');

export function operationsSection(d: Dialect): string {
  const rows = Object.entries(d.operations).map(([op, def]) => {
    const money = MONEY_OPERATIONS[op as Operation];
    const moves =
      op === 'betWin'
        ? 'debit and credit (a bet and its win)'
        : money === 'reverse'
          ? op === 'rollbackWin'
            ? 'reverses a win'
            : 'reverses a bet'
          : (money ?? 'no money');
    return `| ${code(op)} | ${def?.method} | ${code(def?.path || '(the base URL)')} | ${def?.encoding ?? d.request.encoding} | ${moves} |`;
  });
  const parts = [
    '## Operations',
    '',
    `Each call goes to \`<base URL><path>\`. Fields come from the call's facts (see [the facts](../dialects.md#the-facts-a-field-can-carry)).`,
    '',
    '| operation | method | path | encoding | money |',
    '|---|---|---|---|---|',
    ...rows,
    '',
  ];
  const shared = [
    ...Object.entries(d.request.headers).map(([h, f]) => `- header ${code(h)}: ${fieldValue(f)}`),
    ...Object.entries(d.request.query).map(([q, f]) => `- query parameter ${code(q)}: ${fieldValue(f)}`),
  ];
  if (shared.length > 0) parts.push('Every call carries:', '', ...shared, '');
  for (const [op, def] of Object.entries(d.operations)) {
    if (!def) continue;
    parts.push(
      `### ${op}`,
      '',
      `${def.method} ${code(def.path || '(the base URL)')}, ${def.encoding ?? d.request.encoding}.`,
      '',
    );
    const headers = Object.entries(def.headers).map(([h, f]) => `- header ${code(h)}: ${fieldValue(f)}`);
    if (headers.length > 0) parts.push(...headers, '');
    parts.push(fieldTable(def.fields), '');
    const r = def.reply;
    const notes = [
      r?.root === undefined ? undefined : `its reply is read under ${code(r.root)}`,
      r?.balance === false ? 'its reply carries no balance' : undefined,
      r?.balance === undefined || typeof r.balance === 'boolean' ? undefined : `its balance is ${balanceWhere(r.balance)}`,
      r?.code === false
        ? 'its reply need carry no outcome code (a JSON object in a 2xx without one is an acceptance; one with a code is read by it)'
        : undefined,
      r?.token === undefined ? undefined : `its reply gives the session token to use from then on at ${code(r.token)}`,
    ].filter((n): n is string => n !== undefined);
    if (notes.length > 0) parts.push(`Reply: ${notes.join('; ')}.`, '');
  }
  return parts.join('\n');
}

export function signingSection(d: Dialect, example: Example): string {
  const s = d.signing;
  const parts = ['## Signing', ''];
  if (s.algorithm === 'none') {
    const carried = signingSummary(d);
    parts.push(
      carried === 'none'
        ? 'Requests are not signed and carry no credentials.'
        : `Requests are not signed: the credentials travel as they are (${carried}).`,
      '',
    );
  } else if (s.algorithm === 'scheme') {
    parts.push("Signed with aggmock's header schemes (`callbacks.signing`), see [signing](../signing.md).", '');
  } else {
    const p = s.payload;
    const what =
      p.over === 'body'
        ? 'the body bytes as sent'
        : p.over === 'template'
          ? `the template ${code(p.template)} (\`{query}\` is the query string without the signature, \`{body}\` the body)`
          : p.over === 'hook'
            ? `the text the dialect's hooks module returns (\`signedText\`, see [hooks](../dialect-hooks.md))${p.credentials.length ? `, which holds ${p.credentials.map(code).join(', ')}` : ''}`
            : [
                `the parameters (${p.sort === 'key' ? 'sorted by name' : 'in the order sent'}, written \`name${p.pair}value\` joined by ${code(JSON.stringify(p.join))}`,
                p.exclude.length ? `, leaving out ${p.exclude.map(code).join(', ')}` : '',
                p.skipEmpty ? ', leaving out empty values' : '',
                p.headers.length ? `, with the headers ${p.headers.map(code).join(', ')} as if they were parameters` : '',
                p.escape === 'form' ? ", names and values escaped as PHP's `http_build_query` writes them" : '',
                ')',
                p.prefix ? `, after the prefix ${code(p.prefix)}` : '',
                p.suffix ? `${p.prefix ? ' and' : ','} before the suffix ${code(p.suffix)}` : '',
              ].join('');
    const place =
      'header' in s.place
        ? `the header ${code(s.place.header)}${s.place.prefix ? ` after ${code(JSON.stringify(s.place.prefix))}` : ''}`
        : 'field' in s.place
          ? `the body field ${code(s.place.field)}, written last`
          : `the query parameter ${code(s.place.query)}, appended last`;
    parts.push(
      '| | |',
      '|---|---|',
      `| algorithm | ${s.algorithm.toUpperCase()}${s.key ? `, keyed by the credential ${code(s.key)}` : ''} |`,
      `| signed | ${cell(what)} |`,
      `| encoding | ${s.encoding} |`,
      `| placed in | ${cell(place)} |`,
      '',
    );
    if (example.signed !== undefined)
      parts.push('The text signed for the [example bet](#the-example-request) below:', '', '```text', example.signed, '```', '');
  }
  return parts.join('\n');
}

export function credentialsSection(d: Dialect): string {
  const rows = Object.entries(d.credentials).map(([name, c]) => {
    const dev =
      c.default === undefined
        ? 'none: required'
        : c.kind === 'private-key'
          ? `aggmock's development key (\`aggmock profiles show ${d.name}\` prints its public key)`
          : code(c.default);
    return `| ${code(name)} | ${c.kind} | ${cell(c.description)} | ${cell(dev)} |`;
  });
  const session =
    d.session.token === 'none'
      ? 'Calls carry no session token.'
      : `A session token is ${d.session.token}: the launch's \`token\` (\`POST /getgameurl\`), carried on every call of the session. ${
          d.session.checkedOn.length > 0
            ? `The wallet checks it on ${and(d.session.checkedOn.map(code))}.`
            : 'The vendor names no call on which the wallet must check it.'
        }`;
  return [
    '## Credentials and session',
    '',
    rows.length === 0
      ? 'No credentials.'
      : [
          "Given by the vendor's names: `--credential name=value` (repeatable) or `callbacks.credentials.<name>`. The development values are for a local run only, never a real secret.",
          '',
          '| credential | kind | what it is | development value |',
          '|---|---|---|---|',
          ...rows,
        ].join('\n'),
    '',
    session,
    '',
  ].join('\n');
}

export const DUPLICATES = {
  'same-reply': 'the first reply again',
  'same-outcome': 'the same outcome, with the balance now',
  'current-balance': 'success with the current balance',
} as const;

export const UNKNOWN_ROLLBACK = {
  'not-found': 'the refusal `TRANSACTION_NOT_FOUND`',
  acknowledge: 'an acknowledgement, the balance unchanged',
} as const;

/** Where a reply's balance is, in words. */
export function balanceWhere(spec: Dialect['reply']['balance']): string {
  return typeof spec === 'string' ? `at ${code(spec)}` : `the sum of ${and(spec.sum.map(code))}`;
}

export function replySection(d: Dialect, example: Example): string {
  const r = d.reply;
  const balance = typeof r.balance === 'string' ? balanceWhere(r.balance) : `as ${balanceWhere(r.balance)}`;
  const rows = [
    `| HTTP statuses read | ${r.status.answer.join(', ')} (any other status is a final refusal) |`,
    `| HTTP statuses retried | ${r.status.retry.join(', ') || 'none'} |`,
    `| outcome code | ${r.code === undefined ? 'none: an answered status is a success' : `at ${code(r.code)}`} |`,
    ...(r.ok === undefined ? [] : [`| success | ${json(r.ok)} |`]),
    ...(r.success === undefined
      ? []
      : [`| success flag | ${code(r.success.path)} equals ${code(JSON.stringify(r.success.equals))} |`]),
    `| retry codes | ${r.retryCodes.length ? json(r.retryCodes) : 'none'} |`,
    `| balance | ${balance} |`,
    `| message | ${r.message.length ? r.message.map(code).join(', ') : 'none'} |`,
    `| echoed | ${
      Object.entries(r.echo)
        .map(([fact, path]) => `${code(fact)} at ${code(path)}`)
        .join(', ') || 'nothing'
    } |`,
    `| a repeated transaction gets | ${DUPLICATES[r.duplicates]} |`,
    `| a rollback of an unknown transaction gets | ${r.unknownRollback === undefined ? 'either the refusal or an acknowledgement (the vendor says neither)' : UNKNOWN_ROLLBACK[r.unknownRollback]} |`,
  ];
  const coded = OUTCOME_CODES.filter((o) => r.codes[o] !== undefined || r.statuses[o] !== undefined);
  const refusals = coded.map((o) => {
    const c = r.codes[o];
    return `| ${code(o)} | ${c === undefined ? '—' : json(c)} | ${r.statuses[o] ?? 200} |`;
  });
  const uncoded = OUTCOME_CODES.filter((o) => !coded.includes(o));
  const parts = ['## Replies', '', '| | |', '|---|---|', ...rows, ''];
  if (refusals.length > 0)
    parts.push(
      "Refusals, by aggmock's name for each:",
      '',
      '| outcome | code(s) | HTTP status |',
      '|---|---|---|',
      ...refusals,
      '',
    );
  if (uncoded.length > 0) parts.push(`No code of its own for ${and(uncoded.map(code))}.`, '');
  parts.push(
    `What a correct wallet answers to the [example bet](#the-example-request) (accepted, balance ${example.balanceText}):`,
    '',
    '```http',
    `HTTP/1.1 ${example.reply.status} ${STATUS_CODES[example.reply.status] ?? ''}`.trimEnd(),
    'content-type: application/json',
    '',
    JSON.stringify(example.reply.body),
    '```',
    '',
  );
  return parts.join('\n');
}

export function verifySection(d: Dialect): string {
  const plan = checkPlan(validateConfig({ callbacks: { dialect: d } }).callbacks);
  const skipped = plan.filter((p) => p.notApplicable !== undefined);
  return [
    '## What `aggmock verify` checks',
    '',
    `${plan.length - skipped.length} of the ${plan.length} [checks](../verify.md#the-checks) run on this wire${
      skipped.length === 0 ? '.' : '; these do not, and the report says why:'
    }`,
    '',
    // A list, not a table: the table of checks lives in docs/verify.md alone.
    ...skipped.map((p) => `- ${code(p.check.id)}: ${p.notApplicable ?? ''}`),
    '',
    "A check that runs may still be skipped by the run, with its reason in the report: one that needs aggmock's own header schemes (a signature timestamp to date, several signatures in one header), a JSON body on a form or query wire, a rule the dialect does not document, or players with the funds or the number it needs.",
    '',
  ].join('\n');
}

/** The worked example: one bet of a round, as the engine stores it. */
export const EXAMPLE_CREATED_AT = Date.UTC(2026, 0, 15, 12, 0, 0);
export const EXAMPLE_FACTS: CallFacts = {
  operation: 'bet',
  playerId: 'p1',
  currency: 'EUR',
  transactionId: '20260115120000000001',
  amountMinor: 1050,
  roundId: '1001',
  roundClosed: false,
  // 32 characters or more: Red Tiger's tokens are 32–128.
  sessionToken: 'p1-session-0123456789abcdef0123456789',
  requestId: '4f1c8a2e-3b7d-4e9a-9c21-6d5e0f7a8b90',
  nonce: '0123456789abcdef0123456789abcdef',
  createdAt: EXAMPLE_CREATED_AT,
};
export const EXAMPLE_BALANCE_MINOR = 98_950;

export interface Example {
  /** The first attempt, as the engine sends it (headers in its order, the User-Agent included). */
  request: ReturnType<typeof attemptRequest>;
  /** The text the signature covers, when the dialect signs. */
  signed: string | undefined;
  reply: ReturnType<typeof writeReply>;
  balanceText: string;
}

export function exampleOf(d: Dialect): Example {
  const callbacks = validateConfig({ callbacks: { dialect: d, webhookUrl: WALLET_URL } }).callbacks;
  const { createdAt, ...facts } = EXAMPLE_FACTS;
  const event: StoredEvent = {
    id: 1,
    kind: 'debit',
    transactionId: facts.transactionId ?? '',
    playerId: facts.playerId,
    amountMinor: facts.amountMinor ?? 0,
    roundId: facts.roundId,
    currency: facts.currency,
    source: 'docs',
    orderingKey: facts.playerId,
    url: WALLET_URL,
    body: '',
    facts,
    status: 'pending',
    attemptCount: 0,
    createdAt,
  };
  const write = (minor: number) => writeAmount(d, EXAMPLE_FACTS.currency, minor);
  return {
    request: attemptRequest(event, callbacks, createdAt),
    signed: renderCall(callbacks, EXAMPLE_FACTS, { signedAt: createdAt }).signed,
    reply: writeReply(d, EXAMPLE_FACTS, { accepted: true, balanceMinor: EXAMPLE_BALANCE_MINOR }, write),
    balanceText: `${(EXAMPLE_BALANCE_MINOR / 100).toFixed(2)} EUR`,
  };
}

export function exampleSection(d: Dialect, example: Example): string {
  const credentialFlags = Object.entries(d.credentials)
    .filter(([, c]) => c.kind !== 'private-key' && c.default !== undefined)
    .map(([name, c]) => ` --credential ${name}=${c.default}`)
    .join('');
  const keys = Object.entries(d.credentials).filter(([, c]) => c.kind === 'private-key');
  const tokens = d.session.token === 'none' ? '' : ' --token p1=aggmock-session-p1 --token p2=aggmock-session-p2';
  const { request } = example;
  const url = new URL(request.url);
  const f = EXAMPLE_FACTS;
  return [
    '## Try it',
    '',
    `aggmock's reference wallet answers in this dialect; point \`verify\` at your own wallet's base URL instead of ${code(WALLET_URL)}.`,
    '',
    '```sh',
    `aggmock demo --dialect ${d.name}   # the whole loop in this dialect: aggregator, reference wallet, rounds`,
    '# piece by piece, your wallet in place of the reference one:',
    `aggmock wallet --dialect ${d.name}${credentialFlags}   # the reference wallet, base URL ${WALLET_URL}`,
    `aggmock serve --dialect ${d.name} --webhook ${WALLET_URL}${credentialFlags}`,
    `aggmock verify --dialect ${d.name} ${WALLET_URL}${credentialFlags}${tokens}`,
    '```',
    '',
    ...(keys.length === 0
      ? []
      : [
          `With your own key pair: ${keys.map(([name]) => `\`--credential ${name}=path/to/private.pem\``).join(', ')} on \`serve\` and \`verify\` (PEM text or a file); your wallet verifies with its public half.`,
          '',
        ]),
    ...(tokens === ''
      ? []
      : [
          "`--token` gives the session token the wallet issued each player (the reference wallet's players hold `aggmock-session-<id>`); without it verify takes one from the dialect's authenticate call where it has one, or sends a fresh token.",
          '',
        ]),
    '### The example request',
    '',
    `A bet of 10.50 EUR by player \`${f.playerId}\` (transaction \`${f.transactionId}\`, round \`${f.roundId}\`, session token \`${f.sessionToken}\`, on ${new Date(f.createdAt).toISOString()})${Object.keys(d.credentials).length > 0 ? ', with the development credentials' : ''}, as aggmock sends it:`,
    '',
    '```http',
    `${request.method} ${url.pathname}${url.search} HTTP/1.1`,
    `Host: ${url.host}`,
    // The version changes with every release; the page shows where it goes.
    ...Object.entries(request.headers).map(([name, value]) => `${name}: ${value === USER_AGENT ? 'aggmock/<version>' : value}`),
    ...(request.body === '' ? [] : ['', request.body]),
    '```',
    '',
  ].join('\n');
}
