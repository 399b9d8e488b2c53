/**
 * Game-play scenarios (sessions, bursts, rollbacks, …) planned as callback sequences and run
 * through the engine, with their expected ledger outcome. An engine: it imports callbacks,
 * config, ledger and money; it must not import surfaces or the CLI.
 */
export {
  amountRangeMinor,
  DEFAULT_BURST_SIZE,
  DEFAULT_RTP,
  DEFAULT_SESSION_SPINS,
  isScenarioName,
  planScenario,
  SCENARIO_DESCRIPTIONS,
  SCENARIOS,
  ScenarioError,
  type ScenarioName,
  type ScenarioParams,
  type ScenarioPlan,
  type ScenarioStep,
  type SessionCalls,
  type StepCondition,
  type StepDependency,
  sessionCallsOf,
  UNAFFORDABLE_MINOR,
  wireParamsOf,
} from './plan.ts';
export {
  baseOf,
  betCall,
  type CallBase,
  type PlannedCall,
  PROFILE_WIRE,
  type RoundWire,
  readCall,
  rollbackCall,
  rollbackWinCall,
  roundIdFor,
  roundSteps,
  roundWireOf,
  singleCall,
  winCall,
  withSessionCalls,
} from './round.ts';
export {
  groupOf,
  type PlayedSteps,
  playInOrder,
  runScenario,
  type ScenarioEngine,
  type ScenarioRunSummary,
  type StartedScenario,
  type StepResult,
  startScenario,
} from './run.ts';
