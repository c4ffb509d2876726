/**
 * dry-run (src/audit/dry-run.ts) lays its drafts over the live rules and
 * reads those by id only: it copies nothing (a copy of 1M live rules held
 * the node ~0.4 s per request; bench: audit-stall). The answers themselves
 * are test/http/dry-run.test.ts's.
 */
import t from 'tap';
import { initialState, type RuleRecord, type RulesState } from '../../projections';
import { dryRun } from '../../src/audit/dry-run';
import { DEFAULTS } from '../../src/base/config';
import { createEngine } from '../../src/engine';
import { ruleRecord } from '../support/evaluators';

const rule = (id: string, value: string): RuleRecord => ruleRecord({
  id, status: 'ACTIVE', group_operator: 'AND',
  condition_groups: [{ condition_operator: 'AND', conditions: [{ field: 'tier', operator: 'equals', value, data_type: 'string' }] }],
});

t.test('dry-run reads the live rules by id, never walks or copies them', async (t) => {
  const live = new Map([rule('r-gold', 'gold'), rule('r-silver', 'silver')].map((r) => [r.id, r]));
  const engine = createEngine();
  for (const r of live.values()) engine.upsert(r);
  const walked: string[] = [];
  // The live rules as a map that answers `get` and `has` and refuses everything that walks or copies it.
  const byIdOnly = new Proxy(live, {
    get(target, member) {
      if (member === 'get' || member === 'has') return (id: string) => target[member](id);
      walked.push(String(member));
      throw new Error(`dry-run read rules.${String(member)}`);
    },
  }) as unknown as RulesState;
  const state = { ...initialState(), rules: byIdOnly, position: 7n };
  const draft = { id: 'r-gold', name: 'gold, now platinum', condition_groups: [{ conditions: [{ field: 'tier', operator: 'equals', value: 'platinum' }] }] };
  const answer = dryRun(state, engine, { entity_type: 'context', fields: { tier: 'platinum' }, rules: [draft, { ...draft, id: undefined, name: 'new' }] }, DEFAULTS.limits, 0);
  t.same(walked, [], 'nothing walked the live rules');
  t.same(answer.matchingRuleIds, ['draft-1', 'r-gold'], 'the replacing draft and the new one match');
  t.same(answer.explain.map((e) => [e.rule_id, e.draft]), [['draft-1', true], ['r-gold', true]], 'each explained as the draft it is');
  t.equal(live.get('r-gold')!.condition_groups[0]!.conditions[0]!.value, 'gold', 'the live rule is as it was');
  const silver = dryRun(state, engine, { entity_type: 'context', fields: { tier: 'silver' }, rules: [draft] }, DEFAULTS.limits, 0);
  t.same(silver.matchingRuleIds, ['r-silver'], 'a live rule no draft replaces answers as it does live');
});
