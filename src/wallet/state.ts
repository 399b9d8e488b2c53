import { z } from 'zod';
import { formatMinor, parseMajorString, toMinor } from '../money/index.ts';
import type { WalletStore } from './store.ts';

/**
 * Pact provider states the reference wallet can set up (POST /__state), so the contracts in
 * `contracts/` can be verified against it. Amounts are major units, as written in the state names.
 */
export type ProviderState =
  | { kind: 'player-balance'; playerId: string; balanceMinor: number }
  | { kind: 'player-absent'; playerId: string }
  | { kind: 'transaction-debited'; playerId: string; transactionId: string; amountMinor: number }
  | { kind: 'player-session'; playerId: string; token: string };

export const SUPPORTED_STATES = [
  'player <id> has balance <amount>',
  'player <id> does not exist',
  'transaction <txId> was debited from player <id> for <amount>',
  'player <id> has session token <token>',
] as const;

/** The body a Pact verifier posts to a provider-state URL; older verifiers send `states`. */
export const stateRequestSchema = z.object({
  state: z.string().optional(),
  states: z.array(z.string()).optional(),
  action: z.enum(['setup', 'teardown']).optional(),
  params: z.record(z.string(), z.unknown()).optional(),
});

const AMOUNT = String.raw`-?\d+(?:\.\d{1,2})?`;
const PATTERNS = {
  balance: new RegExp(String.raw`^player(?: (?<playerId>\S+))? has (?:a )?balance(?: (?:of )?(?<balance>${AMOUNT}))?$`, 'i'),
  absent: /^player(?: (?<playerId>\S+))? does not exist$/i,
  session: /^player(?: (?<playerId>\S+))? has (?:a )?session token(?: (?<token>\S+))?$/i,
  debited: new RegExp(
    String.raw`^transaction(?: (?<transactionId>\S+))? was debited(?: from player (?<playerId>\S+))?(?: for (?<amount>${AMOUNT}))?$`,
    'i',
  ),
};

export type ParsedState = { ok: true; state: ProviderState } | { ok: false; message: string };

/**
 * Reads a provider state from its name and params. Params win over values in the name
 * (`{playerId, balance}`, `{playerId, transactionId, amount}`), so either form works.
 *
 * @example parseProviderState('player p1 has balance 100.00') // {ok:true, state:{kind:'player-balance', playerId:'p1', balanceMinor:10000}}
 */
export function parseProviderState(name: string, params: Record<string, unknown> = {}): ParsedState {
  const text = name.trim().replace(/\s+/g, ' ');
  const pick = (groups: Record<string, string | undefined> | undefined, key: string) => {
    const value = params[key] ?? groups?.[key];
    return value === undefined || value === null ? undefined : value;
  };

  // Before the balance pattern: "has a session token" must not read as "has a balance".
  const session = PATTERNS.session.exec(text);
  if (session) {
    const playerId = pick(session.groups, 'playerId');
    const token = pick(session.groups, 'token');
    if (typeof playerId !== 'string') return missing(name, 'playerId');
    if (typeof token !== 'string' || token === '') return missing(name, 'token');
    return { ok: true, state: { kind: 'player-session', playerId, token } };
  }

  const balance = PATTERNS.balance.exec(text);
  if (balance) {
    const playerId = pick(balance.groups, 'playerId');
    const balanceMinor = stateAmount(pick(balance.groups, 'balance'));
    if (typeof playerId !== 'string') return missing(name, 'playerId');
    if (balanceMinor === undefined || balanceMinor < 0) return badAmount(name, 'balance', pick(balance.groups, 'balance'));
    return { ok: true, state: { kind: 'player-balance', playerId, balanceMinor } };
  }

  const absent = PATTERNS.absent.exec(text);
  if (absent) {
    const playerId = pick(absent.groups, 'playerId');
    if (typeof playerId !== 'string') return missing(name, 'playerId');
    return { ok: true, state: { kind: 'player-absent', playerId } };
  }

  const debited = PATTERNS.debited.exec(text);
  if (debited) {
    const transactionId = pick(debited.groups, 'transactionId');
    const playerId = pick(debited.groups, 'playerId');
    const amountMinor = stateAmount(pick(debited.groups, 'amount'));
    if (typeof transactionId !== 'string') return missing(name, 'transactionId');
    if (typeof playerId !== 'string') return missing(name, 'playerId');
    if (amountMinor === undefined || amountMinor <= 0) return badAmount(name, 'amount', pick(debited.groups, 'amount'));
    return { ok: true, state: { kind: 'transaction-debited', playerId, transactionId, amountMinor } };
  }

  return {
    ok: false,
    message: `Unknown provider state ${JSON.stringify(name)}. Supported: ${SUPPORTED_STATES.map((s) => `"${s}"`).join(', ')}.`,
  };
}

export type StateOutcome = { ok: true; playerId: string; balanceMinor: number | undefined } | { ok: false; message: string };

/** Puts the wallet in the given state. A prior DEBIT is applied as a real DEBIT, so it can be rolled back. */
export function applyProviderState(store: WalletStore, state: ProviderState): StateOutcome {
  const { playerId } = state;
  if ((state.kind === 'player-session' || state.kind === 'transaction-debited') && store.balanceOf(playerId) === undefined)
    return { ok: false, message: `Player ${playerId} does not exist; set "player ${playerId} has balance <amount>" first.` };
  switch (state.kind) {
    case 'player-balance':
      store.setBalance(playerId, state.balanceMinor);
      break;
    case 'player-absent':
      store.removePlayer(playerId);
      break;
    case 'player-session':
      store.addSession(state.token, playerId);
      break;
    case 'transaction-debited': {
      const { transactionId, amountMinor } = state;
      const reply = store.applyEvent({ kind: 'DEBIT', playerId, transactionId, amountMinor });
      if (reply.status !== 200) {
        const message = `Could not debit ${formatMinor(amountMinor)} as ${transactionId} from player ${playerId}: ${JSON.stringify(reply.body)}.`;
        return { ok: false, message };
      }
      break;
    }
  }
  return { ok: true, playerId, balanceMinor: store.balanceOf(playerId) };
}

function stateAmount(value: unknown): number | undefined {
  if (typeof value === 'number') return toMinor(value);
  if (typeof value === 'string') return parseMajorString(value);
  return undefined;
}

function missing(name: string, field: string): ParsedState {
  return {
    ok: false,
    message: `Provider state ${JSON.stringify(name)} needs ${field}: put it in the state name or in params.${field}.`,
  };
}

function badAmount(name: string, field: string, value: unknown): ParsedState {
  return {
    ok: false,
    message:
      `Provider state ${JSON.stringify(name)}: ${field} must be a non-negative amount in major units with at most 2 decimals ` +
      `(e.g. "100.00"), got ${JSON.stringify(value) ?? 'nothing'}.`,
  };
}
