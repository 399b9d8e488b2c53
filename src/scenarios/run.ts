import type { CallbackEngine } from '../callbacks/engine.ts';
import type { StoredEvent } from '../callbacks/events.ts';
import { isAccepted } from '../ledger/reply.ts';
import { messageOf, withTimeout } from '../shared/index.ts';
import type { ScenarioName, ScenarioPlan, ScenarioStep, StepDependency } from './plan.ts';

/** The part of the engine a scenario needs: enqueue and wait. */
export type ScenarioEngine = Pick<CallbackEngine, 'enqueue'>;

export type StepResult =
  | { key: string; status: 'sent'; event: StoredEvent }
  | { key: string; status: 'skipped'; reason: string }
  | { key: string; status: 'error'; error: string };

export interface ScenarioRunSummary {
  scenario: ScenarioName;
  group: string;
  playerId: string;
  /** The settled events in step order. */
  events: StoredEvent[];
  steps: StepResult[];
  /** Every step that ran got a reply (delivered or rejected) and none failed to enqueue. */
  ok: boolean;
}

export interface StartedScenario {
  group: string;
  /** The events of the steps that wait for nothing, already in the outbox. */
  enqueued: StoredEvent[];
  done: Promise<ScenarioRunSummary>;
}

/** A run id that follows from the plan, so the same seed names its runs the same way. */
export function groupOf(plan: ScenarioPlan): string {
  const first = plan.steps[0]?.request.transactionId ?? 'empty';
  return `${plan.scenario}:${first}`;
}

/**
 * Starts executing a plan: steps without dependencies are enqueued at once (in plan order, so
 * the outbox order is the plan order); each other step waits for the steps it depends on to
 * settle, and is skipped when its condition does not hold (a rejected bet gets no win).
 *
 * @example
 * const { group, enqueued, done } = startScenario(engine, planScenario('bet-win', params, rng, ids));
 */
export function startScenario(engine: ScenarioEngine, plan: ScenarioPlan, options: { group?: string } = {}): StartedScenario {
  const group = options.group ?? groupOf(plan);
  const results = new Map<string, Promise<StepResult>>();
  const enqueued: StoredEvent[] = [];

  const send = (step: ScenarioStep): { result: Promise<StepResult>; event?: StoredEvent } => {
    try {
      const { event, settled } = engine.enqueue({ ...step.request, group });
      const result = settled.then(
        (e): StepResult => ({ key: step.key, status: 'sent', event: e }),
        (error: unknown): StepResult => ({ key: step.key, status: 'error', error: messageOf(error) }),
      );
      return { result, event };
    } catch (error) {
      return { result: Promise.resolve({ key: step.key, status: 'error', error: messageOf(error) }) };
    }
  };

  for (const step of plan.steps) {
    if (step.after.length === 0) {
      const { result, event } = send(step);
      if (event) enqueued.push(event);
      results.set(step.key, result);
      continue;
    }
    const waits = step.after.map((dep) => {
      const result = results.get(dep.step);
      if (!result) throw new RangeError(`step ${step.key} depends on ${dep.step}, which is not an earlier step of the plan`);
      return result.then((r) => ({ dep, r }));
    });
    results.set(
      step.key,
      Promise.all(waits).then((deps) => {
        const blocked = deps.find(({ dep, r }) => !conditionHolds(dep, r));
        if (blocked) return { key: step.key, status: 'skipped', reason: skipReason(blocked.dep, blocked.r) } satisfies StepResult;
        return send(step).result;
      }),
    );
  }

  const done = Promise.all(plan.steps.map((s) => results.get(s.key) as Promise<StepResult>)).then((steps) => {
    const events = steps.flatMap((s) => (s.status === 'sent' ? [s.event] : []));
    const ok = steps.every((s) => s.status === 'skipped' || (s.status === 'sent' && s.event.status !== 'failed'));
    return { scenario: plan.scenario, group, playerId: plan.playerId, events, steps, ok };
  });
  return { group, enqueued, done };
}

/** Runs a plan to the end and returns what happened. */
export function runScenario(
  engine: ScenarioEngine,
  plan: ScenarioPlan,
  options: { group?: string } = {},
): Promise<ScenarioRunSummary> {
  return startScenario(engine, plan, options).done;
}

/** How {@link playInOrder} ended: the events sent in order, and the step that was refused or is still pending, if one. */
export interface PlayedSteps {
  events: StoredEvent[];
  /** The step whose call the wallet did not accept (the steps waiting for it were not sent). */
  refused?: ScenarioStep;
  /** The event of a step that did not settle within the wait (the engine keeps retrying it). */
  pending?: StoredEvent;
}

/**
 * Sends steps one after another, each once the one before has settled, for a caller that answers
 * a person (the play page): a step whose condition does not hold is not sent, and a step the wallet
 * refuses, or one that does not settle within `waitMs`, ends the run there.
 */
export async function playInOrder(engine: ScenarioEngine, steps: readonly ScenarioStep[], waitMs: number): Promise<PlayedSteps> {
  const results = new Map<string, StepResult>();
  const events: StoredEvent[] = [];
  for (const step of steps) {
    const blocked = step.after.some((dep) => {
      const r = results.get(dep.step);
      return r === undefined || !conditionHolds(dep, r);
    });
    if (blocked) {
      results.set(step.key, { key: step.key, status: 'skipped', reason: 'a step it waits for did not go as needed' });
      continue;
    }
    const queued = engine.enqueue(step.request);
    const settled = await withTimeout(queued.settled, waitMs);
    if (!settled) return { events, pending: queued.event };
    events.push(settled);
    results.set(step.key, { key: step.key, status: 'sent', event: settled });
    if (!isAccepted(settled)) return { events, refused: step };
  }
  return { events };
}

function conditionHolds(dep: StepDependency, r: StepResult): boolean {
  switch (dep.when) {
    case 'finished':
      return true;
    case 'settled':
      return r.status === 'sent';
    case 'accepted':
      return r.status === 'sent' && isAccepted(r.event);
  }
}

function skipReason(dep: StepDependency, r: StepResult): string {
  if (r.status === 'skipped') return `${dep.step} was skipped`;
  if (r.status === 'error') return `${dep.step} could not be sent: ${r.error}`;
  return `${dep.step} was not accepted (${r.event.status}${r.event.error ? `: ${r.event.error}` : ''})`;
}
