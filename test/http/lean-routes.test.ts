/**
 * Black-box, on a real node: the routes of the lean path (src/http/fast-path.ts)
 * as callers reach them, each now answered by that one path: the aliases
 * the route table's rules serve and the paths they do not, the public
 * endpoints' other methods and preflights, compressed bodies (inflated
 * here, as express did before), and the label of every request routed
 * there, however it is answered (docs/api.md#how-requests-are-read;
 * docs/decisions/0051-one-implementation-per-route.md).
 */
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import t from 'tap';
import { createLogger } from '../../src/base/log';
import { call } from '../support/http';
import { sendRaw, type RawRequest } from '../support/raw-http';
import { withNode } from '../support/with-node';

const ALLOWED = 'https://app.example.com';
const LIMIT = 4096;
const EVALUATE = '/api/rule-engine/evaluate';
const SECRETS = '/api/vault/get-secrets';
const STREAM = '/api/rule-engine/stream';
const RULES = '/api/rule-engine/rules';

const lines: string[] = [];
const live = withNode(t, {
  env: { RULEVAULT_ALLOWED_CORS_ORIGINS: ALLOWED, RULEVAULT_MAX_BODY_BYTES: String(LIMIT), RULEVAULT_REQUEST_TIMEOUT_MS: '600000' },
  logger: createLogger((line) => lines.push(line)),
});

let evaluateKey: string;
let readerKey: string;
let ruleId: string;
t.before(async () => {
  const key = async (name: string, scopes: string[]) => (await live.admin.post('/api/api-keys', { name, scopes })).json.key as string;
  evaluateKey = await key('evaluate', ['evaluate']);
  readerKey = await key('reader', ['secrets:read']);
  await live.admin.post('/api/vault/secrets', { key: 'OPENAI_API_KEY', value: 'sk-openai' });
  ruleId = (await live.admin.post(RULES, { name: 'gold', condition_groups: [{ conditions: [{ field: 'tier', operator: 'equals', value: 'gold' }] }] })).json.id;
});

const evaluation = JSON.stringify({ entity_type: 'context', fields: { tier: 'gold' } });
const send = (request: RawRequest) => sendRaw(live.url, request);
const json = (text: string) => JSON.parse(text) as Record<string, unknown>;

t.test('the public endpoints answer on every alias the rules serve, and nowhere else', async (t) => {
  for (const alias of [`${EVALUATE}/`, EVALUATE.toUpperCase(), `${EVALUATE.toUpperCase()}/`, EVALUATE.replace('api', 'Api'), `${EVALUATE}?x=1`, `${EVALUATE}/?x=1`, `/${EVALUATE}`, `///${EVALUATE}`]) {
    const answer = await send({ method: 'POST', path: alias, headers: { authorization: `Bearer ${evaluateKey}` }, body: evaluation });
    t.equal(answer.status, 200, `${alias}: evaluate`);
    t.same(json(answer.text).matchingRuleIds, [ruleId], `${alias}: its answer`);
  }
  for (const alias of [`${SECRETS}/`, SECRETS.toUpperCase(), `/${SECRETS}`]) {
    const answer = await send({ method: 'POST', path: alias, headers: { authorization: `Bearer ${readerKey}` }, body: '{}' });
    t.same(json(answer.text), { err: null, res: { OPENAI_API_KEY: 'sk-openai' } }, `${alias}: get-secrets`);
  }
  for (const other of [`${EVALUATE}//`, `${EVALUATE}/x`, EVALUATE.replace('api/', 'api//'), `${EVALUATE.slice(0, -1)}%65`, `${SECRETS}x`]) {
    const answer = await send({ method: 'POST', path: other, headers: { authorization: `Bearer ${evaluateKey}` }, body: evaluation });
    t.equal(answer.status, 404, `${other}: another path`);
    t.same(json(answer.text), { err: `no route for POST ${other.split('?')[0]}`, code: 'not_found' }, `${other}: no route`);
  }
});

t.test('a public endpoint answers another method itself: 404 on evaluate, 200 {err} on get-secrets', async (t) => {
  for (const method of ['GET', 'PUT', 'DELETE', 'PATCH']) {
    const refused = await send({ method, path: EVALUATE, headers: { authorization: `Bearer ${evaluateKey}` } });
    t.equal(refused.status, 404, `${method} evaluate`);
    t.same(json(refused.text), { err: `no route for ${method} ${EVALUATE}`, code: 'not_found' });
    const secrets = await send({ method, path: `${SECRETS}/`, headers: { authorization: `Bearer ${readerKey}` } });
    t.equal(secrets.status, 200, `${method} get-secrets`);
    t.same(json(secrets.text), { err: `no route for ${method} ${SECRETS}/`, code: 'not_found', res: null });
    t.equal(secrets.headers['cache-control'], 'no-store');
  }
  const head = await send({ method: 'HEAD', path: EVALUATE });
  t.equal(head.status, 404, 'HEAD evaluate');
  t.equal(head.text, '', 'with no body');
});

t.test('a preflight gets the CORS surface of the route it asks about', async (t) => {
  const asking = { origin: ALLOWED, 'access-control-request-method': 'POST' };
  const publicOne = await send({ method: 'OPTIONS', path: `${EVALUATE.toUpperCase()}/`, headers: asking });
  t.equal(publicOne.status, 204);
  t.equal(publicOne.headers['access-control-allow-methods'], 'POST, OPTIONS', 'the public endpoints: what contract §1.2 names');
  const write = await send({ method: 'OPTIONS', path: `${RULES}/${ruleId}`, headers: { ...asking, 'access-control-request-method': 'PATCH' } });
  t.equal(write.status, 204);
  t.equal(write.headers['access-control-allow-methods'], 'GET, POST, PUT, PATCH, DELETE, OPTIONS', 'an admin route: the admin surface');
  const stream = await send({ method: 'OPTIONS', path: STREAM, headers: { ...asking, 'access-control-request-method': 'GET' } });
  t.equal(stream.status, 204);
  t.equal(stream.headers['access-control-allow-methods'], 'GET, POST, PUT, PATCH, DELETE, OPTIONS', 'the stream: the admin surface');
  const stranger = await send({ method: 'POST', path: `${RULES}/`, headers: { origin: 'https://evil.example.net' }, body: '{}' });
  t.equal(stranger.status, 403, 'a stranger origin is refused before the write');
});

t.test('compressed bodies are inflated on the lean path', async (t) => {
  for (const [encoding, squeeze] of [['gzip', gzipSync], ['deflate', deflateSync], ['br', brotliCompressSync], ['GZIP', gzipSync]] as const) {
    const evaluated = await send({
      method: 'POST', path: EVALUATE, headers: { authorization: `Bearer ${evaluateKey}`, 'content-encoding': encoding }, body: squeeze(Buffer.from(evaluation)),
    });
    t.equal(evaluated.status, 200, `evaluate, ${encoding}`);
    t.same(json(evaluated.text).matchingRuleIds, [ruleId]);
    const read = await send({ method: 'POST', path: SECRETS, headers: { authorization: `Bearer ${readerKey}`, 'content-encoding': encoding }, body: squeeze(Buffer.from('{"key":"OPENAI_API_KEY"}')) });
    t.same(json(read.text), { err: null, res: { OPENAI_API_KEY: 'sk-openai' } }, `get-secrets, ${encoding}`);
  }
  const created = await send({
    method: 'POST', path: RULES, headers: { authorization: `Bearer ${live.node.adminKey}`, 'content-encoding': 'gzip' },
    body: gzipSync(JSON.stringify({ name: 'zipped', condition_groups: [{ conditions: [{ field: 'a', operator: 'equals', value: 'b' }] }] })),
  });
  t.equal(created.status, 201, 'a write, gzip');
  t.equal(created.headers.etag, '"0"');
  t.match(created.headers['rulevault-position'], /^\d+$/);

  const undecodable = 'request body could not be decoded: it does not match its Content-Encoding';
  const corrupt = await send({ method: 'POST', path: EVALUATE, headers: { authorization: `Bearer ${evaluateKey}`, 'content-encoding': 'gzip' }, body: 'not gzip' });
  t.same([corrupt.status, json(corrupt.text)], [400, { err: undecodable, code: 'bad_request' }], 'evaluate, corrupt gzip');
  const corruptSecrets = await send({ method: 'POST', path: SECRETS, headers: { authorization: `Bearer ${readerKey}`, 'content-encoding': 'deflate' }, body: gzipSync('{}') });
  t.same([corruptSecrets.status, json(corruptSecrets.text)], [200, { err: undecodable, code: 'bad_request', res: null }], 'get-secrets, gzip labelled deflate');
  const corruptWrite = await send({ method: 'POST', path: RULES, headers: { authorization: `Bearer ${live.node.adminKey}`, 'content-encoding': 'gzip' }, body: 'nope' });
  t.same([corruptWrite.status, json(corruptWrite.text)], [400, { err: undecodable, code: 'bad_request' }], 'a write, corrupt gzip');
  const unknown = await send({ method: 'POST', path: EVALUATE, headers: { authorization: `Bearer ${evaluateKey}`, 'content-encoding': 'compress' }, body: evaluation });
  t.same([unknown.status, json(unknown.text)], [400, { err: 'request body encoding is not supported: send UTF-8 JSON', code: 'bad_request' }], 'an unknown encoding');
  const bomb = await send({ method: 'POST', path: EVALUATE, headers: { authorization: `Bearer ${evaluateKey}`, 'content-encoding': 'gzip' }, body: gzipSync(Buffer.alloc(LIMIT * 16, 0x20)) });
  t.same([bomb.status, json(bomb.text)], [413, { err: `request body is larger than the limit of ${LIMIT} bytes`, code: 'payload_too_large' }], 'the limit holds for the inflated bytes');
});

t.test('a write routes on its aliases, with its id %-decoded; a malformed escape is a 400 before the caller is checked', async (t) => {
  const admin = { authorization: `Bearer ${live.node.adminKey}` };
  for (const alias of [`${RULES.toUpperCase()}/${ruleId}`, `${RULES}/${ruleId}/`, `/${RULES}/${ruleId}`, `${RULES}/${ruleId.replace(/^./, (c) => `%${c.charCodeAt(0).toString(16)}`)}`]) {
    const updated = await send({ method: 'PATCH', path: alias, headers: admin, body: '{}' });
    t.equal(updated.status, 200, `PATCH ${alias}`);
    t.equal(json(updated.text).id, ruleId);
  }
  for (const headers of [admin, {}]) {
    const malformed = await send({ method: 'PATCH', path: `${RULES}/%zz`, headers, body: '{}' });
    t.same([malformed.status, json(malformed.text)], [400, { err: 'the request path has a malformed %-escape', code: 'bad_request' }], `malformed escape, ${headers === admin ? 'admin' : 'no key'}`);
  }
  const query = await send({ method: 'PATCH', path: `${RULES}/${ruleId}?dry=1`, headers: admin, body: '{}' });
  t.equal(query.status, 400);
  t.match(json(query.text).err, /unknown query parameter "dry"/);
  const nested = await send({ method: 'PATCH', path: `${RULES}/${ruleId}/x`, headers: admin, body: '{}' });
  t.same([nested.status, json(nested.text).code], [404, 'not_found'], 'a longer path is no route');
});

t.test('a request the lean path routed is labelled with its row\'s pattern, however it is answered', async (t) => {
  const sent: [RawRequest, string][] = [
    [{ method: 'POST', path: `${EVALUATE.toUpperCase()}/`, headers: { 'x-request-id': 'label-1' }, body: evaluation }, EVALUATE],
    [{ method: 'GET', path: SECRETS, headers: { 'x-request-id': 'label-2' } }, SECRETS],
    [{ method: 'POST', path: EVALUATE, headers: { 'x-request-id': 'label-3', origin: 'https://evil.example.net' }, body: evaluation }, EVALUATE],
    // Answered from its headers (413 before the body), and refused by the origin policy: still the write's route.
    [{ method: 'PATCH', path: `${RULES}/${ruleId}`, headers: { 'x-request-id': 'label-4', 'content-length': String(LIMIT + 1) }, holdOpen: true }, `${RULES}/:id`],
    [{ method: 'DELETE', path: `${RULES}/${ruleId}`, headers: { 'x-request-id': 'label-5', origin: 'https://evil.example.net' } }, `${RULES}/:id`],
    [{ method: 'GET', path: `${STREAM}/`, headers: { 'x-request-id': 'label-6' } }, STREAM],
    // Not a route of the lean path: express's 404.
    [{ method: 'POST', path: STREAM, headers: { 'x-request-id': 'label-7' } }, 'unmatched'],
  ];
  for (const [request, label] of sent) {
    const answer = await send(request);
    t.notOk(answer.hung, `${request.method} ${request.path}: answered (${answer.status})`);
  }
  await call(live.url, 'GET', '/healthz');
  const logged = new Map(lines.map((line) => JSON.parse(line)).filter((r) => typeof r.request_id === 'string' && r.request_id.startsWith('label-')).map((r) => [r.request_id, r]));
  sent.forEach(([request, label], i) => {
    t.equal(logged.get(`label-${i + 1}`)?.route, label, `${request.method} ${request.path} (${logged.get(`label-${i + 1}`)?.status}): route ${label}`);
  });
  const metrics = (await live.admin.get('/metrics')).text;
  t.match(metrics, /rulevault_http_requests_total\{method="PATCH",route="\/api\/rule-engine\/rules\/:id",status="413"\} 1/, 'counted under the pattern too');
});
