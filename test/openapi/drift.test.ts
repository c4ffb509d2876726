/**
 * The OpenAPI document against the code: (a) the routes served (the Express
 * app's and the lean path's table) and the documented operations are the
 * same set (which path answers each: route-owners.test.ts); (b) real answers
 * of a real node, success and failure, match the documented schema for their
 * path, method and status.
 */
import t from 'tap';
import { openApiDocument, type HttpMethod } from '../../src/http/openapi';
import { LEAN_ROUTES } from '../../src/http/fast-path';
import { call, type Answer, type RequestOptions } from '../support/http';
import { removeDir, startTestNode, tempDir, testEnv, type TestNode } from '../support/node';
import { buildApp } from './build-app';
import { documentedRoutes, listRoutes, toOpenApiPath } from './express-routes';
import { createSchemaCheck } from './schema-check';

const METHODS: readonly HttpMethod[] = ['get', 'post', 'put', 'patch', 'delete'];
const ALLOWED_ORIGIN = 'https://app.example.com';

t.test('express path parameters map to OpenAPI templates', async (t) => {
  t.equal(toOpenApiPath('/api/prompts/:id/versions'), '/api/prompts/{id}/versions');
  t.equal(toOpenApiPath('/healthz'), '/healthz');
});

t.test('every served route is documented and every documented route is served', async (t) => {
  const dir = tempDir();
  const built = await buildApp(dir);
  t.teardown(async () => {
    await built.close();
    removeDir(dir);
  });
  // Express's routers, and the lean path's table (which route each answers: route-owners.test.ts).
  const routes = [
    ...listRoutes(built.app),
    ...LEAN_ROUTES.rows.map((row) => ({ method: row.method.toLowerCase(), path: toOpenApiPath(row.pattern) })),
  ];
  const served = [...new Set(routes.map((r) => `${r.method.toUpperCase()} ${r.path}`))].sort();
  const documented = documentedRoutes().sort();
  t.ok(served.length > 20, `the walk found the app's routes (${served.length})`);
  t.same(served.filter((r) => !documented.includes(r)), [], 'served but not documented');
  t.same(documented.filter((r) => !served.includes(r)), [], 'documented but not served');
});

t.test('the document is valid JSON Schema where it holds schemas, and every $ref resolves', async (t) => {
  const schemaCheck = createSchemaCheck(openApiDocument);
  for (const [path, item] of Object.entries(openApiDocument.paths)) {
    for (const method of METHODS) {
      for (const [status, response] of Object.entries(item[method]?.responses ?? {})) {
        if (response.content?.['application/json'] === undefined) continue;
        // Compiling the schema (with a throwaway value) throws on an unknown keyword or a dangling $ref.
        t.doesNotThrow(() => schemaCheck.check(path, method, Number(status), null), `${method} ${path} ${status}`);
      }
    }
  }
});

t.test('real answers match the documented schemas', async (t) => {
  const node: TestNode = await startTestNode(testEnv(tempDir(), {
    RULEVAULT_ALLOWED_CORS_ORIGINS: ALLOWED_ORIGIN,
    RULEVAULT_MAX_BODY_BYTES: '65536',
    RULEVAULT_DECISION_LOG: '1',
    RULEVAULT_IMPORT_MAX_BYTES: '262144',
  }));
  t.teardown(async () => {
    await node.stop();
    removeDir(node.dataDir);
  });
  const schemaCheck = createSchemaCheck(openApiDocument);
  /** `METHOD path status` of every answer checked, to prove each operation was exercised. */
  const seen = new Set<string>();

  /** Calls `template` with `params` filled in and checks the answer against the document. */
  async function hit(
    method: HttpMethod, template: string, expected: number, options: RequestOptions & { params?: Record<string, string>; query?: string } = {},
  ): Promise<Answer> {
    const path = template.replace(/\{(\w+)\}/g, (_m, name: string) => encodeURIComponent(options.params?.[name] ?? 'missing'));
    const answer = await call(node.url, method.toUpperCase(), path + (options.query ?? ''), options);
    const label = `${method.toUpperCase()} ${template} ${expected}`;
    t.equal(answer.status, expected, `${label}: status (${answer.text.slice(0, 200)})`);
    const documented = openApiDocument.paths[template]?.[method]?.responses[String(answer.status)];
    t.ok(documented, `${label}: status ${answer.status} is documented`);
    for (const [name, header] of Object.entries(documented?.headers ?? {})) {
      t.match(answer.headers.get(name), new RegExp(header.schema.pattern ?? ''), `${label}: ${name} header as documented`);
    }
    const content = documented?.content ?? {};
    if (content['application/json'] !== undefined) {
      t.match(answer.headers.get('content-type'), /^application\/json/, `${label}: JSON`);
      const result = schemaCheck.check(template, method, answer.status, answer.json);
      t.ok(result.ok, `${label}: body matches the schema`, { errors: result.errors, body: answer.json });
    } else if (Object.keys(content).length > 0) {
      const type = Object.keys(content)[0]!;
      t.match(answer.headers.get('content-type'), new RegExp(`^${type}`), `${label}: ${type}`);
    } else {
      t.equal(answer.text, '', `${label}: no body`);
    }
    seen.add(`${method.toUpperCase()} ${template}`);
    return answer;
  }

  const admin = { key: node.adminKey };
  const huge = { raw: JSON.stringify({ name: 'x'.repeat(70_000) }) };

  // Keys of each scope.
  const evaluateKey = (await hit('post', '/api/api-keys', 201, { ...admin, body: { name: 'evaluator', scopes: ['evaluate'] } })).json.key as string;
  const readerKey = (await hit('post', '/api/api-keys', 201, { ...admin, body: { name: 'reader', scopes: ['secrets:read'], secret_tags: ['llm'] } })).json.key as string;
  const explainKey = (await hit('post', '/api/api-keys', 201, { ...admin, body: { name: 'explainer', scopes: ['explain'] } })).json.key as string;
  const doomed = await hit('post', '/api/api-keys', 201, { ...admin, body: { name: 'doomed', scopes: ['admin'] } });
  await hit('post', '/api/api-keys', 400, { ...admin, body: { name: 'x', scopes: ['root'] } });
  await hit('get', '/api/api-keys', 200, admin);
  await hit('get', '/api/api-keys', 401, {});
  await hit('get', '/api/api-keys', 403, { key: evaluateKey });
  await hit('delete', '/api/api-keys/{id}', 204, { ...admin, params: { id: doomed.json.id } });
  await hit('delete', '/api/api-keys/{id}', 404, { ...admin, params: { id: 'no-such-key' } });
  await hit('get', '/api/whoami', 200, admin);
  await hit('get', '/api/whoami', 200, { key: readerKey });
  await hit('get', '/api/whoami', 401, {});

  // Probes and docs.
  await hit('get', '/healthz', 200);
  await hit('get', '/readyz', 200);
  await hit('get', '/metrics', 200, admin);
  await hit('get', '/metrics', 401);
  await hit('get', '/openapi.json', 200);
  const toConsole = await fetch(`${node.url}/console`, { redirect: 'manual' });
  t.equal(toConsole.status, 301, '/console redirects to /console/ (test/console/serving.test.ts checks the page)');
  seen.add('GET /console');
  const redirect = await fetch(`${node.url}/docs`, { redirect: 'manual' });
  t.equal(redirect.status, 301, '/docs redirects');
  t.equal(redirect.headers.get('location'), '/docs/', 'to /docs/, where relative asset URLs resolve');
  seen.add('GET /docs');
  const page = await call(node.url, 'GET', '/docs/');
  t.equal(page.status, 200, '/docs/ serves the page');
  t.match(page.text, /swagger-ui-bundle\.js/);
  t.notMatch(page.text, /https?:\/\/(unpkg|cdn)/, 'no CDN');
  t.equal((await call(node.url, 'GET', '/docs/swagger-ui-bundle.js')).status, 200, 'assets are served locally');
  const init = await call(node.url, 'GET', '/docs/swagger-ui-init.js');
  t.match(init.text, /"title": "RuleVault"/, 'the page is initialized with this document');
  for (const stock of ['/docs/index.html', '/docs/swagger-initializer.js', '/docs/package.json']) {
    const answer = await call(node.url, 'GET', stock);
    t.equal(answer.status, 404, `${stock}: the stock page of swagger-ui-dist is not served`);
    t.type(answer.json?.err, 'string', `${stock}: {err}`);
  }

  // Contexts.
  const context = await hit('post', '/api/contexts', 201, { ...admin, body: { name: 'tone', content: 'Be brief.', tags: ['a'], meta_properties: { k: 1 } } });
  await hit('post', '/api/contexts', 400, { ...admin, body: { name: 'no content' } });
  await hit('post', '/api/contexts', 413, { ...admin, ...huge });
  await hit('get', '/api/contexts', 200, admin);
  await hit('get', '/api/contexts/{id}', 200, { ...admin, params: { id: context.json.id } });
  await hit('get', '/api/contexts/{id}', 404, { ...admin, params: { id: 'nope' } });
  await hit('patch', '/api/contexts/{id}', 200, { ...admin, params: { id: context.json.id }, body: { description: 'd' }, headers: { 'if-match': context.json.revision } });
  await hit('patch', '/api/contexts/{id}', 409, { ...admin, params: { id: context.json.id }, body: { description: 'e' }, headers: { 'if-match': '0' } });
  await hit('patch', '/api/contexts/{id}', 404, { ...admin, params: { id: 'nope' }, body: { description: 'e' } });
  const spare = await hit('post', '/api/contexts', 201, { ...admin, body: { name: 'spare', content: 'x' } });
  await hit('delete', '/api/contexts/{id}', 204, { ...admin, params: { id: spare.json.id } });
  await hit('delete', '/api/contexts/{id}', 404, { ...admin, params: { id: spare.json.id } });

  // Import: NDJSON (and its error answers), with a link by name to an earlier item.
  const imported = { raw: [
    JSON.stringify({ kind: 'context', name: 'imported', content: 'x' }),
    JSON.stringify({ kind: 'rule', name: 'imported', condition_groups: [{ conditions: [{ field: 'a', operator: 'equals', value: '1' }] }], entities: [{ entity_type: 'context', entity_id: 'imported' }] }),
  ].join('\n'), headers: { 'content-type': 'application/x-ndjson' } };
  await hit('post', '/api/import', 201, { ...admin, ...imported });
  await hit('post', '/api/import', 400, { ...admin, raw: '{"kind": "rule"}' });
  await hit('post', '/api/import', 409, { ...admin, raw: '[{"kind": "prompt", "name": "p1", "prompt": "a"}, {"kind": "prompt", "name": "p1", "prompt": "b"}]' });
  await hit('post', '/api/import', 413, { ...admin, raw: JSON.stringify({ kind: 'context', name: 'big', content: 'x'.repeat(300_000) }) });
  await hit('post', '/api/import', 401, { raw: '[]' });
  await hit('post', '/api/import', 403, { key: evaluateKey, raw: '[]' });

  // Prompts and versions.
  const prompt = await hit('post', '/api/prompts', 201, { ...admin, body: { name: 'greet', prompt: 'Hello {{user}} from {{place}}' } });
  await hit('post', '/api/prompts', 400, { ...admin, body: { name: 'bad', prompt: '{{#if}}' } });
  await hit('post', '/api/prompts/{id}/versions', 201, { ...admin, params: { id: prompt.json.id }, body: { prompt: 'Hi {{user}}' } });
  await hit('post', '/api/prompts/{id}/versions', 409, { ...admin, params: { id: prompt.json.id }, body: { prompt: 'x', version: '1.0.0' } });
  await hit('post', '/api/prompts/{id}/versions', 404, { ...admin, params: { id: 'nope' }, body: { prompt: 'x' } });
  await hit('get', '/api/prompts', 200, admin);
  await hit('get', '/api/prompts/{id}', 200, { ...admin, params: { id: prompt.json.id }, query: '?version=1.0.0' });
  await hit('get', '/api/prompts/{id}', 400, { ...admin, params: { id: prompt.json.id }, query: '?version=one' });
  await hit('get', '/api/prompts/{id}', 404, { ...admin, params: { id: prompt.json.id }, query: '?version=9.0.0' });
  await hit('patch', '/api/prompts/{id}', 200, { ...admin, params: { id: prompt.json.id }, body: { tags: ['t'] } });
  await hit('patch', '/api/prompts/{id}', 400, { ...admin, params: { id: prompt.json.id }, body: { prompt: 'no' } });
  const sparePrompt = await hit('post', '/api/prompts', 201, { ...admin, body: { name: 'spare', prompt: 'x' } });
  await hit('delete', '/api/prompts/{id}', 204, { ...admin, params: { id: sparePrompt.json.id } });
  await hit('post', '/api/prompts', 409, { ...admin, body: { name: 'greet', prompt: 'taken' } });

  // Chat prompts with a config, labels, history, and OpenLIT's route.
  const chat = await hit('post', '/api/prompts', 201, {
    ...admin, body: { name: 'chat', prompt: [{ role: 'system', content: 'You help {{user}}.' }, { role: 'user', content: '{{question}}' }], config: { model: 'gpt-4o', temperature: 0.2 } },
  });
  await hit('get', '/api/prompts/{id}', 200, { ...admin, params: { id: 'chat' }, query: '?label=latest' });
  await hit('get', '/api/prompts/{id}', 404, { ...admin, params: { id: 'chat' }, query: '?label=production' });
  await hit('put', '/api/prompts/{id}/labels/{label}', 200, { ...admin, params: { id: chat.json.id, label: 'production' }, body: { version: '1.0.0' } });
  await hit('put', '/api/prompts/{id}/labels/{label}', 200, { ...admin, params: { id: 'chat', label: 'staging' }, body: { version: '1.0.0' } });
  await hit('put', '/api/prompts/{id}/labels/{label}', 400, { ...admin, params: { id: 'chat', label: 'latest' }, body: { version: '1.0.0' } });
  await hit('put', '/api/prompts/{id}/labels/{label}', 404, { ...admin, params: { id: 'nope', label: 'production' }, body: { version: '1.0.0' } });
  await hit('put', '/api/prompts/{id}/labels/{label}', 409, { ...admin, params: { id: 'chat', label: 'staging' }, body: { version: '1.0.0' }, headers: { 'if-match': '0' } });
  await hit('delete', '/api/prompts/{id}/labels/{label}', 200, { ...admin, params: { id: 'chat', label: 'staging' } });
  await hit('delete', '/api/prompts/{id}/labels/{label}', 404, { ...admin, params: { id: 'chat', label: 'staging' } });
  await hit('delete', '/api/prompts/{id}/labels/{label}', 400, { ...admin, params: { id: 'chat', label: 'production' } });
  await hit('get', '/api/prompts/{id}/history', 200, { ...admin, params: { id: 'chat' } });
  await hit('get', '/api/prompts/{id}/history', 404, { ...admin, params: { id: 'nope' } });
  const compiledChat = await hit('post', '/api/prompt/get-compiled', 200, {
    key: evaluateKey, body: { name: 'chat', version: 'production', variables: { user: 'Ada', question: 'Why?' }, shouldCompile: true, source: 'ts-sdk' },
  });
  t.same(compiledChat.json.res.compiledPrompt, [{ role: 'system', content: 'You help Ada.' }, { role: 'user', content: 'Why?' }]);
  await hit('post', '/api/prompt/get-compiled', 200, { key: evaluateKey, body: { name: 'greet' } });
  await hit('post', '/api/prompt/get-compiled', 200, { key: evaluateKey, body: { name: 'nope' } });
  await hit('post', '/api/prompt/get-compiled', 200, { body: { name: 'greet' } });
  await hit('post', '/api/prompt/get-compiled', 403, { key: evaluateKey, body: { name: 'greet' }, headers: { origin: 'null' } });

  // Rules.
  const ruleBody = {
    name: 'gold users',
    condition_groups: [{ conditions: [{ field: 'tier', operator: 'equals', value: 'gold' }, { field: 'n', operator: 'gt', value: 5, data_type: 'number' }] }],
    entities: [
      { entity_type: 'context', entity_id: context.json.id },
      { entity_type: 'prompt', entity_id: prompt.json.id },
      { entity_type: 'evaluation', entity_id: 'eval-1' },
    ],
  };
  const rule = await hit('post', '/api/rule-engine/rules', 201, { ...admin, body: ruleBody });
  await hit('post', '/api/rule-engine/rules', 400, { ...admin, body: { name: 'no groups' } });
  await hit('post', '/api/rule-engine/rules', 401, { key: 'rv_unknown', body: ruleBody });
  await hit('post', '/api/rule-engine/rules', 403, { key: evaluateKey, body: ruleBody });
  await hit('get', '/api/rule-engine/rules', 200, admin);
  await hit('get', '/api/rule-engine/rules/{id}', 200, { ...admin, params: { id: rule.json.id } });
  await hit('patch', '/api/rule-engine/rules/{id}', 200, { ...admin, params: { id: rule.json.id }, body: { description: 'why' }, headers: { 'if-match': `"${rule.json.revision}"` } });
  await hit('patch', '/api/rule-engine/rules/{id}', 400, { ...admin, params: { id: rule.json.id }, body: { description: 'x' }, headers: { 'if-match': 'latest' } });
  await hit('patch', '/api/rule-engine/rules/{id}', 409, { ...admin, params: { id: rule.json.id }, body: { description: 'x' }, headers: { 'if-match': '0' } });
  await hit('get', '/api/rule-engine/rules/{id}/history', 200, { ...admin, params: { id: rule.json.id } });
  await hit('get', '/api/rule-engine/rules/{id}/history', 404, { ...admin, params: { id: 'nope' } });
  await hit('patch', '/api/rule-engine/rules/{id}', 200, { ...admin, params: { id: rule.json.id }, body: {}, headers: { 'if-match': '*' } });
  await hit('patch', '/api/rule-engine/rules/{id}', 400, { ...admin, params: { id: rule.json.id }, body: { stauts: 'INACTIVE' } });
  await hit('get', '/api/rule-engine/rules/{id}', 400, { ...admin, params: { id: rule.json.id }, query: '?verbose=1' });
  await hit('delete', '/api/contexts/{id}', 409, { ...admin, params: { id: context.json.id }, headers: { 'if-match': '"0"' } });
  const spareRule = await hit('post', '/api/rule-engine/rules', 201, { ...admin, body: { ...ruleBody, entities: [] } });
  await hit('delete', '/api/rule-engine/rules/{id}', 409, { ...admin, params: { id: spareRule.json.id }, headers: { 'if-match': '"7"' } });
  await hit('delete', '/api/rule-engine/rules/{id}', 204, { ...admin, params: { id: spareRule.json.id } });
  await hit('get', '/api/rule-engine/rules/{id}', 404, { ...admin, params: { id: spareRule.json.id } });
  await hit('delete', '/api/rule-engine/rules/{id}', 404, { ...admin, params: { id: spareRule.json.id } });

  // Evaluate, with every kind of entity_data record (a prompt version that does not exist is null).
  const fields = { tier: 'gold', n: 7 };
  const withContext = await hit('post', '/api/rule-engine/evaluate', 200, { key: evaluateKey, body: { entity_type: 'context', fields, include_entity_data: true } });
  t.same(withContext.json.matchingRuleIds, [rule.json.id], 'the rule matched');
  const withPrompt = await hit('post', '/api/rule-engine/evaluate', 200, {
    key: evaluateKey, body: { entity_type: 'prompt', fields, include_entity_data: true, entity_inputs: { variables: { user: 'Ada' } } },
  });
  t.equal(withPrompt.json.entity_data[`prompt:${prompt.json.id}`].compiled_prompt, 'Hi Ada');
  const oldVersion = await hit('post', '/api/rule-engine/evaluate', 200, {
    key: evaluateKey, body: { entity_type: 'prompt', fields, include_entity_data: true, entity_inputs: { version: '7.0.0' } },
  });
  t.equal(oldVersion.json.entity_data[`prompt:${prompt.json.id}`], null);
  // A render past a limit: compiled_prompt null and an error naming it.
  await hit('post', '/api/prompts/{id}/versions', 201, {
    ...admin, params: { id: prompt.json.id }, body: { prompt: '{{#each items}}{{#each ../items}}{{this}}{{/each}}{{/each}}', version: '8.0.0' },
  });
  const items = Array.from({ length: 1000 }, (_, i) => i);
  const overLimit = await hit('post', '/api/rule-engine/evaluate', 200, {
    key: evaluateKey, body: { entity_type: 'prompt', fields, include_entity_data: true, entity_inputs: { version: '8.0.0', variables: { items } } },
  });
  t.match(overLimit.json.entity_data[`prompt:${prompt.json.id}`], { compiled_prompt: null, error: /RULEVAULT_RENDER_MAX_STEPS/ });
  await hit('post', '/api/rule-engine/evaluate', 200, { key: evaluateKey, body: { entity_type: 'evaluation', fields, include_entity_data: true } });
  await hit('post', '/api/rule-engine/evaluate', 200, { key: evaluateKey, body: { entity_type: 'context', fields: {} } });
  await hit('post', '/api/rule-engine/evaluate', 400, { key: evaluateKey, body: { entity_type: 'dataset', fields } });
  await hit('post', '/api/rule-engine/evaluate', 400, { key: evaluateKey, raw: '{"entity_type":' });
  await hit('post', '/api/rule-engine/evaluate', 401, { body: { entity_type: 'context', fields } });
  await hit('post', '/api/rule-engine/evaluate', 403, { ...admin, body: { entity_type: 'context', fields } });
  // The stream's 200 never ends by itself (test/http/stream.test.ts reads it); its refusals are plain JSON.
  await hit('get', '/api/rule-engine/stream', 401);
  await hit('get', '/api/rule-engine/stream', 403, admin);
  await hit('get', '/api/rule-engine/stream', 400, { key: evaluateKey, headers: { 'last-event-id': 'x' } });
  await hit('post', '/api/rule-engine/evaluate', 403, { key: evaluateKey, body: { entity_type: 'context', fields }, headers: { origin: 'https://evil.example' } });
  await hit('post', '/api/rule-engine/evaluate', 413, { key: evaluateKey, ...huge });

  // OFREP: a rule with a key is a flag (docs/openfeature.md); its key is unique.
  const keyed = { ...ruleBody, name: 'flag', key: 'drift-flag' };
  await hit('post', '/api/rule-engine/rules', 201, { ...admin, body: keyed });
  await hit('post', '/api/rule-engine/rules', 409, { ...admin, body: keyed });
  const FLAG = '/ofrep/v1/evaluate/flags/{key}';
  const flagContext = { context: { targetingKey: 'u1', ...fields, variables: { user: 'Ada' } } };
  const boolean = await hit('post', FLAG, 200, { key: evaluateKey, params: { key: 'drift-flag' }, body: flagContext });
  t.match(boolean.json, { value: true, reason: 'TARGETING_MATCH' });
  for (const type of ['context', 'prompt', 'evaluation']) await hit('post', FLAG, 200, { key: evaluateKey, params: { key: `drift-flag:${type}` }, body: flagContext });
  await hit('post', FLAG, 200, { key: evaluateKey, params: { key: 'drift-flag' }, body: { context: { tier: 'silver' } } });
  await hit('post', FLAG, 400, { key: evaluateKey, params: { key: 'drift-flag' }, raw: 'nope' });
  await hit('post', FLAG, 400, { key: evaluateKey, params: { key: 'drift-flag' }, body: { context: { tier: ['gold'] } } });
  await hit('post', FLAG, 404, { key: evaluateKey, params: { key: 'nope' }, body: flagContext });
  await hit('post', FLAG, 401, { params: { key: 'drift-flag' }, body: flagContext });
  await hit('post', FLAG, 403, { key: readerKey, params: { key: 'drift-flag' }, body: flagContext });
  await hit('post', FLAG, 413, { key: evaluateKey, params: { key: 'drift-flag' }, ...huge });
  const BULK = '/ofrep/v1/evaluate/flags';
  const all = await hit('post', BULK, 200, { key: evaluateKey, body: flagContext });
  await hit('post', BULK, 304, { key: evaluateKey, body: flagContext, headers: { 'if-none-match': all.headers.get('etag')! } });
  await hit('post', BULK, 200, { key: evaluateKey, body: { context: { tier: 'silver' } } });
  await hit('post', BULK, 400, { key: evaluateKey, body: { context: { tier: ['gold'] } } });
  await hit('post', BULK, 401, { body: flagContext });
  await hit('post', BULK, 403, { headers: { 'x-api-key': readerKey }, body: flagContext });
  await hit('post', BULK, 413, { key: evaluateKey, ...huge });

  // Secrets, managed and read.
  const secret = await hit('post', '/api/vault/secrets', 201, { ...admin, body: { key: 'OPENAI_API_KEY', value: 'sk-drift-test', tags: ['llm'] } });
  await hit('post', '/api/vault/secrets', 409, { ...admin, body: { key: 'OPENAI_API_KEY', value: 'again' } });
  await hit('post', '/api/vault/secrets', 400, { ...admin, body: { key: 'NO_VALUE' } });
  await hit('get', '/api/vault/secrets', 200, admin);
  await hit('patch', '/api/vault/secrets/{id}', 200, { ...admin, params: { id: secret.json.id }, body: { value: 'sk-drift-2' } });
  await hit('patch', '/api/vault/secrets/{id}', 404, { ...admin, params: { id: 'nope' }, body: { value: 'x' } });
  await hit('patch', '/api/vault/secrets/{id}', 400, { ...admin, params: { id: secret.json.id }, body: { vaule: 'x' } });
  await hit('patch', '/api/vault/secrets/{id}', 200, { ...admin, params: { id: secret.json.id }, body: {} });
  const got = await hit('post', '/api/vault/get-secrets', 200, { key: readerKey, body: { tags: ['llm'] } });
  t.same(got.json, { err: null, res: { OPENAI_API_KEY: 'sk-drift-2' } });
  await hit('post', '/api/vault/get-secrets', 200, { key: readerKey });
  const refused = await hit('post', '/api/vault/get-secrets', 200, { key: evaluateKey, body: {} });
  t.match(refused.json, { err: /secrets:read/, res: null });
  await hit('post', '/api/vault/get-secrets', 200, { key: readerKey, raw: 'not json' });
  await hit('post', '/api/vault/get-secrets', 403, { key: readerKey, body: {}, headers: { origin: 'null' } });
  const spareSecret = await hit('post', '/api/vault/secrets', 201, { ...admin, body: { key: 'SPARE', value: 'v' } });
  await hit('delete', '/api/vault/secrets/{id}', 204, { ...admin, params: { id: spareSecret.json.id } });
  await hit('delete', '/api/vault/secrets/{id}', 204, { ...admin, params: { id: spareSecret.json.id } });
  await hit('delete', '/api/vault/secrets/{id}', 404, { ...admin, params: { id: 'nope' } });

  // The audit log.
  const first = await hit('get', '/api/audit/events', 200, { ...admin, query: '?limit=3' });
  t.type(first.json.next, 'string', 'a full page has a next position');
  await hit('get', '/api/audit/events', 200, { ...admin, query: `?after=${first.json.next}&limit=1000` });
  await hit('get', '/api/audit/events', 400, { ...admin, query: '?limit=0' });
  await hit('get', '/api/audit/events', 400, { ...admin, query: '?after=-1' });

  // Audit routes: filtered log, digest, evaluate as of a point, explain.
  const filtered = await hit('get', '/api/audit/events', 200, { ...admin, query: `?stream=rule-&type=RuleCreated,RuleUpdated&actor=env-admin&from=2000-01-01T00:00:00Z` });
  t.ok(filtered.json.events.length > 0 && filtered.json.events.every((e: { stream: string }) => e.stream.startsWith('rule-')), 'the filter applies');
  await hit('get', '/api/audit/events', 400, { ...admin, query: '?from=yesterday' });
  await hit('get', '/api/audit/digest', 200, admin);
  await hit('get', '/api/audit/digest', 401, {});
  const asOf = await hit('post', '/api/audit/evaluate', 200, {
    ...admin, body: { entity_type: 'context', fields, include_entity_data: true, as_of: Number(rule.json.position), explain: true },
  });
  t.same(asOf.json.matchingRuleIds, [rule.json.id], 'the rule matched as of its creation');
  await hit('post', '/api/audit/evaluate', 200, { ...admin, body: { entity_type: 'evaluation', fields, as_of: '2000-01-01T00:00:00Z' } });
  await hit('post', '/api/audit/evaluate', 400, { ...admin, body: { entity_type: 'context', fields } });
  await hit('post', '/api/audit/evaluate', 403, { key: evaluateKey, body: { entity_type: 'context', fields, as_of: 0 } });
  const explained = await hit('post', '/api/rule-engine/explain', 200, {
    key: explainKey, body: { entity_type: 'context', fields: { tier: 'gold', n: 'many' }, rule_ids: [rule.json.id] },
  });
  t.equal(explained.json.rules[0]?.matched, false, 'explain says the rule did not match');
  await hit('post', '/api/rule-engine/explain', 200, { ...admin, body: { entity_type: 'context', fields, field: 'tier' } });
  await hit('post', '/api/rule-engine/explain', 400, { key: explainKey, body: { entity_type: 'context', fields, field: 7 } });
  await hit('post', '/api/rule-engine/explain', 403, { key: readerKey, body: { entity_type: 'context', fields } });
  await hit('post', '/api/rule-engine/explain', 403, { key: evaluateKey, body: { entity_type: 'context', fields } });

  // Dry-run: a draft in place of the live rule, and a new one.
  const draft = { name: 'draft', condition_groups: [{ conditions: [{ field: 'tier', operator: 'equals', value: 'gold' }] }] };
  const dry = await hit('post', '/api/rule-engine/dry-run', 200, {
    ...admin, body: { entity_type: 'context', fields, include_entity_data: true, rules: [{ ...draft, id: rule.json.id }, draft] },
  });
  t.same(dry.json.drafts.map((d: { replaces: boolean }) => d.replaces), [true, false], 'dry-run: one replaces, one is new');
  await hit('post', '/api/rule-engine/dry-run', 400, { ...admin, body: { entity_type: 'context', fields, rules: [{ name: 'x' }] } });
  await hit('post', '/api/rule-engine/dry-run', 403, { key: explainKey, body: { entity_type: 'context', fields } });

  // List paging and filters, on every list.
  for (const list of ['/api/rule-engine/rules', '/api/contexts', '/api/prompts', '/api/vault/secrets', '/api/api-keys']) {
    const paged = await hit('get', list, 200, { ...admin, query: '?limit=1' });
    const cursor = paged.json.next_cursor as string | null;
    if (cursor !== null) await hit('get', list, 200, { ...admin, query: `?limit=1&cursor=${cursor}` });
    await hit('get', list, 400, { ...admin, query: '?cursor=nonsense' });
    await hit('get', list, 200, { ...admin, query: '?q=e' });
  }
  await hit('get', '/api/rule-engine/rules', 200, { ...admin, query: '?status=active&field=tier&operator=equals&entity_type=context' });
  await hit('get', '/api/rule-engine/rules', 400, { ...admin, query: '?operator=like' });
  await hit('get', '/api/rule-engine/rules/{id}/history', 200, { ...admin, params: { id: rule.json.id }, query: '?limit=1' });
  await hit('get', '/api/audit/events', 200, { ...admin, query: `?limit=2&cursor=${first.json.next_cursor}` });
  await hit('get', '/api/audit/events', 400, { ...admin, query: '?verbose=1' });

  // Decision records (decision logging is on for this node) and the secret-read audit.
  const decisionId = withContext.headers.get('RuleVault-Decision-Id')!;
  await hit('get', '/api/audit/decisions/{id}', 200, { ...admin, params: { id: decisionId } });
  await hit('get', '/api/audit/decisions/{id}', 404, { ...admin, params: { id: '00000000-0000-7000-8000-000000000000' } });
  await hit('get', '/api/audit/decisions/{id}', 403, { key: evaluateKey, params: { id: decisionId } });
  await hit('get', '/api/audit/decisions/{id}/replay', 200, { ...admin, params: { id: decisionId } });
  await hit('get', '/api/audit/decisions/{id}/replay', 200, { ...admin, params: { id: decisionId }, query: '?as_of=head' });
  await hit('get', '/api/audit/decisions/{id}/replay', 400, { ...admin, params: { id: decisionId }, query: '?as_of=soon' });
  await hit('get', '/api/audit/decisions/{id}/replay', 404, { ...admin, params: { id: 'nope' } });
  await hit('get', '/api/audit/secret-reads', 200, admin);
  await hit('get', '/api/audit/secret-reads', 200, { ...admin, query: '?limit=1&from=2000-01-01T00:00:00Z' });
  await hit('get', '/api/audit/secret-reads', 400, { ...admin, query: '?limit=0' });
  await hit('get', '/api/audit/secret-reads', 401, {});

  // The hash chain: a verification started (400 on a misspelt member), polled until done; a checkpoint on demand.
  await hit('get', '/api/audit/chain', 200, admin);
  await hit('post', '/api/audit/chain/verify', 202, { ...admin, body: { full: true } });
  await hit('post', '/api/audit/chain/verify', 400, { ...admin, body: { ful: true } });
  await hit('post', '/api/audit/chain/verify', 403, { key: evaluateKey });
  while ((await hit('get', '/api/audit/chain', 200, admin)).json.running) await new Promise((resolve) => setTimeout(resolve, 20));
  await hit('post', '/api/audit/chain/checkpoints', 201, admin);
  await hit('post', '/api/audit/chain/checkpoints', 400, { ...admin, body: { seq: 1 } });
  // A checkpoint signs the decision's position now: its evidence file (409 before one: test/http/evidence-download.test.ts).
  await hit('get', '/api/audit/decisions/{id}/evidence', 200, { ...admin, params: { id: decisionId } });
  await hit('get', '/api/audit/decisions/{id}/evidence', 404, { ...admin, params: { id: '00000000-0000-7000-8000-000000000000' } });
  await hit('get', '/api/audit/decisions/{id}/evidence', 403, { key: evaluateKey, params: { id: decisionId } });
  await hit('get', '/api/audit/chain', 400, { ...admin, query: '?full=1' });
  await hit('get', '/api/audit/chain', 200, admin);

  // Protections and change requests: each step, and the refusals that carry a code of their own.
  const approverKey = (await hit('post', '/api/api-keys', 201, { ...admin, body: { name: 'approver', scopes: ['approve'] } })).json.key as string;
  const glassKey = (await hit('post', '/api/api-keys', 201, { ...admin, body: { name: 'glass', scopes: ['admin', 'break-glass'] } })).json.key as string;
  const approver = { key: approverKey };
  const guarded = await hit('post', '/api/rule-engine/rules', 201, { ...admin, body: { name: 'guarded', condition_groups: [{ conditions: [{ field: 'g', operator: 'equals', value: 'g' }] }] } });
  await hit('put', '/api/protections', 200, { ...admin, body: { resource: { type: 'rule', id: guarded.json.id } } });
  await hit('put', '/api/protections', 400, { ...admin, body: { resource: { type: 'secret', id: 'x' } } });
  await hit('put', '/api/protections', 404, { ...admin, body: { resource: { type: 'rule', id: 'nope' } } });
  await hit('get', '/api/protections', 200, approver);
  await hit('delete', '/api/protections', 409, admin);
  await hit('patch', '/api/rule-engine/rules/{id}', 409, { ...admin, params: { id: guarded.json.id }, body: { name: 'direct' } });
  await hit('patch', '/api/rule-engine/rules/{id}', 200, { key: glassKey, params: { id: guarded.json.id }, body: { description: 'mended' }, headers: { 'RuleVault-Break-Glass': 'drift test' } });
  const rename = [{ op: 'update', resource: { type: 'rule', id: guarded.json.id }, body: { name: 'renamed' } }];
  const opened = await hit('post', '/api/change-requests', 201, { ...admin, body: { title: 'rename', changes: rename } });
  await hit('post', '/api/change-requests', 400, { ...admin, body: { title: 'no changes', changes: [] } });
  await hit('post', '/api/change-requests', 404, { ...admin, body: { title: 'gone', changes: [{ op: 'delete', resource: { type: 'rule', id: 'nope' } }] } });
  const crId = { id: opened.json.id };
  await hit('get', '/api/change-requests', 200, { ...approver, query: '?state=draft' });
  await hit('get', '/api/change-requests', 400, { ...approver, query: '?state=nope' });
  await hit('get', '/api/change-requests/{id}', 200, { ...approver, params: crId });
  await hit('get', '/api/change-requests/{id}', 404, { ...approver, params: { id: 'nope' } });
  const revised = await hit('patch', '/api/change-requests/{id}', 200, { ...admin, params: crId, body: { description: 'why' } });
  await hit('patch', '/api/change-requests/{id}', 409, { ...admin, params: crId, body: { description: 'stale' }, headers: { 'if-match': '0' } });
  await hit('post', '/api/change-requests/{id}/approve', 409, { ...approver, params: crId, headers: { 'if-match': revised.headers.get('etag')! } });
  const review = await hit('post', '/api/change-requests/{id}/submit', 200, { ...admin, params: crId });
  await hit('post', '/api/change-requests/{id}/comments', 201, { ...approver, params: crId, body: { text: 'looks right' } });
  await hit('post', '/api/change-requests/{id}/apply', 409, { ...admin, params: crId });
  const approvedCr = await hit('post', '/api/change-requests/{id}/approve', 200, { ...approver, params: crId, headers: { 'if-match': `${Number(review.json.revision) + 1}` } });
  await hit('post', '/api/change-requests/{id}/approve', 400, { ...approver, params: crId });
  await hit('post', '/api/change-requests/{id}/apply', 200, { ...admin, params: crId });
  await hit('post', '/api/change-requests/{id}/reject', 409, { ...approver, params: crId, body: { reason: 'too late' } });
  await hit('get', '/api/change-requests/{id}/history', 200, { ...approver, params: crId });
  await hit('get', '/api/change-requests/{id}/history', 404, { ...approver, params: { id: 'nope' } });
  t.equal(approvedCr.json.state, 'approved');
  const revert = await hit('post', '/api/change-requests/{id}/revert', 201, { ...admin, params: crId });
  await hit('post', '/api/change-requests/{id}/revert', 409, { ...admin, params: { id: revert.json.id } });
  await hit('post', '/api/change-requests/{id}/withdraw', 200, { ...admin, params: { id: revert.json.id }, body: { reason: 'kept as is' } });
  await hit('post', '/api/change-requests/{id}/withdraw', 409, { ...admin, params: { id: revert.json.id } });
  const other = await hit('post', '/api/change-requests', 201, { ...admin, body: { title: 'other', changes: [{ op: 'update', resource: { type: 'rule', id: guarded.json.id }, body: { name: 'other' } }] } });
  await hit('get', '/api/change-requests/{id}/impact', 200, { ...approver, params: { id: other.json.id } });
  await hit('get', '/api/change-requests/{id}/impact', 400, { ...approver, params: { id: other.json.id }, query: '?since=yesterday' });
  await hit('get', '/api/change-requests/{id}/impact', 404, { ...approver, params: { id: 'nope' } });
  await hit('get', '/api/change-requests/{id}/impact', 409, { ...approver, params: crId });
  await hit('get', '/api/change-requests/{id}/test-results', 200, { ...approver, params: { id: other.json.id } });
  await hit('get', '/api/change-requests/{id}/test-results', 404, { ...approver, params: { id: 'nope' } });
  await hit('get', '/api/test-cases', 200, approver);
  await hit('get', '/api/test-cases', 403, { key: evaluateKey });
  await hit('post', '/api/change-requests/{id}/submit', 200, { ...admin, params: { id: other.json.id } });
  await hit('post', '/api/change-requests/{id}/reject', 200, { ...approver, params: { id: other.json.id }, body: { reason: 'no' } });
  await hit('post', '/api/change-requests/{id}/reject', 400, { ...approver, params: { id: other.json.id }, body: {} });
  await hit('post', '/api/change-requests/{id}/comments', 400, { ...approver, params: { id: other.json.id }, body: {} });
  await hit('post', '/api/change-requests/{id}/submit', 404, { ...admin, params: { id: 'nope' } });

  t.same(documentedRoutes().filter((route) => !seen.has(route)), [], 'every documented operation was exercised');
});
