/**
 * Write-time checks of condition groups (contract §2): everything that would make
 * a condition silently never true is reported here instead, with a path into
 * the rule body and a message a rule author can act on. Pure.
 */
import { OPERATORS_BY_TYPE, type Condition, type ConditionGroup } from './conditions';
import { RE2JS } from 're2js';
import type { RuleProblem } from './types';
import { parseDecimal, splitBetween, splitList } from './values';

export interface RuleLimits {
  /** Longest accepted regex pattern, in UTF-16 code units (String length). */
  readonly maxRegexLength: number;
}

export const DEFAULT_RULE_LIMITS: RuleLimits = Object.freeze({ maxRegexLength: 1000 });

/**
 * Every problem in `groups` (already shape-checked: strings where strings are
 * expected, operator and data_type from the vocabularies); empty when valid.
 */
export function checkConditionGroups(
  groups: readonly ConditionGroup[],
  limits: RuleLimits = DEFAULT_RULE_LIMITS,
): RuleProblem[] {
  if (groups.length === 0) {
    return [{ path: 'condition_groups', message: 'a rule needs at least one condition group' }];
  }
  const problems: RuleProblem[] = [];
  groups.forEach((group, g) => {
    const groupPath = `condition_groups[${g}]`;
    if (group.conditions.length === 0) {
      problems.push({ path: `${groupPath}.conditions`, message: 'a condition group needs at least one condition' });
    }
    group.conditions.forEach((condition, c) => {
      problems.push(...checkCondition(condition, `${groupPath}.conditions[${c}]`, limits));
    });
  });
  return problems;
}

function checkCondition(condition: Condition, path: string, limits: RuleLimits): RuleProblem[] {
  const dataType = condition.data_type ?? 'string';
  const allowed = OPERATORS_BY_TYPE[dataType];
  if (!allowed.includes(condition.operator)) {
    return [{
      path: `${path}.operator`,
      message: `operator "${condition.operator}" does not apply to data_type ${dataType}; use one of ${allowed.join(', ')}`,
    }];
  }
  const valuePath = `${path}.value`;
  const problem = (message: string): RuleProblem[] => [{ path: valuePath, message }];
  const { operator, value } = condition;
  if (dataType === 'boolean') {
    return value === 'true' || value === 'false' ? [] : problem(`a boolean value must be "true" or "false", got ${quote(value)}`);
  }
  if (dataType === 'number') return checkNumberValue(operator, value, valuePath);
  if (operator === 'regex') {
    if (value.length > limits.maxRegexLength) {
      return problem(`regex is ${value.length} characters long; the limit is ${limits.maxRegexLength}`);
    }
    try {
      RE2JS.compile(value);
    } catch (error) {
      return problem(`invalid regex ${quote(value)}: ${regexReason(error)}`);
    }
  }
  return [];
}

function checkNumberValue(operator: string, value: string, path: string): RuleProblem[] {
  if (operator === 'in' || operator === 'not_in') {
    const problems: RuleProblem[] = [];
    splitList(value).forEach((item, i) => {
      if (Number.isNaN(parseDecimal(item))) {
        problems.push({ path, message: `list item ${i + 1} (${quote(item)}) is not a number${NUMBER_HINT}` });
      }
    });
    return problems;
  }
  if (operator === 'between') {
    const bounds = splitBetween(value);
    if (bounds === null) return [{ path, message: `between needs "lo,hi" (two numbers, one comma), got ${quote(value)}` }];
    const [lo, hi] = bounds.map(parseDecimal);
    const problems: RuleProblem[] = [];
    if (Number.isNaN(lo)) problems.push({ path, message: `lower bound ${quote(bounds[0])} is not a number${NUMBER_HINT}` });
    if (Number.isNaN(hi)) problems.push({ path, message: `upper bound ${quote(bounds[1])} is not a number${NUMBER_HINT}` });
    if (problems.length === 0 && lo > hi) problems.push({ path, message: `lower bound ${lo} is greater than upper bound ${hi}` });
    return problems;
  }
  return Number.isNaN(parseDecimal(value)) ? [{ path, message: `${quote(value)} is not a number${NUMBER_HINT}` }] : [];
}

const NUMBER_HINT = ' (write a finite decimal like 42, -0.5 or 4.2e1)';

function regexReason(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/^error parsing regexp: /, '');
}

function quote(text: string): string {
  return JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}…` : text);
}
