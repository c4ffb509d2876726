/** Events of the `rule-<id>` streams and the rule vocabulary they carry. */

import type { ConditionGroup, LogicalOperator, Split, Status } from '../engine';

// The condition vocabulary is the engine's input language; the events carry it.
export {
  DATA_TYPES, OPERATORS, OPERATORS_BY_TYPE,
  type Condition, type ConditionGroup, type DataType, type LogicalOperator, type Operator, type Status,
} from '../engine';
// A split's vocabulary is the engine's too: it buckets them (src/engine/split.ts).
export { MAX_SPLIT_WEIGHT, type LinkReason, type Split, type SplitSchedule, type SplitVariant } from '../engine';

export const ENTITY_TYPES = ['context', 'prompt', 'evaluation'] as const;
export type EntityType = (typeof ENTITY_TYPES)[number];

export interface EntityLink {
  readonly entity_type: EntityType;
  readonly entity_id: string;
}

/**
 * The members a rule author controls; every one is present after creation
 * but `key` and `splits`, which rules written before splits lack, and which
 * are written only when given: absent, the key is the rule's id, and the rule
 * has no split (docs/concepts.md#splits).
 */
export interface RuleBody {
  readonly name: string;
  readonly description: string;
  readonly status: Status;
  readonly group_operator: LogicalOperator;
  readonly condition_groups: readonly ConditionGroup[];
  readonly entities: readonly EntityLink[];
  /** What splits hash before the bucketing value (flagd's flag key); set at creation, never changed. */
  readonly key?: string;
  /** At most one per entity type; never empty when present. */
  readonly splits?: readonly Split[];
}

export type RuleEvent =
  | { readonly type: 'RuleCreated'; readonly data: { readonly id: string } & RuleBody }
  | { readonly type: 'RuleUpdated'; readonly data: { readonly id: string; readonly changes: Partial<RuleBody> } }
  | { readonly type: 'RuleDeleted'; readonly data: { readonly id: string } };
