/**
 * Black-box: one fixed corpus of public requests (bodies, content types,
 * encodings, keys, aliases, methods, origins, limits, members) sent to a node
 * on its one path. Every request is answered with a documented status and
 * logged once; then the decisions where the contract is silent, pinned
 * (docs/api.md#how-requests-are-read). Once a comparison of the lean path with
 * express (issue 14 item 8, issue 15 item 3); express no longer answers these
 * routes (docs/decisions/0051-one-implementation-per-route.md).
 */
import { gzipSync } from 'node:zlib';
import t from 'tap';
import { createLogger } from '../../src/base/log';
import { sendRaw, withJson, type RawRequest, type RawResponse } from '../support/raw-http';
import { withNode } from '../support/with-node';

const ALLOWED = 'https://app.example.com';
const STRANGER = 'https://evil.example.net';
const LIMIT = 4096;
const EVALUATE = '/api/rule-engine/evaluate';
const SECRETS = '/api/vault/get-secrets';

type KeyName = 'admin' | 'evaluate' | 'reader' | 'tagged' | 'both' | 'revoked';

const lines: string[] = [];
const live = withNode(t, {
  env: { RULEVAULT_ALLOWED_CORS_ORIGINS: ALLOWED, RULEVAULT_MAX_BODY_BYTES: String(LIMIT), RULEVAULT_REQUEST_TIMEOUT_MS: '600000' },
  logger: createLogger((line) => lines.push(line)),
});

let keys: Record<KeyName, string>;
t.before(async () => {
  const created = async (path: string, body: unknown) => {
    const answer = await live.admin.post(path, body);
    if (answer.status !== 201) throw new Error(`${path}: ${answer.status} ${answer.text}`);
    return answer.json;
  };
  const context = await created('/api/contexts', { name: 'tone', content: 'Answer in depth.', tags: ['t'] });
  const prompt = await created('/api/prompts', { name: 'greet', prompt: 'Hello {{name}}' });
  await created('/api/rule-engine/rules', {
    name: 'gold', condition_groups: [{ conditions: [{ field: 'tier', operator: 'equals', value: 'gold' }] }],
    entities: [{ entity_type: 'context', entity_id: context.id }, { entity_type: 'prompt', entity_id: prompt.id }, { entity_type: 'evaluation', entity_id: 'eval-1' }],
  });
  await created('/api/rule-engine/rules', {
    name: 'off', status: 'INACTIVE', condition_groups: [{ conditions: [{ field: 'tier', operator: 'equals', value: 'gold' }] }],
  });
  await created('/api/vault/secrets', { key: 'OPENAI_API_KEY', value: 'sk-openai', tags: ['llm'] });
  await created('/api/vault/secrets', { key: 'DB_PASSWORD', value: 'pg-pass', tags: ['db'] });
  const key = async (name: string, scopes: string[], secret_tags: string[] = []) => (await created('/api/api-keys', { name, scopes, secret_tags })) as { id: string; key: string };
  const revoked = await key('revoked', ['evaluate', 'secrets:read']);
  if ((await live.admin.delete(`/api/api-keys/${revoked.id}`)).status !== 204) throw new Error('revoking');
  keys = {
    admin: live.node.adminKey,
    evaluate: (await key('evaluate', ['evaluate'])).key,
    reader: (await key('reader', ['secrets:read'])).key,
    tagged: (await key('tagged', ['secrets:read'], ['llm'])).key,
    both: (await key('both', ['evaluate', 'secrets:read'])).key,
    revoked: revoked.key,
  };
});

interface Case {
  readonly name: string;
  readonly method?: string;
  readonly path: string;
  readonly key?: KeyName;
  /** An Authorization header sent as is. */
  readonly authorization?: string;
  readonly headers?: Record<string, string>;
  readonly body?: string | Buffer;
  readonly chunked?: boolean;
  readonly holdOpen?: boolean;
}

const good = JSON.stringify({ entity_type: 'context', fields: { tier: 'gold' }, include_entity_data: true });
const BOM = '\uFEFF';
const bodies: [string, string | Buffer][] = [
  ['{}', '{}'],
  ['empty', ''],
  ['whitespace only', '   '],
  ['a newline only', '\n'],
  ['BOM only', BOM],
  ['BOM then {}', BOM + '{}'],
  ['not JSON', 'not json'],
  ['truncated JSON', '{"entity_type":'],
  ['an array', '[]'],
  ['null', 'null'],
  ['a number', '5'],
  ['a string', '"x"'],
  ['invalid UTF-8', Buffer.from([0x7b, 0xff, 0x7d])],
  ['two documents', '{}{}'],
];

function corpus(): Case[] {
  const cases: Case[] = [];
  const add = (c: Case) => cases.push(c);
  for (const [path, key] of [[EVALUATE, 'evaluate'], [SECRETS, 'reader']] as const) {
    const at = (name: string) => `${path} ${name}`;
    for (const [name, body] of bodies) add({ name: at(`body ${name}`), path, key, body });
    add({ name: at('no body at all'), path, key });
    // A good body, however it is labelled.
    const body = path === EVALUATE ? good : '{"tags":["llm"]}';
    for (const type of ['application/json', 'text/plain', 'application/x-www-form-urlencoded', 'application/json; charset=utf-8',
      'application/json; charset=UTF8', 'text/plain; charset=iso-8859-1', 'application/json; charset=utf-16le', 'multipart/form-data']) {
      add({ name: at(`content-type ${type}`), path, key, body, headers: { 'content-type': type } });
    }
    add({ name: at('no content-type'), path, key, body });
    add({ name: at('BOM before a good body'), path, key, body: BOM + body });
    add({ name: at('gzip'), path, key, body: gzipSync(body), headers: { 'content-encoding': 'gzip' } });
    add({ name: at('identity encoding'), path, key, body, headers: { 'content-encoding': 'identity' } });
    add({ name: at('unknown encoding'), path, key, body, headers: { 'content-encoding': 'compress' } });
    add({ name: at('corrupt gzip'), path, key, body: 'not gzip', headers: { 'content-encoding': 'gzip' } });
    add({ name: at('chunked'), path, key, body, chunked: true });
    add({ name: at('over the limit, declared'), path, key, body: JSON.stringify({ pad: 'x'.repeat(LIMIT) }) });
    add({ name: at('over the limit, chunked'), path, key, body: JSON.stringify({ pad: 'x'.repeat(LIMIT) }), chunked: true });
    add({ name: at('huge declared length, no body sent'), path, key, headers: { 'content-length': '1000000000' }, holdOpen: true });
    add({ name: at('unknown members'), path, key, body: path === EVALUATE ? JSON.stringify({ ...JSON.parse(good), source: 'sdk', metaProperties: {} }) : '{"source":"sdk"}' });
    // Keys.
    for (const k of ['admin', 'evaluate', 'reader', 'tagged', 'both', 'revoked'] as const) add({ name: at(`key ${k}`), path, key: k, body });
    for (const authorization of ['', 'Bearer', 'Bearer rv_unknown', 'Basic dXNlcjpwYXNz', 'bearer  rv_unknown  ']) {
      add({ name: at(`authorization "${authorization}"`), path, authorization, body });
    }
    add({ name: at('no key'), path, body });
    // Paths: the aliases served, and what is not the endpoint.
    // `//api/...`: leading slashes collapse (a base URL ending in `/`), on every route.
    for (const alias of [`${path}/`, path.toUpperCase(), `${path.toUpperCase()}/`, path.replace('api', 'Api'), `${path}?x=1`, `${path}/?x=1`, `/${path}`]) {
      add({ name: `alias ${alias}`, path: alias, key, body });
      add({ name: `alias ${alias} without a key`, path: alias, body });
      add({ name: `alias ${alias} bad body`, path: alias, key, body: '   ' });
    }
    for (const other of [`${path}//`, `${path}/x`, path.replace('api/', 'api//'), `${path.slice(0, -1)}%${path.charCodeAt(path.length - 1).toString(16)}`]) {
      add({ name: `not the endpoint ${other}`, path: other, key, body });
    }
    // Methods.
    for (const method of ['GET', 'PUT', 'DELETE', 'PATCH', 'HEAD']) add({ name: at(`method ${method}`), method, path, key });
    add({ name: at('preflight, allowed origin'), method: 'OPTIONS', path, headers: { origin: ALLOWED, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,authorization' } });
    add({ name: at('preflight, allowed origin, alias'), method: 'OPTIONS', path: `${path.toUpperCase()}/`, headers: { origin: ALLOWED, 'access-control-request-method': 'POST' } });
    add({ name: at('preflight, stranger origin'), method: 'OPTIONS', path, headers: { origin: STRANGER, 'access-control-request-method': 'POST' } });
    add({ name: at('preflight, no origin'), method: 'OPTIONS', path });
    // Origins.
    add({ name: at('allowed origin'), path, key, body, headers: { origin: ALLOWED } });
    add({ name: at('allowed origin, bad body'), path, key, body: 'nope', headers: { origin: ALLOWED } });
    add({ name: at('allowed origin, alias'), path: `${path}/`, key, body, headers: { origin: ALLOWED } });
    add({ name: at('stranger origin'), path, key, body, headers: { origin: STRANGER } });
    add({ name: at('stranger origin, alias'), path: path.toUpperCase(), key, body, headers: { origin: STRANGER } });
    add({ name: at('opaque origin'), path, key, body, headers: { origin: 'null' } });
    // Request ids.
    add({ name: at('an insane request id'), path, key, body, headers: { 'x-request-id': 'has spaces in it' } });
  }
  // Members, evaluate.
  const evaluate = (name: string, body: unknown) => cases.push({ name: `evaluate ${name}`, path: EVALUATE, key: 'evaluate', body: JSON.stringify(body) });
  const base = { entity_type: 'context', fields: { tier: 'gold' } };
  evaluate('entity_type missing', { fields: {} });
  evaluate('entity_type null', { entity_type: null, fields: {} });
  evaluate('entity_type unknown', { entity_type: 'dataset', fields: {} });
  evaluate('fields missing', { entity_type: 'context' });
  evaluate('fields null', { entity_type: 'context', fields: null });
  evaluate('fields an array', { entity_type: 'context', fields: [] });
  evaluate('a field value null', { entity_type: 'context', fields: { tier: null } });
  evaluate('a field value an object', { entity_type: 'context', fields: { tier: {} } });
  evaluate('include_entity_data null', { ...base, include_entity_data: null });
  evaluate('include_entity_data a string', { ...base, include_entity_data: 'yes' });
  evaluate('entity_inputs null', { ...base, entity_inputs: null });
  evaluate('entity_inputs.variables null', { ...base, entity_type: 'prompt', entity_inputs: { variables: null } });
  evaluate('entity_inputs.version null', { ...base, entity_type: 'prompt', entity_inputs: { version: null } });
  evaluate('entity_inputs.shouldCompile null', { ...base, entity_type: 'prompt', entity_inputs: { shouldCompile: null } });
  evaluate('a prompt, compiled', { ...base, entity_type: 'prompt', include_entity_data: true, entity_inputs: { variables: { name: 'Ada' } } });
  evaluate('a prompt, an unknown version', { ...base, entity_type: 'prompt', include_entity_data: true, entity_inputs: { version: '9.9.9' } });
  evaluate('evaluation links', { ...base, entity_type: 'evaluation', include_entity_data: true });
  evaluate('too many fields', { entity_type: 'context', fields: Object.fromEntries(Array.from({ length: 257 }, (_, i) => [`f${i}`, i])) });
  // Members, get-secrets.
  const secrets = (name: string, body: unknown, key: KeyName = 'reader') => cases.push({ name: `get-secrets ${name}`, path: SECRETS, key, body: JSON.stringify(body) });
  secrets('by key', { key: 'DB_PASSWORD' });
  secrets('by key and tag', { key: 'DB_PASSWORD', tags: ['llm'] });
  secrets('a tagged key reads its tags only', {}, 'tagged');
  secrets('key null', { key: null });
  secrets('tags null', { tags: null });
  secrets('a tag null', { tags: [null] });
  secrets('key a number', { key: 5 });
  return cases;
}

function toRequest(c: Case, index: number): RawRequest {
  const headers: Record<string, string> = { 'x-request-id': `case-${index}`, ...c.headers };
  if (c.key !== undefined) headers.authorization = `Bearer ${keys[c.key]}`;
  if (c.authorization !== undefined) headers.authorization = c.authorization;
  return { method: c.method ?? 'POST', path: c.path, headers, body: c.body, chunked: c.chunked, holdOpen: c.holdOpen };
}

const STATUSES = [200, 204, 400, 401, 403, 404, 413];
const answers = new Map<string, RawResponse>();

t.test('every public request of the corpus is answered with a documented status, and logged once', async (t) => {
  const cases = corpus();
  for (const [i, c] of cases.entries()) {
    const got = await sendRaw(live.url, toRequest(c, i + 1));
    answers.set(c.name, got);
    t.notOk(got.hung, `${c.name}: answered`);
    t.ok(STATUSES.includes(got.status), `${c.name}: ${got.status}`);
  }
  t.ok(cases.length > 150, `${cases.length} requests sent`);
  cases.forEach((c, i) => {
    if (c.headers?.['x-request-id'] !== undefined) return;
    const logged = lines.map((line) => JSON.parse(line)).filter((r) => r.request_id === `case-${i + 1}`);
    t.equal(logged.length, 1, `${c.name}: one line`);
  });
});

/** The answer the corpus got, parsed. */
function answer(name: string) {
  const got = answers.get(name);
  if (got === undefined) throw new Error(`no case ${name}`);
  return withJson(got);
}

t.test('the decisions where the contract is silent', async (t) => {
  // Bodies: a BOM is skipped; an empty body is no body; whitespace alone is not JSON.
  t.equal(answer(`${EVALUATE} BOM before a good body`).status, 200, 'a BOM before JSON is skipped');
  t.same(answer(`${SECRETS} body BOM then {}`).json.err, null);
  for (const name of ['whitespace only', 'a newline only', 'BOM only']) {
    t.same(answer(`${EVALUATE} body ${name}`).json, { err: 'request body is not valid JSON', code: 'bad_request' }, `evaluate: ${name}`);
    t.equal(answer(`${EVALUATE} body ${name}`).status, 400);
    t.same(answer(`${SECRETS} body ${name}`).json, { err: 'request body is not valid JSON', code: 'bad_request', res: null }, `get-secrets: ${name}`);
    t.equal(answer(`${SECRETS} body ${name}`).status, 200);
  }
  t.equal(answer(`${SECRETS} body empty`).json.err, null, 'get-secrets: an empty body asks for every secret');
  t.equal(answer(`${EVALUATE} body empty`).status, 400);

  // get-secrets answers 200 with err on every path that serves it, aliases included.
  for (const [name, got] of answers) {
    const servedSecrets = name.startsWith('get-secrets ') || (name.toLowerCase().includes(SECRETS) && !name.startsWith('not the endpoint'));
    // Past the CORS check: strangers and preflights are answered by the origin policy; HEAD has no body.
    if (!servedSecrets || /stranger origin|opaque origin|preflight|method HEAD/.test(name)) continue;
    t.equal(got.status, 200, `${name}: 200`);
    const json = answer(name).json ?? {};
    // A failure carries its code beside err (issue 17 item 6); a success is exactly {err: null, res}.
    const members = json.err === null ? 'err,res' : 'code,err,res';
    t.ok(Object.keys(json).sort().join() === members && (json.err === null) === (json.res !== null), `${name}: {err, res} (code on a failure)`);
  }
  for (const alias of [`${SECRETS}/`, SECRETS.toUpperCase()]) {
    t.same(answer(`alias ${alias} without a key`).json, { err: 'no API key was provided: send Authorization: Bearer <API_KEY>', code: 'unauthorized', res: null }, alias);
    t.same(answer(`alias ${alias}`).json, { err: null, res: { OPENAI_API_KEY: 'sk-openai' } }, alias);
  }
  for (const alias of [`${EVALUATE}/`, EVALUATE.toUpperCase()]) {
    t.equal(answer(`alias ${alias} without a key`).status, 401, alias);
    t.equal(answer(`alias ${alias}`).status, 200, alias);
  }
  t.equal(answer(`not the endpoint ${SECRETS}/x`).status, 404, 'a longer path is not the endpoint');

  // Null members are a 400 naming the member.
  t.same(answer('evaluate include_entity_data null').json, { err: 'include_entity_data must be a boolean', code: 'bad_request' });
  t.same(answer('evaluate entity_inputs null').json, { err: 'entity_inputs must be an object', code: 'bad_request' });
  t.same(answer('evaluate entity_inputs.variables null').json, { err: 'entity_inputs.variables must be an object', code: 'bad_request' });
  t.match(answer('evaluate entity_inputs.version null').json, { err: /entity_inputs\.version must be/ });
  t.same(answer('evaluate entity_inputs.shouldCompile null').json, { err: 'entity_inputs.shouldCompile must be a boolean', code: 'bad_request' });
  for (const name of ['include_entity_data null', 'entity_inputs null', 'entity_inputs.variables null', 'entity_inputs.version null', 'entity_inputs.shouldCompile null']) {
    t.equal(answer(`evaluate ${name}`).status, 400, name);
  }
  t.same(answer('get-secrets key null').json, { err: 'key must be a string', code: 'bad_request', res: null });
  t.same(answer('get-secrets tags null').json, { err: 'tags must be an array of strings', code: 'bad_request', res: null });

  // An over-limit declared length is refused from the headers, and the connection is closed.
  for (const path of [EVALUATE, SECRETS]) {
    const refused = answer(`${path} huge declared length, no body sent`);
    t.equal(refused.status, path === EVALUATE ? 413 : 200);
    t.match(refused.json?.err, /larger than the limit of 4096 bytes/);
    t.equal(refused.headers.connection, 'close');
  }
});
