/**
 * Black-box (issue 14, item 7): admin writes that cannot silently go wrong.
 * A misspelt member or query parameter is a 400 naming it; a write that
 * changes nothing writes no event; reads and writes carry the revision as an
 * ETag, and If-Match takes it back (or `*`); the last admin key stays.
 */
import t from 'tap';
import { client } from '../support/http';
import { removeDir, startTestNode, tempDir, testEnv } from '../support/node';
import { withNode } from '../support/with-node';
import { forCells } from '../support/matrix';

forCells(t, 'admin-writes', (t, cell) => {
  const simpleRule = {
    name: 'route gpt-4 traffic',
    condition_groups: [{ conditions: [{ field: 'gen_ai.request.model', operator: 'equals', value: 'gpt-4' }] }],
  };

  const live = withNode(t, { cell });
  const admin = live.admin;

  /** Every event of one stream, from the audit log. */
  async function streamEvents(stream: string): Promise<{ type: string }[]> {
    const answer = await admin.get(`/api/audit/events?stream=${encodeURIComponent(stream)}&limit=1000`);
    if (answer.status !== 200) throw new Error(`audit events: ${answer.status} ${answer.text}`);
    return answer.json.events;
  }

  async function created(path: string, body: unknown): Promise<{ id: string; revision: string }> {
    const answer = await admin.post(path, body);
    if (answer.status !== 201) throw new Error(`${path}: ${answer.status} ${answer.text}`);
    return answer.json;
  }

  t.test('a PATCH with a misspelt member is a 400 naming it, and writes nothing', async (t) => {
    const rule = await created('/api/rule-engine/rules', simpleRule);
    const context = await created('/api/contexts', { name: 'c', content: 'x' });
    const prompt = await created('/api/prompts', { name: 'p', prompt: 'Hi {{name}}' });
    const secret = await created('/api/vault/secrets', { key: 'TYPO_TEST', value: 'v' });
    const cases: [string, string, string][] = [
      [`/api/rule-engine/rules/${rule.id}`, `rule-${rule.id}`, 'allowed: name, description, status, group_operator, condition_groups, entities, key, splits'],
      [`/api/contexts/${context.id}`, `context-${context.id}`, 'allowed: name, description, content, tags, meta_properties, status'],
      [`/api/prompts/${prompt.id}`, `prompt-${prompt.id}`, 'allowed: name, tags, meta_properties, status'],
      [`/api/vault/secrets/${secret.id}`, `secret-${secret.id}`, 'allowed: key, value, tags'],
    ];
    for (const [path, stream, allowed] of cases) {
      const before = (await streamEvents(stream)).length;
      const answer = await admin.patch(path, { stauts: 'INACTIVE' });
      t.equal(answer.status, 400, `${path}: 400`);
      t.equal(answer.json.err, `body has an unknown member "stauts"${path.includes('secrets') ? '' : ' (did you mean status?)'}; ${allowed}`, `${path}: names the member and the allowed ones`);
      t.equal((await streamEvents(stream)).length, before, `${path}: no event`);
    }
  });

  t.test('create bodies with an unknown member are 400s too, API keys included', async (t) => {
    const cases: [string, unknown, RegExp][] = [
      ['/api/rule-engine/rules', { ...simpleRule, source: 'openlit' }, /body has an unknown member "source"/],
      ['/api/rule-engine/rules', { name: 'x', condition_groups: [{ conditions: [{ field: 'n', operator: 'gt', value: '5', datatype: 'number' }] }] },
        /condition_groups\[0\]\.conditions\[0\] has an unknown member "datatype" \(did you mean data_type\?\)/],
      ['/api/contexts', { name: 'c', content: 'x', metaProperties: { a: 1 } }, /unknown member "metaProperties" \(did you mean meta_properties\?\)/],
      ['/api/prompts', { name: 'p', prompt: 'x', template: 'y' }, /unknown member "template"/],
      ['/api/vault/secrets', { key: 'K2', value: 'v', tag: ['a'] }, /unknown member "tag" \(did you mean tags\?\)/],
      ['/api/api-keys', { name: 'k', scopes: ['evaluate'], secret_tag: ['prod'] }, /unknown member "secret_tag" \(did you mean secret_tags\?\); allowed: name, scopes, secret_tags/],
    ];
    for (const [path, body, message] of cases) {
      const answer = await admin.post(path, body);
      t.equal(answer.status, 400, `${path}: 400`);
      t.match(answer.json.err, message, `${path}: names the member`);
    }
    const prompt = await created('/api/prompts', { name: 'v', prompt: 'x' });
    const version = await admin.post(`/api/prompts/${prompt.id}/versions`, { prompt: 'y', name: 'renamed' });
    t.equal(version.status, 400);
    t.match(version.json.err, /unknown member "name"; allowed: prompt, version/);
    t.notOk((await admin.get('/api/api-keys')).json.api_keys.some((k: { name: string }) => k.name === 'k'), 'the refused key was not created');
  });

  t.test('the public endpoints keep ignoring unknown members', async (t) => {
    const key = (await created('/api/api-keys', { name: 'public', scopes: ['evaluate', 'secrets:read'] }) as unknown as { key: string }).key;
    const app = live.clientFor(key);
    const evaluated = await app.post('/api/rule-engine/evaluate', { entity_type: 'context', fields: {}, source: 'openlit', metaProperties: {} });
    t.equal(evaluated.status, 200);
    const secrets = await app.post('/api/vault/get-secrets', { tags: ['none'], source: 'openlit' });
    t.same(secrets.json, { err: null, res: {} });
  });

  t.test('an unknown query parameter on an admin route is a 400 naming it', async (t) => {
    const prompt = await created('/api/prompts', { name: 'q', prompt: 'x' });
    const misspelt = await admin.get(`/api/prompts/${prompt.id}?verison=1.0.0`);
    t.equal(misspelt.status, 400);
    t.equal(misspelt.json.err, 'unknown query parameter "verison"; allowed: version, label');
    t.equal((await admin.get(`/api/prompts/${prompt.id}?version=1.0.0`)).status, 200, 'the right one works');
    for (const [method, path] of [
      // status is a filter of the rule list since issue 17 item 6; a misspelt one is still refused.
      ['GET', '/api/rule-engine/rules?stauts=ACTIVE'],
      ['GET', `/api/prompts?id=${prompt.id}`],
      ['DELETE', `/api/prompts/${prompt.id}?force=true`],
      ['PATCH', `/api/prompts/${prompt.id}?dry_run=1`],
    ] as const) {
      const answer = method === 'GET' ? await admin.get(path) : method === 'DELETE' ? await admin.delete(path) : await admin.patch(path, { name: 'n' });
      t.equal(answer.status, 400, `${method} ${path}: 400`);
      // The lists take paging and filter parameters since issue 17 item 6, and list them.
      t.match(answer.json.err, /^unknown query parameter "\w+"(: this route takes none|; allowed: [a-z_, ]+)$/, `${method} ${path}: names it`);
    }
    t.equal((await admin.get(`/api/prompts/${prompt.id}`)).json.name, 'q', 'the PATCH with a bad parameter did not happen');
  });

  t.test('a PATCH that changes nothing writes no event and answers the current state', async (t) => {
    const context = await created('/api/contexts', { name: 'c', content: 'x' });
    const rule = await created('/api/rule-engine/rules', {
      ...simpleRule, entities: [{ entity_type: 'context', entity_id: context.id }],
    });
    const path = `/api/rule-engine/rules/${rule.id}`;
    const history = async () => (await admin.get(`${path}/history`)).json.events.length as number;
    const before = await history();
    for (const body of [{}, { name: simpleRule.name, status: 'ACTIVE' }, { condition_groups: simpleRule.condition_groups, entities: [{ entity_type: 'context', entity_id: context.id }] }]) {
      const answer = await admin.patch(path, body, { headers: { 'if-match': '"0"' } });
      t.equal(answer.status, 200, `${JSON.stringify(body)}: 200`);
      t.equal(answer.json.revision, '0', 'the revision did not move');
      t.equal(answer.headers.get('etag'), '"0"');
      t.same(answer.json, (await admin.get(path)).json, 'the answer is the current state');
    }
    t.equal(await history(), before, 'no event in the rule history');
    t.equal((await streamEvents(`rule-${rule.id}`)).length, 1, 'nor in the log');
    const real = await admin.patch(path, { name: simpleRule.name, status: 'INACTIVE' }, { headers: { 'if-match': '"0"' } });
    t.equal(real.json.revision, '1', 'a real change still writes');
    t.same((await admin.get(`${path}/history`)).json.events[1].changes, { status: { before: 'ACTIVE', after: 'INACTIVE' } }, 'recording only what changed');

    const contextPath = `/api/contexts/${context.id}`;
    const same = await admin.patch(contextPath, { name: 'c', content: 'x', tags: [], meta_properties: {} });
    t.equal(same.json.revision, '0');
    const prompt = await created('/api/prompts', { name: 'p-noop', prompt: 'x', tags: ['a'] });
    t.equal((await admin.patch(`/api/prompts/${prompt.id}`, { tags: ['a'], status: 'ACTIVE' })).json.revision, '0');
    const secret = await created('/api/vault/secrets', { key: 'NOOP_TEST', value: 'v', tags: ['t'] });
    const secretPatch = await admin.patch(`/api/vault/secrets/${secret.id}`, {});
    t.equal(secretPatch.status, 200, 'an empty secret PATCH is no change (it was a 400)');
    t.match(secretPatch.json, { revision: '0', version: 1 });
    t.match((await admin.patch(`/api/vault/secrets/${secret.id}`, { key: 'NOOP_TEST', tags: ['t'] })).json, { revision: '0', version: 1 });
    t.equal((await streamEvents(`context-${context.id}`)).length + (await streamEvents(`prompt-${prompt.id}`)).length + (await streamEvents(`secret-${secret.id}`)).length, 3, 'one event each: their creation');
  });

  t.test('reads and writes carry the revision as an ETag, which If-Match takes back', async (t) => {
    const post = await admin.post('/api/contexts', { name: 'e', content: 'x' });
    t.equal(post.headers.get('etag'), '"0"', 'create');
    const path = `/api/contexts/${post.json.id}`;
    const got = await admin.get(path);
    t.equal(got.headers.get('etag'), '"0"', 'read');
    const patched = await admin.patch(path, { content: 'y' }, { headers: { 'if-match': got.headers.get('etag')! } });
    t.equal(patched.status, 200);
    t.equal(patched.headers.get('etag'), '"1"', 'update');
    t.equal((await admin.patch(path, { content: 'z' }, { headers: { 'if-match': '"0"' } })).status, 409, 'the old ETag is stale');
    t.equal((await admin.patch(path, { content: 'z' }, { headers: { 'if-match': '"0", "1"' } })).status, 200, 'a list matches when one of its ETags is current');

    const rule = await admin.post('/api/rule-engine/rules', simpleRule);
    t.equal(rule.headers.get('etag'), '"0"');
    t.equal((await admin.get(`/api/rule-engine/rules/${rule.json.id}`)).headers.get('etag'), '"0"');
    const prompt = await admin.post('/api/prompts', { name: 'e', prompt: 'x' });
    t.equal(prompt.headers.get('etag'), '"0"');
    const version = await admin.post(`/api/prompts/${prompt.json.id}/versions`, { prompt: 'y' }, { headers: { 'if-match': '"0"' } });
    t.equal(version.headers.get('etag'), '"1"', 'a new version moves the revision');
    t.equal((await admin.post(`/api/prompts/${prompt.json.id}/versions`, { prompt: 'z' }, { headers: { 'if-match': '"0"' } })).status, 409, 'adding a version honours If-Match');
    t.equal((await admin.get(`/api/prompts/${prompt.json.id}?version=1.0.0`)).headers.get('etag'), '"1"', 'the prompt\'s revision, whichever version is shown');
    const secret = await admin.post('/api/vault/secrets', { key: 'ETAG_TEST', value: 'v' });
    t.equal(secret.headers.get('etag'), '"0"');
    t.equal((await admin.patch(`/api/vault/secrets/${secret.json.id}`, { value: 'w' })).headers.get('etag'), '"1"');
  });

  t.test('If-Match: * writes to whatever revision exists, and 404s when nothing does', async (t) => {
    const rule = await created('/api/rule-engine/rules', simpleRule);
    const path = `/api/rule-engine/rules/${rule.id}`;
    await admin.patch(path, { name: 'moved on' });
    const star = await admin.patch(path, { status: 'INACTIVE' }, { headers: { 'if-match': '*' } });
    t.equal(star.status, 200);
    t.equal(star.json.revision, '2');
    const missing = await admin.patch('/api/rule-engine/rules/00000000-0000-0000-0000-000000000000', { name: 'x' }, { headers: { 'if-match': '*' } });
    t.equal(missing.status, 404);
    t.match(missing.json.err, /not found/);
    const bad = await admin.patch(path, { name: 'x' }, { headers: { 'if-match': '*, "1"' } });
    t.equal(bad.status, 400);
    t.match(bad.json.err, /If-Match must be \*, a revision number/);
  });

  t.test('deletes honour If-Match', async (t) => {
    const rule = await created('/api/rule-engine/rules', simpleRule);
    const path = `/api/rule-engine/rules/${rule.id}`;
    await admin.patch(path, { name: 'moved on' });
    const stale = await admin.delete(path, { headers: { 'if-match': '"0"' } });
    t.equal(stale.status, 409);
    t.match(stale.json.err, /revision 1, not 0/);
    t.equal((await admin.get(path)).status, 200, 'the stale delete did not happen');
    t.equal((await admin.delete(path, { headers: { 'if-match': '"1"' } })).status, 204);
    const context = await created('/api/contexts', { name: 'c', content: 'x' });
    t.equal((await admin.delete(`/api/contexts/${context.id}`, { headers: { 'if-match': '*' } })).status, 204);
    const secret = await created('/api/vault/secrets', { key: 'DELETE_ETAG', value: 'v' });
    t.equal((await admin.delete(`/api/vault/secrets/${secret.id}`, { headers: { 'if-match': '"3"' } })).status, 409);
    t.equal((await admin.delete(`/api/vault/secrets/${secret.id}`, { headers: { 'if-match': '"0"' } })).status, 204);
    const key = await created('/api/api-keys', { name: 'revoked with If-Match', scopes: ['evaluate'] });
    t.equal((await admin.delete(`/api/api-keys/${key.id}`, { headers: { 'if-match': '"1"' } })).status, 409, 'an API key is always at revision 0');
    t.equal((await admin.delete(`/api/api-keys/${key.id}`, { headers: { 'if-match': '"0"' } })).status, 204);
  });

  t.test('the last active admin key cannot be revoked', async (t) => {
    const env = testEnv(tempDir());
    delete env.RULEVAULT_ADMIN_KEY;
    const bare = await startTestNode(env);
    t.teardown(async () => {
      await bare.stop();
      removeDir(bare.dataDir);
    });
    const key = /(rv_[A-Za-z0-9_-]{43})/.exec(bare.announced[0]!)![1]!;
    const root = client(bare.url, key);
    const bootstrapId = (await root.get('/api/api-keys')).json.api_keys[0].id as string;
    const last = await root.delete(`/api/api-keys/${bootstrapId}`);
    t.equal(last.status, 409);
    t.equal(last.json.err, `API key ${bootstrapId} is the last active admin key: revoking it would leave no key that can administer RuleVault; create another admin key first`);
    t.equal((await root.get('/api/api-keys')).status, 200, 'the key still works');

    const second = (await root.post('/api/api-keys', { name: 'second admin', scopes: ['admin'] })).json;
    t.equal((await root.delete(`/api/api-keys/${bootstrapId}`)).status, 204, 'with another admin key, it can go');
    const other = client(bare.url, second.key);
    t.equal((await other.delete(`/api/api-keys/${second.id}`)).status, 409, 'and then that one is the last');
    const evaluator = (await other.post('/api/api-keys', { name: 'evaluator', scopes: ['evaluate'] })).json;
    t.equal((await other.delete(`/api/api-keys/${evaluator.id}`)).status, 204, 'keys without admin go whatever the count');

    // With RULEVAULT_ADMIN_KEY on the node, the last stored admin key may go: the environment key remains.
    const stored = (await admin.post('/api/api-keys', { name: 'only stored admin', scopes: ['admin'] })).json;
    for (const k of (await admin.get('/api/api-keys')).json.api_keys as { id: string; scopes: string[] }[]) {
      if (k.scopes.includes('admin') && k.id !== stored.id) t.equal((await admin.delete(`/api/api-keys/${k.id}`)).status, 204);
    }
    t.equal((await admin.delete(`/api/api-keys/${stored.id}`)).status, 204, 'RULEVAULT_ADMIN_KEY counts as an admin key');
  });
});
