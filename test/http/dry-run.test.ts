/**
 * Black-box: the dry-run evaluate (issue 17 items 3 and 6). Draft rules are
 * evaluated beside the live set (new ones) or in place of live ones (by id),
 * each rule explained with what decided it; nothing is written; a bad draft
 * is a 400 naming its index and member.
 */
import t from 'tap';
import type { Client } from '../support/http';
import { withNode } from '../support/with-node';

const live = withNode(t);
const admin = live.admin;
let evaluator: Client;
let explainer: Client;

const condition = (field: string, operator: string, value: string) => ({ field, operator, value });
let contextId = '';
let goldRule = '';

t.before(async () => {
  evaluator = live.clientFor((await admin.post('/api/api-keys', { name: 'ev', scopes: ['evaluate'] })).json.key);
  explainer = live.clientFor((await admin.post('/api/api-keys', { name: 'ex', scopes: ['explain'] })).json.key);
  contextId = (await admin.post('/api/contexts', { name: 'premium tone', content: 'Answer in depth.' })).json.id;
  goldRule = (await admin.post('/api/rule-engine/rules', {
    name: 'gold', condition_groups: [{ conditions: [condition('tier', 'equals', 'gold')] }],
    entities: [{ entity_type: 'context', entity_id: contextId }],
  })).json.id;
});

/** The log's position: the last event's, from the audit log. */
async function logPosition(): Promise<string> {
  let after = '';
  for (;;) {
    const page = await admin.get(`/api/audit/events?limit=1000${after === '' ? '' : `&after=${after}`}`);
    if (page.json.next === null) return page.json.events.at(-1)?.position ?? after;
    after = page.json.next;
  }
}

t.test('a new draft is evaluated beside the live rules, explained, and nothing is written', async (t) => {
  const before = await logPosition();
  const rulesBefore = (await admin.get('/api/rule-engine/rules')).json.rules;
  const draft = {
    name: 'silver or more', group_operator: 'OR',
    condition_groups: [
      { condition_operator: 'AND', conditions: [condition('tier', 'in', 'gold,silver'), { ...condition('age', 'gte', '18'), data_type: 'number' }] },
      { conditions: [condition('country', 'equals', 'NL')] },
    ],
    entities: [{ entity_type: 'context', entity_id: contextId }],
  };
  const answer = await admin.post('/api/rule-engine/dry-run', {
    entity_type: 'context', fields: { tier: 'gold', age: 30 }, include_entity_data: true, rules: [draft],
  });
  t.equal(answer.status, 200, answer.text.slice(0, 300));
  t.same(answer.json.matchingRuleIds, [goldRule, 'draft-0'].sort(), 'the live rule and the draft match');
  t.same(answer.json.entities, [goldRule, 'draft-0'].sort().map((id) => ({ rule_id: id, entity_type: 'context', entity_id: contextId, variant: null, reason: 'TARGETING_MATCH' })));
  t.equal(answer.json.entity_data[`context:${contextId}`].name, 'premium tone', 'entity data as evaluate gives it');
  t.same(answer.json.drafts, [{ index: 0, rule_id: 'draft-0', replaces: false }]);
  t.equal(answer.json.position, before, 'evaluated at the live position');

  const explained = answer.json.explain.find((e: { rule_id: string }) => e.rule_id === 'draft-0');
  t.match(explained, { draft: true, matched: true, revision: null, position: null, reason: null, group_operator: 'OR' });
  t.same(explained.groups.map((g: { result: boolean; decisive: boolean }) => [g.result, g.decisive]), [[true, true], [false, false]],
    'OR: the group that held decided; the one that failed did not');
  t.same(explained.groups[0].conditions.map((c: { reason: string; decisive: boolean }) => [c.reason, c.decisive]), [['holds', true], ['holds', true]]);
  t.same(explained.groups[1].conditions.map((c: { reason: string }) => c.reason), ['field absent']);
  const liveOne = answer.json.explain.find((e: { rule_id: string }) => e.rule_id === goldRule);
  t.match(liveOne, { draft: false, matched: true, revision: '0' }, 'the matching live rule is explained too');

  t.equal(await logPosition(), before, 'the log did not move: nothing was written');
  t.same((await admin.get('/api/rule-engine/rules')).json.rules, rulesBefore, 'the live rules are unchanged');
  t.same((await evaluator.post('/api/rule-engine/evaluate', { entity_type: 'context', fields: { tier: 'silver', age: 30 } })).json.matchingRuleIds, [],
    'evaluate does not see the draft');
});

t.test('a draft links a prompt by its name, as a rule write does, and is answered with its id', async (t) => {
  const prompt = (await admin.post('/api/prompts', { name: 'dry-run-linked', prompt: 'Hello' })).json;
  const draft = { name: 'by name', condition_groups: [{ conditions: [condition('tier', 'equals', 'bronze')] }], entities: [{ entity_type: 'prompt', entity_id: 'dry-run-linked' }] };
  const answer = await admin.post('/api/rule-engine/dry-run', { entity_type: 'prompt', fields: { tier: 'bronze' }, rules: [draft] });
  t.equal(answer.status, 200, answer.text.slice(0, 300));
  t.same(answer.json.entities, [{ rule_id: 'draft-0', entity_type: 'prompt', entity_id: prompt.id, variant: null, reason: 'TARGETING_MATCH' }]);
});

t.test('a draft with a live rule\'s id takes its place', async (t) => {
  const draft = { id: goldRule, name: 'gold (edited)', condition_groups: [{ conditions: [condition('tier', 'equals', 'platinum')] }] };
  const fields = { tier: 'gold' };
  const replaced = await admin.post('/api/rule-engine/dry-run', { entity_type: 'context', fields, rules: [draft] });
  t.equal(replaced.status, 200, replaced.text.slice(0, 300));
  t.same(replaced.json.matchingRuleIds, [], 'the live version no longer matches: the draft replaced it');
  t.same(replaced.json.drafts, [{ index: 0, rule_id: goldRule, replaces: true }]);
  const explained = replaced.json.explain[0];
  t.match(explained, { rule_id: goldRule, name: 'gold (edited)', draft: true, matched: false });
  t.same(explained.groups[0].conditions.map((c: { reason: string; decisive: boolean }) => [c.reason, c.decisive]), [['comparison false', true]],
    'the failing condition decided');
  const platinum = await admin.post('/api/rule-engine/dry-run', { entity_type: 'context', fields: { tier: 'platinum' }, rules: [draft] });
  t.same(platinum.json.matchingRuleIds, [goldRule], 'the draft matches under the live rule\'s id');
  const inactive = await admin.post('/api/rule-engine/dry-run', { entity_type: 'context', fields, rules: [{ ...draft, status: 'INACTIVE', condition_groups: [{ conditions: [condition('tier', 'equals', 'gold')] }] }] });
  t.same(inactive.json.matchingRuleIds, [], 'an INACTIVE draft matches nothing');
  t.match(inactive.json.explain[0], { matched: false, reason: 'the rule is INACTIVE' });
  const none = await admin.post('/api/rule-engine/dry-run', { entity_type: 'context', fields });
  t.same(none.json.matchingRuleIds, [goldRule], 'no drafts: the live answer');
});

t.test('a bad draft is a 400 naming its index and member', async (t) => {
  const good = { name: 'ok', condition_groups: [{ conditions: [condition('a', 'equals', 'b')] }] };
  const cases: [unknown, RegExp][] = [
    [[good, { name: 'x' }], /^rules\[1\]\.condition_groups is required$/],
    [[{ ...good, condition_groups: [{ conditions: [condition('a', 'like', 'b')] }] }], /^rules\[0\]\.condition_groups\[0\]\.conditions\[0\]\.operator must be one of/],
    [[{ ...good, condition_groups: [{ conditions: [condition('a', 'regex', '(')] }] }], /^rules\[0\]\.condition_groups\[0\]\.conditions\[0\]/],
    [[{ ...good, condition_groups: [{ conditions: [{ ...condition('n', 'gt', 'x'), data_type: 'number' }] }] }], /^rules\[0\]\.condition_groups\[0\]\.conditions\[0\]/],
    [[{ ...good, stauts: 'ACTIVE' }], /^rules\[0\] has an unknown member "stauts" \(did you mean status\?\)/],
    [[{ ...good, id: 'no-such-rule' }], /^rules\[0\]\.id names no rule/],
    [[{ ...good, id: goldRule }, { ...good, id: goldRule }], /^rules\[1\]\.id repeats rules\[0\]\.id/],
    [[{ ...good, entities: [{ entity_type: 'context', entity_id: 'gone' }] }], /^rules\[0\]\.entities\[0\]: context gone does not exist$/],
    [[7], /^rules\[0\] must be a JSON object/],
    [{ name: 'x' }, /^rules must be an array/],
    [Array.from({ length: 101 }, () => good), /^rules has 101 drafts; the limit is 100$/],
  ];
  for (const [rules, message] of cases) {
    const answer = await admin.post('/api/rule-engine/dry-run', { entity_type: 'context', fields: { a: 'b' }, rules });
    t.equal(answer.status, 400, `${message}: 400`);
    t.match(answer.json, { err: message, code: 'bad_request' }, String(message));
  }
  const badRequest = await admin.post('/api/rule-engine/dry-run', { entity_type: 'user', fields: {}, rules: [good] });
  t.match(badRequest.json, { err: /^entity_type must be one of/, code: 'bad_request' }, 'the evaluate part is validated as evaluate\'s');
});

t.test('dry-run needs the admin scope', async (t) => {
  const body = { entity_type: 'context', fields: { tier: 'gold' } };
  t.match(await explainer.post('/api/rule-engine/dry-run', body), { status: 403, json: { code: 'forbidden' } }, 'explain may not: the answer carries entity data');
  t.match(await evaluator.post('/api/rule-engine/dry-run', body), { status: 403, json: { code: 'forbidden' } });
  t.match(await live.clientFor('').post('/api/rule-engine/dry-run', body), { status: 401, json: { code: 'unauthorized' } });
});
