/**
 * The condition language the engine compiles (contract §2). It lives here,
 * at the bottom, so the engine depends on nothing above it; the rule events
 * carry it and re-export it (src/events/rule-events.ts).
 */

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
