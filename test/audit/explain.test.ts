/**
 * Explain and the scan engine against the compiled engine: on random rule
 * sets and inputs (the seeds of test/support/seeds.ts), explain's `matched` and the scan
 * engine's answer equal engine membership; the reasons, case by case; and
 * which rules an answer explains.
 */
import t from 'tap';
import type { RuleRecord } from '../../projections';
import { checkNamedRules, explainRules, readExplainOptions, type ExplainOptions } from '../../src/audit/explain';
import { createScanEngine } from '../../src/audit/rule-check';
import { createEngine, type RuleDefinition } from '../../src/engine';
import type { Condition } from '../../src/events/rule-events';
import { randomFields, randomRule, seededRandom } from '../engine/random-rules';
import { ruleRecord as record } from '../support/evaluators';
import { perSeed, replayHint, testSeeds } from '../support/seeds';

const NONE: ExplainOptions = { field: undefined, ruleIds: [] };
/** Every rule named: explain judges each one itself. */
const all = (rules: Map<string, RuleRecord>, field?: string): ExplainOptions => ({ field, ruleIds: [...rules.keys()] });

t.test('explain matched and the scan engine agree with the compiled engine', async (t) => {
  let cases = 0;
  let matches = 0;
  for (const seed of testSeeds()) {
    const random = seededRandom(seed);
    for (let set = 0; set < perSeed(40); set++) {
      const rules = new Map<string, RuleRecord>();
      const engine = createEngine();
      for (let i = 0; i < 30; i++) {
        const rule = record(randomRule(random, `r${String(i).padStart(2, '0')}`));
        rules.set(rule.id, rule);
        engine.upsert(rule);
      }
      const scan = createScanEngine(rules);
      for (let i = 0; i < 40; i++) {
        const fields = randomFields(random);
        const want = engine.evaluate(fields);
        const everyRule = explainRules(rules, fields, 0, [], all(rules), Infinity).rules;
        const explained = everyRule.filter((r) => r.matched).map((r) => r.rule_id);
        const scanned = scan.evaluate(fields);
        cases += 1;
        matches += want.length;
        if (JSON.stringify(explained) !== JSON.stringify(want) || JSON.stringify(scanned) !== JSON.stringify(want)) {
          t.same({ explained, scanned }, { explained: want, scanned: want }, `${replayHint(seed)}, set ${set} input ${JSON.stringify(fields)}\nrules ${JSON.stringify([...rules.values()])}`);
          return;
        }
        // Unnamed, exactly the matching rules are explained.
        const unnamed = explainRules(rules, fields, 0, want, NONE, Infinity).rules.map((r) => r.rule_id);
        if (JSON.stringify(unnamed) !== JSON.stringify(want)) {
          t.same(unnamed, want, `${replayHint(seed)}, unnamed: exactly the matching rules; set ${set} input ${JSON.stringify(fields)}`);
          return;
        }
        // The per-group results add up to the rule's verdict.
        for (const rule of everyRule) {
          const results = rule.groups.map((g) => g.result);
          const combined = rule.status === 'ACTIVE' && (rule.group_operator === 'AND' ? results.every(Boolean) : results.some(Boolean));
          if (combined !== rule.matched) {
            t.fail(`${replayHint(seed)}, rule ${rule.rule_id}: groups ${JSON.stringify(results)} do not add up to matched ${rule.matched}`);
            return;
          }
        }
        for (const rule of explainRules(rules, fields, 0, [], all(rules, 'a'), Infinity).rules) {
          if (!rule.groups.some((g) => g.conditions.some((c) => c.field === 'a'))) {
            t.fail(`${replayHint(seed)}, rule ${rule.rule_id} explained for field a without a condition on it`);
            return;
          }
        }
      }
    }
  }
  t.pass(`${cases} cases agree`);
  t.ok(matches / cases > 1, `mean ${(matches / cases).toFixed(2)} matches per case`);
});

const cond = (field: string, operator: string, value: string, data_type = 'string') => ({ field, operator, value, data_type }) as Condition;
const oneRule = (conditions: Condition[], condition_operator: 'AND' | 'OR' = 'AND', status: 'ACTIVE' | 'INACTIVE' = 'ACTIVE') =>
  new Map([['r1', record({ id: 'r1', status, group_operator: 'AND', condition_groups: [{ condition_operator, conditions }] }, 3n)]]);

t.test('each condition says why, with the input value it saw', async (t) => {
  const rules = oneRule([
    cond('tier', 'equals', 'gold'),
    cond('tokens', 'gt', '100', 'number'),
    cond('stream', 'equals', 'true', 'boolean'),
    cond('region', 'equals', 'eu'),
    cond('model', 'starts_with', 'gpt'),
  ]);
  const named = { field: undefined, ruleIds: ['r1'] };
  const [rule] = explainRules(rules, { tier: 'silver', tokens: 'many', stream: 'yes', model: 'gpt-4o' }, 0, [], named).rules;
  t.match(rule, { rule_id: 'r1', matched: false, revision: '3', position: '13', status: 'ACTIVE' });
  t.match(rule!.reason, /condition group 0 did not hold/);
  t.same(rule!.groups[0]!.conditions.map((c) => [c.field, c.input, c.result, c.reason]), [
    ['tier', 'silver', false, 'comparison false'],
    ['tokens', 'many', false, 'not a number'],
    ['stream', 'yes', false, 'not a boolean'],
    ['region', null, false, 'field absent'],
    ['model', 'gpt-4o', true, 'holds'],
  ]);
  t.equal(rule!.groups[0]!.result, false);

  const [matched] = explainRules(rules, { tier: 'gold', tokens: '150', stream: true, region: 'eu', model: 'gpt-4' }, 0, ['r1'], NONE).rules;
  t.match(matched, { matched: true, reason: null });
  t.ok(matched!.groups[0]!.conditions.every((c) => c.reason === 'holds'));
});

t.test('which rules are explained: the matching ones and the named ones, never others', async (t) => {
  const rule = (id: string, field: string, status: 'ACTIVE' | 'INACTIVE' = 'ACTIVE') =>
    [id, record({ id, status, group_operator: 'AND', condition_groups: [{ condition_operator: 'AND', conditions: [cond(field, 'equals', '1')] }] })] as const;
  const rules = new Map<string, RuleRecord>([rule('a-match', 'x'), rule('b-other', 'y'), rule('c-off', 'x', 'INACTIVE')]);
  const ids = (answer: { rules: { rule_id: string; matched: boolean }[] }) => answer.rules.map((r) => [r.rule_id, r.matched]);
  const matched = ['a-match'];
  t.same(ids(explainRules(rules, { x: '1' }, 0, matched, NONE)), [['a-match', true]],
    'unnamed: only the matching rules, not a rule that reads a given field, nor an INACTIVE one');
  const named = explainRules(rules, { x: '1' }, 0, matched, { field: undefined, ruleIds: ['c-off', 'b-other'] });
  t.same(ids(named), [['a-match', true], ['b-other', false], ['c-off', false]], 'named rules too, matched or not, ACTIVE or not');
  t.match(named.rules[2]!.reason, /INACTIVE/);
  t.same(named.omitted_rule_ids, []);
  t.same(ids(explainRules(rules, { x: '1' }, 0, matched, { field: 'y', ruleIds: ['b-other'] })), [['b-other', false]], 'field narrows, never widens');
  t.same(explainRules(rules, { x: '1' }, 0, matched, { field: 'nope', ruleIds: [] }).rules, []);
});

t.test('an answer holds at most its budget of explanations; the rest are named by id', async (t) => {
  const rules = new Map<string, RuleRecord>();
  const matched: string[] = [];
  for (let i = 0; i < 50; i++) {
    const id = `r${String(i).padStart(2, '0')}`;
    const conditions = Array.from({ length: 20 }, (_, c) => cond('x', 'not_equals', `value ${c} `.padEnd(100, '.')));
    rules.set(id, record({ id, status: 'ACTIVE', group_operator: 'AND', condition_groups: [{ condition_operator: 'AND', conditions }] }));
    matched.push(id);
  }
  const unbounded = explainRules(rules, { x: 'a' }, 0, matched, NONE, Infinity);
  const full = JSON.stringify(unbounded.rules).length;
  t.equal(unbounded.rules.length, 50);
  const budget = Math.floor(full / 3);
  const bounded = explainRules(rules, { x: 'a' }, 0, matched, { field: undefined, ruleIds: ['r49'] }, budget);
  t.ok(JSON.stringify(bounded.rules).length <= budget, `explanations within the budget (${JSON.stringify(bounded.rules).length} <= ${budget})`);
  t.ok(bounded.rules.length > 0 && bounded.omitted_rule_ids.length > 0, `${bounded.rules.length} explained, ${bounded.omitted_rule_ids.length} omitted`);
  t.same([...bounded.rules.map((r) => r.rule_id), ...bounded.omitted_rule_ids].sort(), matched, 'every rule asked about is explained or listed');
  t.ok(bounded.rules.some((r) => r.rule_id === 'r49'), 'a named rule comes first');
  t.same(bounded.rules.map((r) => r.rule_id), [...bounded.rules.map((r) => r.rule_id)].sort(), 'sorted by id');
});

t.test('a rule whose explanation alone passes the budget is omitted, not serialized whole', async (t) => {
  // 10,000 conditions each echoing a 64 KiB input: 640 MB of JSON, more than a string can hold.
  const conditions = Array.from({ length: 10_000 }, (_, c) => cond('x', 'not_equals', `v${c}`));
  const rules = new Map<string, RuleRecord>([
    ['huge', record({ id: 'huge', status: 'ACTIVE', group_operator: 'AND', condition_groups: [{ condition_operator: 'AND', conditions }] })],
    ['small', record({ id: 'small', status: 'ACTIVE', group_operator: 'AND', condition_groups: [{ condition_operator: 'AND', conditions: [cond('x', 'not_equals', 'v')] }] })],
  ]);
  const answer = explainRules(rules, { x: 'i'.repeat(64 * 1024) }, 0, ['huge', 'small'], NONE);
  t.same(answer.omitted_rule_ids, ['huge']);
  t.same(answer.rules.map((r) => r.rule_id), ['small']);
  t.ok(JSON.stringify(answer.rules).length <= 70 * 1024);
});

t.test('explain options: rule_ids and field are read strictly', async (t) => {
  t.same(readExplainOptions({ rule_ids: ['a', 'b', 'a'] }), { field: undefined, ruleIds: ['a', 'b'] });
  t.same(readExplainOptions({}), NONE);
  const cases: [unknown, RegExp][] = [
    [{ rule_ids: null }, /rule_ids must be an array/],
    [{ rule_ids: 'a' }, /rule_ids must be an array/],
    [{ rule_ids: [1] }, /rule_ids\[0\] must be a string/],
    [{ rule_ids: Array.from({ length: 101 }, (_, i) => `r${i}`) }, /rule_ids has 101 items; the limit is 100/],
    [{ field: null }, /field must be a string/],
  ];
  for (const [body, message] of cases) t.throws(() => readExplainOptions(body), { message, status: 400 }, JSON.stringify(body).slice(0, 60));
  const rules = oneRule([cond('x', 'equals', '1')]);
  t.doesNotThrow(() => checkNamedRules({ field: undefined, ruleIds: ['r1'] }, rules));
  t.throws(() => checkNamedRules({ field: undefined, ruleIds: ['r1', 'nope'] }, rules), { message: /rule_ids\[1\] names no rule: "nope"/ });
});
