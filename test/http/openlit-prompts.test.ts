/**
 * Black-box: OpenLIT's prompt route, POST /api/prompt/get-compiled (issue 16
 * item 2), on both HTTP paths: the bodies OpenLIT's SDKs send, answered
 * 200 `{err, res}` always, and `//api/...` served for every route.
 */
import t from 'tap';
import { call, type Client } from '../support/http';
import { forCells } from '../support/matrix';
import { withNode } from '../support/with-node';

const ROUTE = '/api/prompt/get-compiled';
const RES_MEMBERS = ['compiledPrompt', 'config', 'metaProperties', 'missingVariables', 'name', 'prompt', 'promptId', 'tags', 'type', 'variables', 'version', 'versionId'];
const UUID_V5 = /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

forCells(t, 'openlit-prompts', (t, cell) => {
  const live = withNode(t, { cell });
  const admin = live.admin;
  let evaluator: Client;
  let evaluateKey: string;
  let readerKey: string;
  let promptId: string;
  t.before(async () => {
    evaluateKey = (await admin.post('/api/api-keys', { name: 'evaluator', scopes: ['evaluate'] })).json.key;
    readerKey = (await admin.post('/api/api-keys', { name: 'reader', scopes: ['secrets:read'] })).json.key;
    evaluator = live.clientFor(evaluateKey);
    const created = await admin.post('/api/prompts', {
      name: 'support-reply', prompt: 'Hi {{name}}, about {{topic}}', tags: ['support'], meta_properties: { team: 'cx' },
    });
    promptId = created.json.id;
    await admin.post(`/api/prompts/${promptId}/versions`, { prompt: 'Hello {{name}}, re {{topic}}', config: { model: 'gpt-4o' } });
    await call(live.url, 'PUT', `/api/prompts/${promptId}/labels/production`, { key: live.node.adminKey, body: { version: '1.0.0' } });
  });

  t.test("the TypeScript SDK's request: name, no Content-Type, extra members; shouldCompile false by default", async (t) => {
    // What openlit's ts-sdk sends: JSON.stringify drops undefined members; only Authorization is set.
    const raw = JSON.stringify({ name: 'support-reply', shouldCompile: false, variables: {}, metaProperties: { applicationName: 'app', environment: 'prod' }, source: 'ts-sdk' });
    const answer = await call(live.url, 'POST', ROUTE, { key: evaluateKey, raw });
    t.equal(answer.status, 200);
    t.match(answer.headers.get('content-type'), /^application\/json/);
    t.equal(answer.headers.get('cache-control'), 'no-store');
    t.same(Object.keys(answer.json).sort(), ['err', 'res']);
    t.equal(answer.json.err, null);
    t.same(Object.keys(answer.json.res).sort(), RES_MEMBERS);
    t.match(answer.json.res, {
      promptId, name: 'support-reply', version: '1.1.0', tags: ['support'], metaProperties: { team: 'cx' },
      prompt: 'Hello {{name}}, re {{topic}}', compiledPrompt: 'Hello {{name}}, re {{topic}}', type: 'text', config: { model: 'gpt-4o' },
      variables: ['name', 'topic'], missingVariables: ['name', 'topic'],
    });
    t.match(answer.json.res.versionId, UUID_V5);
    const omitted = await evaluator.post(ROUTE, { name: 'support-reply' });
    t.equal(omitted.json.res.compiledPrompt, omitted.json.res.prompt, 'shouldCompile omitted: not compiled');
  });

  t.test("the Python SDK's request: promptId, a version, variables, shouldCompile true", async (t) => {
    const answer = await evaluator.post(ROUTE, {
      promptId, version: '1.0.0', shouldCompile: true, variables: { name: 'Ada', topic: 'billing' }, metaProperties: {}, source: 'python-sdk',
    });
    t.equal(answer.json.err, null, answer.text);
    t.match(answer.json.res, { promptId, version: '1.0.0', prompt: 'Hi {{name}}, about {{topic}}', compiledPrompt: 'Hi Ada, about billing', config: null, missingVariables: [] });
    const byId = await evaluator.post(ROUTE, { id: promptId, version: '1.0.0' });
    t.equal(byId.json.res.versionId, answer.json.res.versionId, 'a version keeps its versionId');
    const other = await evaluator.post(ROUTE, { id: promptId });
    t.not(other.json.res.versionId, answer.json.res.versionId, 'another version, another versionId');
    t.match((await evaluator.post(ROUTE, { id: promptId, name: 'support-reply', version: '1.0.0' })).json.res, { version: '1.0.0' }, 'id and name together');
  });

  t.test('a label: as `version` (the SDKs have no label member) or as `label`', async (t) => {
    t.match((await evaluator.post(ROUTE, { name: 'support-reply', version: 'production' })).json.res, { version: '1.0.0' });
    t.match((await evaluator.post(ROUTE, { name: 'support-reply', label: 'production' })).json.res, { version: '1.0.0' });
    t.match((await evaluator.post(ROUTE, { name: 'support-reply', version: 'latest' })).json.res, { version: '1.1.0' });
    t.same((await evaluator.post(ROUTE, { name: 'support-reply', version: 'canary' })).json, { err: 'prompt "support-reply" has no version labelled canary', code: 'not_found', res: null });
  });

  t.test('variable values are inserted literally', async (t) => {
    const answer = await evaluator.post(ROUTE, {
      name: 'support-reply', shouldCompile: true, variables: { name: "$& $' $` $$ $1", topic: '{{topic}} <b>&amp;</b>' },
    });
    t.equal(answer.json.res.compiledPrompt, "Hello $& $' $` $$ $1, re {{topic}} <b>&amp;</b>");
  });

  t.test('strict compile refuses missing variables, naming them; lenient lists them', async (t) => {
    const strict = await evaluator.post(ROUTE, { name: 'support-reply', shouldCompile: true, strict: true, variables: { name: 'Ada' } });
    t.same(strict.json, { err: 'missing variables: topic (strict compile)', code: 'bad_request', res: null });
    const lenient = await evaluator.post(ROUTE, { name: 'support-reply', shouldCompile: true, variables: { name: 'Ada' } });
    t.match(lenient.json.res, { compiledPrompt: 'Hello Ada, re ', missingVariables: ['topic'] });
  });

  t.test('every failure is 200 with err, its code, and res null', async (t) => {
    const failures: [string, { key?: string; body?: unknown; raw?: string }, string | RegExp][] = [
      ['no key', { body: { name: 'support-reply' } }, 'no API key was provided: send Authorization: Bearer <API_KEY>'],
      ['an unknown key', { key: 'rv_unknown', body: { name: 'support-reply' } }, /invalid/],
      ['a key without evaluate', { key: readerKey, body: { name: 'support-reply' } }, /evaluate/],
      ['an unknown prompt', { key: evaluateKey, body: { name: 'no-such-prompt' } }, 'prompt "no-such-prompt" not found'],
      ['an id and a name of different prompts', { key: evaluateKey, body: { id: promptId, name: 'other' } }, 'prompt "other" not found'],
      ['an unknown version', { key: evaluateKey, body: { name: 'support-reply', version: '9.9.9' } }, 'version 9.9.9 of prompt "support-reply" not found'],
      ['no name or id', { key: evaluateKey, body: { variables: {} } }, 'name, id or promptId is required'],
      ['a bad version', { key: evaluateKey, body: { name: 'support-reply', version: '1.0' } }, 'version must be MAJOR.MINOR.PATCH (e.g. 1.2.0) or a label (e.g. production)'],
      ['version and label', { key: evaluateKey, body: { name: 'support-reply', version: '1.0.0', label: 'production' } }, 'give version or label, not both'],
      ['variables not an object', { key: evaluateKey, body: { name: 'support-reply', variables: [] } }, 'variables must be an object'],
      ['shouldCompile not a boolean', { key: evaluateKey, body: { name: 'support-reply', shouldCompile: 'yes' } }, 'shouldCompile must be a boolean'],
      ['name not a string', { key: evaluateKey, body: { name: 5 } }, 'name must be a non-empty string'],
      ['not JSON', { key: evaluateKey, raw: '{"name":' }, 'request body is not valid JSON'],
      ['not an object', { key: evaluateKey, raw: '[1]' }, 'request body must be a JSON object'],
      ['no body', { key: evaluateKey }, 'request body must be a JSON object'],
    ];
    for (const [name, options, err] of failures) {
      const answer = await call(live.url, 'POST', ROUTE, options);
      t.equal(answer.status, 200, name);
      t.same(Object.keys(answer.json ?? {}).sort(), ['code', 'err', 'res'], name);
      t.match(answer.json.err, err, name);
      t.equal(answer.json.res, null, name);
    }
    const inactive = await admin.post('/api/prompts', { name: 'switched-off', prompt: 'x', status: 'INACTIVE' });
    t.equal(inactive.status, 201);
    t.same((await evaluator.post(ROUTE, { name: 'switched-off' })).json, { err: 'prompt "switched-off" is INACTIVE', code: 'not_found', res: null });
    const get = await call(live.url, 'GET', ROUTE, { key: evaluateKey });
    t.equal(get.status, 200, 'another method: 200 with err, as get-secrets');
    t.match(get.json, { err: /no route for GET/, res: null });
  });

  t.test('a chat prompt: the messages, each content compiled', async (t) => {
    await admin.post('/api/prompts', { name: 'chat-reply', prompt: [{ role: 'system', content: 'Be {{tone}}.' }, { role: 'user', content: '{{q}}' }] });
    const answer = await evaluator.post(ROUTE, { name: 'chat-reply', shouldCompile: true, variables: { tone: 'kind', q: 'Why?' } });
    t.match(answer.json.res, {
      type: 'chat', prompt: [{ role: 'system', content: 'Be {{tone}}.' }, { role: 'user', content: '{{q}}' }],
      compiledPrompt: [{ role: 'system', content: 'Be kind.' }, { role: 'user', content: 'Why?' }],
    });
  });

  t.test('a base URL ending in "/": //api/... is served for every route', async (t) => {
    const compiled = await call(live.url, 'POST', `/${ROUTE}`, { key: evaluateKey, body: { name: 'support-reply' } });
    t.match(compiled.json, { err: null, res: { promptId } }, '//api/prompt/get-compiled');
    const evaluated = await call(live.url, 'POST', '//api/rule-engine/evaluate', { key: evaluateKey, body: { entity_type: 'context', fields: {} } });
    t.same([evaluated.status, evaluated.json], [200, { matchingRuleIds: [], entities: [] }], '//api/rule-engine/evaluate');
    const secrets = await call(live.url, 'POST', '//api/vault/get-secrets', { key: readerKey, body: {} });
    t.same([secrets.status, secrets.json], [200, { err: null, res: {} }], '//api/vault/get-secrets');
    const listed = await call(live.url, 'GET', '//api/prompts', { key: live.node.adminKey });
    t.equal(listed.status, 200, '//api/prompts');
    t.ok(listed.json.prompts.some((p: { id: string }) => p.id === promptId));
    const byName = await call(live.url, 'GET', '///api/prompts/support-reply?label=production', { key: live.node.adminKey });
    t.match([byName.status, byName.json], [200, { id: promptId, version: '1.0.0' }], '///api/prompts/:name');
    const created = await call(live.url, 'POST', '//api/contexts', { key: live.node.adminKey, body: { name: 'slashes', content: 'x' } });
    t.equal(created.status, 201, '//api/contexts (a write)');
    t.equal((await call(live.url, 'GET', '//healthz')).status, 200, '//healthz');
    t.equal((await call(live.url, 'GET', '/api//prompts', { key: live.node.adminKey })).status, 404, 'a // inside a path is another path');
  });
});
