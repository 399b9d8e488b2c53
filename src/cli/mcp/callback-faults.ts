import { CALLBACK_FAULT_EVENTS, CALLBACK_FAULT_KINDS, callbackFaultRuleSchema } from '../../config/index.ts';
import { callAggmock } from './client.ts';
import { id, type ToolDefinition, tool } from './define.ts';

/**
 * The MCP tools for fault rules on the callbacks aggmock sends to the wallet (`/__admin/callback-faults`):
 * the races a wallet must survive that a healthy aggregator rarely produces on demand. Their input
 * schema is the admin API's own (callbackFaultRuleSchema) with a description per field for the
 * agent, so the tool and the API cannot drift apart; the API then judges the whole rule.
 */

const rule = callbackFaultRuleSchema.shape;

export const CALLBACK_FAULT_TOOLS: ToolDefinition[] = [
  tool({
    name: 'add_callback_fault',
    title: 'Add a fault to the callbacks sent to the wallet',
    description: `Make the callbacks aggmock sends to the wallet webhook race as they do in production (POST /__admin/callback-faults), to see whether the wallet keeps the right balance. Faults: timeout (aggmock gives up on the attempt as if it timed out: with no afterMs once the wallet has answered, so the wallet applied it; with afterMs that long after sending, with the request still open; then the retry schedule goes on, or with giveUp the event ends failed and a DEBIT is rolled back at once, so the ROLLBACK races the DEBIT), duplicate (a second copy of the callback, signed afresh, sent afterMs after the first, default 0: both in flight). By default a rule fires on every matching callback; times, nth or probability (seeded) limit it. Answers the rule with its id (for clear_callback_faults); list_deliveries and get_delivery show what happened, list_discrepancies what the shadow ledger found.`,
    inputSchema: {
      id: rule.id.describe('an id of your own for the rule: 1 to 64 letters, digits, "-" or "_" (default: generated)'),
      match: rule.match.describe(
        `which callbacks the rule applies to (default: every one). event: one of ${CALLBACK_FAULT_EVENTS.join(', ')} or a list of them; player: a player id; transactionId: one callback's transaction id`,
      ),
      fault: rule.fault.describe(
        `what goes wrong: {"kind": one of ${CALLBACK_FAULT_KINDS.join(', ')}, …its fields}, e.g. {"kind": "timeout", "giveUp": true} (time out the next DEBIT after the wallet applied it), {"kind": "timeout", "afterMs": 0, "giveUp": true} (give up while it is in flight), {"kind": "duplicate"}`,
      ),
      times: rule.times.describe('apply to the next N matching callbacks only, then stop'),
      nth: rule.nth.describe('apply to the Nth matching callback only (1 = the next one)'),
      probability: rule.probability.describe('apply to each matching callback with this probability, from 0 to 1'),
      seed: rule.seed.describe('with probability: the seed of its draws (the same seed, the same faults)'),
    },
    readOnly: false,
    run: async (args, target) =>
      callAggmock(target, { method: 'POST', path: '/__admin/callback-faults', admin: true, body: args }),
  }),

  tool({
    name: 'list_callback_faults',
    title: 'List the callback fault rules',
    description:
      'The fault rules in force on the callbacks aggmock sends (GET /__admin/callback-faults), in the order they are tried: each with its match, fault and limits, where it came from (config or admin), how many callbacks it matched and fired on, and whether it is spent.',
    inputSchema: {},
    readOnly: true,
    run: async (_args, target) => callAggmock(target, { method: 'GET', path: '/__admin/callback-faults', admin: true }),
  }),

  tool({
    name: 'clear_callback_faults',
    title: 'Remove callback fault rules',
    description:
      'Remove one callback fault rule by its id (DELETE /__admin/callback-faults/<id>), or every rule without an id (DELETE /__admin/callback-faults), the ones from the config file included. Answers how many were removed.',
    inputSchema: {
      id: id(
        'a callback fault rule id',
        'the id of the rule to remove, from add_callback_fault or list_callback_faults (default: remove every rule)',
      ).optional(),
    },
    readOnly: false,
    run: async ({ id: ruleId }, target) =>
      callAggmock(target, {
        method: 'DELETE',
        path: ruleId === undefined ? '/__admin/callback-faults' : `/__admin/callback-faults/${encodeURIComponent(ruleId)}`,
        admin: true,
      }),
  }),
];
