/**
 * The compiled rule engine's interface. The engine is pure, synchronous and
 * total: `evaluate` never throws and never touches I/O.
 */
import type { ConditionGroup, LogicalOperator, Status } from './conditions';

/** What the engine needs of a rule; a projected rule record satisfies it. */
export interface RuleDefinition {
  readonly id: string;
  readonly status: Status;
  readonly group_operator: LogicalOperator;
  readonly condition_groups: readonly ConditionGroup[];
}

export type FieldValue = string | number | boolean;
/** Request input, already validated: plain object, values string/number/boolean. */
export type Fields = { readonly [field: string]: FieldValue };

/** A problem with a rule found at write time; `path` points into the rule body. */
export interface RuleProblem {
  readonly path: string;
  readonly message: string;
}

export interface Engine {
  /** Compiles and indexes one rule, replacing any earlier version; an INACTIVE rule is removed. */
  upsert(rule: RuleDefinition): void;
  /**
   * upsert of each rule in order, answering exactly as those upserts would;
   * cheaper for a build from many rules (a start, a catch-up).
   */
  upsertMany(rules: Iterable<RuleDefinition>): void;
  remove(ruleId: string): void;
  /** Ids of the active rules matching `fields`, each once, sorted ascending. */
  evaluate(fields: Fields): string[];
  /** Number of active rules indexed. */
  readonly size: number;
}
