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
  type StepCondition,
  type StepDependency,
  UNAFFORDABLE_MINOR,
} from './plan.ts';
export { groupOf, runScenario, type ScenarioEngine, type ScenarioRunSummary, type StartedScenario, type StepResult, startScenario } from './run.ts';
