/**
 * Explain and the scan engine against the compiled engine: on random rule
 * sets and inputs (the seeds of test/support/seeds.ts), explain's `matched` and the scan
 * engine's answer equal engine membership; and the reasons, case by case.
 */
import t from 'tap';
import type { RuleRecord } from '../../projections';
import { explainRules } from '../../src/audit/explain';
import { createScanEngine } from '../../src/audit/rule-check';
import { createEngine, type RuleDefinition } from '../../src/engine';
import type { Condition } from '../../src/events/rule-events';
import { randomFields, randomRule, seededRandom } from '../engine/random-rules';
import { perSeed, replayHint, testSeeds } from '../support/seeds';

/** A projected record around an engine definition. */
function record(rule: RuleDefinition, revision = 0n): RuleRecord {
  return {
    ...rule, name: `name ${rule.id}`, description: '', entities: [],
    created_by: 'test', created_at: '2026-01-01T00:00:00.000Z', updated_at: '2026-01-01T00:00:00.000Z',
    revision, position: revision + 10n,
  } as RuleRecord;
}

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
        const explained = explainRules(rules, fields, undefined).filter((r) => r.matched).map((r) => r.rule_id);
        const scanned = scan.evaluate(fields);
        cases += 1;
        matches += want.length;
        if (JSON.stringify(explained) !== JSON.stringify(want) || JSON.stringify(scanned) !== JSON.stringify(want)) {
          t.same({ explained, scanned }, { explained: want, scanned: want }, `${replayHint(seed)}, set ${set} input ${JSON.stringify(fields)}\nrules ${JSON.stringify([...rules.values()])}`);
          return;
        }
        // The per-group results add up to the rule's verdict.
        for (const rule of explainRules(rules, fields, undefined)) {
          const results = rule.groups.map((g) => g.result);
          const combined = rule.status === 'ACTIVE' && (rule.group_operator === 'AND' ? results.every(Boolean) : results.some(Boolean));
          if (combined !== rule.matched) {
            t.fail(`${replayHint(seed)}, rule ${rule.rule_id}: groups ${JSON.stringify(results)} do not add up to matched ${rule.matched}`);
            return;
          }
        }
        for (const rule of explainRules(rules, fields, 'a')) {
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
  const [rule] = explainRules(rules, { tier: 'silver', tokens: 'many', stream: 'yes', model: 'gpt-4o' }, undefined);
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

  const [matched] = explainRules(rules, { tier: 'gold', tokens: '150', stream: true, region: 'eu', model: 'gpt-4' }, undefined);
  t.match(matched, { matched: true, reason: null });
  t.ok(matched!.groups[0]!.conditions.every((c) => c.reason === 'holds'));
});

t.test('which rules are explained', async (t) => {
  const rules = new Map<string, RuleRecord>([
    ['a-match', record({ id: 'a-match', status: 'ACTIVE', group_operator: 'AND', condition_groups: [{ condition_operator: 'AND', conditions: [cond('x', 'equals', '1')] }] })],
    ['b-other', record({ id: 'b-other', status: 'ACTIVE', group_operator: 'AND', condition_groups: [{ condition_operator: 'AND', conditions: [cond('y', 'equals', '1')] }] })],
    ['c-off', record({ id: 'c-off', status: 'INACTIVE', group_operator: 'AND', condition_groups: [{ condition_operator: 'AND', conditions: [cond('x', 'equals', '1')] }] })],
  ]);
  const all = explainRules(rules, { x: '1' }, undefined);
  t.same(all.map((r) => [r.rule_id, r.matched]), [['a-match', true], ['c-off', false]], 'matching rules and rules reading a given field; not rules that only read absent fields');
  t.match(all[1]!.reason, /INACTIVE/);
  t.same(explainRules(rules, { x: '1' }, 'y').map((r) => r.rule_id), ['b-other'], 'with field: every rule with a condition on it');
  t.same(explainRules(rules, { x: '1' }, 'nope'), []);
});
