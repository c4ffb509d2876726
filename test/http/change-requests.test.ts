/**
 * Black-box: four eyes (issue 67 items 1, 2 and 6). A protected rule,
 * context, prompt or label changes by no direct route for any key, admin
 * included, unless a break-glass key gives a reason (a BreakGlassUsed event,
 * the metric, the audit log); a change request needs approvers that are not
 * its author, approving names the revision read, an edit clears approvals,
 * apply is all or nothing and stale-safe, applying twice applies once, races
 * end in one consistent state, and a revert is a change request too.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { SNAPSHOT_FILE } from '../../src/snapshots';
import { call, type Answer, type Client } from '../support/http';
import { forCells, type Cell } from '../support/matrix';
import { removeDir, startTestNode, tempDir, testEnv } from '../support/node';
import { withNode, type LiveNode } from '../support/with-node';

const CR = '/api/change-requests';
const RULES = '/api/rule-engine/rules';
const GLASS = { 'RuleVault-Break-Glass': 'incident 42: production is down' };

const put = (live: LiveNode, key: string, path: string, body: unknown, headers: Record<string, string> = {}) =>
  call(live.url, 'PUT', path, { key, body, headers });

const condition = (value: string) => [{ conditions: [{ field: 'f', operator: 'equals', value }] }];

async function created(answer: Promise<Answer>): Promise<any> {
  const done = await answer;
  if (done.status !== 201) throw new Error(`not created: ${done.status} ${done.text}`);
  return done.json;
}

interface Keys { approverA: Client; approverB: Client; glass: Client; glassKey: string; both: Client; bothKey: string; bothId: string }

async function keysOn(live: LiveNode): Promise<Keys> {
  const key = async (name: string, scopes: string[]) => (await created(live.admin.post('/api/api-keys', { name, scopes })));
  const [a, b, glass, both] = [await key('approver-a', ['approve']), await key('approver-b', ['approve']), await key('glass', ['admin', 'break-glass']), await key('both', ['admin', 'approve'])];
  return {
    approverA: live.clientFor(a.key), approverB: live.clientFor(b.key), glass: live.clientFor(glass.key), glassKey: glass.key,
    both: live.clientFor(both.key), bothKey: both.key, bothId: both.id,
  };
}

const etag = (answer: Answer) => answer.headers.get('etag')!;

/** Opens and submits a request; answers it as read after the submit. */
async function submitted(author: Client, changes: unknown[], title = 'a change'): Promise<Answer> {
  const opened = await created(author.post(CR, { title, changes }));
  const answer = await author.post(`${CR}/${opened.id}/submit`);
  if (answer.status !== 200) throw new Error(`not submitted: ${answer.text}`);
  return answer;
}

async function approved(author: Client, approver: Client, changes: unknown[]): Promise<string> {
  const review = await submitted(author, changes);
  const answer = await approver.post(`${CR}/${review.json.id}/approve`, undefined, { headers: { 'If-Match': etag(review) } });
  if (answer.status !== 200) throw new Error(`not approved: ${answer.text}`);
  return review.json.id;
}

forCells(t, 'change-requests', (t, cell: Cell) => {
  const live = withNode(t, { cell });
  const admin = live.admin;
  let keys: Keys;
  t.before(async () => {
    keys = await keysOn(live);
  });
  const rule = async (name: string, extra: Record<string, unknown> = {}) => created(admin.post(RULES, { name, condition_groups: condition(name), ...extra }));
  const protect = async (resource: Record<string, string>) => {
    const answer = await put(live, live.node.adminKey, '/api/protections', { resource });
    if (answer.status !== 200) throw new Error(`not protected: ${answer.text}`);
    return answer.json;
  };

  t.test('no key without break-glass changes a protected resource by any route', async (t) => {
    const r = await rule('guarded');
    const ctx = await created(admin.post('/api/contexts', { name: 'guarded-context', content: 'c' }));
    const linked = await created(admin.post('/api/contexts', { name: 'linked-by-guarded', content: 'l' }));
    await admin.patch(`${RULES}/${r.id}`, { entities: [{ entity_type: 'context', entity_id: linked.id }] });
    const p = await created(admin.post('/api/prompts', { name: 'guarded-prompt', prompt: 'v1' }));
    const labelled = await created(admin.post('/api/prompts', { name: 'labelled-prompt', prompt: 'v1' }));
    await created(admin.post(`/api/prompts/${labelled.id}/versions`, { prompt: 'v2' }));
    t.equal((await put(live, live.node.adminKey, `/api/prompts/${labelled.id}/labels/production`, { version: '1.0.0' })).status, 200);
    t.equal((await put(live, live.node.adminKey, `/api/prompts/${labelled.id}/labels/staging`, { version: '1.0.0' })).status, 200);
    await protect({ type: 'rule', id: r.id });
    await protect({ type: 'context', id: ctx.id });
    await protect({ type: 'prompt', id: p.id });
    const label = await protect({ type: 'prompt-label', id: 'labelled-prompt', label: 'production' });
    t.same(label.resource, { type: 'prompt-label', id: labelled.id, label: 'production' }, 'a prompt named by name is protected by id');
    const listed = (await keys.approverA.get('/api/protections')).json.protections.map((p: { resource: { id: string } }) => p.resource.id);
    t.same([...listed].sort(), [r.id, ctx.id, p.id, labelled.id].sort(), 'the protections are listed');

    const ruleBefore = (await admin.get(`${RULES}/${r.id}`)).json.revision;
    const writers: [string, Client, string][] = [
      ['the admin key', admin, live.node.adminKey], ['a break-glass key without the header', keys.glass, keys.glassKey], ['an admin+approve key', keys.both, keys.bothKey],
    ];
    for (const [who, writer, key] of writers) {
      const attempts: [string, Promise<Answer>, string][] = [
        ['PATCH rule', writer.patch(`${RULES}/${r.id}`, { name: 'x' }), r.id],
        ['DELETE rule', writer.delete(`${RULES}/${r.id}`), r.id],
        ['PATCH context', writer.patch(`/api/contexts/${ctx.id}`, { content: 'x' }), ctx.id],
        ['DELETE context', writer.delete(`/api/contexts/${ctx.id}`), ctx.id],
        ['DELETE a context a protected rule links', writer.delete(`/api/contexts/${linked.id}`), r.id],
        ['PATCH prompt', writer.patch(`/api/prompts/${p.id}`, { tags: ['x'] }), p.id],
        ['DELETE prompt', writer.delete(`/api/prompts/${p.id}`), p.id],
        ['POST prompt version', writer.post(`/api/prompts/${p.id}/versions`, { prompt: 'v2' }), p.id],
        ['PUT protected label', call(live.url, 'PUT', `/api/prompts/${labelled.id}/labels/production`, { key, body: { version: '1.1.0' } }), labelled.id],
        ['DELETE prompt of a protected label', writer.delete(`/api/prompts/${labelled.id}`), labelled.id],
      ];
      for (const [what, attempt, id] of attempts) {
        const answer = await attempt;
        t.same({ status: answer.status, code: answer.json?.code }, { status: 409, code: 'protected' }, `${who}: ${what} is 409 protected`);
        t.ok(answer.json?.err.includes(id) && answer.json?.err.includes('/api/change-requests'), `${who}: ${what} names the resource and the route`);
      }
    }
    t.equal((await put(live, live.node.adminKey, `/api/prompts/${labelled.id}/labels/staging`, { version: '1.1.0' })).status, 200, 'an unprotected label of the prompt still moves');
    const imported = await call(live.url, 'POST', '/api/import', { key: live.node.adminKey, raw: JSON.stringify({ kind: 'rule', id: r.id, name: 'over', condition_groups: condition('o') }) });
    t.equal(imported.status, 409, 'an import naming the protected rule\'s id is refused');
    const unprotect = await call(live.url, 'DELETE', '/api/protections', { key: live.node.adminKey, body: { resource: { type: 'rule', id: r.id } } });
    t.same({ status: unprotect.status, code: unprotect.json.code }, { status: 409, code: 'protected' }, 'a direct unprotect is 409');
    t.match(unprotect.json.err, '/api/change-requests');
    t.equal((await admin.get(`${RULES}/${r.id}`)).json.revision, ruleBefore, 'the protected rule did not move');

    // Break-glass: its own scope, a reason, an event, the metric and the audit.
    const noReason = await keys.glass.patch(`${RULES}/${r.id}`, { name: 'x' }, { headers: { 'RuleVault-Break-Glass': '  ' } });
    t.same({ status: noReason.status, code: noReason.json.code }, { status: 400, code: 'bad_request' }, 'break-glass without a reason is a 400');
    t.match(noReason.json.err, 'RuleVault-Break-Glass');
    const noScope = await admin.patch(`${RULES}/${r.id}`, { name: 'x' }, { headers: GLASS });
    t.equal(noScope.status, 403, 'the header without the break-glass scope is a 403');
    const broke = await keys.glass.patch(`${RULES}/${r.id}`, { name: 'emergency' }, { headers: GLASS });
    t.equal(broke.status, 200, 'break-glass with a reason writes');
    t.equal(broke.json.name, 'emergency');
    const label2 = await call(live.url, 'PUT', `/api/prompts/${labelled.id}/labels/production`, { key: keys.glassKey, body: { version: '1.1.0' }, headers: GLASS });
    t.equal(label2.status, 200, 'break-glass moves a protected label (the lean path and express alike)');
    const used = (await admin.get('/api/audit/events?stream=protections&type=BreakGlassUsed&limit=100')).json.events;
    t.same(used.map((e: any) => [e.data.resource.id, e.data.reason, e.data.operation]), [
      [r.id, GLASS['RuleVault-Break-Glass'], 'updateRule'],
      [labelled.id, GLASS['RuleVault-Break-Glass'], 'movePromptLabel'],
    ], 'each use is a BreakGlassUsed event in the audit log, with its reason');
    const metrics = await admin.get('/metrics');
    t.match(metrics.text, /^rulevault_break_glass_total 2$/m, 'and is counted by rulevault_break_glass_total');
  });

  t.test('an author never approves its own request; approval names the revision read; an edit clears it', async (t) => {
    const r = await rule('four-eyes');
    await protect({ type: 'rule', id: r.id });
    const change = (name: string) => [{ op: 'update', resource: { type: 'rule', id: r.id }, body: { name } }];
    const review = await submitted(keys.both, change('by-both'));
    const id = review.json.id;
    t.equal(review.json.state, 'in_review');
    t.same(review.json.changes[0].base_revision, r.revision, 'the change is pinned to the revision drafted against');
    const own = await keys.both.post(`${CR}/${id}/approve`, undefined, { headers: { 'If-Match': etag(review) } });
    t.same({ status: own.status, code: own.json.code }, { status: 403, code: 'forbidden' }, 'a key that is author and approver cannot approve its own request');
    t.equal((await admin.post(`${CR}/${id}/approve`, undefined, { headers: { 'If-Match': etag(review) } })).status, 403, 'the admin scope does not approve');
    const noMatch = await keys.approverA.post(`${CR}/${id}/approve`);
    t.same({ status: noMatch.status, code: noMatch.json.code }, { status: 400, code: 'bad_request' }, 'approving needs If-Match');
    const early = await keys.both.post(`${CR}/${id}/apply`);
    t.equal(early.status, 409, 'a request in review does not apply');
    const ok = await keys.approverA.post(`${CR}/${id}/approve`, undefined, { headers: { 'If-Match': etag(review) } });
    t.equal(ok.status, 200);
    t.equal(ok.json.state, 'approved');
    t.equal(ok.json.approvals.length, 1);
    const edited = await keys.both.patch(`${CR}/${id}`, { changes: change('edited') }, { headers: { 'If-Match': etag(ok) } });
    t.equal(edited.status, 200);
    t.same({ state: edited.json.state, approvals: edited.json.approvals }, { state: 'in_review', approvals: [] }, 'an edit after an approval clears it');
    const stale = await keys.approverB.post(`${CR}/${id}/approve`, undefined, { headers: { 'If-Match': etag(ok) } });
    t.equal(stale.status, 409, 'approving with a stale If-Match is 409: it would approve changes not read');
    const again = await keys.approverB.post(`${CR}/${id}/approve`, undefined, { headers: { 'If-Match': etag(edited) } });
    t.equal(again.json.state, 'approved');
    const applied = await keys.both.post(`${CR}/${id}/apply`);
    t.equal(applied.status, 200);
    t.equal(applied.json.state, 'applied');
    const after = (await admin.get(`${RULES}/${r.id}`)).json;
    t.equal(after.name, 'edited', 'the edited change is what applied');
    const events = (await admin.get(`${RULES}/${r.id}/history`)).json.events;
    t.equal(events[events.length - 1].metadata.change_request, id, 'the resource event names the request in its metadata');
    const twice = await keys.both.post(`${CR}/${id}/apply`);
    t.same({ status: twice.status, results: twice.json.results }, { status: 200, results: applied.json.results }, 'applying twice answers the first apply');
    t.equal((await admin.get(`${RULES}/${r.id}`)).json.revision, after.revision, 'and applies once');
    const late = await keys.approverA.post(`${CR}/${id}/approve`, undefined, { headers: { 'If-Match': etag(twice) } });
    t.equal(late.status, 409, 'approving an applied request is 409');
    const history = (await keys.approverA.get(`${CR}/${id}/history`)).json.events.map((e: any) => [e.type, e.actor]);
    t.same(history.map(([type]: string[]) => type), [
      'ChangeRequestOpened', 'ChangeRequestSubmitted', 'ChangeRequestApproved', 'ChangeRequestRevised', 'ChangeRequestApproved',
      // EventStoreDB cannot append several streams at once: the plan is written first, then finished forward.
      ...(cell.store === 'esdb' ? ['ChangeRequestApplying'] : []), 'ChangeRequestApplied',
    ], 'every step is an event of the request\'s stream');
    t.equal(history[0][1], keys.bothId, 'with who did it');
  });

  t.test('N distinct approvers with RULEVAULT_APPROVALS_REQUIRED=2', async (t) => {
    const two = withNode(t, { cell, env: { RULEVAULT_APPROVALS_REQUIRED: '2' } });
    let k: Keys;
    t.before(async () => {
      k = await keysOn(two);
    });
    t.test('two approvals, from two keys', async (t) => {
      const r = await created(two.admin.post(RULES, { name: 'two', condition_groups: condition('two') }));
      const review = await submitted(two.admin, [{ op: 'update', resource: { type: 'rule', id: r.id }, body: { name: 'two-approved' } }]);
      const first = await k.approverA.post(`${CR}/${review.json.id}/approve`, undefined, { headers: { 'If-Match': etag(review) } });
      t.same({ state: first.json.state, approvals: first.json.approvals.length, required: first.json.approvals_required }, { state: 'in_review', approvals: 1, required: 2 });
      const same = await k.approverA.post(`${CR}/${review.json.id}/approve`, undefined, { headers: { 'If-Match': etag(first) } });
      t.equal(same.status, 409, 'one key approves once');
      t.equal((await two.admin.post(`${CR}/${review.json.id}/apply`)).status, 409, 'one approval of two does not apply');
      const second = await k.approverB.post(`${CR}/${review.json.id}/approve`, undefined, { headers: { 'If-Match': etag(first) } });
      t.equal(second.json.state, 'approved');
      t.equal((await two.admin.post(`${CR}/${review.json.id}/apply`)).json.state, 'applied');
      t.equal((await two.admin.get(`${RULES}/${r.id}`)).json.name, 'two-approved');
    });
  });

  t.test('apply is all or nothing and stale-safe', async (t) => {
    const moved = await rule('moved');
    const kept = await rule('kept');
    await protect({ type: 'rule', id: moved.id });
    const id = await approved(admin, keys.approverA, [
      { op: 'update', resource: { type: 'rule', id: kept.id }, body: { name: 'kept-changed' } },
      { op: 'update', resource: { type: 'rule', id: moved.id }, body: { name: 'moved-changed' } },
    ]);
    const broke = await keys.glass.patch(`${RULES}/${moved.id}`, { description: 'moved by break-glass' }, { headers: GLASS });
    t.equal(broke.status, 200);
    const apply = await admin.post(`${CR}/${id}/apply`);
    t.same({ status: apply.status, code: apply.json.code }, { status: 409, code: 'stale' }, 'a pinned resource that moved makes apply stale');
    t.match(apply.json.err, moved.id, 'naming the resource');
    t.equal((await admin.get(`${RULES}/${kept.id}`)).json.name, 'kept', 'nothing was written: not even the change that did not move');
    t.equal((await admin.get(`${RULES}/${moved.id}`)).json.revision, broke.json.revision);
    const read = await admin.get(`${CR}/${id}`);
    t.equal(read.json.state, 'stale');
    t.equal(read.json.closed.resource.id, moved.id);
    const approve = await keys.approverB.post(`${CR}/${id}/approve`, undefined, { headers: { 'If-Match': etag(read) } });
    t.same({ status: approve.status, code: approve.json.code }, { status: 409, code: 'stale' }, 'approving a stale request is 409');

    const doomed = await rule('doomed');
    const deleting = await approved(admin, keys.approverA, [{ op: 'update', resource: { type: 'rule', id: doomed.id }, body: { name: 'never' } }]);
    t.equal((await admin.delete(`${RULES}/${doomed.id}`)).status, 204);
    const gone = await admin.post(`${CR}/${deleting}/apply`);
    t.same({ status: gone.status, code: gone.json.code }, { status: 409, code: 'stale' }, 'a request naming a deleted resource is stale');
    t.match(gone.json.err, 'deleted');

    // A request over several resources and kinds applies whole, in one step.
    const context = await created(admin.post('/api/contexts', { name: 'cr-context', content: 'before' }));
    const prompt = await created(admin.post('/api/prompts', { name: 'cr-prompt', prompt: 'one' }));
    const newRule = '0190d6a6-0000-7000-8000-00000000c0de';
    const whole = await approved(admin, keys.approverA, [
      { op: 'update', resource: { type: 'context', id: context.id }, body: { content: 'after' } },
      { op: 'add-version', resource: { type: 'prompt', id: 'cr-prompt' }, body: { prompt: 'two' } },
      { op: 'move-label', resource: { type: 'prompt-label', id: 'cr-prompt', label: 'production' }, body: { version: '1.1.0' } },
      { op: 'create', resource: { type: 'rule', id: newRule }, body: { name: 'created-by-cr', condition_groups: condition('new'), entities: [{ entity_type: 'context', entity_id: context.id }] } },
      { op: 'protect', resource: { type: 'prompt-label', id: prompt.id, label: 'production' } },
    ]);
    const done = await admin.post(`${CR}/${whole}/apply`);
    t.equal(done.status, 200, done.text);
    t.equal((await admin.get(`/api/contexts/${context.id}`)).json.content, 'after');
    t.equal((await admin.get(`/api/prompts/${prompt.id}?label=production`)).json.version, '1.1.0', 'a version and the label moved to it');
    t.equal((await admin.get(`${RULES}/${newRule}`)).json.name, 'created-by-cr');
    const moveBack = await put(live, live.node.adminKey, `/api/prompts/${prompt.id}/labels/production`, { version: '1.0.0' });
    t.equal(moveBack.json.code, 'protected', 'the protect change protects');
  });

  t.test('races end in exactly one consistent state', async (t) => {
    for (let round = 0; round < 5; round++) {
      const r = await rule(`race-${round}`);
      const review = await submitted(admin, [{ op: 'update', resource: { type: 'rule', id: r.id }, body: { name: `raced-${round}` } }]);
      const id = review.json.id;
      const [a, b] = await Promise.all([keys.approverA, keys.approverB].map((k) => k.post(`${CR}/${id}/approve`, undefined, { headers: { 'If-Match': etag(review) } })));
      t.same([a!.status, b!.status].sort(), [200, 409], `round ${round}: of two racing approvers exactly one approves`);
      t.equal((await admin.get(`${CR}/${id}`)).json.approvals.length, 1);

      const other = await submitted(admin, [{ op: 'update', resource: { type: 'rule', id: r.id }, body: { name: `other-${round}` } }]);
      const [approve, edit] = await Promise.all([
        keys.approverA.post(`${CR}/${other.json.id}/approve`, undefined, { headers: { 'If-Match': etag(other) } }),
        admin.patch(`${CR}/${other.json.id}`, { title: `edited ${round}` }),
      ]);
      t.equal(edit!.status, 200, `round ${round}: the edit lands`);
      const after = (await admin.get(`${CR}/${other.json.id}`)).json;
      const last = (await admin.get(`${CR}/${other.json.id}/history`)).json.events.at(-1).type;
      t.same({ approvals: after.approvals, state: after.state, last }, { approvals: [], state: 'in_review', last: 'ChangeRequestRevised' },
        `round ${round}: an approval racing an edit is cleared by it or refused (${approve!.status})`);
      t.ok(approve!.status === 200 || approve!.status === 409);
    }
  });

  t.test('unprotecting and reverting are change requests', async (t) => {
    const r = await rule('revertable');
    await protect({ type: 'rule', id: r.id });
    const id = await approved(admin, keys.approverA, [{ op: 'update', resource: { type: 'rule', id: r.id }, body: { name: 'renamed', description: 'new' } }]);
    t.equal((await admin.post(`${CR}/${id}/apply`)).status, 200);
    const revert = await admin.post(`${CR}/${id}/revert`);
    t.equal(revert.status, 201);
    t.same({ state: revert.json.state, changes: revert.json.changes }, {
      state: 'draft',
      changes: [{ op: 'update', resource: { type: 'rule', id: r.id }, base_revision: (await admin.get(`${RULES}/${r.id}`)).json.revision, body: { name: 'revertable', description: '' } }],
    }, 'a revert opens a draft restoring the before-revision, pinned to the applied one');
    await admin.post(`${CR}/${revert.json.id}/submit`);
    const read = await admin.get(`${CR}/${revert.json.id}`);
    await keys.approverA.post(`${CR}/${revert.json.id}/approve`, undefined, { headers: { 'If-Match': etag(read) } });
    t.equal((await admin.post(`${CR}/${revert.json.id}/apply`)).status, 200);
    t.equal((await admin.get(`${RULES}/${r.id}`)).json.name, 'revertable', 'the revert applied');

    const unprotect = await approved(admin, keys.approverA, [{ op: 'unprotect', resource: { type: 'rule', id: r.id } }]);
    t.equal((await admin.post(`${CR}/${unprotect}/apply`)).status, 200);
    t.equal((await admin.patch(`${RULES}/${r.id}`, { name: 'free' })).status, 200, 'an applied unprotect frees the resource');
    const event = (await admin.get('/api/audit/events?stream=protections&type=ResourceUnprotected')).json.events.at(-1);
    t.same(event.data, { resource: { type: 'rule', id: r.id }, change_request: unprotect });
  });

  t.test('as of a past point, a request is as it was then', async (t) => {
    const r = await rule('as-of');
    await protect({ type: 'rule', id: r.id });
    const id = await approved(admin, keys.approverA, [{ op: 'update', resource: { type: 'rule', id: r.id }, body: { name: 'as-of-2' } }]);
    t.equal((await admin.post(`${CR}/${id}/apply`)).status, 200);
    await admin.post(`${CR}/${id}/comments`, { text: 'after the apply' });
    const steps = (await admin.get(`${CR}/${id}/history`)).json.events as { type: string; position: string; at: string }[];
    const at = (type: string) => steps.find((e) => e.type === type)!;
    const asOf = (point: string) => admin.get(`${CR}/${id}?as_of=${encodeURIComponent(point)}`);
    const then = async (point: string) => {
      const answer = await asOf(point);
      t.equal(answer.status, 200, answer.text);
      t.equal(answer.headers.get('etag'), null, 'no ETag: nothing approves a past revision');
      const { state, approvals, comments, as_of } = answer.json;
      return { state, approvals: approvals.map((a: { by: string }) => a.by), comments: comments.length, as_of: as_of.position };
    };
    const opened = at('ChangeRequestOpened');
    t.same(await then(opened.position), { state: 'draft', approvals: [], comments: 0, as_of: opened.position }, 'opened: a draft');
    t.same((await then(at('ChangeRequestSubmitted').position)).state, 'in_review', 'submitted: in review');
    const approval = await then(at('ChangeRequestApproved').position);
    t.same(approval.state, 'approved', 'approved');
    t.equal(approval.approvals.length, 1, 'with its approver');
    t.same((await then(at('ChangeRequestApplied').position)).state, 'applied');
    const late = await then(new Date(Date.parse(steps.at(-1)!.at) + 1).toISOString());
    t.same([late.state, late.comments], ['applied', 1], 'as of a time: the comment after the apply too');

    const before = await asOf('0');
    t.equal(before.status, 404, 'not opened yet');
    t.match(before.json.err, `change request ${id} was not opened yet at as_of`);
    t.equal((await asOf('2000-01-01T00:00:00Z')).status, 404, 'nor at a time before it');
    const bad = await asOf('yesterday');
    t.equal(bad.status, 400);
    t.match(bad.json.err, 'as_of must be');
    t.equal((await keys.approverA.get(`${CR}/${id}?as_of=${opened.position}`)).status, 403, 'as of a past point: the auditor\'s scope (admin)');
    t.equal((await keys.approverA.get(`${CR}/${id}`)).status, 200, 'now: admin or approve');
    t.equal((await admin.get(`${CR}/${id}?asof=1`)).status, 400, 'another query parameter is a 400');
  });

  t.test('a start from a snapshot still knows what is protected and every request', async (t) => {
    const env = testEnv(tempDir());
    t.teardown(() => removeDir(env.RULEVAULT_DATA_DIR!));
    const first = await startTestNode(env, undefined, cell.store);
    const before = call(first.url, 'POST', RULES, { key: first.adminKey, body: { name: 'kept-safe', condition_groups: condition('k') } });
    const id = (await before).json.id;
    await call(first.url, 'PUT', '/api/protections', { key: first.adminKey, body: { resource: { type: 'rule', id } } });
    const opened = await call(first.url, 'POST', CR, { key: first.adminKey, body: { title: 'kept', changes: [{ op: 'delete', resource: { type: 'rule', id } }] } });
    await first.stop();
    t.ok(existsSync(path.join(env.RULEVAULT_DATA_DIR!, SNAPSHOT_FILE)), 'the stop wrote a snapshot, which the next start reads');
    const again = await startTestNode(env, undefined, cell.store);
    t.teardown(() => again.stop());
    const write = await call(again.url, 'PATCH', `${RULES}/${id}`, { key: again.adminKey, body: { name: 'x' } });
    t.equal(write.json?.code, 'protected', 'the protection survived the restart');
    t.equal((await call(again.url, 'GET', `${CR}/${opened.json.id}`, { key: again.adminKey })).json.state, 'draft', 'and the request');
  });

  t.test('bad input is a 400 naming the member; unknown ids 404', async (t) => {
    const r = await rule('inputs');
    const cases: [unknown, number, string][] = [
      [{ title: 't', changes: [] }, 400, 'changes must hold at least one change'],
      [{ title: 't' }, 400, 'changes is required'],
      [{ changes: [{ op: 'update', resource: { type: 'rule', id: r.id }, body: {} }] }, 400, 'title is required'],
      [{ title: 't', changes: [{ op: 'rename', resource: { type: 'rule', id: r.id } }] }, 400, 'changes[0].op must be one of'],
      [{ title: 't', changes: [{ op: 'update', resource: { type: 'rule', id: r.id }, body: { nmae: 'x' } }] }, 400, 'changes[0].body has an unknown member "nmae"'],
      [{ title: 't', changes: [{ op: 'update', resource: { type: 'rule', id: r.id }, body: { name: 5 } }] }, 400, 'changes[0].body: name must be a string'],
      [{ title: 't', changes: [{ op: 'move-label', resource: { type: 'rule', id: r.id }, body: {} }] }, 400, 'changes[0].resource.type must be one of prompt-label'],
      [{ title: 't', changes: [{ op: 'update', resource: { type: 'rule', id: r.id }, base_revision: 3, body: {} }] }, 400, 'changes[0].base_revision must be a revision'],
      [{ title: 't', changes: [{ op: 'delete', resource: { type: 'rule', id: 'nope' } }] }, 404, 'rule nope not found'],
      [{ title: 't', changes: [{ op: 'unprotect', resource: { type: 'rule', id: r.id } }] }, 409, 'is not protected'],
    ];
    for (const [body, status, message] of cases) {
      const answer = await admin.post(CR, body);
      t.equal(answer.status, status, message);
      t.match(answer.json.err, message);
    }
    t.equal((await admin.get(`${CR}/nope`)).status, 404);
    t.equal((await admin.post(`${CR}/nope/apply`)).status, 404);
    t.equal((await admin.get(`${CR}?state=nope`)).status, 400);
    t.equal((await put(live, live.node.adminKey, '/api/protections', { resource: { type: 'rule', id: 'nope' } })).status, 404);
    t.equal((await put(live, live.node.adminKey, '/api/protections', {})).status, 400);
    const page = await admin.get(`${CR}?limit=1`);
    t.equal(page.json.change_requests.length, 1, 'the list is paged');
    t.type(page.json.next_cursor, 'string');
    const reject = await submitted(admin, [{ op: 'update', resource: { type: 'rule', id: r.id }, body: { name: 'no' } }]);
    t.equal((await keys.approverA.post(`${CR}/${reject.json.id}/reject`, {})).status, 400, 'a reject needs a reason');
    t.equal((await keys.approverA.post(`${CR}/${reject.json.id}/comments`, { text: 'why?' })).status, 201);
    const rejected = await keys.approverA.post(`${CR}/${reject.json.id}/reject`, { reason: 'not now' });
    t.same({ state: rejected.json.state, comments: rejected.json.comments.map((c: { text: string }) => c.text) }, { state: 'rejected', comments: ['why?'] }, 'comments are kept with the request');
  });
});

