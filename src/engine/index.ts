/**
 * The rule engine: compiled index, write-time checks and the types they share;
 * the only entry point from outside src/engine (test/layers.test.ts).
 */
export { createEngine, prepareWrites, type EngineOptions } from './engine';
// Debugging: a compiled rule's records in readable form, and the arena's consistency checks (layout.ts).
export { checkInvariants, dumpRule } from './inspect';
// The compiled engine as a snapshot's sections and back (a start from a snapshot compiles nothing).
export { engineFromImage, engineImage, IMAGE_SECTIONS, markRoom, sectionRoom, type ImageSection } from './image';
export { checkConditionGroups, DEFAULT_RULE_LIMITS, type RuleLimits } from './validate';
export type { Engine, Fields, FieldValue, RuleDefinition, RuleProblem } from './types';
export {
  DATA_TYPES, OPERATORS, OPERATORS_BY_TYPE,
  type Condition, type ConditionGroup, type DataType, type LogicalOperator, type Operator, type Status,
} from './conditions';
// The operator table (operators.ts), one condition at a time: src/audit/rule-check.ts
// checks rules this way where building the index would cost more, explain explains with it.
export {
  compileCondition, explainTest, OPERATOR_ROWS, operatorRow, readValue, testPredicate,
  type ConditionReason, type OperatorRow,
} from './operators';
export { Kind, type InputView, type Predicate } from './predicates';
// Splits: a rule's weighted links, bucketed as flagd's `fractional` (split.ts, murmur3.ts).
export {
  bucketingValue, bucketOf, chooseVariant, compileSplit, explainSplit, MAX_SPLIT_WEIGHT, scheduleProgress, thresholdOf, thresholdsAt, variantAt,
  type CompiledSplit, type LinkReason, type Split, type SplitExplanation, type SplitSchedule, type SplitVariant,
} from './split';
export { murmur3Utf8 } from './murmur3';
