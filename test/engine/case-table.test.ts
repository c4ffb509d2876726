/**
 * The case table (cases.ts) against every evaluator of the rule language:
 * the compiled engine, the audit scan engine, explain's verdict and the
 * json-rules-engine reference (test/support/evaluators.ts). The compiled
 * engine tests arena words with its own switch (code.ts testCondition); the
 * others call the operator table (src/engine/operators.ts); the rows below
 * that cover every row of the table with a holding and a failing input are
 * what proves the two agree.
 */
import t from 'tap';
import { OPERATOR_ROWS } from '../../src/engine';
import { OPERATORS_BY_TYPE } from '../../src/events/rule-events';
import { EVALUATORS } from '../support/evaluators';
import { CASES, CASES_VERSION } from './cases';

t.comment(`case table v${CASES_VERSION}: ${CASES.length} rows`);

for (const [evaluator, evaluate] of EVALUATORS) {
  t.test(evaluator, async (t) => {
    for (const [name, rules, fields, expected] of CASES) t.same(await evaluate(rules, fields), expected, name);
  });
}

t.test('every operator and data type appears in the table', async (t) => {
  const seen = new Set<string>();
  for (const [, rules] of CASES) {
    for (const rule of rules) {
      for (const group of rule.condition_groups) for (const c of group.conditions) seen.add(`${c.data_type}:${c.operator}`);
    }
  }
  for (const [type, operators] of Object.entries(OPERATORS_BY_TYPE)) {
    for (const op of operators) t.ok(seen.has(`${type}:${op}`), `${type} ${op} covered`);
  }
});

t.test('every row of the operator table has a single-condition case that holds and one that fails', async (t) => {
  const answers = new Map<string, Set<boolean>>();
  for (const [, rules, , expected] of CASES) {
    if (rules.length !== 1 || rules[0].condition_groups.length !== 1 || rules[0].condition_groups[0].conditions.length !== 1) continue;
    const c = rules[0].condition_groups[0].conditions[0];
    const key = `${c.data_type}:${c.operator}`;
    answers.set(key, (answers.get(key) ?? new Set()).add(expected.length > 0));
  }
  for (const row of OPERATOR_ROWS) {
    const key = `${row.dataType}:${row.operator}`;
    t.same([...(answers.get(key) ?? [])].sort(), [false, true], `${key}: holds and fails`);
  }
});
