/**
 * Black-box: prompts by name and label (issue 16 item 1). Unique names, reads
 * by id or name at a version or a label, label moves as events in the
 * prompt's history, chat prompts with a config, evaluate's `label` and
 * `strict`, and the new state through a snapshot start and time travel.
 */
import t from 'tap';
import { createLogger } from '../../src/base/log';
import { call, client, type Client } from '../support/http';
import { forCells } from '../support/matrix';
import { removeDir, startTestNode, tempDir, testEnv } from '../support/node';
import { withNode } from '../support/with-node';

const put = (on: { url: string; adminKey: string }, path: string, body: unknown, headers: Record<string, string> = {}) =>
  call(on.url, 'PUT', path, { key: on.adminKey, body, headers });

async function linkRule(admin: Client, suite: string, promptId: string): Promise<void> {
  const rule = await admin.post('/api/rule-engine/rules', {
    name: suite, condition_groups: [{ conditions: [{ field: 'suite', operator: 'equals', value: suite }] }],
    entities: [{ entity_type: 'prompt', entity_id: promptId }],
  });
  if (rule.status !== 201) throw new Error(`rule not created: ${rule.text}`);
}

forCells(t, 'prompt-labels', (t, cell) => {
  const live = withNode(t, { cell });
  const admin = live.admin;
  const node = () => ({ url: live.url, adminKey: live.node.adminKey });
  let evaluator: Client;
  t.before(async () => {
    evaluator = live.clientFor((await admin.post('/api/api-keys', { name: 'evaluator', scopes: ['evaluate'] })).json.key);
  });
  const evaluate = (suite: string, entityInputs: unknown) => evaluator.post('/api/rule-engine/evaluate', {
    entity_type: 'prompt', fields: { suite }, include_entity_data: true, entity_inputs: entityInputs,
  });

  t.test('names are unique, exact and case-sensitive: a create or rename to a taken name is 409 naming the holder', async (t) => {
    const first = await admin.post('/api/prompts', { name: 'unique-name', prompt: 'a' });
    t.equal(first.status, 201);
    const again = await admin.post('/api/prompts', { name: 'unique-name', prompt: 'b' });
    t.equal(again.status, 409);
    t.equal(again.json.err, `prompt name "unique-name" is taken by prompt ${first.json.id}`);
    const otherCase = await admin.post('/api/prompts', { name: 'Unique-Name', prompt: 'c' });
    t.equal(otherCase.status, 201, 'names differing in case are different names');
    const renamed = await admin.patch(`/api/prompts/${otherCase.json.id}`, { name: 'unique-name' });
    t.equal(renamed.status, 409);
    t.match(renamed.json.err, `is taken by prompt ${first.json.id}`);
    t.equal((await admin.patch(`/api/prompts/${first.json.id}`, { name: 'unique-name', tags: ['x'] })).status, 200, 'its own name is not taken');
    t.equal((await admin.delete('/api/prompts/unique-name')).status, 204, 'deleted by name');
    t.equal((await admin.get(`/api/prompts/${first.json.id}`)).status, 404);
    t.equal((await admin.patch(`/api/prompts/${otherCase.json.id}`, { name: 'unique-name' })).status, 200, 'a deleted prompt frees its name');
    t.equal((await admin.get('/api/prompts/unique-name')).json.id, otherCase.json.id);
  });

  t.test('a prompt is read by id or name, at a version or a label', async (t) => {
    const created = await admin.post('/api/prompts', { name: 'reader', prompt: 'v1 {{x}}' });
    const id = created.json.id as string;
    await admin.post(`/api/prompts/${id}/versions`, { prompt: 'v2 {{x}}' });
    t.match((await admin.get('/api/prompts/reader')).json, { id, version: '1.1.0', prompt: 'v2 {{x}}', labels: { latest: '1.1.0' } });
    t.match((await admin.get('/api/prompts/reader?version=1.0.0')).json, { id, version: '1.0.0', prompt: 'v1 {{x}}' });
    t.match((await admin.get(`/api/prompts/${id}?label=latest`)).json, { version: '1.1.0' });
    const unset = await admin.get('/api/prompts/reader?label=production');
    t.equal(unset.status, 404);
    t.equal(unset.json.err, `label production of prompt ${id} not found`);
    t.equal((await admin.get('/api/prompts/reader?label=latest&version=1.0.0')).status, 400, 'version and label together');
    const badLabel = await admin.get('/api/prompts/reader?label=Prod');
    t.equal(badLabel.status, 400);
    t.match(badLabel.json.err, /label must be a label: a lowercase letter/);
    t.equal((await admin.get('/api/prompts/no-such-prompt')).status, 404);
  });

  t.test('labels: production and custom labels move by an admin call, latest by itself; each move is in the history', async (t) => {
    const created = await admin.post('/api/prompts', { name: 'promoted', prompt: 'one' });
    const id = created.json.id as string;
    await admin.post(`/api/prompts/${id}/versions`, { prompt: 'two' });
    const promoted = await put(node(), '/api/prompts/promoted/labels/production', { version: '1.0.0' });
    t.equal(promoted.status, 200);
    t.same(promoted.json.labels, { latest: '1.1.0', production: '1.0.0' });
    t.same(promoted.json.versions.map((v: { labels: string[] }) => v.labels), [['production'], ['latest']]);
    t.equal(promoted.headers.get('etag'), `"${promoted.json.revision}"`);
    const same = await put(node(), `/api/prompts/${id}/labels/production`, { version: '1.0.0' });
    t.equal(same.json.revision, promoted.json.revision, 'moving a label where it is writes nothing');

    await admin.post(`/api/prompts/${id}/versions`, { prompt: 'three' });
    t.same((await admin.get(`/api/prompts/${id}`)).json.labels, { latest: '1.2.0', production: '1.0.0' }, 'latest moved by itself, production stayed');
    t.equal((await put(node(), `/api/prompts/${id}/labels/production`, { version: '1.2.0' })).json.labels.production, '1.2.0', 'promoted');
    t.equal((await put(node(), `/api/prompts/${id}/labels/production`, { version: '1.0.0' })).json.labels.production, '1.0.0', 'rolled back');
    t.equal((await put(node(), `/api/prompts/${id}/labels/staging`, { version: '1.1.0' })).json.labels.staging, '1.1.0', 'a custom label');
    t.match((await admin.get(`/api/prompts/promoted?label=staging`)).json, { version: '1.1.0', prompt: 'two' });

    const refusals: [string, string, unknown, number, RegExp][] = [
      ['PUT', 'latest', { version: '1.0.0' }, 400, /latest names the newest version by itself/],
      ['PUT', 'production', { version: '9.0.0' }, 400, /version 9\.0\.0 is not a version of prompt .*; it has 1\.0\.0, 1\.1\.0, 1\.2\.0/],
      ['PUT', 'production', {}, 400, /version is required/],
      ['PUT', 'production', { version: '1.0.0', extra: 1 }, 400, /unknown member "extra"/],
      ['PUT', 'Production', { version: '1.0.0' }, 400, /label must be a label/],
      ['PUT', '1.0.0', { version: '1.0.0' }, 400, /label must be a label/],
      ['DELETE', 'production', undefined, 400, /production cannot be removed, only moved/],
      ['DELETE', 'latest', undefined, 400, /latest cannot be removed/],
      ['DELETE', 'canary', undefined, 404, /label canary of prompt .* not found/],
    ];
    for (const [method, label, body, status, message] of refusals) {
      const answer = await call(live.url, method, `/api/prompts/${id}/labels/${label}`, { key: live.node.adminKey, body });
      t.equal(answer.status, status, `${method} ${label}`);
      t.match(answer.json.err, message, `${method} ${label}`);
    }
    t.equal((await put(node(), '/api/prompts/nope/labels/production', { version: '1.0.0' })).status, 404);
    t.equal((await put(node(), `/api/prompts/${id}/labels/staging`, { version: '1.0.0' }, { 'if-match': '0' })).status, 409, 'a stale If-Match');
    const evaluateKey = (await admin.post('/api/api-keys', { name: 'no-admin', scopes: ['evaluate'] })).json.key;
    t.equal((await call(live.url, 'PUT', `/api/prompts/${id}/labels/staging`, { key: evaluateKey, body: { version: '1.0.0' } })).status, 403);

    const removed = await call(live.url, 'DELETE', `/api/prompts/${id}/labels/staging`, { key: live.node.adminKey });
    t.equal(removed.status, 200);
    t.same(removed.json.labels, { latest: '1.2.0', production: '1.0.0' });

    const history = await admin.get('/api/prompts/promoted/history');
    t.equal(history.status, 200);
    t.same(history.json.events.map((e: { type: string }) => e.type), [
      'PromptCreated', 'PromptVersionAdded', 'PromptLabelMoved', 'PromptVersionAdded',
      'PromptLabelMoved', 'PromptLabelMoved', 'PromptLabelMoved', 'PromptLabelRemoved',
    ]);
    t.same(history.json.events.filter((e: { type: string }) => e.type !== 'PromptVersionAdded' && e.type !== 'PromptCreated').map((e: { data: unknown }) => e.data), [
      { id, label: 'production', version: '1.0.0', previous: null },
      { id, label: 'production', version: '1.2.0', previous: '1.0.0' },
      { id, label: 'production', version: '1.0.0', previous: '1.2.0' },
      { id, label: 'staging', version: '1.1.0', previous: null },
      { id, label: 'staging', previous: '1.1.0' },
    ]);
    t.match(history.json.events[2], { actor: 'env-admin', revision: '2' });
    t.equal((await admin.get('/api/prompts/nope/history')).status, 404);
  });

  t.test('the label constructor (a name every JavaScript object inherits) is unset until it is moved', async (t) => {
    const created = await admin.post('/api/prompts', { name: 'inherited-names', prompt: 'hello {{who}}' });
    const id = created.json.id as string;
    await linkRule(admin, 'constructor-label', id);
    const removed = await call(live.url, 'DELETE', `/api/prompts/${id}/labels/constructor`, { key: live.node.adminKey });
    t.equal(removed.status, 404, 'removing it is removing a label that is not set');
    t.match(removed.json.err, /label constructor of prompt .* not found/);
    t.equal((await admin.get(`/api/prompts/${id}?label=constructor`)).status, 404, 'no version is read at it');
    const evaluated = await evaluate('constructor-label', { label: 'constructor', variables: { who: 'Ada' } });
    t.equal(evaluated.json.entity_data[`prompt:${id}`], null, 'evaluate: an unset label is a null record');
    const compiled = await evaluator.post('/api/prompt/get-compiled', { name: 'inherited-names', version: 'constructor', variables: { who: 'Ada' } });
    t.match(compiled.json, { err: /has no version labelled constructor/, res: null }, 'get-compiled: no version labelled so');

    const moved = await put(node(), `/api/prompts/${id}/labels/constructor`, { version: '1.0.0' });
    t.equal(moved.status, 200);
    t.same(moved.json.labels, { constructor: '1.0.0', latest: '1.0.0' });
    t.match((await admin.get(`/api/prompts/${id}?label=constructor`)).json, { version: '1.0.0' });
    const history = (await admin.get(`/api/prompts/${id}/history`)).json.events;
    t.same(history.at(-1).data, { id, label: 'constructor', version: '1.0.0', previous: null }, 'the move says it was unset before');
    t.equal((await call(live.url, 'DELETE', `/api/prompts/${id}/labels/constructor`, { key: live.node.adminKey })).status, 200, 'once set, it is removed');
  });

  t.test('evaluate: entity_inputs.label selects the version; with version it is a 400; an unset label is a null record', async (t) => {
    const created = await admin.post('/api/prompts', { name: 'evaluated', prompt: 'first {{who}}' });
    const id = created.json.id as string;
    await admin.post(`/api/prompts/${id}/versions`, { prompt: 'second {{who}}' });
    await linkRule(admin, 'labels', id);
    const key = `prompt:${id}`;
    t.equal((await evaluate('labels', { label: 'production', variables: { who: 'Ada' } })).json.entity_data[key], null, 'production not set yet');
    await put(node(), `/api/prompts/${id}/labels/production`, { version: '1.0.0' });
    t.match((await evaluate('labels', { label: 'production', variables: { who: 'Ada' } })).json.entity_data[key], { version: '1.0.0', compiled_prompt: 'first Ada' });
    t.match((await evaluate('labels', { label: 'latest', variables: { who: 'Ada' } })).json.entity_data[key], { version: '1.1.0', compiled_prompt: 'second Ada' });
    const both = await evaluate('labels', { label: 'production', version: '1.0.0' });
    t.equal(both.status, 400);
    t.equal(both.json.err, 'entity_inputs takes version or label, not both');
    const bad = await evaluate('labels', { label: 7 });
    t.equal(bad.status, 400);
    t.match(bad.json.err, /^entity_inputs\.label must be a label/);
    t.equal((await evaluate('labels', { label: null })).status, 400, 'null is not absent');
  });

  t.test('evaluate: strict refuses a render with variables missing, naming them; lenient lists them', async (t) => {
    const created = await admin.post('/api/prompts', { name: 'strict', prompt: 'Dear {{title}} {{name}}, {{greeting}}' });
    const id = created.json.id as string;
    await linkRule(admin, 'strict', id);
    const key = `prompt:${id}`;
    const lenient = (await evaluate('strict', { variables: { name: 'Ada' } })).json.entity_data[key];
    t.match(lenient, { compiled_prompt: 'Dear  Ada, ', missing_variables: ['greeting', 'title'] });
    t.notOk('error' in lenient);
    const strict = await evaluate('strict', { variables: { name: 'Ada' }, strict: true });
    t.equal(strict.status, 200, 'the rest of the answer stands');
    t.match(strict.json.entity_data[key], {
      compiled_prompt: null, error: 'missing variables: greeting, title (strict compile)', missing_variables: ['greeting', 'title'],
    });
    const complete = (await evaluate('strict', { variables: { name: 'Ada', title: 'Dr', greeting: 'hi' }, strict: true })).json.entity_data[key];
    t.match(complete, { compiled_prompt: 'Dear Dr Ada, hi', missing_variables: [] });
    t.equal((await evaluate('strict', { strict: 'yes' })).json.err, 'entity_inputs.strict must be a boolean');
  });

  t.test('chat prompts with a config: each message a template, rendered in order; the config as given', async (t) => {
    const config = { model: 'gpt-4o', temperature: 0.2, tools: [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object' } } }] };
    const messages = [{ role: 'system', content: 'You help {{user}}.' }, { role: 'user', content: '{{#each items}}[{{this}}]{{/each}}' }];
    const created = await admin.post('/api/prompts', { name: 'chat', prompt: messages, config });
    t.equal(created.status, 201, created.text);
    t.match(created.json, { type: 'chat', prompt: messages, config, variables: ['items', 'user'] });
    const id = created.json.id as string;
    await linkRule(admin, 'chat', id);
    const record = (await evaluate('chat', { variables: { user: 'Ada', items: ['a', 'b'] } })).json.entity_data[`prompt:${id}`];
    t.match(record, {
      type: 'chat', prompt: messages, config, missing_variables: [],
      compiled_prompt: [{ role: 'system', content: 'You help Ada.' }, { role: 'user', content: '[a][b]' }],
    });
    const raw = (await evaluate('chat', { shouldCompile: false })).json.entity_data[`prompt:${id}`];
    t.same(raw.compiled_prompt, messages, 'shouldCompile false: the messages as written');
    const text = await admin.post(`/api/prompts/${id}/versions`, { prompt: 'plain {{user}}' });
    t.match(text.json, { version: '1.1.0', type: 'text', prompt: 'plain {{user}}', config: null });
    t.match((await admin.get(`/api/prompts/${id}?version=1.0.0`)).json, { type: 'chat', config });

    const refusals: [unknown, RegExp][] = [
      [{ name: 'c1', prompt: [] }, /prompt, as a chat, must have at least one message/],
      [{ name: 'c2', prompt: [{ role: 'user' }] }, /prompt\[0\]\.content is required/],
      [{ name: 'c3', prompt: [{ role: 'user', content: 'ok' }, { role: 'user', content: '{{#if}}x{{/if}}' }] }, /prompt\[1\]\.content is not a valid Handlebars template/],
      [{ name: 'c4', prompt: [{ role: 'user', content: '{{a}}'.repeat(1001) }] }, /^prompt\[0\]\.content: prompt has more than 1000 expressions; the limit is RULEVAULT_TEMPLATE_MAX_EXPRESSIONS/],
      [{ name: 'c5', prompt: [{ role: 'user', content: 'x', name: 'n' }] }, /prompt\[0\] has an unknown member "name"/],
      [{ name: 'c6', prompt: [{ role: '', content: 'x' }] }, /prompt\[0\]\.role must not be empty/],
      [{ name: 'c7', prompt: Array.from({ length: 101 }, () => ({ role: 'user', content: 'x' })) }, /prompt must have at most 100 items/],
      [{ name: 'c8', prompt: 42 }, /prompt must be a string \(a template\) or an array of \{role, content\} messages \(a chat\)/],
      [{ name: 'c9', prompt: 'x', config: [] }, /config must be a JSON object/],
      [{ name: 'c10', prompt: 'x', config: { blob: 'x'.repeat(17_000) } }, /config is \d+ bytes of JSON; the limit is 16384/],
    ];
    for (const [body, message] of refusals) {
      const answer = await admin.post('/api/prompts', body);
      t.equal(answer.status, 400, JSON.stringify(body).slice(0, 80));
      t.match(answer.json.err, message);
    }
  });
});

t.test('labels, chats and configs survive a snapshot start, and time travel answers with the labels of then', async (t) => {
  const dir = tempDir();
  t.teardown(() => removeDir(dir));
  const env = testEnv(dir);
  const first = await startTestNode(env);
  const admin = client(first.url, first.adminKey);
  const created = await admin.post('/api/prompts', { name: 'kept', prompt: [{ role: 'user', content: 'v1 {{x}}' }], config: { model: 'm1' } });
  const id = created.json.id as string;
  await admin.post(`/api/prompts/${id}/versions`, { prompt: 'v2 {{x}}', config: { model: 'm2' } });
  await call(first.url, 'PUT', `/api/prompts/${id}/labels/production`, { key: first.adminKey, body: { version: '1.0.0' } });
  await call(first.url, 'PUT', `/api/prompts/${id}/labels/beta`, { key: first.adminKey, body: { version: '1.1.0' } });
  await admin.post('/api/rule-engine/rules', {
    name: 'kept', condition_groups: [{ conditions: [{ field: 'k', operator: 'equals', value: 'k' }] }], entities: [{ entity_type: 'prompt', entity_id: id }],
  });
  const thenPosition = (await admin.get('/readyz')).json.position as string;
  await call(first.url, 'PUT', `/api/prompts/${id}/labels/production`, { key: first.adminKey, body: { version: '1.1.0' } });
  const body = { entity_type: 'prompt', fields: { k: 'k' }, include_entity_data: true, entity_inputs: { label: 'production', variables: { x: 'X' } } };
  const asOf = await admin.post('/api/audit/evaluate', { ...body, as_of: thenPosition });
  t.equal(asOf.status, 200, asOf.text);
  t.match(asOf.json.entity_data[`prompt:${id}`], { version: '1.0.0', type: 'chat', compiled_prompt: [{ role: 'user', content: 'v1 X' }], config: { model: 'm1' } }, 'time travel: production as it was');
  const before = (await admin.get(`/api/prompts/${id}`)).json;
  const beforeByName = (await admin.get('/api/prompts/kept?label=beta')).json;
  await first.stop();

  const lines: string[] = [];
  const second = await startTestNode(env, createLogger((line) => lines.push(line)));
  t.teardown(() => second.stop());
  const ready = lines.map((l) => JSON.parse(l)).find((r) => r.msg === 'ready');
  t.ok(ready.from_snapshot, 'started from the snapshot');
  t.equal(ready.replayed_events, 0, 'nothing replayed: the state came from the snapshot');
  const again = client(second.url, second.adminKey);
  t.same((await again.get(`/api/prompts/${id}`)).json, before, 'labels and versions after a snapshot start');
  t.same((await again.get('/api/prompts/kept?label=beta')).json, beforeByName, 'the name index after a snapshot start');
  t.match((await again.get(`/api/prompts/${id}?version=1.0.0`)).json, { type: 'chat', prompt: [{ role: 'user', content: 'v1 {{x}}' }], config: { model: 'm1' } });
  t.equal((await again.post('/api/prompts', { name: 'kept', prompt: 'x' })).status, 409, 'the name is still taken');
});
