import type { CallbackEngine } from '../callbacks/engine.ts';
import type { Random } from '../callbacks/random.ts';
import type { AggmockConfig } from '../config/index.ts';
import type { ShadowLedger } from '../ledger/index.ts';
import type { FaultRules, RequestJournal } from '../requests/index.ts';
import type { Scheduler } from '../schedule/index.ts';

/** What the admin API works on. */
export interface AdminDeps {
  engine: CallbackEngine;
  ledger: ShadowLedger;
  scheduler?: Scheduler;
  /** When given, scenario runs carry a game id from it. */
  catalog?: { games: readonly { id: string }[] };
  config: AggmockConfig;
  /** Draws scenario players and amounts; default seeded from `config.seed`. */
  random?: Random;
  /** Called for errors that are aggmock's own fault (answered as a JSON 500). */
  onInternalError?: (error: unknown) => void;
  /** The fault rules on the aggregator API (`/faults`); without them those routes answer 404. */
  rules?: FaultRules;
  /** The journal of the client's requests (`/requests`). */
  journal?: RequestJournal;
}
