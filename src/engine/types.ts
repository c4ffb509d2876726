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

/** null is an absent field (contract §2): every condition on it is false, its negations too. */
export type FieldValue = string | number | boolean | null;
/** Request input, already validated: plain object, values string/number/boolean or null. */
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
  /**
   * The rules `evaluate` lists, in its order, each as the value `derive`
   * gave for its id: derived on the rule's first match and kept, by rule
   * number, until the rule changes or goes. The answer's per-rule pieces then
   * cost no lookup by id (bench: cpu-per-request --workload evaluate). The
   * engine keeps one `derive`'s values: a call with another starts them over.
   * `derive` must not return undefined.
   */
  evaluateDerived<T>(fields: Fields, derive: (id: string) => T): T[];
  /** Number of active rules indexed. */
  readonly size: number;
}
