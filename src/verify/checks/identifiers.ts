import { documents } from '../../dialects/capabilities.ts';
import { MAX_ID_LENGTH } from '../../http/limits.ts';
import { describeOutcome } from '../client.ts';
import { type CheckContext, fail, type Step, skip } from '../context.ts';
import { affordable, type Check, playerAndBalance, putBack, sameReply } from './shared.ts';

/**
 * Wires whose own documentation reads player ids case-insensitively and trimmed, where exact player
 * ids are not the rule: the Betnex SDK's example handler looks players up by
 * `member_account.toLowerCase().trim()`.
 */
const FOLDS_PLAYER_IDS: readonly string[] = ['betnex'];

/** Two small bets that tell apart which of two transactions a reply belongs to. */
const FIRST = 3;
const SECOND = 2;

/**
 * Ids are opaque strings, compared byte for byte: two ids that differ at all are two transactions
 * (two players), and an id with quotes, tags or non-ASCII characters is data like any other.
 */
export const IDENTIFIER_CHECKS: readonly Check[] = [
  {
    id: 'distinct-transaction-ids',
    rule:
      `Transaction ids are compared exactly, up to ${MAX_ID_LENGTH} characters: two ids that differ only in case, only in their ` +
      `last character, by an accent, by surrounding spaces or only after an emoji are two transactions, each charged (ids ` +
      'with spaces or non-ASCII characters may be refused instead).',
    hint:
      `Store transaction ids as they come, in a column of at least ${MAX_ID_LENGTH} characters with a binary (case- and ` +
      'accent-sensitive, no-pad) collation and a 4-byte character set, e.g. VARCHAR(128) CHARACTER SET utf8mb4 COLLATE ' +
      'utf8mb4_bin or Postgres text (MySQL’s 3-byte utf8 cannot store an emoji); never trim, lower-case, normalise or ' +
      'truncate them (MySQL without strict mode truncates silently).',
    source:
      `contract (transactionId is a string; ids up to ${MAX_ID_LENGTH} characters); Jackpot Studio Operator Integration Tester ` +
      '"Edge Cases" (very long strings, Unicode characters)',
    async run(ctx) {
      const { p, before } = await playerAndBalance(ctx);
      atLeast(ctx, p, before, (FIRST + SECOND) * 5);
      const base = ctx.tx();
      const long = (end: string) => `${base}-`.padEnd(MAX_ID_LENGTH - 1, 'x') + end;
      const pairs: IdPair[] = [
        { what: 'differ only in case', ids: [`${base}-abc`, `${base}-ABC`], mayRefuse: false },
        {
          what: `are ${MAX_ID_LENGTH} characters long and differ only in the last`,
          ids: [long('a'), long('b')],
          mayRefuse: false,
        },
        { what: 'differ only by an accent', ids: [`${base}-é`, `${base}-e`], mayRefuse: true },
        { what: 'differ only by surrounding spaces', ids: [`${base}-sp`, ` ${base}-sp `], mayRefuse: true },
        // A character outside the Basic Multilingual Plane: 4 bytes in UTF-8, 2 UTF-16 units.
        { what: 'differ only after an emoji', ids: [`${base}-\u{1F3B0}a`, `${base}-\u{1F3B0}b`], mayRefuse: true },
      ];
      let balance = before;
      try {
        for (const pair of pairs) balance = await twoTransactions(ctx, p, balance, pair);
      } finally {
        putBack(ctx, p, await ctx.readBalance(p), before, 'the check’s DEBITs took it');
      }
      await ctx.expectBalanceNow(p, balance, 'after DEBITs whose transaction ids differ only slightly, each charged once');
    },
  },
  {
    id: 'distinct-player-ids',
    rule:
      'Player ids are compared exactly: a DEBIT for the known player’s id in another case, with surrounding spaces or ' +
      'followed by an emoji is refused (PLAYER_NOT_FOUND) or charged to that other player, never to the known one.',
    hint:
      'Look players up by their exact id (a binary collation, no trim, no lower-case); an id you do not know is ' +
      '404 {"error":"PLAYER_NOT_FOUND"}.',
    source:
      'contract (playerId is a string; unknown players are refused); Jackpot Studio Operator Integration Tester "Edge Cases"',
    appliesTo: (wire) => !FOLDS_PLAYER_IDS.includes(wire.name),
    async run(ctx) {
      const { p, before } = await playerAndBalance(ctx);
      const amount = affordable(ctx, before, p, FIRST);
      // The emoji: a wallet that cannot store a 4-byte character may cut the id there, back to the known player's.
      const variants = [p.toUpperCase(), p.toLowerCase(), ` ${p}`, `${p} `, `${p}\u{1F3B0}`].filter((v) => v !== p);
      const steps = await Promise.all(
        variants.map((v) =>
          ctx.debit(`DEBIT ${ctx.money(amount)} for ${JSON.stringify(v)} (not ${JSON.stringify(p)})`, v, amount),
        ),
      );
      for (const [i, step] of steps.entries())
        if (step.reply.accepted) ctx.undoDebit(variants[i] as string, step.transactionId, amount);
      const now = await ctx.readBalance(p);
      if (now !== before) {
        const charged = steps.flatMap((s, i) => (s.reply.accepted ? [JSON.stringify(variants[i])] : []));
        fail(
          `DEBITs for ${charged.join(', ') || 'other player ids'} must not touch player ${JSON.stringify(p)}: expected its balance to stay ` +
            `at ${ctx.money(before)}, got ${ctx.money(now)}`,
        );
      }
      for (const [i, step] of steps.entries()) {
        if (step.reply.verdict !== 'accepted' && step.reply.verdict !== 'rejected')
          fail(
            `a DEBIT for the player id ${JSON.stringify(variants[i])}: expected an answer, got ${describeOutcome(step.exchange)}`,
          );
      }
    },
  },
  {
    id: 'hostile-ids',
    rule:
      'Ids carrying SQL and HTML meta-characters (quotes, ;, --, <script>, %, _ and \\), also at full length, are stored and ' +
      'matched as plain data: each DEBIT is charged once and its repeat gets the first reply; such an unknown player is refused (PLAYER_NOT_FOUND). Never a 5xx.',
    hint:
      'Pass ids to the database as bound parameters (never concatenated into SQL, never in a LIKE pattern) and escape them ' +
      'where they are shown as HTML; do not "sanitise" (strip or rewrite) them.',
    source:
      'Jackpot Studio Operator Integration Tester "Attack Vectors" (SQL injection, XSS) and "Edge Cases" (very long strings)',
    async run(ctx) {
      const { p, before } = await playerAndBalance(ctx);
      atLeast(ctx, p, before, FIRST * 3);
      const base = ctx.tx();
      const ids = [
        `${base}-';DROP TABLE transactions;--`,
        `${base}-<script>alert(1)</script>&amp;`,
        `${base}-"%_\\\\' OR '1'='1`.padEnd(MAX_ID_LENGTH, '%'),
      ];
      let balance = before;
      try {
        for (const id of ids) {
          const first = await ctx.debit(`DEBIT ${ctx.money(FIRST)} as ${JSON.stringify(id)}`, p, FIRST, id);
          if (tooLongFor(ctx, first)) {
            ctx.notes.push(
              `the transaction id ${JSON.stringify(id)} was refused as invalid (${first.reply.error}): the ${ctx.wire.name} wire limits ids`,
            );
            continue;
          }
          ctx.expectBalance(first, balance - FIRST, `a DEBIT whose transactionId is ${JSON.stringify(id)}`);
          balance -= FIRST;
          const again = await ctx.debit(`the same DEBIT again (${JSON.stringify(id)})`, p, FIRST, id);
          sameReply(ctx, first, again, `the repeated DEBIT ${JSON.stringify(id)}`);
        }
      } finally {
        putBack(ctx, p, await ctx.readBalance(p), before, 'the check’s DEBITs took it');
      }
      const ghost = `${ctx.ghostPlayer()}' OR '1'='1`;
      const unknown = await ctx.debit(`DEBIT ${ctx.money(FIRST)} for the unknown player ${JSON.stringify(ghost)}`, ghost, FIRST);
      if (unknown.reply.accepted) ctx.undoDebit(ghost, unknown.transactionId, FIRST);
      // A wallet that checks the characters of player ids may refuse this one as INVALID_REQUEST.
      ctx.expectRejection(
        unknown,
        ['PLAYER_NOT_FOUND', 'INVALID_REQUEST'],
        `a DEBIT for the unknown player ${JSON.stringify(ghost)}`,
      );
      await ctx.expectBalanceNow(p, balance, 'after DEBITs with meta-characters in their ids, each sent twice');
    },
  },
];

/**
 * A vendor wire may limit its ids (Pragmatic: a reference of at most 32 characters): there an id
 * refused as an invalid request is the vendor's format, not a wallet that mangles ids.
 */
function tooLongFor(ctx: CheckContext, step: Step): boolean {
  return !documents(ctx.wire.dialect, 'any-id') && ctx.isRejection(step, 'INVALID_REQUEST');
}

/** Skips a player that cannot afford the check's small bets, which would otherwise be refused for want of funds. */
function atLeast(ctx: CheckContext, p: string, balance: number, needed: number): void {
  if (balance < needed) skip(`player ${p} has ${ctx.money(balance)}; the check bets ${ctx.money(needed)} in all`);
}

interface IdPair {
  what: string;
  ids: [string, string];
  /** Whether a wallet may refuse these ids (spaces, non-ASCII) instead of charging them. */
  mayRefuse: boolean;
}

/** Two DEBITs of different amounts whose ids differ slightly: each must be charged (or, where allowed, refused). Returns the balance after. */
async function twoTransactions(ctx: CheckContext, p: string, before: number, pair: IdPair): Promise<number> {
  let balance = before;
  for (const [i, id] of pair.ids.entries()) {
    const amount = i === 0 ? FIRST : SECOND;
    const step: Step = await ctx.debit(`DEBIT ${ctx.money(amount)} as ${JSON.stringify(id)}`, p, amount, id);
    const what = `two DEBITs whose transaction ids ${pair.what} (${pair.ids.map((s) => JSON.stringify(s)).join(' and ')}): the ${i === 0 ? 'first' : 'second'}`;
    if ((pair.mayRefuse || tooLongFor(ctx, step)) && step.reply.verdict === 'rejected') {
      ctx.notes.push(`the transaction id ${JSON.stringify(id)} was refused (${step.reply.error ?? 'no code'})`);
      continue;
    }
    ctx.expectBalance(step, balance - amount, what);
    balance -= amount;
  }
  return balance;
}
