/**
 * Black-box: each change of GET /api/change-requests/{id} carries its
 * `before` (docs/change-requests.md#before), on both stores. An approve key
 * reads no rule, context or prompt route, yet sees what each change it is
 * asked to approve replaces: the live record while it is at the pinned
 * revision, the record at that revision once it moved or was deleted, and
 * after an apply the record the apply found. A create and a protect have
 * none; only the resources the request names are shown.
 */
import t from 'tap';
import { call, type Answer, type Client } from '../support/http';
import { forCells, type Cell } from '../support/matrix';
import { withNode } from '../support/with-node';

const CR = '/api/change-requests';
const RULES = '/api/rule-engine/rules';
const condition = (value: string) => [{ conditions: [{ field: 'tier', operator: 'equals', value }] }];
/** The value a rule of `condition` tests (the service answers its conditions normalized). */
const tested = (rule: { condition_groups: { conditions: { value: string }[] }[] }) => rule.condition_groups[0]!.conditions[0]!.value;

async function ok(answer: Promise<Answer>, status = 200): Promise<any> {
  const done = await answer;
  if (done.status !== status) throw new Error(`expected ${status}, got ${done.status}: ${done.text}`);
  return done.json;
}

forCells(t, 'change-requests', (t, cell: Cell) => {
  const live = withNode(t, { cell });
  const admin = live.admin;
  let approver: Client;
  let approverKey: string;
  t.before(async () => {
    approverKey = (await ok(admin.post('/api/api-keys', { name: 'approver', scopes: ['approve'] }), 201)).key;
    approver = live.clientFor(approverKey);
  });
  const befores = async (id: string, reader: Client = approver) => ((await ok(reader.get(`${CR}/${id}`))).changes as any[]).map((c) => c.before);

  t.test('an approve key sees what each change replaces, and only those resources', async (t) => {
    const rule = await ok(admin.post(RULES, { name: 'silver', condition_groups: condition('silver') }), 201);
    const untouched = await ok(admin.post(RULES, { name: 'untouched', condition_groups: condition('iron') }), 201);
    const context = await ok(admin.post('/api/contexts', { name: 'tone', content: 'Be brief.' }), 201);
    const prompt = await ok(admin.post('/api/prompts', { name: 'before-prompt', prompt: 'one' }), 201);
    const second = await ok(admin.post(`/api/prompts/${prompt.id}/versions`, { prompt: 'two' }), 201);
    await ok(call(live.url, 'PUT', `/api/prompts/${prompt.id}/labels/production`, { key: live.node.adminKey, body: { version: '1.0.0' } }));
    t.equal((await approver.get(`${RULES}/${rule.id}`)).status, 403, 'an approve key reads no rule route');
    t.equal((await approver.get(`/api/contexts/${context.id}`)).status, 403, 'nor a context route');

    const request = await ok(admin.post(CR, {
      title: 'before and after',
      changes: [
        { op: 'update', resource: { type: 'rule', id: rule.id }, body: { condition_groups: condition('gold') } },
        { op: 'update', resource: { type: 'context', id: context.id }, body: { content: 'Answer in depth.' } },
        { op: 'move-label', resource: { type: 'prompt-label', id: prompt.id, label: 'production' }, body: { version: second.version } },
        { op: 'create', resource: { type: 'rule', id: '0190d6a6-0000-7000-8000-00000000bef0' }, body: { name: 'new', condition_groups: condition('new') } },
        { op: 'protect', resource: { type: 'rule', id: rule.id } },
      ],
    }), 201);
    const read = await ok(approver.get(`${CR}/${request.id}`));
    const [ruleBefore, contextBefore, promptBefore, created, protectedBefore] = read.changes.map((c: any) => c.before);
    t.same(ruleBefore, await ok(admin.get(`${RULES}/${rule.id}`)), 'the rule as GET of it answers, at the pinned revision');
    t.equal(tested(ruleBefore), 'silver', 'the current value, not the proposed one');
    t.same(contextBefore, await ok(admin.get(`/api/contexts/${context.id}`)), 'the context likewise');
    t.equal(promptBefore.id, prompt.id);
    t.equal(promptBefore.labels.production, '1.0.0', 'the label where it is now');
    t.equal(promptBefore.version, '1.0.0', 'the prompt at the version its label names');
    t.equal(promptBefore.prompt, 'one');
    t.equal(created, null, 'a create replaces nothing');
    t.equal(protectedBefore, null, 'a protect replaces no record');
    t.notOk(JSON.stringify(read).includes(untouched.id), 'a resource the request does not name is not shown');
    t.same(read.changes.map((c: any) => { const { before: _, ...rest } = c; return rest; }), request.changes, 'the changes as they were, plus before');
    const listed = await ok(approver.get(`${CR}?limit=100`));
    t.notOk('before' in listed.change_requests.find((r: any) => r.id === request.id).changes[0], 'a list does not read histories');
  });

  t.test('a pending change pinned to a revision that moved on shows that revision', async (t) => {
    const rule = await ok(admin.post(RULES, { name: 'mover', condition_groups: condition('a') }), 201);
    const request = await ok(admin.post(CR, { title: 'pinned', changes: [{ op: 'update', resource: { type: 'rule', id: rule.id }, body: { name: 'renamed' } }] }), 201);
    await ok(admin.patch(`${RULES}/${rule.id}`, { condition_groups: condition('b') }));
    const [moved] = await befores(request.id);
    t.equal(moved.revision, '0', 'at base_revision, not the live revision');
    t.equal(tested(moved), 'a', 'read from the stream history');
    t.equal(moved.name, 'mover');

    await ok(admin.delete(`${RULES}/${rule.id}`), 204);
    const [deleted] = await befores(request.id);
    t.same(deleted, moved, 'a deleted resource: still the record at base_revision');
  });

  t.test('an applied change shows the record its apply found', async (t) => {
    const rule = await ok(admin.post(RULES, { name: 'applied', condition_groups: condition('one') }), 201);
    await ok(admin.patch(`${RULES}/${rule.id}`, { condition_groups: condition('two') }));
    const opened = await ok(admin.post(CR, { title: 'apply', changes: [{ op: 'update', resource: { type: 'rule', id: rule.id }, body: { condition_groups: condition('three') } }] }), 201);
    const submitted = await admin.post(`${CR}/${opened.id}/submit`);
    await ok(approver.post(`${CR}/${opened.id}/approve`, undefined, { headers: { 'If-Match': submitted.headers.get('etag')! } }));
    const applied = await ok(admin.post(`${CR}/${opened.id}/apply`));
    t.equal(applied.state, 'applied');
    const [before] = await befores(opened.id);
    t.equal(before.revision, applied.results[0].before_revision, 'the revision the apply found');
    t.equal(tested(before), 'two', 'its values, not the applied ones');
    t.equal(tested(await ok(admin.get(`${RULES}/${rule.id}`))), 'three', 'while the live rule has the applied ones');
    t.same(await befores(opened.id, admin), [before], 'an admin key sees the same');
  });

  t.test('as of a past point there is no before; the readers are those of the request', async (t) => {
    const rule = await ok(admin.post(RULES, { name: 'past', condition_groups: condition('p') }), 201);
    const request = await ok(admin.post(CR, { title: 'past', changes: [{ op: 'delete', resource: { type: 'rule', id: rule.id } }] }), 201);
    const [before] = await befores(request.id);
    t.equal(before.name, 'past', 'a delete shows what it removes');
    const past = await ok(admin.get(`${CR}/${request.id}?as_of=${encodeURIComponent(new Date().toISOString())}`));
    t.notOk('before' in past.changes[0], 'as_of answers the request as the log held it');
    const evaluateKey = (await ok(admin.post('/api/api-keys', { name: 'evaluate', scopes: ['evaluate'] }), 201)).key;
    t.equal((await call(live.url, 'GET', `${CR}/${request.id}`, { key: evaluateKey })).status, 403, 'an evaluate key reads no request');
  });
});
