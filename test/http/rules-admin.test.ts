/** Black-box: the rules admin API (contract §3) on a real node over loopback. */
import t from 'tap';
import { withNode } from '../support/with-node';
import { forCells } from '../support/matrix';

forCells(t, 'rules-admin', (t, cell) => {
  const simpleRule = {
    name: 'route gpt-4 traffic',
    condition_groups: [{ conditions: [{ field: 'gen_ai.request.model', operator: 'equals', value: 'gpt-4' }] }],
  };

  const live = withNode(t, { cell });
  const admin = live.admin;

  t.test('create answers 201 with the rule, its defaults, revision and position', async (t) => {
    // Issue 14 changed this: an unknown member in an admin write is a 400 naming it, no longer ignored.
    const extra = await admin.post('/api/rule-engine/rules', { ...simpleRule, source: 'extra member' });
    t.equal(extra.status, 400);
    t.match(extra.json.err, /unknown member "source"/);
    const created = await admin.post('/api/rule-engine/rules', simpleRule);
    t.equal(created.status, 201);
    t.match(created.json, {
      id: /^[0-9a-f-]{36}$/,
      name: simpleRule.name,
      description: '',
      status: 'ACTIVE',
      group_operator: 'AND',
      condition_groups: [{ condition_operator: 'AND', conditions: [{ field: 'gen_ai.request.model', operator: 'equals', value: 'gpt-4', data_type: 'string' }] }],
      entities: [],
      revision: '0',
      position: /^[0-9]+$/,
      created_by: 'env-admin',
      created_at: /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/,
    });
    const fetched = await admin.get(`/api/rule-engine/rules/${created.json.id}`);
    t.equal(fetched.status, 200);
    t.same(fetched.json, created.json, 'read-your-writes: GET right after the 201 sees the same rule');
    const listed = await admin.get('/api/rule-engine/rules');
    t.ok(listed.json.rules.some((r: { id: string }) => r.id === created.json.id));
  });

  t.test('validation errors are 400 and name the member', async (t) => {
    const cases: [string, unknown, RegExp][] = [
      ['missing name', { condition_groups: simpleRule.condition_groups }, /name is required/],
      ['missing groups', { name: 'x' }, /condition_groups is required/],
      ['no groups', { name: 'x', condition_groups: [] }, /condition_groups must have at least one group/],
      ['empty group', { name: 'x', condition_groups: [{ conditions: [] }] }, /condition_groups\[0\]\.conditions must have at least one condition/],
      ['bad operator', { name: 'x', condition_groups: [{ conditions: [{ field: 'a', operator: 'like', value: 'b' }] }] }, /condition_groups\[0\]\.conditions\[0\]\.operator must be one of/],
      ['bad data type', { name: 'x', condition_groups: [{ conditions: [{ field: 'a', operator: 'equals', value: 'b', data_type: 'date' }] }] }, /data_type must be one of string, number, boolean/],
      ['operator not for type', { name: 'x', condition_groups: [{ conditions: [{ field: 'a', operator: 'gt', value: '1' }] }] }, /condition_groups\[0\]\.conditions\[0\]/],
      ['number that does not parse', { name: 'x', condition_groups: [{ conditions: [{ field: 'a', operator: 'gt', value: 'ten', data_type: 'number' }] }] }, /conditions\[0\]\.value/],
      ['invalid regex', { name: 'x', condition_groups: [{ conditions: [{ field: 'a', operator: 'regex', value: '(unclosed' }] }] }, /conditions\[0\]/],
      ['regex over the limit', { name: 'x', condition_groups: [{ conditions: [{ field: 'a', operator: 'regex', value: 'a'.repeat(1001) }] }] }, /1000/],
      ['bad group operator', { ...simpleRule, group_operator: 'XOR' }, /group_operator must be one of AND, OR/],
      ['bad status', { ...simpleRule, status: 'on' }, /status must be one of ACTIVE, INACTIVE/],
      ['link to a missing context', { ...simpleRule, entities: [{ entity_type: 'context', entity_id: 'no-such-id' }] }, /entities\[0\].*does not exist/],
      ['bad link type', { ...simpleRule, entities: [{ entity_type: 'dataset', entity_id: 'x' }] }, /entities\[0\]\.entity_type must be one of context, prompt, evaluation/],
      ['body not an object', [1, 2], /body must be a JSON object/],
    ];
    for (const [name, body, message] of cases) {
      const answer = await admin.post('/api/rule-engine/rules', body);
      t.equal(answer.status, 400, `${name}: status`);
      t.match(answer.json?.err, message, `${name}: message`);
    }
  });

  t.test('an evaluation link may name any id; context links must exist', async (t) => {
    const created = await admin.post('/api/rule-engine/rules', { ...simpleRule, entities: [{ entity_type: 'evaluation', entity_id: 'eval-anything' }] });
    t.equal(created.status, 201);
    const context = await admin.post('/api/contexts', { name: 'c', content: 'hello' });
    const linked = await admin.post('/api/rule-engine/rules', { ...simpleRule, entities: [{ entity_type: 'context', entity_id: context.json.id }] });
    t.equal(linked.status, 201);
    t.same(linked.json.entities, [{ entity_type: 'context', entity_id: context.json.id }]);
  });

  t.test('a prompt link may name the prompt by name, as every prompt route does; the rule stores its id', async (t) => {
    const prompt = (await admin.post('/api/prompts', { name: 'linked-by-name', prompt: 'Hi {{who}}' })).json;
    const body = { ...simpleRule, condition_groups: [{ conditions: [{ field: 'linked', operator: 'equals', value: 'by-name' }] }] };
    const created = await admin.post('/api/rule-engine/rules', { ...body, entities: [{ entity_type: 'prompt', entity_id: 'linked-by-name' }] });
    t.equal(created.status, 201, created.text);
    t.same(created.json.entities, [{ entity_type: 'prompt', entity_id: prompt.id }], 'the resolved id is stored');
    const evaluator = live.clientFor((await admin.post('/api/api-keys', { name: 'by-name', scopes: ['evaluate'] })).json.key);
    const answer = await evaluator.post('/api/rule-engine/evaluate', { entity_type: 'prompt', fields: { linked: 'by-name' } });
    t.same(answer.json.entities, [{ rule_id: created.json.id, entity_type: 'prompt', entity_id: prompt.id, variant: null, reason: 'TARGETING_MATCH' }]);

    // Its name and its id together are one link; renaming the prompt keeps the link.
    const both = await admin.post('/api/rule-engine/rules', {
      ...body, entities: [{ entity_type: 'prompt', entity_id: prompt.id }, { entity_type: 'prompt', entity_id: 'linked-by-name' }],
    });
    t.same(both.json.entities, [{ entity_type: 'prompt', entity_id: prompt.id }]);
    t.equal((await admin.patch(`/api/prompts/${prompt.id}`, { name: 'renamed-after-link' })).status, 200);
    t.same((await admin.get(`/api/rule-engine/rules/${created.json.id}`)).json.entities, [{ entity_type: 'prompt', entity_id: prompt.id }]);

    // PATCH takes a name too; a name no prompt has is a 400 that says a name is taken.
    const other = (await admin.post('/api/prompts', { name: 'patched-in', prompt: 'Yo' })).json;
    const patched = await admin.patch(`/api/rule-engine/rules/${created.json.id}`, {
      entities: [{ entity_type: 'prompt', entity_id: 'renamed-after-link' }, { entity_type: 'prompt', entity_id: 'patched-in' }],
    });
    t.equal(patched.status, 200, patched.text);
    t.same(patched.json.entities, [{ entity_type: 'prompt', entity_id: prompt.id }, { entity_type: 'prompt', entity_id: other.id }]);
    const unknown = await admin.post('/api/rule-engine/rules', { ...body, entities: [{ entity_type: 'prompt', entity_id: 'no-such-prompt' }] });
    t.equal(unknown.status, 400);
    t.equal(unknown.json.err, 'entities[0]: prompt no-such-prompt does not exist (by id or by name)');
    // A context link stays an id: context names are not unique.
    const context = await admin.post('/api/rule-engine/rules', { ...body, entities: [{ entity_type: 'context', entity_id: 'c' }] });
    t.equal(context.status, 400);
  });

  t.test('PATCH updates a subset, honours If-Match, and 409s on a stale revision', async (t) => {
    const created = await admin.post('/api/rule-engine/rules', simpleRule);
    const id = created.json.id as string;
    const renamed = await admin.patch(`/api/rule-engine/rules/${id}`, { name: 'renamed' }, { headers: { 'if-match': '0' } });
    t.equal(renamed.status, 200);
    t.equal(renamed.json.name, 'renamed');
    t.equal(renamed.json.revision, '1');
    t.same(renamed.json.condition_groups, created.json.condition_groups, 'members not patched are kept');
    const stale = await admin.patch(`/api/rule-engine/rules/${id}`, { name: 'again' }, { headers: { 'if-match': '0' } });
    t.equal(stale.status, 409);
    t.match(stale.json.err, /revision 1/);
    const quoted = await admin.patch(`/api/rule-engine/rules/${id}`, { status: 'INACTIVE' }, { headers: { 'if-match': '"1"' } });
    t.equal(quoted.status, 200, 'an ETag-style quoted revision is accepted');
    const unconditional = await admin.patch(`/api/rule-engine/rules/${id}`, { description: 'no If-Match' });
    t.equal(unconditional.status, 200);
    t.equal(unconditional.json.revision, '3');
    const badHeader = await admin.patch(`/api/rule-engine/rules/${id}`, { name: 'x' }, { headers: { 'if-match': 'abc' } });
    t.equal(badHeader.status, 400);
    t.match(badHeader.json.err, /If-Match/);
    const invalid = await admin.patch(`/api/rule-engine/rules/${id}`, { condition_groups: [] });
    t.equal(invalid.status, 400);
    const missing = await admin.patch('/api/rule-engine/rules/00000000-0000-0000-0000-000000000000', { name: 'x' });
    t.equal(missing.status, 404);
    t.match(missing.json.err, /rule .* not found/);
  });

  t.test('DELETE answers 204; the rule is gone; history keeps every change', async (t) => {
    const created = await admin.post('/api/rule-engine/rules', simpleRule);
    const id = created.json.id as string;
    await admin.patch(`/api/rule-engine/rules/${id}`, { name: 'second name' });
    const deleted = await admin.delete(`/api/rule-engine/rules/${id}`);
    t.equal(deleted.status, 204);
    t.equal((await admin.get(`/api/rule-engine/rules/${id}`)).status, 404);
    t.equal((await admin.delete(`/api/rule-engine/rules/${id}`)).status, 404, 'a second delete is 404');
    const history = await admin.get(`/api/rule-engine/rules/${id}/history`);
    t.equal(history.status, 200);
    t.same(history.json.events.map((e: { type: string }) => e.type), ['RuleCreated', 'RuleUpdated', 'RuleDeleted']);
    t.same(history.json.events.map((e: { revision: string }) => e.revision), ['0', '1', '2']);
    for (const event of history.json.events) {
      t.equal(event.actor, 'env-admin');
      t.match(event.at, /Z$/);
      t.match(event.position, /^[0-9]+$/);
    }
    t.same(history.json.events[1].changes, { name: { before: simpleRule.name, after: 'second name' } });
    t.equal((await admin.get('/api/rule-engine/rules/no-such-rule/history')).status, 404);
  });
});
