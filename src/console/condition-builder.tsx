/**
 * The condition builder: groups joined by AND/OR, conditions whose operators
 * follow their data type, value formats explained inline, and problems shown
 * as typed, found by the API's own check (src/engine/validate.ts, loaded on
 * first use: it brings re2js, so a regex is judged exactly as the API will).
 */
import { useEffect, useState } from 'preact/hooks';
import { OPERATORS_BY_TYPE, type DataType, type Operator } from '../engine/conditions';
import type { Condition, ConditionGroup } from './api';
import { Field } from './ui';

export type Problems = ReadonlyMap<string, string>;

const VALUE_HINT: Partial<Record<Operator, string>> = {
  in: 'A comma-separated list; items are trimmed: "gold, silver"',
  not_in: 'A comma-separated list; items are trimmed: "gold, silver"',
  between: 'Two numbers "low,high", both included: "18,65"',
  regex: 'An RE2 pattern (linear time; no backreferences or lookaround), checked as you type',
  contains: 'Case-sensitive substring',
  starts_with: 'Case-sensitive prefix',
  ends_with: 'Case-sensitive suffix',
};

function hintFor(condition: Condition): string {
  if (condition.data_type === 'boolean') return '"true" or "false"';
  if (condition.data_type === 'number') return VALUE_HINT[condition.operator] ?? 'A number: "42", "4.2e1"';
  return VALUE_HINT[condition.operator] ?? 'Compared case-sensitively; a number or boolean input is compared by its JSON text';
}

/** Problems of the groups keyed by the API's path (`condition_groups[0].conditions[1].value`). */
export function useProblems(groups: readonly ConditionGroup[]): Problems {
  const [problems, setProblems] = useState<Problems>(new Map());
  useEffect(() => {
    let current = true;
    void import('../engine/validate').then(({ checkConditionGroups }) => {
      if (!current) return;
      const found = checkConditionGroups(groups as never);
      setProblems(new Map(found.map((p) => [p.path, p.message])));
    });
    return () => {
      current = false;
    };
  }, [groups]);
  return problems;
}

export const emptyCondition = (): Condition => ({ field: '', operator: 'equals', value: '', data_type: 'string' });

export function ConditionBuilder({ groups, groupOperator, onChange, onGroupOperator, problems }: {
  groups: readonly ConditionGroup[];
  groupOperator: 'AND' | 'OR';
  onChange: (groups: ConditionGroup[]) => void;
  onGroupOperator: (op: 'AND' | 'OR') => void;
  problems: Problems;
}) {
  const setGroup = (g: number, group: ConditionGroup) => onChange(groups.map((x, i) => (i === g ? group : x)));
  const setCondition = (g: number, c: number, change: Partial<Condition>) => {
    const group = groups[g]!;
    setGroup(g, { ...group, conditions: group.conditions.map((x, i) => (i === c ? fixOperator({ ...x, ...change }) : x)) });
  };
  return (
    <fieldset class="builder">
      <legend>Conditions</legend>
      <Field label="Groups are joined by" hint="AND: every group must hold. OR: one group is enough.">{(id, hint) => (
        <select id={id} aria-describedby={hint} value={groupOperator} onChange={(e) => onGroupOperator(e.currentTarget.value as 'AND' | 'OR')}>
          <option value="AND">AND</option><option value="OR">OR</option>
        </select>
      )}</Field>
      {groups.map((group, g) => (
        <fieldset class="group" key={g} aria-label={`Group ${g + 1}`}>
          <legend>Group {g + 1}</legend>
          <Field label={`Group ${g + 1} joins its conditions by`}>{(id) => (
            <select id={id} value={group.condition_operator} onChange={(e) => setGroup(g, { ...group, condition_operator: e.currentTarget.value as 'AND' | 'OR' })}>
              <option value="AND">AND</option><option value="OR">OR</option>
            </select>
          )}</Field>
          {group.conditions.map((condition, c) => {
            const path = `condition_groups[${g}].conditions[${c}]`;
            const label = `Group ${g + 1} condition ${c + 1}`;
            const problem = problems.get(`${path}.value`) ?? problems.get(`${path}.operator`);
            return (
              <div class="condition row" key={c} role="group" aria-label={label}>
                <Field label={`${label} field`}>{(id) => (
                  <input id={id} value={condition.field} required onInput={(e) => setCondition(g, c, { field: e.currentTarget.value })} />
                )}</Field>
                <Field label={`${label} data type`}>{(id) => (
                  <select id={id} value={condition.data_type} onChange={(e) => setCondition(g, c, { data_type: e.currentTarget.value as DataType })}>
                    <option value="string">string</option><option value="number">number</option><option value="boolean">boolean</option>
                  </select>
                )}</Field>
                <Field label={`${label} operator`}>{(id) => (
                  <select id={id} value={condition.operator} onChange={(e) => setCondition(g, c, { operator: e.currentTarget.value as Operator })}>
                    {OPERATORS_BY_TYPE[condition.data_type].map((op) => <option key={op} value={op}>{op}</option>)}
                  </select>
                )}</Field>
                <Field label={`${label} value`} hint={hintFor(condition)}>{(id, hint) => (
                  <input id={id} value={condition.value} aria-describedby={hint} aria-invalid={problem !== undefined}
                    onInput={(e) => setCondition(g, c, { value: e.currentTarget.value })} />
                )}</Field>
                <button type="button" class="secondary" aria-label={`Remove ${label}`}
                  onClick={() => setGroup(g, { ...group, conditions: group.conditions.filter((_, i) => i !== c) })}>Remove</button>
                {problem !== undefined && <p class="problem" role="alert">{problem}</p>}
              </div>
            );
          })}
          {problems.get(`condition_groups[${g}].conditions`) !== undefined && <p class="problem">{problems.get(`condition_groups[${g}].conditions`)}</p>}
          <div class="actions">
            <button type="button" class="secondary" onClick={() => setGroup(g, { ...group, conditions: [...group.conditions, emptyCondition()] })}>Add condition to group {g + 1}</button>
            <button type="button" class="secondary" onClick={() => onChange(groups.filter((_, i) => i !== g))}>Remove group {g + 1}</button>
          </div>
        </fieldset>
      ))}
      {problems.get('condition_groups') !== undefined && <p class="problem">{problems.get('condition_groups')}</p>}
      <button type="button" class="secondary" onClick={() => onChange([...groups, { condition_operator: 'AND', conditions: [emptyCondition()] }])}>Add group</button>
    </fieldset>
  );
}

/** A data type change keeps the operator only when the new type admits it. */
function fixOperator(condition: Condition): Condition {
  return OPERATORS_BY_TYPE[condition.data_type].includes(condition.operator) ? condition : { ...condition, operator: 'equals' };
}
