/**
 * Black-box: cursor paging and filters on every admin list (issue 17 item 6).
 * A walk with `limit` and `cursor` sees every item once, also when writes
 * land between pages; a bad cursor, limit or filter is a 400 naming it.
 */
import t from 'tap';
import { call, type Answer, type Client } from '../support/http';
import { withNode } from '../support/with-node';

const live = withNode(t);
const admin = live.admin;

const condition = (field: string, operator: string, value: string) => ({ field, operator, value });

/** Every item of a list, page by page; the pages' sizes too. */
async function walk(client: Client, path: string, member: string, limit: number, between?: (page: number) => Promise<void>) {
  const ids: string[] = [];
  const sizes: number[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 100; page++) {
    const sep = path.includes('?') ? '&' : '?';
    const answer: Answer = await client.get(`${path}${sep}limit=${limit}${cursor === null ? '' : `&cursor=${cursor}`}`);
    if (answer.status !== 200) throw new Error(`${path}: ${answer.status} ${answer.text}`);
    const items = answer.json[member] as { id?: string; revision?: string }[];
    ids.push(...items.map((item) => item.id ?? item.revision!));
    sizes.push(items.length);
    cursor = answer.json.next_cursor;
    if (cursor === null) break;
    await between?.(page);
  }
  return { ids, sizes };
}

const ids = { rules: [] as string[], contexts: [] as string[] };
let contextId = '';

t.before(async () => {
  for (let i = 0; i < 5; i++) {
    const context = await admin.post('/api/contexts', { name: `ctx ${i}`, content: 'c', tags: i % 2 === 0 ? ['even'] : ['odd'], status: i === 4 ? 'INACTIVE' : 'ACTIVE' });
    ids.contexts.push(context.json.id);
  }
  contextId = ids.contexts[0]!;
  const bodies = [
    { name: 'Gold tier', description: 'premium users', condition_groups: [{ conditions: [condition('user.tier', 'equals', 'gold')] }], entities: [{ entity_type: 'context', entity_id: contextId }] },
    { name: 'Big spend', status: 'INACTIVE', condition_groups: [{ conditions: [{ ...condition('spend', 'gt', '100'), data_type: 'number' }] }] },
    { name: 'Email', condition_groups: [{ conditions: [condition('user.email', 'regex', '@example\\.com$'), condition('user.tier', 'in', 'gold,silver')] }] },
    { name: 'Eval link', condition_groups: [{ conditions: [condition('country', 'equals', 'NL')] }], entities: [{ entity_type: 'evaluation', entity_id: 'ev-1' }] },
  ];
  for (const body of bodies) ids.rules.push((await admin.post('/api/rule-engine/rules', body)).json.id);
  for (let i = 0; i < 3; i++) await admin.post('/api/prompts', { name: `prompt ${i}`, prompt: 'Hi {{name}}', tags: i === 0 ? ['greeting'] : [] });
  for (let i = 0; i < 3; i++) await admin.post('/api/vault/secrets', { key: `KEY_${i}`, value: `v${i}`, tags: i === 1 ? ['llm'] : [] });
  await admin.post('/api/api-keys', { name: 'reader', scopes: ['secrets:read'] });
  await admin.post('/api/api-keys', { name: 'evaluator', scopes: ['evaluate'] });
});

t.test('without limit a list is whole, as the contract lists it, with next_cursor null', async (t) => {
  const rules = await admin.get('/api/rule-engine/rules');
  t.equal(rules.json.rules.length, 4);
  t.equal(rules.json.next_cursor, null);
  t.same(rules.json.rules.map((r: { id: string }) => r.id), [...ids.rules].sort(), 'by id');
});

t.test('a walk with limit and cursor sees every item once, on every list', async (t) => {
  const lists: [string, string][] = [
    ['/api/rule-engine/rules', 'rules'], ['/api/contexts', 'contexts'], ['/api/prompts', 'prompts'],
    ['/api/vault/secrets', 'secrets'], ['/api/api-keys', 'api_keys'],
  ];
  for (const [path, member] of lists) {
    const whole = (await admin.get(path)).json[member].map((item: { id: string }) => item.id);
    const { ids: walked, sizes } = await walk(admin, path, member, 2);
    t.same(walked, whole, `${path}: the pages join up to the whole list`);
    t.ok(sizes.every((size) => size <= 2), `${path}: no page over the limit`);
    t.equal(sizes.length, Math.ceil(whole.length / 2), `${path}: no empty last page`);
  }
  const history = await walk(admin, `/api/rule-engine/rules/${ids.rules[0]}/history`, 'events', 1);
  t.same(history.ids, ['0'], 'a rule history pages by revision');
});

t.test('a prompt history pages by revision, as a rule history does', async (t) => {
  const prompt = (await admin.post('/api/prompts', { name: 'paged history', prompt: 'v1 {{x}}' })).json;
  await admin.post(`/api/prompts/${prompt.id}/versions`, { prompt: 'v2 {{x}}' });
  await call(live.url, 'PUT', `/api/prompts/${prompt.id}/labels/production`, { key: live.node.adminKey, body: { version: '1.0.0' } });
  await admin.post(`/api/prompts/${prompt.id}/versions`, { prompt: 'v3 {{x}}' });
  const whole = await admin.get(`/api/prompts/${prompt.id}/history`);
  t.equal(whole.json.next_cursor, null, 'without limit: the whole history');
  t.same(whole.json.events.map((e: { revision: string }) => e.revision), ['0', '1', '2', '3']);
  const { ids: walked, sizes } = await walk(admin, `/api/prompts/${prompt.id}/history`, 'events', 3);
  t.same(walked, ['0', '1', '2', '3'], 'the pages join up to the whole history');
  t.same(sizes, [3, 1], 'no page over the limit, no empty last page');
  const byName = await walk(admin, '/api/prompts/paged%20history/history', 'events', 2);
  t.same(byName.ids, walked, 'by name too');
  const ruleCursor = (await admin.get(`/api/rule-engine/rules/${ids.rules[0]}/history?limit=1`)).json.next_cursor;
  for (const query of ['cursor=abc', `cursor=${encodeURIComponent(ruleCursor ?? 'x')}`, 'limit=0', 'verbose=1']) {
    const answer = await admin.get(`/api/prompts/${prompt.id}/history?${query}`);
    t.equal(answer.status, 400, `${query}: 400`);
    t.match(answer.json, { err: /^(cursor|limit|unknown query parameter)/, code: 'bad_request' }, query);
  }
});

t.test('rule filters: status, linked entity, field, operator, q', async (t) => {
  const names = async (query: string) => {
    const answer = await admin.get(`/api/rule-engine/rules?${query}`);
    t.equal(answer.status, 200, `${query}: ${answer.text.slice(0, 200)}`);
    return answer.json.rules.map((r: { name: string }) => r.name).sort();
  };
  t.same(await names('status=inactive'), ['Big spend']);
  t.same(await names('status=ACTIVE'), ['Email', 'Eval link', 'Gold tier']);
  t.same(await names(`entity_type=context&entity_id=${contextId}`), ['Gold tier']);
  t.same(await names('entity_type=evaluation'), ['Eval link']);
  t.same(await names('entity_id=ev-1'), ['Eval link']);
  t.same(await names('field=user.tier'), ['Email', 'Gold tier']);
  t.same(await names('operator=regex'), ['Email']);
  t.same(await names('field=user.tier&operator=in'), ['Email'], 'field and operator: one condition has both');
  t.same(await names('field=user.email&operator=in'), [], 'not two different conditions');
  t.same(await names('q=PREMIUM'), ['Gold tier'], 'q searches the description, in any case');
  t.same(await names(`q=${ids.rules[3]!.toUpperCase()}`), ['Eval link'], 'q searches the id');
  t.equal((await names('status=active&field=user.tier&limit=1')).length, 1, 'filters and paging together');
});

t.test('filters of the other lists', async (t) => {
  const count = async (path: string, member: string) => {
    const answer = await admin.get(path);
    t.equal(answer.status, 200, `${path}: ${answer.text.slice(0, 200)}`);
    return answer.json[member].length as number;
  };
  t.equal(await count('/api/contexts?tag=odd', 'contexts'), 2);
  t.equal(await count('/api/contexts?status=inactive', 'contexts'), 1);
  t.equal(await count('/api/contexts?q=CTX%203', 'contexts'), 1);
  t.equal(await count('/api/prompts?tag=greeting', 'prompts'), 1);
  t.equal(await count('/api/prompts?q=prompt%202', 'prompts'), 1);
  t.equal(await count('/api/vault/secrets?tag=llm', 'secrets'), 1);
  t.equal(await count('/api/vault/secrets?q=key_2', 'secrets'), 1);
  t.equal(await count('/api/api-keys?scope=evaluate', 'api_keys'), 1);
  t.equal(await count('/api/api-keys?q=reader', 'api_keys'), 1);
});

t.test('a bad cursor, limit or filter is a 400 naming it', async (t) => {
  const page = await admin.get('/api/rule-engine/rules?limit=1');
  const ruleCursor = page.json.next_cursor as string;
  const cases: [string, RegExp][] = [
    ['/api/rule-engine/rules?cursor=%%%', /^cursor /],
    ['/api/rule-engine/rules?cursor=bm90IGpzb24', /^cursor /],
    [`/api/contexts?cursor=${ruleCursor}`, /^cursor is not a cursor of this list/],
    [`/api/audit/events?cursor=${ruleCursor}`, /^cursor /],
    ['/api/rule-engine/rules?limit=0', /^limit must be a whole number from 1 to 1000/],
    ['/api/rule-engine/rules?limit=1001', /^limit /],
    ['/api/rule-engine/rules?limit=two', /^limit /],
    ['/api/rule-engine/rules?status=on', /^status must be active or inactive/],
    ['/api/rule-engine/rules?operator=like', /^operator must be one of equals/],
    ['/api/rule-engine/rules?entity_type=user', /^entity_type must be one of context, prompt, evaluation/],
    ['/api/rule-engine/rules?field=', /^field must not be empty/],
    [`/api/rule-engine/rules?q=${'x'.repeat(300)}`, /^q must be at most 256 characters/],
    ['/api/rule-engine/rules?stauts=active', /^unknown query parameter "stauts"/],
    ['/api/rule-engine/rules?limit=1&limit=2', /^limit must be given once/],
    ['/api/api-keys?scope=root', /^scope must be one of evaluate, secrets:read, explain, admin/],
    ['/api/vault/secrets?status=active', /^unknown query parameter "status"/],
    ['/api/audit/events?verbose=1', /^unknown query parameter "verbose"/],
    ['/api/audit/events?after=1&cursor=x', /^after and cursor/],
    [`/api/rule-engine/rules/${ids.rules[0]}/history?cursor=abc`, /^cursor /],
  ];
  for (const [path, message] of cases) {
    const answer = await admin.get(path);
    t.equal(answer.status, 400, `${path}: 400`);
    t.match(answer.json, { err: message, code: 'bad_request' }, path);
  }
});

t.test('the audit log takes cursor as every list does', async (t) => {
  const first = await admin.get('/api/audit/events?limit=3');
  t.type(first.json.next_cursor, 'string');
  const byCursor = await admin.get(`/api/audit/events?limit=3&cursor=${first.json.next_cursor}`);
  const byAfter = await admin.get(`/api/audit/events?limit=3&after=${first.json.next}`);
  t.equal(byCursor.status, 200);
  t.same(byCursor.json.events, byAfter.json.events, 'cursor is the opaque form of after');
  t.same(byCursor.json.next_cursor, byAfter.json.next_cursor);
});

// Last: it changes the contexts the filter tests count.
t.test('a cursor is stable under concurrent writes: nothing repeated, nothing there on both sides skipped', async (t) => {
  const before = (await admin.get('/api/contexts')).json.contexts.map((c: { id: string }) => c.id) as string[];
  const created: string[] = [];
  const { ids: walked } = await walk(admin, '/api/contexts', 'contexts', 2, async (page) => {
    if (page === 0) {
      // A write between the pages: a new context (its id sorts anywhere) and the deletion of a seen one.
      created.push((await admin.post('/api/contexts', { name: 'late', content: 'c' })).json.id);
      await admin.delete(`/api/contexts/${before[0]}`);
    }
  });
  t.equal(new Set(walked).size, walked.length, 'no item twice');
  for (const id of before.slice(2)) t.ok(walked.includes(id), `${id}, there before and after, is seen`);
});
