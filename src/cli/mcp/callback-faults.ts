import { CALLBACK_FAULT_EVENTS, CALLBACK_FAULT_KINDS, callbackFaultRuleSchema } from '../../config/index.ts';
import { faultRuleTools, type ToolDefinition } from './define.ts';

/**
 * The MCP tools for fault rules on the callbacks aggmock sends to the wallet (`/__admin/callback-faults`):
 * the races a wallet must survive that a healthy aggregator rarely produces on demand. Their input
 * schema is the admin API's own (callbackFaultRuleSchema) with a description per field for the
 * agent, so the tool and the API cannot drift apart; the API then judges the whole rule.
 */

export const CALLBACK_FAULT_TOOLS: ToolDefinition[] = faultRuleTools({
  path: '/__admin/callback-faults',
  names: ['add_callback_fault', 'list_callback_faults', 'clear_callback_faults'],
  titles: ['Add a fault to the callbacks sent to the wallet', 'List the callback fault rules', 'Remove callback fault rules'],
  target: 'callback',
  listedOn: 'the callbacks aggmock sends',
  noun: 'callback fault rule',
  addDescription: `Make the callbacks aggmock sends to the wallet webhook race as they do in production (POST /__admin/callback-faults), to see whether the wallet keeps the right balance. Faults: timeout (aggmock gives up on the attempt as if it timed out: with no afterMs once the wallet has answered, so the wallet applied it; with afterMs that long after sending, with the request still open; then the retry schedule goes on, or with giveUp the event ends failed and a DEBIT is rolled back at once, so the ROLLBACK races the DEBIT), duplicate (a second copy of the callback, signed afresh, sent afterMs after the first, default 0: both in flight). By default a rule fires on every matching callback; times, nth or probability (seeded) limit it. Answers the rule with its id (for clear_callback_faults); list_deliveries and get_delivery show what happened, list_discrepancies what the shadow ledger found.`,
  rule: callbackFaultRuleSchema.shape,
  match: `which callbacks the rule applies to (default: every one). event: one of ${CALLBACK_FAULT_EVENTS.join(', ')} or a list of them; player: a player id; transactionId: one callback's transaction id`,
  fault: `what goes wrong: {"kind": one of ${CALLBACK_FAULT_KINDS.join(', ')}, …its fields}, e.g. {"kind": "timeout", "giveUp": true} (time out the next DEBIT after the wallet applied it), {"kind": "timeout", "afterMs": 0, "giveUp": true} (give up while it is in flight), {"kind": "duplicate"}`,
});
