/** Black-box: POST /api/rule-engine/evaluate, every rule of contract §1.1, 1.3 and 2 that HTTP can show. */
import t from 'tap';
import { call, createRule as createRuleWith, type Client } from '../support/http';
import { withNode } from '../support/with-node';
import { forCells } from '../support/matrix';

forCells(t, 'evaluate', (t, cell) => {
  let evaluator: Client;

  const equals = (field: string, value: string, data_type = 'string') => ({ field, operator: 'equals', value, data_type });
  const createRule = (body: Record<string, unknown>) => createRuleWith(admin, body);

  const live = withNode(t, { cell });
  const admin = live.admin;
  t.before(async () => {
    const key = await admin.post('/api/api-keys', { name: 'evaluator', scopes: ['evaluate'] });
    evaluator = live.clientFor(key.json.key);
  });

  t.test('400s name what is wrong', async (t) => {
    const cases: [unknown, RegExp][] = [
      [{ fields: {} }, /entity_type is required: one of context, prompt, evaluation/],
      [{ entity_type: 'dataset', fields: {} }, /entity_type must be one of context, prompt, evaluation/],
      [{ entity_type: 7, fields: {} }, /entity_type must be one of context, prompt, evaluation/],
      [{ entity_type: 'context' }, /fields is required/],
      [{ entity_type: 'context', fields: null }, /fields must be an object/],
      [{ entity_type: 'context', fields: [1] }, /fields must be an object/],
      [{ entity_type: 'context', fields: 'a=1' }, /fields must be an object/],
      [{ entity_type: 'context', fields: { tier: { nested: 1 } } }, /fields\.tier must be a string, number, boolean or null/],
      [{ entity_type: 'context', fields: { tier: ['a'] } }, /fields\.tier must be a string, number, boolean or null/],
      [{ entity_type: 'context', fields: {}, entity_inputs: 'v1' }, /entity_inputs must be an object/],
      [{ entity_type: 'context', fields: {}, entity_inputs: [] }, /entity_inputs must be an object/],
      [{ entity_type: 'context', fields: Object.fromEntries(Array.from({ length: 257 }, (_, i) => [`f${i}`, i])) }, /257 members; the limit is 256/],
      [{ entity_type: 'context', fields: { ['k'.repeat(257)]: 1 } }, /longer than the limit of 256 characters/],
      [{ entity_type: 'context', fields: { big: 'x'.repeat(64 * 1024 + 1) } }, /fields\.big is longer than the limit of 65536 characters/],
      [[{ entity_type: 'context', fields: {} }], /request body must be a JSON object/],
      // An optional member given as null is not absent: a 400 naming it, never the default.
      [{ entity_type: 'context', fields: {}, include_entity_data: null }, /^include_entity_data must be a boolean$/],
      [{ entity_type: 'context', fields: {}, entity_inputs: null }, /^entity_inputs must be an object$/],
      [{ entity_type: 'prompt', fields: {}, entity_inputs: { variables: null } }, /^entity_inputs\.variables must be an object$/],
      [{ entity_type: 'prompt', fields: {}, entity_inputs: { version: null } }, /^entity_inputs\.version must be a version string/],
      [{ entity_type: 'prompt', fields: {}, entity_inputs: { shouldCompile: null } }, /^entity_inputs\.shouldCompile must be a boolean$/],
      [{ entity_type: null, fields: {} }, /entity_type must be one of context, prompt, evaluation/],
    ];
    for (const [body, message] of cases) {
      const answer = await evaluator.post('/api/rule-engine/evaluate', body);
      t.equal(answer.status, 400, JSON.stringify(body).slice(0, 80));
      t.match(answer.json.err, message);
    }
    const notJson = await evaluator.post('/api/rule-engine/evaluate', undefined, { raw: '{"entity_type":', headers: { 'content-type': 'application/json' } });
    t.equal(notJson.status, 400);
    t.match(notJson.json.err, /not valid JSON/);
    const tooBig = await evaluator.post('/api/rule-engine/evaluate', undefined, { raw: JSON.stringify({ entity_type: 'context', fields: { a: 'x'.repeat(1024 * 1024) } }) });
    t.equal(tooBig.status, 413);
    t.match(tooBig.json.err, /limit of 1048576 bytes/);
  });

  t.test('a null field value is an absent field: the evaluate answers, and every condition on it is false', async (t) => {
    const rule = (name: string, conditions: unknown[], group_operator = 'AND') =>
      admin.post('/api/rule-engine/rules', { name, group_operator, condition_groups: conditions.map((c) => ({ conditions: [c] })) });
    const negation = (await rule('null: not_equals', [{ field: 'null_tier', operator: 'not_equals', value: 'gold' }])).json.id;
    const numeric = (await rule('null: number not_in', [{ field: 'null_age', operator: 'not_in', value: '1,2', data_type: 'number' }])).json.id;
    const other = (await rule('null: or another', [
      { field: 'null_tier', operator: 'not_contains', value: 'x' }, { field: 'null_region', operator: 'equals', value: 'EU' },
    ], 'OR')).json.id;
    const mine = new Set([negation, numeric, other]);
    const matching = async (fields: unknown) => {
      const answer = await evaluator.post('/api/rule-engine/evaluate', { entity_type: 'context', fields });
      t.equal(answer.status, 200, answer.text);
      return (answer.json.matchingRuleIds as string[]).filter((id) => mine.has(id));
    };
    t.same(await matching({ null_tier: null, null_age: null }), [], 'null is absent: negations are false');
    t.same(await matching({ null_tier: null, null_region: 'EU' }), [other], 'an OR rule matches on its other group');
    t.same(await matching({ null_tier: 'bronze', null_age: 3 }), [negation, numeric, other].sort(), 'and present values as ever');
    const explained = await admin.post('/api/rule-engine/explain', { entity_type: 'context', fields: { null_tier: null }, rule_ids: [negation] });
    t.equal(explained.status, 200, explained.text);
    t.match(explained.json.rules[0].groups[0].conditions[0], { result: false, reason: 'field absent' }, 'explain says why');
  });

  t.test('401 and 403', async (t) => {
    const none = await call(live.url, 'POST', '/api/rule-engine/evaluate', { body: { entity_type: 'context', fields: {} } });
    t.equal(none.status, 401);
    t.match(none.json.err, /no API key was provided/);
    const bad = await call(live.url, 'POST', '/api/rule-engine/evaluate', { key: 'nope', body: { entity_type: 'context', fields: {} } });
    t.equal(bad.status, 401);
    t.match(bad.json.err, /invalid/);
    const reader = await admin.post('/api/api-keys', { name: 'r', scopes: ['secrets:read'] });
    const forbidden = await call(live.url, 'POST', '/api/rule-engine/evaluate', { key: reader.json.key, body: { entity_type: 'context', fields: {} } });
    t.equal(forbidden.status, 403);
  });

  t.test('matching rules are listed once, sorted; entities filtered by type and sorted', async (t) => {
    const c1 = (await admin.post('/api/contexts', { name: 'c1', content: 'one' })).json.id as string;
    const c2 = (await admin.post('/api/contexts', { name: 'c2', content: 'two' })).json.id as string;
    const p1 = (await admin.post('/api/prompts', { name: 'p', prompt: 'x' })).json.id as string;
    const tag = 'sorted-' + Date.now();
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) {
      ids.push(await createRule({
        group_operator: 'OR',
        // Two groups that both match: the rule must still be listed once.
        condition_groups: [{ conditions: [equals('suite', tag)] }, { conditions: [equals('suite', tag)] }],
        entities: i % 2 === 0
          ? [{ entity_type: 'context', entity_id: c2 }, { entity_type: 'context', entity_id: c1 }, { entity_type: 'prompt', entity_id: p1 }]
          : [{ entity_type: 'evaluation', entity_id: `eval-${i}` }],
      }));
    }
    const answer = await evaluator.post('/api/rule-engine/evaluate', { entity_type: 'context', fields: { suite: tag } });
    t.equal(answer.status, 200);
    t.same(answer.json.matchingRuleIds, [...ids].sort(), 'every matching rule once, ascending, links or not');
    t.notOk('entity_data' in answer.json, 'entity_data only when asked for');
    const expected = ids.filter((_, i) => i % 2 === 0).sort().flatMap((rule_id) =>
      [c1, c2].sort().map((entity_id) => ({ rule_id, entity_type: 'context', entity_id, variant: null, reason: 'TARGETING_MATCH' })));
    t.same(answer.json.entities, expected, 'sorted by rule_id, then entity_id; only contexts');
    const evaluations = await evaluator.post('/api/rule-engine/evaluate', { entity_type: 'evaluation', fields: { suite: tag }, include_entity_data: true });
    t.equal(evaluations.json.entities.length, 3);
    t.same(evaluations.json.entity_data, {}, 'evaluation entity_data is never populated');
  });

  t.test('entity_data carries one contract-shaped context record per linked context', async (t) => {
    const tag = 'data-' + Date.now();
    const context = await admin.post('/api/contexts', { name: 'tone', content: 'Be brief.', description: 'd', tags: ['t'], meta_properties: { a: 'b' } });
    const id = context.json.id as string;
    await createRule({ condition_groups: [{ conditions: [equals('suite', tag)] }], entities: [{ entity_type: 'context', entity_id: id }] });
    await createRule({ condition_groups: [{ conditions: [equals('suite', tag)] }], entities: [{ entity_type: 'context', entity_id: id }] });
    const answer = await evaluator.post('/api/rule-engine/evaluate', { entity_type: 'context', fields: { suite: tag }, include_entity_data: true });
    t.equal(answer.json.entities.length, 2);
    t.same(Object.keys(answer.json.entity_data), [`context:${id}`], 'one record per distinct entity');
    t.same(answer.json.entity_data[`context:${id}`], {
      id, name: 'tone', description: 'd', content: 'Be brief.', tags: ['t'], meta_properties: { a: 'b' }, status: 'ACTIVE',
      created_by: 'env-admin', created_at: context.json.created_at, updated_at: context.json.updated_at,
    });

    await admin.patch(`/api/contexts/${id}`, { status: 'INACTIVE' });
    const inactive = await evaluator.post('/api/rule-engine/evaluate', { entity_type: 'context', fields: { suite: tag }, include_entity_data: true });
    t.equal(inactive.json.matchingRuleIds.length, 2, 'rules still match');
    t.same(inactive.json.entities, [], 'an INACTIVE context drops out');
    t.same(inactive.json.entity_data, {});
    await admin.patch(`/api/contexts/${id}`, { status: 'ACTIVE' });
    const back = await evaluator.post('/api/rule-engine/evaluate', { entity_type: 'context', fields: { suite: tag } });
    t.equal(back.json.entities.length, 2, 'and comes back when active again');
    await admin.delete(`/api/contexts/${id}`);
    const deleted = await evaluator.post('/api/rule-engine/evaluate', { entity_type: 'context', fields: { suite: tag }, include_entity_data: true });
    t.same(deleted.json.entities, [], 'a deleted context drops out');
  });

  t.test('inactive and deleted rules do not match; changes are visible at once', async (t) => {
    const tag = 'life-' + Date.now();
    const id = await createRule({ condition_groups: [{ conditions: [equals('suite', tag)] }] });
    const ask = () => evaluator.post('/api/rule-engine/evaluate', { entity_type: 'context', fields: { suite: tag } });
    t.same((await ask()).json.matchingRuleIds, [id], 'visible as soon as the 201 arrived');
    await admin.patch(`/api/rule-engine/rules/${id}`, { status: 'INACTIVE' });
    t.same((await ask()).json.matchingRuleIds, [], 'INACTIVE rules are not evaluated');
    await admin.patch(`/api/rule-engine/rules/${id}`, { status: 'ACTIVE' });
    t.same((await ask()).json.matchingRuleIds, [id]);
    await admin.patch(`/api/rule-engine/rules/${id}`, { condition_groups: [{ conditions: [equals('suite', 'other')] }] });
    t.same((await ask()).json.matchingRuleIds, [], 'a changed condition applies at once');
    await admin.delete(`/api/rule-engine/rules/${id}`);
    const gone = await evaluator.post('/api/rule-engine/evaluate', { entity_type: 'context', fields: { suite: 'other' } });
    t.notOk(gone.json.matchingRuleIds.includes(id), 'a deleted rule no longer matches');
  });

  t.test('a rule answered before answers with its changed links at once (the engine keeps answer pieces per rule)', async (t) => {
    const tag = 'links-' + Date.now();
    const first = await admin.post('/api/contexts', { name: 'first', content: 'x' });
    const second = await admin.post('/api/contexts', { name: 'second', content: 'y' });
    const id = await createRule({ condition_groups: [{ conditions: [equals('suite', tag)] }], entities: [{ entity_type: 'context', entity_id: first.json.id }] });
    const ask = async () => (await evaluator.post('/api/rule-engine/evaluate', { entity_type: 'context', fields: { suite: tag } })).json.entities;
    t.same(await ask(), [{ rule_id: id, entity_type: 'context', entity_id: first.json.id, variant: null, reason: 'TARGETING_MATCH' }]);
    // Only the links change: the rule's conditions, and so its matching, stay as they were.
    await admin.patch(`/api/rule-engine/rules/${id}`, { entities: [{ entity_type: 'context', entity_id: second.json.id }] });
    t.same(await ask(), [{ rule_id: id, entity_type: 'context', entity_id: second.json.id, variant: null, reason: 'TARGETING_MATCH' }], 'the new link, not the kept one');
    await admin.patch(`/api/rule-engine/rules/${id}`, { entities: [] });
    t.same(await ask(), [], 'no links left');
  });

  t.test('matching semantics over HTTP: types, absent fields, AND/OR', async (t) => {
    const tag = 'sem-' + Date.now();
    const anchor = equals('suite', tag);
    const rules = {
      notEquals: await createRule({ condition_groups: [{ conditions: [anchor, { field: 'region', operator: 'not_equals', value: 'eu' }] }] }),
      numberGt: await createRule({ condition_groups: [{ conditions: [anchor, { field: 'tokens', operator: 'gt', value: '100', data_type: 'number' }] }] }),
      boolean: await createRule({ condition_groups: [{ conditions: [anchor, { field: 'beta', operator: 'equals', value: 'true', data_type: 'boolean' }] }] }),
      stringOfNumber: await createRule({ condition_groups: [{ conditions: [anchor, { field: 'code', operator: 'equals', value: '5' }] }] }),
      orGroups: await createRule({
        group_operator: 'OR',
        condition_groups: [
          { condition_operator: 'AND', conditions: [anchor, { field: 'tier', operator: 'in', value: 'gold, platinum' }] },
          { condition_operator: 'AND', conditions: [anchor, { field: 'cost', operator: 'between', value: '1,2', data_type: 'number' }] },
        ],
      }),
      regex: await createRule({ condition_groups: [{ conditions: [anchor, { field: 'model', operator: 'regex', value: '^gpt-4(o|-turbo)?$' }] }] }),
    };
    const ask = async (fields: Record<string, unknown>) =>
      (await evaluator.post('/api/rule-engine/evaluate', { entity_type: 'context', fields: { suite: tag, ...fields } })).json.matchingRuleIds as string[];
    const has = (ids: string[], id: string) => ids.includes(id);

    t.notOk(has(await ask({}), rules.notEquals), 'absent field: not_equals is false');
    t.ok(has(await ask({ region: 'us' }), rules.notEquals));
    t.notOk(has(await ask({ region: 'eu' }), rules.notEquals));
    t.ok(has(await ask({ tokens: 101 }), rules.numberGt));
    t.ok(has(await ask({ tokens: '4.2e2' }), rules.numberGt), 'a string that parses fully as a number');
    t.notOk(has(await ask({ tokens: '101abc' }), rules.numberGt), 'never coerced');
    t.notOk(has(await ask({ tokens: '' }), rules.numberGt), 'empty is not 0');
    t.ok(has(await ask({ beta: true }), rules.boolean));
    t.ok(has(await ask({ beta: 'true' }), rules.boolean));
    t.notOk(has(await ask({ beta: 1 }), rules.boolean));
    t.ok(has(await ask({ code: 5 }), rules.stringOfNumber), 'a number compared as its JSON text');
    t.ok(has(await ask({ tier: 'gold' }), rules.orGroups));
    t.ok(has(await ask({ cost: 2 }), rules.orGroups), 'between is inclusive');
    t.notOk(has(await ask({ tier: 'Gold', cost: 3 }), rules.orGroups), 'case-sensitive; neither group');
    t.ok(has(await ask({ model: 'gpt-4o' }), rules.regex));
    t.notOk(has(await ask({ model: 'gpt-4o-mini' }), rules.regex));
  });

  t.test('prompts in evaluate: compiled once, versions, missing variables, no escaping', async (t) => {
    const tag = 'prompt-' + Date.now();
    const prompt = await admin.post('/api/prompts', { name: 'greet', prompt: 'Hello {{name}} <{{title}}>{{#if vip}} VIP{{/if}}', tags: ['g'] });
    const id = prompt.json.id as string;
    await admin.post(`/api/prompts/${id}/versions`, { prompt: 'v2 {{name}}', version: '2.0.0' });
    await createRule({ condition_groups: [{ conditions: [equals('suite', tag)] }], entities: [{ entity_type: 'prompt', entity_id: id }] });
    const ask = (entity_inputs?: unknown) => evaluator.post('/api/rule-engine/evaluate', {
      entity_type: 'prompt', fields: { suite: tag }, include_entity_data: true, ...(entity_inputs === undefined ? {} : { entity_inputs }),
    });

    const latest = (await ask({ variables: { name: 'Ada & <Bob>' } })).json.entity_data[`prompt:${id}`];
    t.match(latest, { id, name: 'greet', version: '2.0.0', prompt: 'v2 {{name}}', compiled_prompt: 'v2 Ada & <Bob>', variables: ['name'], missing_variables: [] });
    t.match(latest, { tags: ['g'], meta_properties: {}, status: 'ACTIVE', created_by: 'env-admin' });

    const first = (await ask({ version: '1.0.0', variables: { name: 'Ada', title: '<b>Dr</b>', vip: true } })).json.entity_data[`prompt:${id}`];
    t.equal(first.compiled_prompt, 'Hello Ada <<b>Dr</b>> VIP', 'no HTML escaping');
    t.same(first.variables, ['name', 'title', 'vip']);
    const missing = (await ask({ version: '1.0.0', variables: { name: 'Ada' } })).json.entity_data[`prompt:${id}`];
    t.same(missing.missing_variables, ['title', 'vip']);
    const raw = (await ask({ version: '1.0.0', shouldCompile: false, variables: { name: 'Ada' } })).json.entity_data[`prompt:${id}`];
    t.equal(raw.compiled_prompt, raw.prompt, 'shouldCompile false returns the raw template');
    const unknown = await ask({ version: '9.9.9' });
    t.equal(unknown.status, 200);
    t.equal(unknown.json.entity_data[`prompt:${id}`], null, 'an unknown version gives null');
    t.equal(unknown.json.entities.length, 1);

    const proto = await admin.post('/api/prompts', { name: 'evil', prompt: '{{constructor.constructor}}{{__proto__}}{{#with this}}{{constructor.name}}{{/with}}' });
    t.equal(proto.status, 201);
    await createRule({ condition_groups: [{ conditions: [equals('suite', tag + '-evil')] }], entities: [{ entity_type: 'prompt', entity_id: proto.json.id }] });
    const evil = await evaluator.post('/api/rule-engine/evaluate', { entity_type: 'prompt', fields: { suite: tag + '-evil' }, include_entity_data: true });
    t.equal(evil.status, 200);
    t.equal(evil.json.entity_data[`prompt:${proto.json.id}`].compiled_prompt, '', 'templates cannot reach prototypes');
  });

  t.test('JSON accepted whatever the Content-Type; unknown members ignored', async (t) => {
    const body = JSON.stringify({ entity_type: 'context', fields: { a: 1 }, source: 'sdk', metaProperties: { x: 1 } });
    for (const contentType of ['text/plain', 'application/octet-stream']) {
      const answer = await evaluator.post('/api/rule-engine/evaluate', undefined, { raw: body, headers: { 'content-type': contentType } });
      t.equal(answer.status, 200, contentType);
      t.ok(Array.isArray(answer.json.matchingRuleIds));
    }
    // fetch sends a byte body with no Content-Type header at all.
    const none = await evaluator.post('/api/rule-engine/evaluate', undefined, { raw: new TextEncoder().encode(body) });
    t.equal(none.status, 200, 'no Content-Type at all');
  });
});
