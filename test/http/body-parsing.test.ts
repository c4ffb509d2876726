/** Black-box: JSON whatever the Content-Type, malformed bodies, the body limit, unknown routes (contract §1, 6). */
import { Agent } from 'node:http';
import t from 'tap';
import { call } from '../support/http';
import { sendRaw } from '../support/raw-http';
import { withNode } from '../support/with-node';
import { forCells } from '../support/matrix';

forCells(t, 'body-parsing', (t, cell) => {
  // A long request timeout: a server that waits for a body it refused would hang past the tests' guard.
  const live = withNode(t, { cell, env: { RULEVAULT_MAX_BODY_BYTES: '4096', RULEVAULT_REQUEST_TIMEOUT_MS: '600000' } });

  const rule = JSON.stringify({ name: 'r', condition_groups: [{ conditions: [{ field: 'a', operator: 'equals', value: 'b' }] }] });

  t.test('a JSON body is accepted as text/plain, with no Content-Type, or with an odd one', async (t) => {
    for (const contentType of ['text/plain', undefined, 'application/x-www-form-urlencoded', 'application/json; charset=utf-8']) {
      const headers: Record<string, string> = contentType === undefined ? {} : { 'content-type': contentType };
      const answer = await call(live.url, 'POST', '/api/rule-engine/rules', { key: live.node.adminKey, raw: rule, headers });
      t.equal(answer.status, 201, `content-type ${contentType ?? '(none)'}`);
    }
  });

  t.test('malformed JSON is a 400 that says so', async (t) => {
    const answer = await call(live.url, 'POST', '/api/rule-engine/rules', { key: live.node.adminKey, raw: '{"name": ', headers: { 'content-type': 'application/json' } });
    t.equal(answer.status, 400);
    t.same(answer.json, { err: 'request body is not valid JSON', code: 'bad_request' });
  });

  t.test('a body over the limit is a 413 naming the limit', async (t) => {
    const big = JSON.stringify({ name: 'x'.repeat(5000) });
    const answer = await call(live.url, 'POST', '/api/rule-engine/rules', { key: live.node.adminKey, raw: big });
    t.equal(answer.status, 413);
    t.match(answer.json.err, /limit of 4096 bytes/);
  });

  t.test('unknown routes are 404 with an err body', async (t) => {
    const answer = await call(live.url, 'GET', '/api/nothing-here', { key: live.node.adminKey });
    t.equal(answer.status, 404);
    t.match(answer.json.err, /no route for GET \/api\/nothing-here/);
  });

  t.test('every answer carries a request id; a sane caller id is echoed', async (t) => {
    const minted = await call(live.url, 'GET', '/healthz');
    t.match(minted.headers.get('x-request-id'), /^[0-9a-f-]{36}$/);
    const echoed = await call(live.url, 'GET', '/healthz', { headers: { 'x-request-id': 'trace-123' } });
    t.equal(echoed.headers.get('x-request-id'), 'trace-123');
    const insane = await call(live.url, 'GET', '/healthz', { headers: { 'x-request-id': 'bad id with spaces' } });
    t.not(insane.headers.get('x-request-id'), 'bad id with spaces');
  });

  t.test('compressed and non-UTF-8 bodies are read too (inflated on the lean path)', async (t) => {
    const { gzipSync } = await import('node:zlib');
    const key = (await call(live.url, 'POST', '/api/api-keys', { key: live.node.adminKey, body: { name: 'e', scopes: ['evaluate'] } })).json.key;
    const body = JSON.stringify({ entity_type: 'context', fields: { a: 'é' } });
    const gzipped = await call(live.url, 'POST', '/api/rule-engine/evaluate', {
      key, raw: gzipSync(Buffer.from(body)), headers: { 'content-encoding': 'gzip', 'content-type': 'application/json' },
    });
    t.equal(gzipped.status, 200);
    t.match(gzipped.headers.get('rulevault-decision-id'), /^[0-9a-f-]{36}$/, 'its decision id is its request id');
    t.equal(gzipped.headers.get('x-request-id'), null);
    const latin1 = await call(live.url, 'POST', '/api/rule-engine/evaluate', {
      key, raw: Buffer.from(body, 'latin1'), headers: { 'content-type': 'application/json; charset=iso-8859-1' },
    });
    t.equal(latin1.status, 400);
    t.match(latin1.json.err, /encoding is not supported/);
  });

  t.test('a declared Content-Length over the limit is refused at once, unread, and the connection closed', async (t) => {
    const keys = await call(live.url, 'POST', '/api/api-keys', { key: live.node.adminKey, body: { name: 'both', scopes: ['evaluate', 'secrets:read'] } });
    const cases: [string, string, number, RegExp][] = [
      ['/api/rule-engine/evaluate', keys.json.key, 413, /^\{"err":"request body is larger than the limit of 4096 bytes","code":"payload_too_large"\}$/],
      ['/api/vault/get-secrets', keys.json.key, 200, /^\{"err":"request body is larger than the limit of 4096 bytes","code":"payload_too_large","res":null\}$/],
      ['/api/rule-engine/rules', live.node.adminKey, 413, /^\{"err":"request body is larger than the limit of 4096 bytes","code":"payload_too_large"\}$/],
    ];
    for (const [path, key, status, body] of cases) {
      for (const sent of ['', '{"entity_type":']) {
        // A keep-alive client that sends the headers and at most a few bytes, and keeps its side open.
        const agent = new Agent({ keepAlive: true });
        const answer = await sendRaw(live.url, {
          method: 'POST', path, agent, holdOpen: true, body: sent,
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'content-length': '1000000000' },
        });
        agent.destroy();
        t.notOk(answer.hung, `${path} (${sent.length} bytes sent): answered without waiting for the body`);
        t.equal(answer.status, status, path);
        t.match(answer.text, body, path);
        t.equal(answer.headers.connection, 'close', `${path}: the connection is closed, so the body is never read`);
      }
    }
    t.equal((await call(live.url, 'GET', '/healthz')).status, 200, 'the node still serves');
  });

  t.test('public bodies: a BOM is skipped, whitespace alone is not JSON, no bytes is no body', async (t) => {
    const key = (await call(live.url, 'POST', '/api/api-keys', { key: live.node.adminKey, body: { name: 'b', scopes: ['evaluate', 'secrets:read'] } })).json.key;
    const evaluate = (raw: string) => call(live.url, 'POST', '/api/rule-engine/evaluate', { key, raw, headers: { 'content-type': 'application/json' } });
    const secrets = (raw: string) => call(live.url, 'POST', '/api/vault/get-secrets', { key, raw, headers: { 'content-type': 'text/plain' } });
    const withBom = await evaluate('\uFEFF' + JSON.stringify({ entity_type: 'context', fields: {} }));
    t.equal(withBom.status, 200, 'evaluate: a BOM before the JSON');
    t.same((await secrets('\uFEFF{}')).json, { err: null, res: {} }, 'get-secrets: a BOM before the JSON');
    for (const raw of ['   ', '\n', '\uFEFF']) {
      const answer = await evaluate(raw);
      t.equal(answer.status, 400, `evaluate ${JSON.stringify(raw)}`);
      t.same(answer.json, { err: 'request body is not valid JSON', code: 'bad_request' });
      const secret = await secrets(raw);
      t.equal(secret.status, 200, `get-secrets ${JSON.stringify(raw)}`);
      t.same(secret.json, { err: 'request body is not valid JSON', code: 'bad_request', res: null });
    }
    const empty = await evaluate('');
    t.equal(empty.status, 400);
    t.same(empty.json, { err: 'request body must be a JSON object', code: 'bad_request' }, 'evaluate: no body');
    t.same((await secrets('')).json, { err: null, res: {} }, 'get-secrets: no body asks for every secret');
  });
});
