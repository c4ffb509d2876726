/** The rule engine: compiled index, write-time checks and the types they share. */
export { createEngine, type EngineOptions } from './engine';
export { checkConditionGroups, DEFAULT_RULE_LIMITS, type RuleLimits } from './validate';
export type { Engine, Fields, FieldValue, RuleDefinition, RuleProblem } from './types';
