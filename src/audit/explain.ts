/**
 * Explain: why a rule did or did not match a request, down to every
 * condition, with the input value the condition saw. Built on rule-check.ts,
 * so `matched` is the compiled engine's verdict (tested on random rules and
 * inputs); each condition's result and reason come from the engine's
 * operator table (src/engine/operators.ts `explainTest`). Pure.
 *
 * Which rules (least privilege: an explanation shows a rule's conditions):
 * the rules the request matched and the rules the caller names (`rule_ids`,
 * matched or not, ACTIVE or not), never others; with `field`, only those of
 * them having a condition on that field. An answer holds at most
 * EXPLAIN_ANSWER_BYTES of explanations, named rules first, then matched ones
 * in id order; the rules left out are listed by id (`omitted_rule_ids`),
 * never dropped silently.
 */
import type { RuleRecord } from '../../projections';
import { isPlainObject } from '../domain/input';
import { compileSplit, explainSplit, explainTest, type Condition, type ConditionReason, type Fields, type Predicate, type SplitExplanation } from '../engine';
import { ruleKeyOf } from '../domain/splits';
import { badRequest } from '../base/errors';
import { toJsonPosition } from '../store/port';
import { checkedRule, inputView, readInputs, ruleMatches, type CheckedRule } from './rule-check';

export type { ConditionReason };

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
  /** Only for a rule with splits: each split's bucketing value, its hash and bucket, the ranges, and the variant it gives. */
  readonly splits?: SplitExplanation[];
}

/** Explanations in one answer, at most (JSON bytes); a 1 KB request cannot ask for more. */
export const EXPLAIN_ANSWER_BYTES = 1024 * 1024;
/** Rules one request may name in `rule_ids`. */
export const MAX_NAMED_RULES = 100;

/** What the caller asked to be explained, besides the evaluate body. */
export interface ExplainOptions {
  /** Only rules with a condition on this field. */
  readonly field: string | undefined;
  /** Rules to explain whether they matched or not. */
  readonly ruleIds: readonly string[];
}

/** Reads `field` and `rule_ids` of an explain body (absent: none); null is not absent. */
export function readExplainOptions(body: unknown): ExplainOptions {
  const object = isPlainObject(body) ? body : {};
  const field = object.field;
  if (field !== undefined && typeof field !== 'string') throw badRequest('field must be a string (a field name)');
  const ruleIds = object.rule_ids === undefined ? [] : object.rule_ids;
  if (!Array.isArray(ruleIds)) throw badRequest('rule_ids must be an array of rule ids');
  if (ruleIds.length > MAX_NAMED_RULES) throw badRequest(`rule_ids has ${ruleIds.length} items; the limit is ${MAX_NAMED_RULES}`);
  ruleIds.forEach((id, i) => {
    if (typeof id !== 'string') throw badRequest(`rule_ids[${i}] must be a string (a rule id)`);
  });
  return { field, ruleIds: [...new Set(ruleIds as string[])] };
}

/** 400 unless every named rule is in `rules` (the live rules, or the rules as of the point asked about). */
export function checkNamedRules(options: ExplainOptions, rules: ReadonlyMap<string, RuleRecord>): void {
  options.ruleIds.forEach((id, i) => {
    if (!rules.has(id)) throw badRequest(`rule_ids[${i}] names no rule: ${JSON.stringify(id.slice(0, 64))}`);
  });
}

export interface Explanations {
  /** Sorted by rule id. */
  readonly rules: RuleExplanation[];
  /** Rules of interest left out to keep the answer within EXPLAIN_ANSWER_BYTES, sorted; name them to have them explained. */
  readonly omitted_rule_ids: string[];
}

/**
 * Explanations for the rules `matched` (evaluate's answer, sorted) and the
 * rules named in `options` (see the header). Named ids not in `rules` are
 * skipped (checkNamedRules refuses them first).
 */
export function explainRules(
  rules: Pick<ReadonlyMap<string, RuleRecord>, 'get'>, fields: Fields, atMs: number, matched: readonly string[], options: ExplainOptions,
  budget = EXPLAIN_ANSWER_BYTES,
): Explanations {
  const explained: RuleExplanation[] = [];
  const omitted: string[] = [];
  const inputs = readInputs(fields);
  let used = 0;
  for (const id of new Set([...[...options.ruleIds].sort(), ...matched])) {
    const rule = rules.get(id);
    if (rule === undefined) continue;
    const checked = checkedRule(rule);
    if (options.field !== undefined && !reads(checked, options.field)) continue;
    const explanation = explainRule(checked, rule, fields, atMs, ruleMatches(checked, inputs));
    const size = jsonBytesWithin(explanation, budget - used);
    if (size === undefined) {
      omitted.push(id);
      continue;
    }
    used += size;
    explained.push(explanation);
  }
  return { rules: explained.sort((a, b) => compareIds(a.rule_id, b.rule_id)), omitted_rule_ids: omitted.sort(compareIds) };
}

/**
 * The bytes the explanation takes in the answer (an upper bound: a separator
 * counted per item), or undefined once it passes `limit`. Measured condition
 * by condition, so a rule of thousands of conditions that each echo a 64 KiB
 * input is never serialized whole to find out it does not fit.
 */
function jsonBytesWithin(explanation: RuleExplanation, limit: number): number | undefined {
  let size = Buffer.byteLength(JSON.stringify({ ...explanation, groups: [] })) + 1;
  for (const group of explanation.groups) {
    size += Buffer.byteLength(JSON.stringify({ ...group, conditions: [] })) + 1;
    for (const condition of group.conditions) {
      if (size > limit) return undefined;
      size += Buffer.byteLength(JSON.stringify(condition)) + 1;
    }
  }
  return size > limit ? undefined : size;
}

function compareIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function reads(checked: CheckedRule, field: string): boolean {
  return checked.groups.some((g) => g.conditions.some((c) => c.condition?.field === field));
}

function explainRule(checked: CheckedRule, rule: RuleRecord, fields: Fields, atMs: number, matched: boolean): RuleExplanation {
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
    ...(rule.splits === undefined ? {} : {
      splits: rule.splits.map((split) => explainSplit(split, compileSplit(split, ruleKeyOf(rule)), fields[split.bucket_by], atMs)),
    }),
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
  // The operator table's own explanation (src/engine/operators.ts), over the scan engine's test.
  return { ...base, ...explainTest(predicate, view) };
}

function whyNot(rule: RuleRecord, groups: readonly GroupExplanation[]): string {
  if (rule.status !== 'ACTIVE') return `the rule is ${rule.status}`;
  if (groups.length === 0) return 'the rule has no condition groups';
  const failed = groups.filter((g) => !g.result).map((g) => g.index);
  return rule.group_operator === 'AND'
    ? `condition group ${failed.join(', ')} did not hold (group_operator AND needs every group)`
    : 'no condition group held (group_operator OR needs one)';
}
