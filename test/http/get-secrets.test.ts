/** Black-box: POST /api/vault/get-secrets (contract §1.2) and the admin secrets API (contract §3). */
import t from 'tap';
import { call, type Client } from '../support/http';
import { withNode } from '../support/with-node';
import { forCells } from '../support/matrix';

forCells(t, 'get-secrets', (t, cell) => {
  let reader: Client;
  let readerKey: string;

  const live = withNode(t, { cell });
  const admin = live.admin;
  t.before(async () => {
    readerKey = (await admin.post('/api/api-keys', { name: 'reader', scopes: ['secrets:read'] })).json.key;
    reader = live.clientFor(readerKey);
    for (const [key, value, tags] of [
      ['OPENAI_API_KEY', 'sk-openai-1', ['llm', 'prod']],
      ['ANTHROPIC_API_KEY', 'sk-ant-1', ['llm']],
      ['DB_PASSWORD', 'pg-secret-1', ['db', 'prod']],
      ['UNTAGGED', 'plain-1', []],
    ] as const) {
      const created = await admin.post('/api/vault/secrets', { key, value, tags });
      if (created.status !== 201) throw new Error(created.text);
    }
  });

  const get = (body?: unknown, options = {}) => reader.post('/api/vault/get-secrets', body, options);

  t.test('selection: all, by key, by any tag, by both', async (t) => {
    const all = await get({});
    t.equal(all.status, 200);
    t.same(all.json, { err: null, res: { OPENAI_API_KEY: 'sk-openai-1', ANTHROPIC_API_KEY: 'sk-ant-1', DB_PASSWORD: 'pg-secret-1', UNTAGGED: 'plain-1' } });
    t.equal(all.headers.get('cache-control'), 'no-store');
    t.same((await get({ key: 'DB_PASSWORD' })).json.res, { DB_PASSWORD: 'pg-secret-1' });
    // A key lookup that finds nothing names the key (it was `{err: null, res: {}}`: a mistyped key started an app with it unset).
    t.same((await get({ key: 'NOPE' })).json, { err: 'no secret "NOPE" that this API key may read', code: 'not_found', res: null });
    t.same((await get({ tags: ['llm'] })).json.res, { OPENAI_API_KEY: 'sk-openai-1', ANTHROPIC_API_KEY: 'sk-ant-1' });
    t.same((await get({ tags: ['db', 'llm'] })).json.res, { OPENAI_API_KEY: 'sk-openai-1', ANTHROPIC_API_KEY: 'sk-ant-1', DB_PASSWORD: 'pg-secret-1' }, 'any of the tags');
    t.same((await get({ key: 'DB_PASSWORD', tags: ['llm'] })).json, {
      err: 'no secret "DB_PASSWORD" carrying one of the tags "llm" that this API key may read', code: 'not_found', res: null,
    }, 'key and tags must both hold');
    t.same((await get({ tags: ['no-such-tag'] })).json, { err: null, res: {} }, 'a tags lookup that matches nothing is an empty answer');
    t.same((await get({ key: 'OPENAI_API_KEY', tags: ['prod'] })).json.res, { OPENAI_API_KEY: 'sk-openai-1' });
    t.same((await get({ source: 'sdk', metaProperties: {} })).json.res.UNTAGGED, 'plain-1', 'unknown members ignored');
  });

  t.test("OpenLIT's SDK requests: a key that exists answers as before; a missing one answers err with res null", async (t) => {
    // What openlit's ts-sdk (Vault.getSecrets) sends: JSON.stringify({key, tags}) with only Authorization; the
    // python-sdk adds Content-Type and `source`. Both read `res` and hand `err` back to the caller.
    const tsSdk = (key: string) => call(live.url, 'POST', '/api/vault/get-secrets', { key: readerKey, raw: JSON.stringify({ key, tags: undefined }) });
    t.same((await tsSdk('OPENAI_API_KEY')).json, { err: null, res: { OPENAI_API_KEY: 'sk-openai-1' } });
    const missing = await tsSdk('OPENAI_KEY');
    t.equal(missing.status, 200, 'still HTTP 200: the SDKs raise on any other status');
    t.same(missing.json, { err: 'no secret "OPENAI_KEY" that this API key may read', code: 'not_found', res: null }, 'the contract §1.2 error shape');
    const python = await get({ key: 'OPENAI_API_KEY', source: 'python-sdk' }, { headers: { 'content-type': 'application/json' } });
    t.same(python.json, { err: null, res: { OPENAI_API_KEY: 'sk-openai-1' } });
    t.same((await get({ tags: ['nothing-here'], source: 'python-sdk' })).json, { err: null, res: {} }, 'a tags lookup with no match stays a success');
  });

  t.test('always HTTP 200 with err and res null on any failure', async (t) => {
    const cases: [string, () => Promise<{ status: number; json: any }>, RegExp][] = [
      ['no key', () => call(live.url, 'POST', '/api/vault/get-secrets', { body: {} }), /no API key was provided/],
      ['unknown key', () => call(live.url, 'POST', '/api/vault/get-secrets', { key: 'rv_unknown', body: {} }), /invalid/],
      ['missing scope', async () => {
        const evaluator = (await admin.post('/api/api-keys', { name: 'e', scopes: ['evaluate'] })).json.key;
        return call(live.url, 'POST', '/api/vault/get-secrets', { key: evaluator, body: {} });
      }, /secrets:read scope/],
      ['admin is not secrets:read', () => admin.post('/api/vault/get-secrets', {}), /secrets:read scope/],
      ['malformed JSON', () => get(undefined, { raw: '{"key":', headers: { 'content-type': 'application/json' } }), /not valid JSON/],
      ['body an array', () => get([1]), /request body must be a JSON object/],
      ['key not a string', () => get({ key: 5 }), /key must be a string/],
      ['tags not strings', () => get({ tags: 'llm' }), /tags must be an array of strings/],
      ['key null', () => get({ key: null }), /^key must be a string$/],
      ['tags null', () => get({ tags: null }), /^tags must be an array of strings$/],
      ['whitespace only', () => get(undefined, { raw: '  \n', headers: { 'content-type': 'application/json' } }), /not valid JSON/],
    ];
    for (const [name, run, message] of cases) {
      const answer = await run();
      t.equal(answer.status, 200, `${name}: status 200`);
      t.equal(answer.json.res, null, `${name}: res null`);
      t.match(answer.json.err, message, `${name}: err`);
    }
    const revoked = await admin.post('/api/api-keys', { name: 'gone', scopes: ['secrets:read'] });
    await admin.delete(`/api/api-keys/${revoked.json.id}`);
    const after = await call(live.url, 'POST', '/api/vault/get-secrets', { key: revoked.json.key, body: {} });
    t.same(after.json, { err: 'the API key is invalid or has been revoked', code: 'unauthorized', res: null });
  });

  t.test('every alias that serves get-secrets answers 200 with err too', async (t) => {
    const aliases = ['/api/vault/get-secrets/', '/API/VAULT/GET-SECRETS', '/Api/Vault/Get-Secrets/', '/api/vault/get-secrets/?x=1'];
    for (const path of aliases) {
      const unauthenticated = await call(live.url, 'POST', path, { body: {} });
      t.equal(unauthenticated.status, 200, `${path}: no key`);
      t.same(unauthenticated.json, { err: 'no API key was provided: send Authorization: Bearer <API_KEY>', code: 'unauthorized', res: null });
      const malformed = await call(live.url, 'POST', path, { key: readerKey, raw: '{"key":', headers: { 'content-type': 'application/json' } });
      t.equal(malformed.status, 200, `${path}: malformed body`);
      t.same(malformed.json, { err: 'request body is not valid JSON', code: 'bad_request', res: null });
      const read = await call(live.url, 'POST', path, { key: readerKey, body: { key: 'DB_PASSWORD' } });
      t.same(read.json, { err: null, res: { DB_PASSWORD: 'pg-secret-1' } }, `${path}: served`);
      t.equal(read.headers.get('cache-control'), 'no-store');
    }
    const elsewhere = await call(live.url, 'POST', '/api/vault/get-secrets/more', { key: readerKey, body: {} });
    t.equal(elsewhere.status, 404, 'a longer path is not the endpoint');
  });

  t.test('JSON accepted as text/plain and with no body at all', async (t) => {
    const plain = await get(undefined, { raw: '{"key":"UNTAGGED"}', headers: { 'content-type': 'text/plain' } });
    t.same(plain.json, { err: null, res: { UNTAGGED: 'plain-1' } });
    const empty = await call(live.url, 'POST', '/api/vault/get-secrets', { key: readerKey });
    t.equal(empty.json.err, null);
    t.equal(Object.keys(empty.json.res).length >= 4, true, 'no body: every secret the key may read');
  });

  t.test('a key with secret_tags reads only secrets carrying one of them', async (t) => {
    const scoped = (await admin.post('/api/api-keys', { name: 'db only', scopes: ['secrets:read'], secret_tags: ['db'] })).json.key;
    const asScoped = live.clientFor(scoped);
    t.same((await asScoped.post('/api/vault/get-secrets', {})).json.res, { DB_PASSWORD: 'pg-secret-1' });
    t.same((await asScoped.post('/api/vault/get-secrets', { key: 'OPENAI_API_KEY' })).json,
      { err: 'no secret "OPENAI_API_KEY" that this API key may read', code: 'not_found', res: null }, 'the same answer as a key that does not exist');
    t.same((await asScoped.post('/api/vault/get-secrets', { tags: ['prod'] })).json.res, { DB_PASSWORD: 'pg-secret-1' });
  });

  t.test('admin secrets API never shows a value; updates make versions; duplicates 409', async (t) => {
    const created = await admin.post('/api/vault/secrets', { key: 'ROTATING', value: 'value-v1', tags: ['rot'] });
    t.equal(created.status, 201);
    t.match(created.json, { key: 'ROTATING', tags: ['rot'], version: 1, revision: '0' });
    t.notOk(created.text.includes('value-v1'), 'the answer never contains the value');
    const duplicate = await admin.post('/api/vault/secrets', { key: 'ROTATING', value: 'other' });
    t.equal(duplicate.status, 409);
    t.match(duplicate.json.err, /ROTATING already exists/);
    const list = await admin.get('/api/vault/secrets');
    t.ok(list.json.secrets.some((s: { key: string }) => s.key === 'ROTATING'));
    for (const value of ['value-v1', 'sk-openai-1', 'pg-secret-1']) t.notOk(list.text.includes(value), 'listings never contain values');

    const id = created.json.id as string;
    const updated = await admin.patch(`/api/vault/secrets/${id}`, { value: 'value-v2' });
    t.equal(updated.status, 200);
    t.equal(updated.json.version, 2);
    t.notOk(updated.text.includes('value-v2'));
    t.same((await get({ key: 'ROTATING' })).json.res, { ROTATING: 'value-v2' }, 'the new value is served at once');
    const retagged = await admin.patch(`/api/vault/secrets/${id}`, { tags: ['rot', 'new'] });
    t.equal(retagged.json.version, 3, 'every update is a new version');
    t.same((await get({ tags: ['new'] })).json.res, { ROTATING: 'value-v2' }, 'a tags-only update keeps the value');
    const renamed = await admin.patch(`/api/vault/secrets/${id}`, { key: 'ROTATED' });
    t.same((await get({ key: 'ROTATED' })).json.res, { ROTATED: 'value-v2' });
    t.equal((await get({ key: 'ROTATING' })).json.code, 'not_found');
    t.equal((await admin.patch(`/api/vault/secrets/${id}`, { key: 'DB_PASSWORD' })).status, 409, 'renaming onto a taken key');
    // Issue 14 changed this: an empty PATCH changes nothing, so it answers 200 with the current state (it was a 400).
    const unchanged = await admin.patch(`/api/vault/secrets/${id}`, {});
    t.equal(unchanged.status, 200);
    t.equal(unchanged.json.version, 4, 'no new version');
    t.equal((await admin.patch(`/api/vault/secrets/${id}`, { value: 'x' }, { headers: { 'if-match': '0' } })).status, 409);
    t.equal(renamed.status, 200);

    t.equal((await admin.delete(`/api/vault/secrets/${id}`)).status, 204);
    t.same((await get({ key: 'ROTATED' })).json, { err: 'no secret "ROTATED" that this API key may read', code: 'not_found', res: null }, 'a deleted secret leaves the vault at once');
    t.equal((await admin.delete(`/api/vault/secrets/${id}`)).status, 204, 'a second DELETE of an erased secret answers 204 (contract §3)');
    const again = await admin.post('/api/vault/secrets', { key: 'ROTATED', value: 'reborn' });
    t.equal(again.status, 201, 'the key is free again after deletion');
  });

  t.test('bad secret input names the member', async (t) => {
    const cases: [unknown, RegExp][] = [
      [{ value: 'x' }, /key is required/],
      [{ key: 'K' }, /value is required/],
      [{ key: 'K', value: 5 }, /value must be a string/],
      [{ key: 'K', value: 'v', tags: [1] }, /tags\[0\] must be a string/],
      [{ key: 'K', value: 'x'.repeat(64 * 1024 + 1) }, /value must be at most 65536 characters/],
      [{ key: 'K', value: 'a\uD800b' }, /lone surrogate/],
    ];
    for (const [body, message] of cases) {
      const answer = await admin.post('/api/vault/secrets', body);
      t.equal(answer.status, 400);
      t.match(answer.json.err, message);
    }
  });
});
