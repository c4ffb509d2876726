import t from 'tap';
import { checkConditionGroups } from '../../src/engine';
import type { Condition, ConditionGroup, DataType, Operator } from '../../src/events/rule-events';

function c(operator: Operator, value: string, data_type: DataType = 'string'): Condition {
  return { field: 'f', operator, value, data_type };
}

function groups(...conditions: Condition[]): ConditionGroup[] {
  return [{ condition_operator: 'AND', conditions }];
}

const VALUE = 'condition_groups[0].conditions[0].value';

t.test('a valid rule has no problems', async (t) => {
  t.same(checkConditionGroups([
    { condition_operator: 'AND', conditions: [c('equals', ''), c('in', 'a, b'), c('regex', '^a+$')] },
    { condition_operator: 'OR', conditions: [c('between', ' 1 , 2 ', 'number'), c('not_in', '1,2.5,-3e2', 'number'), c('equals', 'false', 'boolean')] },
  ]), []);
});

t.test('no groups', async (t) => {
  const [p] = checkConditionGroups([]);
  t.equal(p.path, 'condition_groups');
  t.match(p.message, /at least one condition group/);
});

t.test('a group with no conditions, at its own path', async (t) => {
  const problems = checkConditionGroups([...groups(c('equals', 'x')), { condition_operator: 'OR', conditions: [] }]);
  t.same(problems.map((p) => p.path), ['condition_groups[1].conditions']);
  t.match(problems[0].message, /at least one condition/);
});

t.test('operator not allowed for the data type names the allowed ones', async (t) => {
  const [p] = checkConditionGroups(groups(c('contains', '1', 'number')));
  t.equal(p.path, 'condition_groups[0].conditions[0].operator');
  t.match(p.message, /contains.*number/);
  t.match(p.message, /equals, not_equals, gt, gte, lt, lte, between, in, not_in/);
  const [b] = checkConditionGroups(groups(c('gt', 'true', 'boolean')));
  t.match(b.message, /use one of equals, not_equals$/);
});

t.test('number values', async (t) => {
  for (const bad of ['', ' ', '0x10', 'Infinity', '1e400', '42abc', 'NaN', '1_000', '1,5']) {
    const [p] = checkConditionGroups(groups(c('gt', bad, 'number')));
    t.equal(p?.path, VALUE, `${JSON.stringify(bad)} rejected`);
    t.match(p?.message, /is not a number/);
  }
  for (const good of ['42', '4.2e1', '-0.5', '+1', '.5', '5.', '1E-3']) {
    t.same(checkConditionGroups(groups(c('lte', good, 'number'))), [], `${good} accepted`);
  }
});

t.test('number lists report each bad item', async (t) => {
  const problems = checkConditionGroups(groups(c('in', '1, x, 3, ', 'number')));
  t.equal(problems.length, 2);
  t.match(problems[0].message, /item 2 \("x"\)/);
  t.match(problems[1].message, /item 4 \(""\)/);
  t.ok(problems.every((p) => p.path === VALUE));
});

t.test('between', async (t) => {
  t.match(checkConditionGroups(groups(c('between', '1', 'number')))[0].message, /"lo,hi"/);
  t.match(checkConditionGroups(groups(c('between', '1,2,3', 'number')))[0].message, /"lo,hi"/);
  const both = checkConditionGroups(groups(c('between', 'a,b', 'number')));
  t.same(both.map((p) => p.message.split(' ')[0]), ['lower', 'upper']);
  t.match(checkConditionGroups(groups(c('between', '5,1', 'number')))[0].message, /lower bound 5 is greater than upper bound 1/);
  t.same(checkConditionGroups(groups(c('between', '5,5', 'number'))), []);
});

t.test('boolean values', async (t) => {
  for (const bad of ['TRUE', '1', '', 'yes']) {
    const [p] = checkConditionGroups(groups(c('equals', bad, 'boolean')));
    t.equal(p?.path, VALUE);
    t.match(p?.message, /"true" or "false"/);
  }
});

t.test('regex: invalid with re2js reason, and the length limit', async (t) => {
  const [p] = checkConditionGroups(groups(c('regex', '(a')));
  t.equal(p.path, VALUE);
  t.match(p.message, /invalid regex "\(a": missing closing \)/);
  t.match(checkConditionGroups(groups(c('regex', '(?<=a)b')))[0].message, /invalid regex/);
  t.match(checkConditionGroups(groups(c('regex', 'a'.repeat(1001))))[0].message, /1001 characters long; the limit is 1000/);
  t.same(checkConditionGroups(groups(c('regex', 'a'.repeat(1000)))), []);
  t.match(checkConditionGroups(groups(c('regex', 'abcdef')), { maxRegexLength: 5 })[0].message, /limit is 5/);
});

t.test('paths point at the right group and condition; every problem reported', async (t) => {
  const problems = checkConditionGroups([
    ...groups(c('equals', 'ok')),
    { condition_operator: 'OR', conditions: [c('equals', 'ok'), c('equals', 'maybe', 'boolean'), c('regex', '[')] },
  ]);
  t.same(problems.map((p) => p.path), [
    'condition_groups[1].conditions[1].value', 'condition_groups[1].conditions[2].value',
  ]);
});

t.test('string operands are free text', async (t) => {
  t.same(checkConditionGroups(groups(c('equals', ''), c('not_in', ''), c('contains', '😀'))), []);
});
