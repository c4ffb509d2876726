/**
 * Explain: why each rule of interest did or did not match a request, down to
 * every condition, with the input value the condition saw. Built on
 * rule-check.ts, so `matched` is the compiled engine's verdict (tested on
 * random rules and inputs). Pure.
 *
 * Which rules: with `field`, every rule (ACTIVE or not) having a condition on
 * that field; without it, every rule that matches plus every rule having a
 * condition on one of the request's fields. Rules that neither match nor read
 * any given field are left out: they failed only on absent fields.
 */
import type { RuleRecord } from '../../projections';
import { Kind, testPredicate, type Condition, type Fields, type Predicate } from '../engine';
import { toJsonPosition } from '../store/port';
import { checkedRule, inputView, readInputs, ruleMatches, type CheckedRule } from './rule-check';

export type ConditionReason = 'holds' | 'field absent' | 'not a number' | 'not a boolean' | 'comparison false' | 'invalid condition';

export interface ConditionExplanation {
  readonly index: number;
  readonly field: string;
  readonly operator: string;
  readonly value: string;
  readonly data_type: string;
  /** The request's value for the field; null when absent. */
  readonly input: string | number | boolean | null;
  readonly result: boolean;
  readonly reason: ConditionReason;
}

export interface GroupExplanation {
  readonly index: number;
  readonly condition_operator: string;
  readonly result: boolean;
  readonly conditions: ConditionExplanation[];
}

export interface RuleExplanation {
  readonly rule_id: string;
  readonly name: string;
  readonly status: string;
  /** The rule's stream revision and log position as of the answer: which version was judged. */
  readonly revision: string;
  readonly position: string;
  readonly matched: boolean;
  /** Why it did not match, in one line; null when it matched. */
  readonly reason: string | null;
  readonly group_operator: string;
  readonly groups: GroupExplanation[];
}

const NUMBER_KINDS: ReadonlySet<number> = new Set([
  Kind.NUM_EQ, Kind.NUM_IN, Kind.NUM_NE, Kind.NUM_NOT_IN, Kind.NUM_GT, Kind.NUM_GTE, Kind.NUM_LT, Kind.NUM_LTE, Kind.BETWEEN,
]);

/** Explanations for the rules of interest (see the header), sorted by rule id. */
export function explainRules(rules: ReadonlyMap<string, RuleRecord>, fields: Fields, field: string | undefined): RuleExplanation[] {
  const out: RuleExplanation[] = [];
  const inputs = readInputs(fields);
  for (const rule of rules.values()) {
    const checked = checkedRule(rule);
    const matched = ruleMatches(checked, inputs);
    if (isOfInterest(checked, fields, field, matched)) out.push(explainRule(checked, rule, fields, matched));
  }
  return out.sort((a, b) => (a.rule_id < b.rule_id ? -1 : a.rule_id > b.rule_id ? 1 : 0));
}

function isOfInterest(checked: CheckedRule, fields: Fields, field: string | undefined, matched: boolean): boolean {
  const reads = (name: string) => checked.groups.some((g) => g.conditions.some((c) => c.condition?.field === name));
  if (field !== undefined) return reads(field);
  return matched || Object.keys(fields).some(reads);
}

function explainRule(checked: CheckedRule, rule: RuleRecord, fields: Fields, matched: boolean): RuleExplanation {
  const groups = checked.groups.map((group, g) => {
    const conditions = group.conditions.map((c, i) => explainCondition(c.condition, c.predicate, fields, i));
    const results = conditions.map((c) => c.result);
    const result = results.length > 0 && (group.operator === 'AND' ? results.every(Boolean) : group.operator === 'OR' && results.some(Boolean));
    return { index: g, condition_operator: String(group.operator), result, conditions };
  });
  return {
    rule_id: rule.id,
    name: rule.name,
    status: rule.status,
    revision: toJsonPosition(rule.revision),
    position: toJsonPosition(rule.position),
    matched,
    reason: matched ? null : whyNot(rule, groups),
    group_operator: rule.group_operator,
    groups,
  };
}

function explainCondition(condition: Condition, predicate: Predicate | null, fields: Fields, index: number): ConditionExplanation {
  const view = inputView(fields, condition.field);
  const base = {
    index,
    field: condition.field,
    operator: condition.operator,
    value: condition.value,
    data_type: condition.data_type ?? 'string',
    input: view === undefined ? null : fields[condition.field]!,
  };
  if (predicate === null) return { ...base, result: false, reason: 'invalid condition' };
  if (view === undefined) return { ...base, result: false, reason: 'field absent' };
  if (NUMBER_KINDS.has(predicate.kind) && Number.isNaN(view.num)) return { ...base, result: false, reason: 'not a number' };
  if (predicate.kind === Kind.BOOL_EQ && view.bool === -1) return { ...base, result: false, reason: 'not a boolean' };
  // Same call the engine makes for a present value.
  const result = testPredicate(predicate, view);
  return { ...base, result, reason: result ? 'holds' : 'comparison false' };
}

function whyNot(rule: RuleRecord, groups: readonly GroupExplanation[]): string {
  if (rule.status !== 'ACTIVE') return `the rule is ${rule.status}`;
  if (groups.length === 0) return 'the rule has no condition groups';
  const failed = groups.filter((g) => !g.result).map((g) => g.index);
  return rule.group_operator === 'AND'
    ? `condition group ${failed.join(', ')} did not hold (group_operator AND needs every group)`
    : 'no condition group held (group_operator OR needs one)';
}
