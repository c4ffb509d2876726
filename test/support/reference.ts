/**
 * The reference evaluator: each rule translated, condition for condition, into
 * a json-rules-engine rule, with our semantics (contract §2) as custom operators.
 * Slow but plainly readable; it is the oracle for the engine's tests, the
 * baseline for bench/, and the shape a per-condition "explain" will reuse.
 *
 * Written independently of the compiled engine on purpose (operands are
 * parsed at each call, no shared compile step), so the two can disagree.
 */
import { Engine as RulesEngine, type NestedCondition, type RuleProperties, type TopLevelCondition } from 'json-rules-engine';
import { RE2JS } from 're2js';
import type { Condition, ConditionGroup, Fields, RuleDefinition } from '../../src/engine';

export interface ReferenceEngine {
  /** Ids of the active rules matching `fields`, sorted ascending. */
  evaluate(fields: Fields): Promise<string[]>;
}

type Input = string | number | boolean;
type Check = (input: Input, ruleValue: string) => boolean;

/** Fact name no request can supply (request fields are prefixed), for conditions that can never hold. */
const NEVER = 'rv:never';

/** json-rules-engine rejects an empty fact id; a prefix keeps every field name, "" included, usable. */
function factName(field: string): string {
  return `field:${field}`;
}

/** Same grammar as values.ts, restated: digits, optional fraction and exponent, nothing else. */
function asNumber(text: string): number | undefined {
  if (!/^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/.test(text)) return undefined;
  const n = Number(text);
  return Number.isFinite(n) ? n : undefined;
}

function inputAsNumber(input: Input): number | undefined {
  if (typeof input === 'number') return Number.isFinite(input) ? input : undefined;
  return typeof input === 'string' ? asNumber(input) : undefined;
}

function inputAsText(input: Input): string {
  return typeof input === 'string' ? input : JSON.stringify(input);
}

function inputAsBoolean(input: Input): boolean | undefined {
  if (input === true || input === 'true') return true;
  if (input === false || input === 'false') return false;
  return undefined;
}

function listItems(ruleValue: string): string[] {
  return ruleValue.split(',').map((s) => s.trim());
}

function numberList(ruleValue: string): number[] | undefined {
  const items = listItems(ruleValue).map(asNumber);
  return items.every((n) => n !== undefined) ? (items as number[]) : undefined;
}

/** A comparison on numbers: both the input and the rule's operand must be numbers. */
function numeric(compare: (input: number, operand: number) => boolean): Check {
  return (input, ruleValue) => {
    const n = inputAsNumber(input);
    const operand = asNumber(ruleValue);
    return n !== undefined && operand !== undefined && compare(n, operand);
  };
}

/** Compiled once per pattern, as any fair json-rules-engine setup would; null when invalid. */
const patterns = new Map<string, RE2JS | null>();

function regexTest(input: Input, pattern: string): boolean {
  let re = patterns.get(pattern);
  if (re === undefined) {
    try {
      re = RE2JS.compile(pattern);
    } catch {
      re = null;
    }
    patterns.set(pattern, re);
  }
  return re !== null && re.test(inputAsText(input));
}

/** Our operators, by `<data_type>:<operator>`; each receives a present, valid-JSON input. */
const CHECKS: Record<string, Check> = {
  'string:equals': (input, v) => inputAsText(input) === v,
  'string:not_equals': (input, v) => inputAsText(input) !== v,
  'string:contains': (input, v) => inputAsText(input).includes(v),
  'string:not_contains': (input, v) => !inputAsText(input).includes(v),
  'string:starts_with': (input, v) => inputAsText(input).startsWith(v),
  'string:ends_with': (input, v) => inputAsText(input).endsWith(v),
  'string:regex': regexTest,
  'string:in': (input, v) => listItems(v).includes(inputAsText(input)),
  'string:not_in': (input, v) => !listItems(v).includes(inputAsText(input)),
  'number:equals': numeric((a, b) => a === b),
  'number:not_equals': numeric((a, b) => a !== b),
  'number:gt': numeric((a, b) => a > b),
  'number:gte': numeric((a, b) => a >= b),
  'number:lt': numeric((a, b) => a < b),
  'number:lte': numeric((a, b) => a <= b),
  'number:between': (input, v) => {
    const n = inputAsNumber(input);
    const bounds = v.split(',');
    if (n === undefined || bounds.length !== 2) return false;
    const lo = asNumber(bounds[0].trim());
    const hi = asNumber(bounds[1].trim());
    return lo !== undefined && hi !== undefined && lo <= n && n <= hi;
  },
  'number:in': (input, v) => {
    const n = inputAsNumber(input);
    const list = numberList(v);
    return n !== undefined && list !== undefined && list.includes(n);
  },
  'number:not_in': (input, v) => {
    const n = inputAsNumber(input);
    const list = numberList(v);
    return n !== undefined && list !== undefined && !list.includes(n);
  },
  'boolean:equals': (input, v) => {
    const b = inputAsBoolean(input);
    return b !== undefined && (v === 'true' || v === 'false') && b === (v === 'true');
  },
  'boolean:not_equals': (input, v) => {
    const b = inputAsBoolean(input);
    return b !== undefined && (v === 'true' || v === 'false') && b !== (v === 'true');
  },
};

/** An absent field (undefined fact) or a value JSON cannot carry makes every condition false. */
function isPresent(input: unknown): input is Input {
  if (typeof input === 'number') return Number.isFinite(input);
  return typeof input === 'string' || typeof input === 'boolean';
}

function translateCondition(condition: Condition): NestedCondition {
  const operator = `${condition.data_type ?? 'string'}:${condition.operator}`;
  if (!Object.hasOwn(CHECKS, operator) || typeof condition.field !== 'string' || typeof condition.value !== 'string') {
    return { fact: NEVER, operator: NEVER, value: '' };
  }
  return { fact: factName(condition.field), operator, value: condition.value };
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
  for (const [name, check] of Object.entries(CHECKS)) {
    engine.addOperator<unknown, string>(name, (input, ruleValue) => isPresent(input) && check(input, ruleValue));
  }
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
