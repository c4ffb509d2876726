/**
 * Checking rules one by one, with the compiled engine's own predicates
 * (src/engine/predicates.ts) and input readings (src/engine/values.ts), so a
 * verdict here is the engine's verdict. Used where building the indexed
 * engine would cost more than scanning: evaluate at a past point (a few ms
 * per query over thousands of rules, against ~0.5 s to index 1,000 rules
 * with their regexes) and explain. Pure, synchronous and total.
 */
import type { RuleRecord } from '../../projections';
import type { Condition, ConditionGroup } from '../events/rule-events';
import { compileCondition, testPredicate, type InputView, type Predicate } from '../engine/predicates';
import type { Engine, FieldValue, Fields, RuleDefinition } from '../engine/types';
import { inputBoolean, inputNumber, inputText } from '../engine/values';

interface CheckedCondition {
  readonly condition: Condition;
  /** Null: the condition can never hold (an operand or operator the engine rejects). */
  readonly predicate: Predicate | null;
}

interface CheckedGroup {
  readonly operator: unknown;
  readonly conditions: readonly CheckedCondition[];
}

/** A rule with every condition compiled once. */
export interface CheckedRule {
  readonly rule: RuleDefinition;
  readonly groups: readonly CheckedGroup[];
}

/**
 * Caches keyed by object identity: records are replaced, never mutated, and
 * an update that leaves the conditions alone (status, name, links) keeps the
 * same condition_groups array, so its regexes are not compiled again
 * (bench: audit-as-of, where most updates are status and name changes).
 */
const byRecord = new WeakMap<RuleDefinition, CheckedRule>();
const byGroups = new WeakMap<readonly ConditionGroup[], readonly CheckedGroup[]>();

/** The rule with its conditions compiled; the same object for the same record. */
export function checkedRule(rule: RuleDefinition): CheckedRule {
  let checked = byRecord.get(rule);
  if (checked === undefined) {
    checked = { rule, groups: checkedGroups(rule.condition_groups) };
    byRecord.set(rule, checked);
  }
  return checked;
}

function checkedGroups(groups: readonly ConditionGroup[]): readonly CheckedGroup[] {
  if (!Array.isArray(groups)) return [];
  let checked = byGroups.get(groups);
  if (checked === undefined) {
    checked = groups.map(checkedGroup);
    byGroups.set(groups, checked);
  }
  return checked;
}

function checkedGroup(group: ConditionGroup): CheckedGroup {
  const conditions = group !== null && typeof group === 'object' && Array.isArray(group.conditions) ? group.conditions : [];
  return {
    operator: group?.condition_operator,
    conditions: conditions.map((condition) => ({ condition, predicate: predicateFor(condition) })),
  };
}

/**
 * Predicates by condition text: a rewritten rule usually repeats conditions
 * seen before, and compiling a regex is the dearest step of a cold point
 * (bench: audit-as-of, random positions). Predicates are immutable, so
 * sharing is safe; the map is cleared when full to stay bounded.
 */
const predicates = new Map<string, Predicate | null>();
const MAX_PREDICATES = 50_000;

function predicateFor(condition: Condition): Predicate | null {
  if (condition === null || typeof condition !== 'object') return null;
  const key = JSON.stringify([condition.field, condition.operator, condition.value, condition.data_type]);
  let predicate = predicates.get(key);
  if (predicate === undefined) {
    predicate = compileCondition(condition);
    if (predicates.size >= MAX_PREDICATES) predicates.clear();
    predicates.set(key, predicate);
  }
  return predicate;
}

const hasOwn = Object.prototype.hasOwnProperty;

/**
 * The typed views of a request field as the engine stamps them, or undefined
 * when the field counts as absent (missing, or a value JSON cannot carry).
 */
export function inputView(fields: Fields, field: string): InputView | undefined {
  if (!hasOwn.call(fields, field)) return undefined;
  const value: unknown = fields[field];
  const text = inputText(value);
  if (text === null) return undefined;
  const present = value as FieldValue;
  return { text, num: inputNumber(present), bool: inputBoolean(present) };
}

function conditionHolds(c: CheckedCondition, fields: Fields): boolean {
  if (c.predicate === null) return false;
  const view = inputView(fields, c.predicate.field);
  return view !== undefined && testPredicate(c.predicate, view);
}

/** An empty group or rule never matches, and neither does an unknown logical operator. */
function combine<T>(operator: unknown, members: readonly T[], holds: (member: T) => boolean): boolean {
  if (members.length === 0) return false;
  if (operator === 'AND') return members.every(holds);
  if (operator === 'OR') return members.some(holds);
  return false;
}

/** Whether an active rule matches `fields` (an INACTIVE rule never does). */
export function ruleMatches(checked: CheckedRule, fields: Fields): boolean {
  if (checked.rule.status !== 'ACTIVE') return false;
  return combine(checked.rule.group_operator, checked.groups, (g) =>
    combine(g.operator, g.conditions, (c) => conditionHolds(c, fields)));
}

/**
 * An `Engine` over a fixed rule map that scans instead of indexing: answers
 * like the compiled engine, costs nothing to build (compiled conditions are
 * shared per record). Read-only: `upsert` and `remove` are not for it.
 */
export function createScanEngine(rules: ReadonlyMap<string, RuleRecord>): Engine {
  const active: CheckedRule[] = [];
  for (const rule of rules.values()) if (rule.status === 'ACTIVE') active.push(checkedRule(rule));
  return {
    evaluate(fields: Fields): string[] {
      if (fields === null || typeof fields !== 'object') return [];
      const ids: string[] = [];
      for (const checked of active) if (ruleMatches(checked, fields)) ids.push(checked.rule.id);
      // Sorting the answer, not the rule set: answers are small.
      return ids.sort();
    },
    upsert() {
      throw new Error('a scan engine is read-only: build a new one from the rules');
    },
    remove() {
      throw new Error('a scan engine is read-only: build a new one from the rules');
    },
    get size() {
      return active.length;
    },
  };
}
