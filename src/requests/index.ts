/**
 * The integrator's client as aggmock sees it: the fault rules applied to its requests to the
 * aggregator API (`rules.ts`, pure: which rule fires, seeded) and the journal of every request it
 * made (`journal.ts`, SQLite, batched, with the callbacks' retention; its table and statements in
 * `journal-table.ts`, an entry as a row in `rows.ts`; paged as every list is, `http/paging.ts`), with credential masking and
 * the did-you-mean of a refused request (`describe.ts`). An engine: it imports config, shared and
 * callbacks (the seeded generator); it knows nothing of HTTP routes, pages or the CLI (the
 * aggregator surface applies the faults, src/aggregator/client-faults.ts).
 */
export { credentialMasker, maskedBody, maskedQuery, refusalHint, sameStrings } from './describe.ts';
export {
  type AuthVerdict,
  type HeldCall,
  type JournaledRequest,
  journaledReplyLimit,
  MAX_JOURNALED_REPLY_BODY,
  MAX_JOURNALED_REQUEST_BODY,
  type NewJournaledRequest,
  type RequestFilter,
  RequestJournal,
  type RequestMatcher,
} from './journal.ts';
export { AUTH_METHODS } from './rows.ts';
export { FaultRuleError, type FaultRuleState, FaultRules, type FiredFault, type RequestFacts } from './rules.ts';
