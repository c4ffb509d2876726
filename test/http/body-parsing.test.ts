/** Black-box: JSON whatever the Content-Type, malformed bodies, the body limit, unknown routes (SPEC 1, 6). */
import t from 'tap';
import { call } from '../support/http';
import { removeDir, startTestNode, testEnv, tempDir, type TestNode } from '../support/node';

let node: TestNode;

t.before(async () => {
  const dir = tempDir();
  node = await startTestNode(testEnv(dir, { RULEVAULT_MAX_BODY_BYTES: '4096' }));
});
t.teardown(async () => {
  await node.stop();
  removeDir(node.dataDir);
});

const rule = JSON.stringify({ name: 'r', condition_groups: [{ conditions: [{ field: 'a', operator: 'equals', value: 'b' }] }] });

t.test('a JSON body is accepted as text/plain, with no Content-Type, or with an odd one', async (t) => {
  for (const contentType of ['text/plain', undefined, 'application/x-www-form-urlencoded', 'application/json; charset=utf-8']) {
    const headers: Record<string, string> = contentType === undefined ? {} : { 'content-type': contentType };
    const answer = await call(node.url, 'POST', '/api/rule-engine/rules', { key: node.adminKey, raw: rule, headers });
    t.equal(answer.status, 201, `content-type ${contentType ?? '(none)'}`);
  }
});

t.test('malformed JSON is a 400 that says so', async (t) => {
  const answer = await call(node.url, 'POST', '/api/rule-engine/rules', { key: node.adminKey, raw: '{"name": ', headers: { 'content-type': 'application/json' } });
  t.equal(answer.status, 400);
  t.same(answer.json, { err: 'request body is not valid JSON' });
});

t.test('a body over the limit is a 413 naming the limit', async (t) => {
  const big = JSON.stringify({ name: 'x'.repeat(5000) });
  const answer = await call(node.url, 'POST', '/api/rule-engine/rules', { key: node.adminKey, raw: big });
  t.equal(answer.status, 413);
  t.match(answer.json.err, /limit of 4096 bytes/);
});

t.test('unknown routes are 404 with an err body', async (t) => {
  const answer = await call(node.url, 'GET', '/api/nothing-here', { key: node.adminKey });
  t.equal(answer.status, 404);
  t.match(answer.json.err, /no route for GET \/api\/nothing-here/);
});

t.test('every answer carries a request id; a sane caller id is echoed', async (t) => {
  const minted = await call(node.url, 'GET', '/healthz');
  t.match(minted.headers.get('x-request-id'), /^[0-9a-f-]{36}$/);
  const echoed = await call(node.url, 'GET', '/healthz', { headers: { 'x-request-id': 'trace-123' } });
  t.equal(echoed.headers.get('x-request-id'), 'trace-123');
  const insane = await call(node.url, 'GET', '/healthz', { headers: { 'x-request-id': 'bad id with spaces' } });
  t.not(insane.headers.get('x-request-id'), 'bad id with spaces');
});

t.test('compressed and non-UTF-8 bodies are read too (by express, behind the lean path)', async (t) => {
  const { gzipSync } = await import('node:zlib');
  const key = (await call(node.url, 'POST', '/api/api-keys', { key: node.adminKey, body: { name: 'e', scopes: ['evaluate'] } })).json.key;
  const body = JSON.stringify({ entity_type: 'context', fields: { a: 'é' } });
  const gzipped = await call(node.url, 'POST', '/api/rule-engine/evaluate', {
    key, raw: gzipSync(Buffer.from(body)), headers: { 'content-encoding': 'gzip', 'content-type': 'application/json' },
  });
  t.equal(gzipped.status, 200);
  t.match(gzipped.headers.get('x-request-id'), /.+/);
  const latin1 = await call(node.url, 'POST', '/api/rule-engine/evaluate', {
    key, raw: Buffer.from(body, 'latin1'), headers: { 'content-type': 'application/json; charset=iso-8859-1' },
  });
  t.equal(latin1.status, 400);
  t.match(latin1.json.err, /encoding is not supported/);
});
