/**
 * Black-box: least-privilege explain (issue 14 item 4). An `evaluate` key
 * cannot read rule definitions through explain; an answer is about the
 * rules the request matched and the rules the caller names, never others
 * (INACTIVE ones included); and a small request gets a bounded answer.
 */
import t from 'tap';
import { EXPLAIN_ANSWER_BYTES } from '../../src/audit/explain';
import { createRule as createRuleWith, type Client } from '../support/http';
import { withNode } from '../support/with-node';

let evaluator: Client;
let explainer: Client;

const condition = (field: string, operator: string, value: string) => ({ field, operator, value });
const createRule = (body: Record<string, unknown>) => createRuleWith(admin, body);

const live = withNode(t);
const admin = live.admin;
t.before(async () => {
  evaluator = live.clientFor((await admin.post('/api/api-keys', { name: 'ev', scopes: ['evaluate'] })).json.key);
  explainer = live.clientFor((await admin.post('/api/api-keys', { name: 'ex', scopes: ['explain'] })).json.key);
});

t.test('explain needs the explain or admin scope: an evaluate key is refused', async (t) => {
  const body = { entity_type: 'context', fields: { 'who.tier': 'gold' } };
  await createRule({ name: 'scoped', condition_groups: [{ conditions: [condition('who.tier', 'equals', 'gold')] }] });
  const refused = await evaluator.post('/api/rule-engine/explain', body);
  t.equal(refused.status, 403);
  t.same(refused.json, { err: 'this API key lacks the explain or admin scope', code: 'forbidden' });
  t.notOk(refused.text.includes('who.tier'), 'no rule definition in the refusal');
  t.equal((await explainer.post('/api/rule-engine/explain', body)).status, 200, 'explain may');
  t.equal((await admin.post('/api/rule-engine/explain', body)).status, 200, 'admin may');
  t.equal((await explainer.post('/api/rule-engine/evaluate', body)).status, 403, 'explain does not imply evaluate');
  const created = await admin.post('/api/api-keys', { name: 'both', scopes: ['evaluate', 'explain'] });
  t.same(created.json.scopes, ['evaluate', 'explain']);
});

// Asked with an admin key: the selection and the bound hold for every caller (the scope is pinned above).
t.test('explain answers about the matching rules and the named rules, never others', async (t) => {
  const matching = await createRule({ name: 'matching', condition_groups: [{ conditions: [condition('plan', 'equals', 'pro')] }] });
  const other = await createRule({ name: 'other', condition_groups: [{ conditions: [condition('plan', 'equals', 'free')] }] });
  const inactive = await createRule({ name: 'inactive', status: 'INACTIVE', condition_groups: [{ conditions: [condition('plan', 'equals', 'pro')] }] });
  const body = { entity_type: 'context', fields: { plan: 'pro' } };
  const matchingIds = (await evaluator.post('/api/rule-engine/evaluate', body)).json.matchingRuleIds as string[];
  t.same(matchingIds, [matching]);

  const answer = await admin.post('/api/rule-engine/explain', body);
  t.equal(answer.status, 200);
  t.same(answer.json.rules.map((r: { rule_id: string }) => r.rule_id), [matching], 'only the matching rule, though two others read `plan`');
  t.same(answer.json.omitted_rule_ids, []);
  t.notOk(answer.text.includes('free'), "a rule that did not match and was not named shows none of its conditions");
  t.same((await explainer.post('/api/rule-engine/explain', body)).json, answer.json, 'an explain key gets the same answer');

  const named = await admin.post('/api/rule-engine/explain', { ...body, rule_ids: [inactive, other] });
  t.equal(named.status, 200);
  const byId = new Map(named.json.rules.map((r: { rule_id: string }) => [r.rule_id, r]));
  t.same([...byId.keys()], [matching, other, inactive].sort(), 'matching and named rules');
  t.match(byId.get(other), { matched: false, reason: /condition group 0 did not hold/ });
  t.match(byId.get(inactive), { matched: false, status: 'INACTIVE', reason: /the rule is INACTIVE/ });

  const unknown = await admin.post('/api/rule-engine/explain', { ...body, rule_ids: [matching, 'no-such-rule'] });
  t.equal(unknown.status, 400);
  t.same(unknown.json, { err: 'rule_ids[1] names no rule: "no-such-rule"', code: 'bad_request' });
  for (const [bad, message] of [[{ rule_ids: null }, /rule_ids must be an array/], [{ field: null }, /field must be a string/]] as const) {
    const answer = await admin.post('/api/rule-engine/explain', { ...body, ...bad });
    t.equal(answer.status, 400, JSON.stringify(bad));
    t.match(answer.json.err, message);
  }

  const asOf = await admin.post('/api/audit/evaluate', { ...body, as_of: (await admin.get('/readyz')).json.position, explain: true });
  t.same(asOf.json.explain.map((r: { rule_id: string }) => r.rule_id), [matching], 'audit evaluate explains the same rules');
  t.same(asOf.json.explain_omitted_rule_ids, []);
  t.equal((await admin.post('/api/audit/evaluate', { ...body, as_of: '0', explain: null })).status, 400, 'explain: null is a 400');
});

t.test('a 1 KB explain request gets a bounded answer', async (t) => {
  // 60 rules that match `size: "s"`, each with 100 conditions of 150-character values (about 30 KB explained),
  // 60 that read the field and do not match, and 20 INACTIVE ones.
  const long = (i: number, c: number) => `${i}-${c}-`.padEnd(150, 'v');
  const matching: string[] = [];
  for (let i = 0; i < 60; i++) {
    const conditions = Array.from({ length: 100 }, (_, c) => condition('size', 'not_equals', long(i, c)));
    matching.push(await createRule({ name: `big ${i}`, condition_groups: [{ conditions }] }));
  }
  for (let i = 0; i < 60; i++) {
    await createRule({ name: `miss ${i}`, condition_groups: [{ conditions: [condition('size', 'equals', long(i, 0))] }] });
  }
  for (let i = 0; i < 20; i++) {
    await createRule({ name: `off ${i}`, status: 'INACTIVE', condition_groups: [{ conditions: [condition('size', 'not_equals', long(i, 0))] }] });
  }
  const body = { entity_type: 'context', fields: { size: 's', padding: 'p'.repeat(900) } };
  t.ok(JSON.stringify(body).length <= 1024, 'the request is at most 1 KB');
  const evaluated = (await evaluator.post('/api/rule-engine/evaluate', body)).json.matchingRuleIds as string[];
  t.same(evaluated, [...matching].sort());

  const answer = await admin.post('/api/rule-engine/explain', body);
  t.equal(answer.status, 200);
  const bytes = Buffer.byteLength(answer.text);
  // The explanations, plus the omitted ids (bounded by the matching rules, like evaluate's answer) and the envelope.
  const bound = EXPLAIN_ANSWER_BYTES + 40 * evaluated.length + 200;
  t.ok(bytes <= bound, `the answer is bounded: ${bytes} bytes <= ${bound}`);
  const explained = answer.json.rules.map((r: { rule_id: string }) => r.rule_id) as string[];
  t.ok(explained.length > 0, `${explained.length} rules explained`);
  t.ok(answer.json.omitted_rule_ids.length > 0, `${answer.json.omitted_rule_ids.length} listed as omitted`);
  t.same([...explained, ...answer.json.omitted_rule_ids].sort(), evaluated, 'every matching rule is explained or listed; no other rule is');
  t.ok(answer.json.rules.every((r: { matched: boolean; status: string }) => r.matched && r.status === 'ACTIVE'), 'no INACTIVE or non-matching rule');

  const omitted = answer.json.omitted_rule_ids[0] as string;
  const again = await admin.post('/api/rule-engine/explain', { ...body, rule_ids: [omitted] });
  t.ok(again.json.rules.some((r: { rule_id: string }) => r.rule_id === omitted), 'an omitted rule is explained when named');
});
