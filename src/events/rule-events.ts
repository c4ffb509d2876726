/** Events of the `rule-<id>` streams and the rule vocabulary they carry. */

import type { ConditionGroup, LogicalOperator, Status } from '../engine';

// The condition vocabulary is the engine's input language; the events carry it.
export {
  DATA_TYPES, OPERATORS, OPERATORS_BY_TYPE,
  type Condition, type ConditionGroup, type DataType, type LogicalOperator, type Operator, type Status,
} from '../engine';

export const ENTITY_TYPES = ['context', 'prompt', 'evaluation'] as const;
export type EntityType = (typeof ENTITY_TYPES)[number];

export interface EntityLink {
  readonly entity_type: EntityType;
  readonly entity_id: string;
}

/** The members a rule author controls; every one is present after creation. */
export interface RuleBody {
  readonly name: string;
  readonly description: string;
  readonly status: Status;
  readonly group_operator: LogicalOperator;
  readonly condition_groups: readonly ConditionGroup[];
  readonly entities: readonly EntityLink[];
}

export type RuleEvent =
  | { readonly type: 'RuleCreated'; readonly data: { readonly id: string } & RuleBody }
  | { readonly type: 'RuleUpdated'; readonly data: { readonly id: string; readonly changes: Partial<RuleBody> } }
  | { readonly type: 'RuleDeleted'; readonly data: { readonly id: string } };
