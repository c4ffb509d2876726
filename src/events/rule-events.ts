/** Events of the `rule-<id>` streams and the rule vocabulary they carry. */

export const DATA_TYPES = ['string', 'number', 'boolean'] as const;
export type DataType = (typeof DATA_TYPES)[number];

export const OPERATORS = [
  'equals', 'not_equals', 'contains', 'not_contains', 'starts_with', 'ends_with', 'regex',
  'in', 'not_in', 'gt', 'gte', 'lt', 'lte', 'between',
] as const;
export type Operator = (typeof OPERATORS)[number];

/** Which operators each data type admits (contract §2). */
export const OPERATORS_BY_TYPE: { readonly [T in DataType]: readonly Operator[] } = {
  string: ['equals', 'not_equals', 'contains', 'not_contains', 'starts_with', 'ends_with', 'regex', 'in', 'not_in'],
  number: ['equals', 'not_equals', 'gt', 'gte', 'lt', 'lte', 'between', 'in', 'not_in'],
  boolean: ['equals', 'not_equals'],
};

export type Status = 'ACTIVE' | 'INACTIVE';
export type LogicalOperator = 'AND' | 'OR';
export const ENTITY_TYPES = ['context', 'prompt', 'evaluation'] as const;
export type EntityType = (typeof ENTITY_TYPES)[number];

export interface Condition {
  readonly field: string;
  readonly operator: Operator;
  readonly value: string;
  readonly data_type: DataType;
}

export interface ConditionGroup {
  readonly condition_operator: LogicalOperator;
  readonly conditions: readonly Condition[];
}

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
