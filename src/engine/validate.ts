/**
 * Write-time checks of condition groups (contract §2): everything that would make
 * a condition silently never true is reported here instead, with a path into
 * the rule body and a message a rule author can act on. Operands are read by
 * the operator table (operators.ts), the same reading the engine compiles, so
 * a value accepted here means the same thing at evaluate time. Pure.
 */
import { OPERATORS_BY_TYPE, type Condition, type ConditionGroup } from './conditions';
import { operatorRow } from './operators';
import type { RuleProblem } from './types';

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
  const row = operatorRow(dataType, condition.operator);
  if (row === undefined) {
    const allowed = OPERATORS_BY_TYPE[dataType];
    return [{
      path: `${path}.operator`,
      message: `operator "${condition.operator}" does not apply to data_type ${dataType}; use one of ${allowed.join(', ')}`,
    }];
  }
  const valuePath = `${path}.value`;
  const { value } = condition;
  // A write-time limit, not a semantic: checked before the pattern is compiled.
  if (row.operator === 'regex' && value.length > limits.maxRegexLength) {
    return [{ path: valuePath, message: `regex is ${value.length} characters long; the limit is ${limits.maxRegexLength}` }];
  }
  return (row.parse(value).problems ?? []).map((message) => ({ path: valuePath, message }));
}
