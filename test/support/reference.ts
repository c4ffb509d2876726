/**
 * The reference evaluator: each rule translated, condition for condition, into
 * a json-rules-engine rule, with our semantics (contract §2) as custom
 * operators generated from the engine's operator table
 * (src/engine/operators.ts), one per row. Slow but plainly readable; it is the
 * oracle for the compiled engine's indexing (differential tests) and the
 * baseline for bench/.
 *
 * What it shares with the compiled engine is the table, not the index: group
 * and rule logic is json-rules-engine's, and every rule is checked on every
 * request, so the two disagree when the index, the arena or the compiled
 * engine's own condition test (code.ts) does. The table itself is pinned by
 * the hand-written case table (test/engine/cases.ts), run against all
 * evaluators.
 */
import { Engine as RulesEngine, type NestedCondition, type RuleProperties, type TopLevelCondition } from 'json-rules-engine';
import {
  compileCondition, OPERATOR_ROWS, operatorRow, readValue, testPredicate,
  type Condition, type ConditionGroup, type Fields, type OperatorRow, type Predicate, type RuleDefinition,
} from '../../src/engine';

export interface ReferenceEngine {
  /** Ids of the active rules matching `fields`, sorted ascending. */
  evaluate(fields: Fields): Promise<string[]>;
}

/** Fact name no request can supply (request fields are prefixed), for conditions that can never hold. */
const NEVER = 'rv:never';

/** json-rules-engine rejects an empty fact id; a prefix keeps every field name, "" included, usable. */
function factName(field: string): string {
  return `field:${field}`;
}

/** A row's json-rules-engine operator name: `<data_type>:<operator>`. */
function operatorName(row: OperatorRow): string {
  return `${row.dataType}:${row.operator}`;
}

/**
 * Operands read by the operator table, once per row and rule value, as any
 * fair json-rules-engine setup would (null: the value is not one, never true).
 */
const operands = new Map<string, Predicate | null>();

function operandOf(row: OperatorRow, ruleValue: string): Predicate | null {
  const key = `${operatorName(row)}\u0001${ruleValue}`;
  let p = operands.get(key);
  if (p === undefined) {
    p = compileCondition({ field: '', operator: row.operator, value: ruleValue, data_type: row.dataType });
    operands.set(key, p);
  }
  return p;
}

/** One json-rules-engine operator per row of the table; an absent field (undefined fact) or a value JSON cannot carry is false. */
function check(row: OperatorRow): (input: unknown, ruleValue: string) => boolean {
  return (input, ruleValue) => {
    const view = readValue(input);
    if (view === undefined || typeof ruleValue !== 'string') return false;
    const p = operandOf(row, ruleValue);
    return p !== null && testPredicate(p, view);
  };
}

function translateCondition(condition: Condition): NestedCondition {
  const row = operatorRow(condition.data_type, condition.operator);
  if (row === undefined || typeof condition.field !== 'string' || typeof condition.value !== 'string') {
    return { fact: NEVER, operator: NEVER, value: '' };
  }
  return { fact: factName(condition.field), operator: operatorName(row), value: condition.value };
}

/** `{all: []}` is true in json-rules-engine; an empty group or rule must never match. */
function combine(operator: unknown, members: NestedCondition[]): NestedCondition {
  if (members.length === 0 || (operator !== 'AND' && operator !== 'OR')) return { fact: NEVER, operator: NEVER, value: '' };
  return operator === 'AND' ? { all: members } : { any: members };
}

function translateGroup(group: ConditionGroup): NestedCondition {
  const conditions = Array.isArray(group?.conditions) ? group.conditions : [];
  return combine(group?.condition_operator, conditions.map(translateCondition));
}

/** One rule as json-rules-engine sees it; its event carries our rule id. */
export function translateRule(rule: RuleDefinition): RuleProperties {
  const groups = Array.isArray(rule.condition_groups) ? rule.condition_groups : [];
  const top = combine(rule.group_operator, groups.map(translateGroup));
  const conditions: TopLevelCondition = 'all' in top || 'any' in top ? (top as TopLevelCondition) : { all: [top] };
  return { conditions, event: { type: 'match', params: { id: rule.id } } };
}

/** A json-rules-engine instance over the ACTIVE rules in `rules`. */
export function createReferenceEngine(rules: Iterable<RuleDefinition>): ReferenceEngine {
  const engine = new RulesEngine([], { allowUndefinedFacts: true });
  engine.addOperator(NEVER, () => false);
  for (const row of OPERATOR_ROWS) engine.addOperator<unknown, string>(operatorName(row), check(row));
  for (const rule of rules) {
    if (rule.status === 'ACTIVE') engine.addRule(translateRule(rule));
  }
  return {
    async evaluate(fields: Fields): Promise<string[]> {
      // Own members only, so an inherited name never reads as a fact.
      const facts: Record<string, unknown> = {};
      for (const [name, value] of Object.entries(fields)) facts[factName(name)] = value;
      const { events } = await engine.run(facts);
      const ids = new Set(events.map((e) => String(e.params?.id)));
      return [...ids].sort();
    },
  };
}
