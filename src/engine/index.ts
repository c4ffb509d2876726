/** The rule engine: compiled index, write-time checks and the types they share. */
export { createEngine, type EngineOptions } from './engine';
export { checkConditionGroups, DEFAULT_RULE_LIMITS, type RuleLimits } from './validate';
export type { Engine, Fields, FieldValue, RuleDefinition, RuleProblem } from './types';
export {
  DATA_TYPES, OPERATORS, OPERATORS_BY_TYPE,
  type Condition, type ConditionGroup, type DataType, type LogicalOperator, type Operator, type Status,
} from './conditions';
