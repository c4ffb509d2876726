/** Black-box: the auditor's HTTP routes on a real node over loopback. */
import t from 'tap';
import { client, type Client } from '../support/http';
import { withNode } from '../support/with-node';

let evaluator: Client;
let reader: Client;
let explainer: Client;
let otherAdminId: string;
let otherAdmin: Client;

const group = (value: string) => [{ conditions: [{ field: 'user.tier', operator: 'equals', value }] }];

const live = withNode(t);
const admin = live.admin;
t.before(async () => {
  evaluator = live.clientFor((await admin.post('/api/api-keys', { name: 'ev', scopes: ['evaluate'] })).json.key);
  reader = live.clientFor((await admin.post('/api/api-keys', { name: 'rd', scopes: ['secrets:read'] })).json.key);
  explainer = live.clientFor((await admin.post('/api/api-keys', { name: 'ex', scopes: ['explain'] })).json.key);
  const other = (await admin.post('/api/api-keys', { name: 'auditor', scopes: ['admin'] })).json;
  otherAdminId = other.id;
  otherAdmin = live.clientFor(other.key);
});

t.test('GET /api/audit/events: filters, full pages and next', async (t) => {
  for (let i = 0; i < 5; i++) {
    await admin.post('/api/contexts', { name: `c${i}`, content: 'x' });
    await otherAdmin.post('/api/rule-engine/rules', { name: `r${i}`, condition_groups: group(`t${i}`) });
  }
  await admin.post('/api/vault/secrets', { key: 'AUDIT_SECRET', value: 'do-not-leak-me' });
  const allAnswer = await admin.get('/api/audit/events?limit=1000');
  t.equal(allAnswer.headers.get('content-type'), 'application/json; charset=utf-8', 'JSON, as every admin answer');
  const all = allAnswer.json;
  t.same(Object.keys(all), ['events', 'next', 'next_cursor'], 'the answer\'s members in order');
  t.equal(all.next, null, 'the whole log fits one page: next is null');
  t.notOk(JSON.stringify(all).includes('do-not-leak-me'), 'secret values only sealed');
  const ruleEvents = all.events.filter((e: { stream: string }) => e.stream.startsWith('rule-'));
  t.equal(ruleEvents.length, 5);

  // Paging a sparse filter: every page is full until the end, and next continues exactly.
  const seen: string[] = [];
  let after: string | null = null;
  let pages = 0;
  do {
    const page = await admin.get(`/api/audit/events?stream=rule-&limit=2${after === null ? '' : `&after=${after}`}`);
    t.equal(page.status, 200);
    if (page.json.next !== null) t.equal(page.json.events.length, 2, 'a page with a next is full');
    seen.push(...page.json.events.map((e: { position: string }) => e.position));
    after = page.json.next;
    pages += 1;
  } while (after !== null && pages < 10);
  t.same(seen, ruleEvents.map((e: { position: string }) => e.position), 'filtered paging visits exactly the matching events, in order');

  const byType = (await admin.get('/api/audit/events?type=ContextCreated,SecretCreated')).json.events;
  t.same(byType.map((e: { type: string }) => e.type).sort(), ['ContextCreated', 'ContextCreated', 'ContextCreated', 'ContextCreated', 'ContextCreated', 'SecretCreated']);
  const byActor = (await admin.get(`/api/audit/events?actor=${otherAdminId}`)).json.events;
  t.equal(byActor.length, 5);
  t.ok(byActor.every((e: { actor: string }) => e.actor === otherAdminId));
  const exact = (await admin.get(`/api/audit/events?stream=${ruleEvents[0].stream}`)).json.events;
  t.same(exact.map((e: { position: string }) => e.position), [ruleEvents[0].position], 'exact stream name');
  const mid = ruleEvents[2].at;
  const window = (await admin.get(`/api/audit/events?stream=rule-*&from=${mid}&to=${mid}`)).json.events;
  t.same(window.map((e: { position: string }) => e.position), [ruleEvents[2].position], 'from/to inclusive on metadata.at');
  const none = await admin.get('/api/audit/events?actor=nobody&limit=3');
  t.same(none.json, { events: [], next: null, next_cursor: null }, 'no match: an empty last page');

  for (const [query, param] of [['after=abc', 'after'], ['limit=0', 'limit'], ['from=yesterday', 'from'], ['to=2026', 'to'], ['stream=a&stream=b', 'stream'], ['type=', 'type']]) {
    const bad = await admin.get(`/api/audit/events?${query}`);
    t.equal(bad.status, 400, query);
    t.match(bad.json.err, new RegExp(`^${param} `), `${query} names ${param}`);
  }
  t.equal((await evaluator.get('/api/audit/events')).status, 403, 'admin scope only');
});

t.test('rule history shows before/after of a PATCH of condition_groups', async (t) => {
  const created = (await admin.post('/api/rule-engine/rules', { name: 'h', condition_groups: group('gold') })).json;
  await admin.patch(`/api/rule-engine/rules/${created.id}`, { condition_groups: group('silver'), status: 'INACTIVE' });
  const history = (await admin.get(`/api/rule-engine/rules/${created.id}/history`)).json.events;
  t.equal(history.length, 2);
  t.match(history[1], { type: 'RuleUpdated', revision: '1', actor: 'env-admin', position: /^\d+$/ });
  t.same(Object.keys(history[1].changes).sort(), ['condition_groups', 'status'], 'only the changed members');
  t.equal(history[1].changes.condition_groups.before[0].conditions[0].value, 'gold');
  t.equal(history[1].changes.condition_groups.after[0].conditions[0].value, 'silver');
  t.same(history[1].changes.status, { before: 'ACTIVE', after: 'INACTIVE' });
});

t.test('POST /api/audit/evaluate answers as evaluate did then', async (t) => {
  const context = (await admin.post('/api/contexts', { name: 'tone', content: 'first words' })).json;
  const rule = (await admin.post('/api/rule-engine/rules', {
    name: 'gold users', condition_groups: group('platinum'), entities: [{ entity_type: 'context', entity_id: context.id }],
  })).json;
  const body = { entity_type: 'context', fields: { 'user.tier': 'platinum' }, include_entity_data: true };
  const thenAnswer = (await evaluator.post('/api/rule-engine/evaluate', body)).json;
  const thenPosition = (await admin.get('/readyz')).json.position;
  const thenAt = (await admin.get(`/api/audit/events?after=${BigInt(thenPosition) - 1n}&limit=1`)).json.events[0].at;
  await new Promise((resolve) => setTimeout(resolve, 5));
  await admin.patch(`/api/contexts/${context.id}`, { content: 'later words' });
  await admin.patch(`/api/rule-engine/rules/${rule.id}`, { condition_groups: group('diamond') });
  const nowAnswer = (await evaluator.post('/api/rule-engine/evaluate', body)).json;
  t.notOk(nowAnswer.matchingRuleIds.includes(rule.id), 'the rule no longer matches live');

  const byPosition = await admin.post('/api/audit/evaluate', { ...body, as_of: thenPosition });
  t.equal(byPosition.status, 200);
  const { as_of, ...answer } = byPosition.json;
  t.same(answer, thenAnswer, 'as of the position: exactly the answer evaluate gave then');
  t.same(as_of, { position: thenPosition, at: thenAt });
  t.equal(answer.entity_data[`context:${context.id}`].content, 'first words', 'entity records as they were');
  const byNumber = await admin.post('/api/audit/evaluate', { ...body, as_of: Number(thenPosition) });
  t.same(byNumber.json, byPosition.json, 'as_of as a number');
  const byTime = await admin.post('/api/audit/evaluate', { ...body, as_of: thenAt });
  t.same(byTime.json, byPosition.json, 'as_of as the time of that event');
  const now = await admin.post('/api/audit/evaluate', { ...body, as_of: new Date(Date.now() + 60_000).toISOString() });
  const { as_of: _, ...nowAudit } = now.json;
  t.same(nowAudit, nowAnswer, 'as of a future time: the live answer');

  const explained = await admin.post('/api/audit/evaluate', { ...body, as_of: thenPosition, explain: true, field: 'user.tier' });
  const mine = explained.json.explain.find((r: { rule_id: string }) => r.rule_id === rule.id);
  t.match(mine, { matched: true, revision: '0', groups: [{ result: true, conditions: [{ field: 'user.tier', input: 'platinum', reason: 'holds' }] }] });

  const cases: [unknown, RegExp][] = [
    [body, /as_of is required/],
    [{ ...body, as_of: 'last tuesday' }, /as_of must be/],
    [{ ...body, as_of: -3 }, /as_of must be/],
    [{ as_of: thenPosition, fields: {} }, /entity_type is required/],
    [{ ...body, as_of: thenPosition, explain: 'yes' }, /explain must be a boolean/],
    [{ ...body, as_of: thenPosition, field: 7 }, /field must be a string/],
  ];
  for (const [bad, message] of cases) {
    const answer = await admin.post('/api/audit/evaluate', bad);
    t.equal(answer.status, 400, JSON.stringify(bad));
    t.match(answer.json.err, message);
  }
  t.equal((await evaluator.post('/api/audit/evaluate', { ...body, as_of: '1' })).status, 403, 'admin scope only');
});

t.test('POST /api/rule-engine/explain (explain or admin)', async (t) => {
  const rule = (await admin.post('/api/rule-engine/rules', {
    name: 'explained', condition_groups: [{ conditions: [
      { field: 'tokens', operator: 'gt', value: '100', data_type: 'number' },
      { field: 'user.tier', operator: 'equals', value: 'gold' },
    ] }],
  })).json;
  const body = { entity_type: 'context', fields: { tokens: 'lots', 'user.tier': 'gold' }, field: 'tokens', rule_ids: [rule.id] };
  const answer = await explainer.post('/api/rule-engine/explain', body);
  t.equal(answer.status, 200);
  t.match(answer.json.position, /^\d+$/);
  const mine = answer.json.rules.find((r: { rule_id: string }) => r.rule_id === rule.id);
  t.match(mine, {
    matched: false, reason: /condition group 0/, revision: '0',
    groups: [{ result: false, conditions: [{ input: 'lots', result: false, reason: 'not a number' }, { input: 'gold', result: true, reason: 'holds' }] }],
  });
  t.ok(answer.json.rules.every((r: { groups: { conditions: { field: string }[] }[] }) => r.groups.some((g) => g.conditions.some((c) => c.field === 'tokens'))));
  t.equal((await admin.post('/api/rule-engine/explain', body)).status, 200, 'admin may explain');
  t.equal((await reader.post('/api/rule-engine/explain', body)).status, 403, 'secrets:read may not');
  t.equal((await evaluator.post('/api/rule-engine/explain', body)).status, 403, 'evaluate may not');
  t.equal((await client(live.url).post('/api/rule-engine/explain', body)).status, 401);
  const bad = await explainer.post('/api/rule-engine/explain', { entity_type: 'context', fields: { a: {} } });
  t.equal(bad.status, 400);
  t.match(bad.json.err, /fields\.a/);
});

t.test('GET /api/audit/digest', async (t) => {
  const digest = await admin.get('/api/audit/digest');
  t.equal(digest.status, 200);
  t.match(digest.json, { sha256: /^[0-9a-f]{64}$/, position: /^\d+$/, counts: { rules: Number, secrets: 1 } });
  await admin.post('/api/contexts', { name: 'one more', content: 'y' });
  t.not((await admin.get('/api/audit/digest')).json.sha256, digest.json.sha256, 'a change changes the digest');
  t.equal((await evaluator.get('/api/audit/digest')).status, 403);
});

t.test('GET /api/audit/events: a page ends at ~8 MB of event data with size_limit_reached and a next', async (t) => {
  const from = new Date().toISOString();
  // Content is capped at 512 KiB (src/domain/input.ts): 16 of these are 8.0 MB, the 17th passes 8 MiB.
  const content = 'x'.repeat(500_000);
  for (let i = 0; i < 18; i++) t.equal((await admin.post('/api/contexts', { name: `large ${i}`, content })).status, 201);
  const query = `type=ContextCreated&from=${from}&limit=1000`;
  const first = await admin.get(`/api/audit/events?${query}`);
  t.equal(first.status, 200);
  t.equal(first.json.events.length, 17, 'seventeen contexts of ~0.5 MB: the seventeenth brought the page to 8 MB');
  t.equal(first.json.size_limit_reached, true, 'the short page says why');
  t.equal(first.json.next, first.json.events[16].position, 'next continues after the last event given');
  const rest = await admin.get(`/api/audit/events?${query}&after=${first.json.next}`);
  t.same([rest.json.events.map((e: { data: { name: string } }) => e.data.name), rest.json.next, rest.json.size_limit_reached], [['large 17'], null, undefined], 'the last one, then the end');
});
