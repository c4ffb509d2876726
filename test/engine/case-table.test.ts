import t from 'tap';
import { createEngine } from '../../src/engine';
import { createReferenceEngine } from '../support/reference';
import { OPERATORS_BY_TYPE } from '../../src/events/rule-events';
import { CASES, CASES_VERSION } from './cases';

t.comment(`case table v${CASES_VERSION}: ${CASES.length} rows`);

t.test('compiled engine', async (t) => {
  for (const [name, rules, fields, expected] of CASES) {
    const engine = createEngine();
    for (const rule of rules) engine.upsert(rule);
    t.same(engine.evaluate(fields), expected, name);
  }
});

t.test('json-rules-engine reference', async (t) => {
  for (const [name, rules, fields, expected] of CASES) {
    t.same(await createReferenceEngine(rules).evaluate(fields), expected, name);
  }
});

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
