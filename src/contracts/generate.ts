import './no-tracking.ts';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PactV4 } from '@pact-foundation/pact';
import { readingOf } from '../callbacks/call.ts';
import { FakeClock } from '../callbacks/clock.ts';
import { openDatabase } from '../callbacks/db.ts';
import { createCallbackEngine } from '../callbacks/engine.ts';
import type { StoredEvent } from '../callbacks/events.ts';
import { judgeReply } from '../callbacks/reply.ts';
import { isVendorDialect } from '../config/dialect.ts';
import type { AggmockConfig } from '../config/index.ts';
import { wireOf } from '../profiles/index.ts';
import { sortKeys, writeDialectContracts } from './dialect.ts';
import {
  CONSUMER,
  CONTRACT_WEBHOOK_PATH,
  type ContractInteraction,
  interactionsFor,
  PACT_FILE_NAME,
  PROVIDER,
  WRONG_SECRET,
} from './interactions.ts';
import { CONTRACT_EPOCH_MS, describeInteraction, enqueueRequestOf } from './pact.ts';

/** What the engine saw when it delivered one contract interaction to the Pact mock. */
export interface DeliveredInteraction {
  interaction: ContractInteraction;
  event: StoredEvent;
}

/**
 * Sends one interaction's callback with aggmock's REAL callback engine (in-memory outbox, fake
 * clock at the contract epoch, one attempt) to `webhookUrl`, and returns the settled event.
 * Throws when the engine did not end the way the rule says it must (delivered for a 2xx reply,
 * rejected for a 4xx), so a consumer test fails if aggmock misreads the reply.
 */
export async function deliverInteraction(
  interaction: ContractInteraction,
  config: AggmockConfig,
  webhookUrl: string,
): Promise<StoredEvent> {
  const signing = config.callbacks.signing;
  const engineConfig: AggmockConfig = {
    ...config,
    callbacks: {
      ...config.callbacks,
      retrySchedule: [0],
      jitter: 0,
      rollbackFailedDebits: false,
      timeout: 5_000,
      signing: interaction.signature === 'wrong-secret' ? { ...signing, secrets: [WRONG_SECRET] } : signing,
      ...(interaction.signature === 'wrong-secret' ? { apiKey: WRONG_SECRET } : {}),
    },
  };
  const wire = wireOf(config.callbacks);
  const db = openDatabase(':memory:');
  const engine = createCallbackEngine({ config: engineConfig, db, clock: new FakeClock(CONTRACT_EPOCH_MS), webhookUrl });
  try {
    engine.start();
    const event = await engine.enqueue(enqueueRequestOf(interaction)).settled;
    const reply = interaction.reply;
    const body = event.reply?.body as Record<string, unknown> | undefined;
    const judged = event.reply ? judgeReply(event.reply, readingOf(config.callbacks)()) : undefined;
    const code = reply.accepted ? undefined : wire.code(reply.error);
    if (reply.accepted) {
      if (event.status !== 'delivered')
        throw new Error(`${interaction.id}: expected the engine to deliver it, but it ended ${event.status}: ${event.error}`);
      if (judged?.balance.kind !== 'ok') {
        throw new Error(`${interaction.id}: the engine did not read a balance from ${JSON.stringify(body)}`);
      }
    } else if (event.status !== 'rejected' || judged?.error !== code) {
      throw new Error(
        `${interaction.id}: expected a rejection ${reply.error}, but the engine ended ${event.status} with ${JSON.stringify(body)}`,
      );
    }
    return event;
  } finally {
    await engine.stop({ deadlineMs: 1_000 });
    db.close();
  }
}

/**
 * Runs every contract interaction (or `only` some) through the Pact mock server with the real
 * engine, writing `<outDir>/aggmock-integrator-webhook.json`. `onDelivered` sees each settled event
 * (consumer tests assert on it).
 */
export async function runConsumerInteractions(options: {
  config: AggmockConfig;
  outDir: string;
  interactions?: readonly ContractInteraction[];
  onDelivered?: (delivered: DeliveredInteraction) => void;
}): Promise<void> {
  const pact = new PactV4({ consumer: CONSUMER, provider: PROVIDER, dir: options.outDir, logLevel: 'error' });
  for (const interaction of options.interactions ?? interactionsFor(wireOf(options.config.callbacks))) {
    await describeInteraction(pact.addInteraction(), interaction, options.config.callbacks).executeTest(async (mock) => {
      const event = await deliverInteraction(interaction, options.config, `${mock.url}${CONTRACT_WEBHOOK_PATH}`);
      await matchRecorded(pact, mock.port);
      options.onDelivered?.({ interaction, event });
    });
  }
}

/**
 * Waits (up to 1 s) until the Pact mock server has booked the request it already answered.
 * Since pact 16.3 the mock server records matches on an async channel, so under CPU load
 * executeTest can read "expected but not received" for a request that was answered
 * (pact-foundation/pact-core-mock-server#13). A real mismatch never books a match: after the wait
 * executeTest reports it as usual.
 */
async function matchRecorded(pact: PactV4, port: number): Promise<void> {
  const core = (pact as unknown as { pact?: { mockServerMatchedSuccessfully?: (port: number) => boolean } }).pact;
  if (typeof core?.mockServerMatchedSuccessfully !== 'function') return;
  for (let waited = 0; waited < 1_000 && !core.mockServerMatchedSuccessfully(port); waited += 10) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * Writes the Pact file for ANY configuration (signing scheme, rollback style, type strings, amount
 * format, extra fields) from the same interaction definitions, by running the same engine against
 * the Pact mock. Replaces an existing file; its content is normalised (stable key order), so the
 * same config always gives the same bytes. Returns the path written.
 *
 * @example
 * const path = await generateContracts({ config: defaultConfig(), outDir: 'contracts' });
 */
export async function generateContracts(options: { config: AggmockConfig; outDir: string }): Promise<string> {
  const file = join(options.outDir, PACT_FILE_NAME);
  mkdirSync(options.outDir, { recursive: true });
  // A vendor dialect's contracts are written from its definition: the engine's profile callbacks are not its wire.
  if (isVendorDialect(options.config.callbacks)) return writeDialectContracts(options);
  // Pact merges into an existing file; start clean so a removed interaction disappears.
  rmSync(file, { force: true });
  await runConsumerInteractions(options);
  writeFileSync(file, `${JSON.stringify(normalisePact(JSON.parse(readFileSync(file, 'utf8'))), null, 2)}\n`);
  return file;
}

/**
 * A pact with everything volatile removed and keys sorted, for writing and comparing: the
 * versions of the Pact libraries in `metadata` are kept out (an upgrade alone must not make the
 * committed contracts "differ"). Business rejections are widened to "any 2xx or 4xx" here.
 */
export function normalisePact(pact: unknown): unknown {
  const copy = structuredClone(pact) as PactWithResponses & { metadata?: Record<string, unknown> };
  if (copy.metadata) {
    delete copy.metadata.pactRust;
    delete copy.metadata['pact-js'];
  }
  widenRejectionStatus(copy);
  return sortKeys(copy);
}

interface PactWithResponses {
  interactions?: { response?: { status?: number; matchingRules?: Record<string, unknown> } }[];
}

/**
 * A business rejection may come as a 4xx or as a 200 with `{error}` (the wallet's style), so its
 * status matches "success OR client error". pact-js's DSL can only name one status class, so the
 * rule is written into the file here; the Pact core honours it. INVALID_SIGNATURE stays 401.
 */
function widenRejectionStatus(pact: PactWithResponses): void {
  for (const interaction of pact.interactions ?? []) {
    const response = interaction.response;
    if (!response?.matchingRules || response.status === undefined || response.status < 400 || response.status === 401) continue;
    response.matchingRules.status = {
      $: {
        combine: 'OR',
        matchers: [
          { match: 'statusCode', status: 'success' },
          { match: 'statusCode', status: 'clientError' },
        ],
      },
    };
  }
}
