/**
 * Black-box: a get-secrets call is answered HTTP 200 whatever happened (contract §1.2), so the
 * request's log line, its metrics series and the secret-read audit say what the body said: the
 * outcome and the error code. A probe of the vault (no key, a guessed key, a key without the scope)
 * can be alerted on and audited. And a lookup by a key that does not exist answers `err`.
 */
import t from 'tap';
import { createLogger } from '../../src/base/log';
import { call } from '../support/http';
import { forCells } from '../support/matrix';
import { withNode } from '../support/with-node';

const ROUTE = '/api/vault/get-secrets';

forCells(t, 'get-secrets-outcomes', (t, cell) => {
  const lines: string[] = [];
  const live = withNode(t, { cell, logger: createLogger((line) => lines.push(line)) });
  let reader: { id: string; key: string };
  let evaluator: { id: string; key: string };
  t.before(async () => {
    await live.admin.post('/api/vault/secrets', { key: 'OPENAI_API_KEY', value: 'sk-outcomes-plaintext', tags: ['llm'] });
    reader = (await live.admin.post('/api/api-keys', { name: 'reader', scopes: ['secrets:read'] })).json;
    evaluator = (await live.admin.post('/api/api-keys', { name: 'evaluator', scopes: ['evaluate'] })).json;
  });

  /** The log line of the request `id`, once written (after the answer finished; tap's timeout ends a wait that never ends). */
  async function lineOf(id: string): Promise<Record<string, unknown>> {
    for (;;) {
      const found = lines.map((line) => JSON.parse(line) as Record<string, unknown>).find((r) => r.request_id === id);
      if (found !== undefined) return found;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  const calls = () => [
    { id: 'probe-no-key', key: undefined, body: {}, code: 'unauthorized', keyId: null },
    { id: 'probe-bad-key', key: 'rv_guessed-0123456789', body: {}, code: 'unauthorized', keyId: null },
    { id: 'probe-no-scope', key: evaluator.key, body: {}, code: 'forbidden', keyId: evaluator.id },
    { id: 'read-missing', key: reader.key, body: { key: 'OPENAI_APIKEY' }, code: 'not_found', keyId: reader.id },
    { id: 'read-bad-body', key: reader.key, body: { key: 5 }, code: 'bad_request', keyId: reader.id },
    { id: 'read-ok', key: reader.key, body: { key: 'OPENAI_API_KEY' }, code: null, keyId: reader.id },
  ] as const;

  t.test('the log line of each call carries its outcome and code; the wire answer stays 200 with err', async (t) => {
    for (const c of calls()) {
      const answer = await call(live.url, 'POST', ROUTE, { key: c.key, body: c.body, headers: { 'x-request-id': c.id } });
      t.equal(answer.status, 200, `${c.id}: HTTP 200`);
      t.equal(answer.json.code ?? null, c.code, `${c.id}: the body's code`);
      t.match(await lineOf(c.id), {
        route: ROUTE, status: 200, key_id: c.keyId, outcome: c.code === null ? 'ok' : 'error', code: c.code, msg: 'request',
      }, `${c.id}: the log line says it`);
    }
    t.notOk(lines.join('\n').includes('sk-outcomes-plaintext'), 'no value in the log');
  });

  t.test('the request metrics count each outcome and code apart', async (t) => {
    const text = (await call(live.url, 'GET', '/metrics', { key: live.node.adminKey })).text;
    const count = (labels: string) => Number(new RegExp(`^rulevault_http_requests_total\\{${labels}\\} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
    const base = `method="POST",route="${ROUTE}",status="200"`;
    t.equal(count(`${base},outcome="error",code="unauthorized"`), 2, 'no key and a bad key');
    t.equal(count(`${base},outcome="error",code="forbidden"`), 1, 'a key without the scope');
    t.equal(count(`${base},outcome="error",code="not_found"`), 1, 'a key that does not exist');
    t.equal(count(`${base},outcome="error",code="bad_request"`), 1, 'a bad body');
    t.equal(count(`${base},outcome="ok"`), 1, 'the answered read');
    t.equal(count(base), 0, 'no get-secrets series without an outcome');
  });

  t.test('the secret-read audit records every call with its outcome and code', async (t) => {
    const listed = await live.admin.get('/api/audit/secret-reads');
    const byRequest = new Map((listed.json.reads as { request_id: string }[]).map((r) => [r.request_id, r]));
    for (const c of calls()) {
      t.match(byRequest.get(c.id), { key_id: c.keyId, outcome: c.code === null ? 'ok' : 'error', code: c.code }, `${c.id}: recorded`);
    }
    t.same((byRequest.get('read-ok') as unknown as { secrets: { key: string }[] }).secrets.map((s) => s.key), ['OPENAI_API_KEY']);
    const errors = await live.admin.get('/api/audit/secret-reads?outcome=error');
    t.same(errors.json.reads.map((r: { request_id: string }) => r.request_id), calls().filter((c) => c.code !== null).map((c) => c.id), 'outcome=error lists the refusals');
    const oks = await live.admin.get('/api/audit/secret-reads?outcome=ok');
    t.same(oks.json.reads.map((r: { request_id: string }) => r.request_id), ['read-ok']);
    t.match((await live.admin.get('/api/audit/secret-reads?outcome=refused')).json, { code: 'bad_request', err: /^outcome must be one of ok, error/ });
  });
});
