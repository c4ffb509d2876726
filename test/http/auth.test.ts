/** Black-box: authentication, scopes, API keys and revocation (contract §1.1, 3, 4). */
import t from 'tap';
import { call } from '../support/http';
import { withNode } from '../support/with-node';
import { forCells } from '../support/matrix';

forCells(t, 'auth', (t, cell) => {
  const live = withNode(t, { cell });
  const admin = live.admin;

  const evaluateBody = { entity_type: 'context', fields: { a: '1' } };

  t.test('probes answer without a key', async (t) => {
    const health = await call(live.url, 'GET', '/healthz');
    t.equal(health.status, 200);
    t.same(health.json, { status: 'ok' });
    const ready = await call(live.url, 'GET', '/readyz');
    t.equal(ready.status, 200);
  });

  t.test('401 without a key says none was provided; with an unknown key says invalid', async (t) => {
    for (const path of ['/api/rule-engine/evaluate', '/api/rule-engine/rules']) {
      const none = await call(live.url, 'POST', path, { body: evaluateBody });
      t.equal(none.status, 401, `${path} without a key`);
      t.match(none.json.err, /no API key was provided/i);
      const unknown = await call(live.url, 'POST', path, { body: evaluateBody, key: 'rv_not-a-real-key' });
      t.equal(unknown.status, 401, `${path} with an unknown key`);
      t.match(unknown.json.err, /invalid/);
      const malformed = await call(live.url, 'POST', path, { body: evaluateBody, headers: { authorization: 'Basic abc' } });
      t.equal(malformed.status, 401, `${path} with a non-bearer header`);
    }
  });

  t.test('API keys: created once with the key, listed without it, stored hashed', async (t) => {
    const created = await admin.post('/api/api-keys', { name: 'evaluator', scopes: ['evaluate'] });
    t.equal(created.status, 201);
    t.match(created.json, { id: /^[0-9a-f-]{36}$/, name: 'evaluator', scopes: ['evaluate'], key: /^rv_[A-Za-z0-9_-]{43}$/ });
    const listed = await admin.get('/api/api-keys');
    const row = listed.json.api_keys.find((k: { id: string }) => k.id === created.json.id);
    t.ok(row);
    t.notOk('key' in row, 'the listing never shows the key');
    t.notOk('key_hash' in row, 'nor its hash');
    const log = await admin.get('/api/audit/events?limit=1000');
    t.notOk(log.text.includes(created.json.key), 'the key never enters the log');
    t.ok(log.text.includes('key_hash'), 'its hash does');
  });

  t.test('scopes: 403 without the scope; least privilege', async (t) => {
    const evaluator = (await admin.post('/api/api-keys', { name: 'e', scopes: ['evaluate'] })).json.key as string;
    const reader = (await admin.post('/api/api-keys', { name: 'r', scopes: ['secrets:read'] })).json.key as string;
    const asEvaluator = live.clientFor(evaluator);
    const asReader = live.clientFor(reader);
    t.equal((await asEvaluator.post('/api/rule-engine/evaluate', evaluateBody)).status, 200);
    const forbidden = await asReader.post('/api/rule-engine/evaluate', evaluateBody);
    t.equal(forbidden.status, 403);
    t.match(forbidden.json.err, /evaluate scope/);
    const adminOnly = await asEvaluator.get('/api/rule-engine/rules');
    t.equal(adminOnly.status, 403);
    t.match(adminOnly.json.err, /admin scope/);
    const adminCannotEvaluate = await admin.post('/api/rule-engine/evaluate', evaluateBody);
    t.equal(adminCannotEvaluate.status, 403, 'the admin scope does not imply evaluate');
  });

  t.test('bad API key input is a 400 naming the member', async (t) => {
    const cases: [unknown, RegExp][] = [
      [{ scopes: ['admin'] }, /name is required/],
      [{ name: 'x' }, /scopes is required/],
      [{ name: 'x', scopes: [] }, /scopes must name at least one/],
      [{ name: 'x', scopes: ['root'] }, /scopes\[0\] must be one of evaluate, secrets:read, explain, admin/],
      [{ name: 'x', scopes: ['evaluate'], secret_tags: 'prod' }, /secret_tags must be an array/],
    ];
    for (const [body, message] of cases) {
      const answer = await admin.post('/api/api-keys', body);
      t.equal(answer.status, 400);
      t.match(answer.json.err, message);
    }
  });

  t.test('revocation takes effect at once', async (t) => {
    const created = await admin.post('/api/api-keys', { name: 'short-lived', scopes: ['evaluate'] });
    const key = live.clientFor(created.json.key);
    t.equal((await key.post('/api/rule-engine/evaluate', evaluateBody)).status, 200);
    t.equal((await admin.delete(`/api/api-keys/${created.json.id}`)).status, 204);
    const after = await key.post('/api/rule-engine/evaluate', evaluateBody);
    t.equal(after.status, 401);
    t.match(after.json.err, /invalid/);
    t.equal((await admin.delete(`/api/api-keys/${created.json.id}`)).status, 404);
  });

  t.test('an admin key created through the API works for admin calls', async (t) => {
    const created = await admin.post('/api/api-keys', { name: 'second admin', scopes: ['admin'] });
    const second = live.clientFor(created.json.key);
    const rule = await second.post('/api/rule-engine/rules', {
      name: 'by key', condition_groups: [{ conditions: [{ field: 'a', operator: 'equals', value: '1' }] }],
    });
    t.equal(rule.status, 201);
    t.equal(rule.json.created_by, created.json.id, 'created_by is the id of the key that wrote');
  });
});
