/**
 * Black-box: one fixed sequence of catalog writes (rules, contexts, prompts:
 * create, update, delete, and every error class) sent to a node on its one
 * path. Every request is answered and logged once under its route; then the
 * decisions, pinned. Once a comparison of the lean path with express;
 * express no longer answers these routes
 * (docs/decisions/0051-one-implementation-per-route.md).
 */
import { gzipSync } from 'node:zlib';
import t from 'tap';
import { createLogger } from '../../src/base/log';
import { sendRaw, withJson, type RawResponse } from '../support/raw-http';
import { withNode } from '../support/with-node';

const ALLOWED = 'https://app.example.com';
const STRANGER = 'https://evil.example.net';
const LIMIT = 4096;
const RULES = '/api/rule-engine/rules';
const CONTEXTS = '/api/contexts';
const PROMPTS = '/api/prompts';

const lines: string[] = [];
const live = withNode(t, {
  env: { RULEVAULT_ALLOWED_CORS_ORIGINS: ALLOWED, RULEVAULT_MAX_BODY_BYTES: String(LIMIT) },
  logger: createLogger((line) => lines.push(line)),
});
let evaluateKey: string;
/** `{name}` in a case's path or body: the id a `saves: name` case created. */
const ids = new Map<string, string>();
t.before(async () => {
  const created = await live.admin.post('/api/api-keys', { name: 'evaluate', scopes: ['evaluate'] });
  if (created.status !== 201) throw new Error(`api key: ${created.status} ${created.text}`);
  evaluateKey = created.json.key;
});

interface Case {
  readonly name: string;
  readonly method: string;
  /** `{name}` is replaced by the id a `saves: name` case created on that node. */
  readonly path: string;
  readonly key?: 'admin' | 'evaluate' | 'none';
  readonly headers?: Record<string, string>;
  readonly body?: string | Buffer;
  readonly chunked?: boolean;
  readonly holdOpen?: boolean;
  /** On a 201, remember the answer's id under this name. */
  readonly saves?: string;
}

const rule = (extra: object = {}) => JSON.stringify({
  name: 'gold', condition_groups: [{ conditions: [{ field: 'tier', operator: 'equals', value: 'gold' }] }], ...extra,
});
const context = JSON.stringify({ name: 'tone', content: 'Answer in depth.', tags: ['t'] });

function corpus(): Case[] {
  const cases: Case[] = [];
  const add = (c: Case) => cases.push(c);
  add({ name: 'context create', method: 'POST', path: CONTEXTS, body: context, saves: 'context' });
  add({ name: 'prompt create', method: 'POST', path: PROMPTS, body: JSON.stringify({ name: 'greet', prompt: 'Hello {{name}}' }), saves: 'prompt' });
  add({ name: 'rule create', method: 'POST', path: RULES, body: rule({ entities: [{ entity_type: 'context', entity_id: '{context}' }] }), saves: 'rule' });
  // Bodies.
  for (const [name, body] of [['empty', ''], ['whitespace only', '   '], ['not JSON', 'nope'], ['truncated', '{"name":'], ['an array', '[]'],
    ['null', 'null'], ['BOM then a rule', '\uFEFF' + rule()], ['invalid UTF-8', Buffer.from([0x7b, 0xff, 0x7d])], ['two documents', '{}{}']] as const) {
    add({ name: `rule create, body ${name}`, method: 'POST', path: RULES, body });
  }
  add({ name: 'rule create, no body at all', method: 'POST', path: RULES });
  for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/json; charset=utf-8', 'application/json; charset=utf-16le', 'multipart/form-data']) {
    add({ name: `rule create, content-type ${type}`, method: 'POST', path: RULES, body: rule(), headers: { 'content-type': type } });
  }
  add({ name: 'rule create, gzip', method: 'POST', path: RULES, body: gzipSync(rule()), headers: { 'content-encoding': 'gzip' } });
  add({ name: 'rule create, corrupt gzip', method: 'POST', path: RULES, body: 'not gzip', headers: { 'content-encoding': 'gzip' } });
  add({ name: 'rule create, identity encoding', method: 'POST', path: RULES, body: rule(), headers: { 'content-encoding': 'identity' } });
  add({ name: 'rule create, chunked', method: 'POST', path: RULES, body: rule(), chunked: true });
  add({ name: 'rule create, over the limit, declared', method: 'POST', path: RULES, body: rule({ description: 'x'.repeat(LIMIT) }) });
  add({ name: 'rule create, over the limit, chunked', method: 'POST', path: RULES, body: rule({ description: 'x'.repeat(LIMIT) }), chunked: true });
  add({ name: 'rule create, huge declared length', method: 'POST', path: RULES, headers: { 'content-length': '1000000000' }, holdOpen: true });
  // Members: a 400 naming the member.
  add({ name: 'rule create, name missing', method: 'POST', path: RULES, body: JSON.stringify({ condition_groups: [] }) });
  add({ name: 'rule create, unknown member', method: 'POST', path: RULES, body: rule({ nmae: 'x' }) });
  add({ name: 'rule create, bad operator', method: 'POST', path: RULES, body: JSON.stringify({ name: 'x', condition_groups: [{ conditions: [{ field: 'a', operator: 'near', value: '1' }] }] }) });
  add({ name: 'rule create, bad regex', method: 'POST', path: RULES, body: JSON.stringify({ name: 'x', condition_groups: [{ conditions: [{ field: 'a', operator: 'regex', value: '(' }] }] }) });
  add({ name: 'rule create, link to an unknown context', method: 'POST', path: RULES, body: rule({ entities: [{ entity_type: 'context', entity_id: 'nope' }] }) });
  add({ name: 'context create, content missing', method: 'POST', path: CONTEXTS, body: JSON.stringify({ name: 'x' }) });
  add({ name: 'prompt create, duplicate name', method: 'POST', path: PROMPTS, body: JSON.stringify({ name: 'greet', prompt: 'Hi' }) });
  // Keys.
  for (const key of ['none', 'evaluate'] as const) {
    add({ name: `rule create, key ${key}`, method: 'POST', path: RULES, key, body: rule() });
    add({ name: `rule update, key ${key}`, method: 'PATCH', path: `${RULES}/{rule}`, key, body: '{}' });
    add({ name: `rule delete, key ${key}`, method: 'DELETE', path: `${RULES}/{rule}`, key });
  }
  add({ name: 'rule create, key none, bad body', method: 'POST', path: RULES, key: 'none', body: 'nope' });
  // Updates and If-Match.
  add({ name: 'rule update', method: 'PATCH', path: `${RULES}/{rule}`, body: JSON.stringify({ description: 'd' }), headers: { 'if-match': '"0"' } });
  add({ name: 'rule update, stale If-Match', method: 'PATCH', path: `${RULES}/{rule}`, body: JSON.stringify({ description: 'e' }), headers: { 'if-match': '"0"' } });
  add({ name: 'rule update, malformed If-Match', method: 'PATCH', path: `${RULES}/{rule}`, body: '{}', headers: { 'if-match': 'W/"x"' } });
  add({ name: 'rule update, If-Match *', method: 'PATCH', path: `${RULES}/{rule}`, body: JSON.stringify({ status: 'INACTIVE' }), headers: { 'if-match': '*' } });
  add({ name: 'rule update, nothing changes', method: 'PATCH', path: `${RULES}/{rule}`, body: '{}' });
  add({ name: 'rule update, bad status', method: 'PATCH', path: `${RULES}/{rule}`, body: JSON.stringify({ status: 'ON' }) });
  add({ name: 'rule update, unknown id', method: 'PATCH', path: `${RULES}/nope`, body: '{}' });
  add({ name: 'context update', method: 'PATCH', path: `${CONTEXTS}/{context}`, body: JSON.stringify({ content: 'Short.' }) });
  add({ name: 'prompt update by name', method: 'PATCH', path: `${PROMPTS}/greet`, body: JSON.stringify({ tags: ['a'] }) });
  add({ name: 'prompt version', method: 'POST', path: `${PROMPTS}/{prompt}/versions`, body: JSON.stringify({ prompt: 'Hi {{name}}' }) });
  add({ name: 'prompt version by name, stale If-Match', method: 'POST', path: `${PROMPTS}/greet/versions`, body: JSON.stringify({ prompt: 'Yo' }), headers: { 'if-match': '"0"' } });
  add({ name: 'prompt version, not greater', method: 'POST', path: `${PROMPTS}/greet/versions`, body: JSON.stringify({ prompt: 'Yo', version: '1.0.0' }) });
  add({ name: 'prompt version, unknown prompt', method: 'POST', path: `${PROMPTS}/nope/versions`, body: JSON.stringify({ prompt: 'Yo' }) });
  add({ name: 'prompt label move (an express route)', method: 'PUT', path: `${PROMPTS}/greet/labels/production`, body: JSON.stringify({ version: '1.0.0' }) });
  // Paths: the aliases the route table serves, a query, escapes.
  add({ name: 'rule update, upper case', method: 'PATCH', path: `${RULES.toUpperCase()}/{rule}`, body: '{}' });
  add({ name: 'rule update, trailing slash', method: 'PATCH', path: `${RULES}/{rule}/`, body: '{}' });
  add({ name: 'rule update, a query', method: 'PATCH', path: `${RULES}/{rule}?dry=1`, body: '{}' });
  add({ name: 'rule create, a query', method: 'POST', path: `${RULES}?x=1&x=2`, body: rule() });
  add({ name: 'rule create, leading slashes', method: 'POST', path: `/${RULES}`, body: rule(), saves: 'rule2' });
  add({ name: 'rule update, malformed escape', method: 'PATCH', path: `${RULES}/%zz`, body: '{}' });
  add({ name: 'rule update, malformed escape, no key', method: 'PATCH', path: `${RULES}/%zz`, key: 'none', body: '{}' });
  add({ name: 'rule update, escaped id', method: 'PATCH', path: `${RULES}/%6eope`, body: '{}' });
  add({ name: 'rule update, empty id', method: 'PATCH', path: `${RULES}/`, body: '{}' });
  add({ name: 'rule update, longer path', method: 'PATCH', path: `${RULES}/{rule}/x`, body: '{}' });
  add({ name: 'rule put', method: 'PUT', path: `${RULES}/{rule}`, body: '{}' });
  add({ name: 'prompt by name, escaped', method: 'PATCH', path: `${PROMPTS}/gr%65et`, body: JSON.stringify({ tags: ['b'] }) });
  // Origins and request ids.
  add({ name: 'rule create, allowed origin', method: 'POST', path: RULES, body: rule(), headers: { origin: ALLOWED }, saves: 'rule3' });
  add({ name: 'rule create, stranger origin', method: 'POST', path: RULES, body: rule(), headers: { origin: STRANGER } });
  add({ name: 'rule create, allowed origin, bad body', method: 'POST', path: RULES, body: 'nope', headers: { origin: ALLOWED } });
  add({ name: 'rule preflight', method: 'OPTIONS', path: `${RULES}/{rule}`, headers: { origin: ALLOWED, 'access-control-request-method': 'PATCH' } });
  add({ name: 'rule create, a request id', method: 'POST', path: RULES, body: 'nope', headers: { 'x-request-id': 'mine-1' } });
  add({ name: 'rule create, an insane request id', method: 'POST', path: RULES, body: 'nope', headers: { 'x-request-id': 'has spaces' } });
  // Deletes.
  add({ name: 'rule delete, stale If-Match', method: 'DELETE', path: `${RULES}/{rule2}`, headers: { 'if-match': '"7"' } });
  add({ name: 'rule delete', method: 'DELETE', path: `${RULES}/{rule2}`, headers: { 'if-match': '"0"' } });
  add({ name: 'rule delete, again', method: 'DELETE', path: `${RULES}/{rule2}` });
  add({ name: 'rule delete, allowed origin', method: 'DELETE', path: `${RULES}/{rule3}`, headers: { origin: ALLOWED } });
  add({ name: 'rule delete, a body', method: 'DELETE', path: `${RULES}/{rule}`, body: 'nope' });
  add({ name: 'context delete (unlinks the rule)', method: 'DELETE', path: `${CONTEXTS}/{context}` });
  add({ name: 'prompt delete by name', method: 'DELETE', path: `${PROMPTS}/greet` });
  add({ name: 'prompt delete, again', method: 'DELETE', path: `${PROMPTS}/greet` });
  add({ name: 'rule delete, last', method: 'DELETE', path: `${RULES}/{rule}` });
  return cases;
}

async function send(c: Case, index: number): Promise<RawResponse> {
  const fill = (text: string) => text.replace(/\{(\w+)\}/g, (_m, name: string) => ids.get(name) ?? `unknown-${name}`);
  const headers: Record<string, string> = { 'x-request-id': `case-${index}`, ...c.headers };
  const key = c.key ?? 'admin';
  if (key !== 'none') headers.authorization = `Bearer ${key === 'admin' ? live.node.adminKey : evaluateKey}`;
  const body = typeof c.body === 'string' ? fill(c.body) : c.body;
  const answer = await sendRaw(live.url, { method: c.method, path: fill(c.path), headers, body, chunked: c.chunked, holdOpen: c.holdOpen });
  if (answer.status === 201) ids.set(c.saves ?? `created by case ${index}`, JSON.parse(answer.text).id as string);
  return answer;
}

const answers = new Map<string, RawResponse>();

t.test('every catalog write of the corpus is answered, and logged once under its route', async (t) => {
  const cases = corpus();
  for (const [i, c] of cases.entries()) {
    const got = await send(c, i + 1);
    answers.set(c.name, got);
    t.notOk(got.hung, `${c.name}: answered (${got.status})`);
  }
  const logged = lines.map((line) => JSON.parse(line)).filter((r) => typeof r.request_id === 'string' && r.request_id.startsWith('case-'));
  t.ok(logged.length > 60, `${logged.length} request lines`);
  cases.forEach((c, i) => {
    if (c.headers?.['x-request-id'] !== undefined) return;
    t.equal(logged.filter((r) => r.request_id === `case-${i + 1}`).length, 1, `${c.name}: one line`);
  });
  t.ok(logged.some((r) => r.route === '/api/rule-engine/rules/:id' && r.method === 'PATCH'), 'a write is labelled with its pattern');
});

t.test('the decisions, pinned', async (t) => {
  const got = (name: string) => {
    const answer = answers.get(name);
    if (answer === undefined) throw new Error(`no case ${name}`);
    return withJson(answer);
  };
  const created = got('rule create');
  t.equal(created.status, 201);
  t.equal(created.headers.etag, '"0"', 'a write answers its revision as a strong ETag');
  t.match(created.headers['rulevault-position'], /^\d+$/, 'and the log position');
  t.equal(got('rule update').headers.etag, '"1"');
  t.equal(got('rule update, stale If-Match').status, 409);
  t.equal(got('rule update, stale If-Match').json.code, 'conflict');
  t.equal(got('rule update, malformed If-Match').status, 400);
  t.match(got('rule update, malformed If-Match').json.err, /If-Match/);
  t.same(got('rule create, name missing').json, { err: 'name is required', code: 'bad_request' });
  t.match(got('rule create, unknown member').json.err, /unknown member "nmae"/);
  t.match(got('rule create, bad operator').json.err, /operator/);
  t.equal(got('rule create, key none').status, 401);
  t.equal(got('rule create, key evaluate').status, 403);
  t.equal(got('rule update, unknown id').status, 404);
  t.equal(got('rule create, body not JSON').json.err, 'request body is not valid JSON');
  t.equal(got('rule create, key none, bad body').status, 400, 'the body is read before the caller, as on every admin route');
  t.equal(got('rule create, over the limit, declared').status, 413);
  t.equal(got('rule create, huge declared length').status, 413);
  t.equal(got('rule create, huge declared length').headers.connection, 'close');
  t.equal(got('rule create, over the limit, chunked').status, 413);
  t.equal(got('rule create, gzip').status, 201, 'a compressed body is inflated');
  t.match(got('rule create, a query').json.err, /unknown query parameter "x"/);
  t.same(got('rule update, malformed escape').json, { err: 'the request path has a malformed %-escape', code: 'bad_request' });
  t.equal(got('rule update, upper case').status, 200);
  t.equal(got('rule update, trailing slash').status, 200);
  t.equal(got('rule update, empty id').status, 404);
  t.equal(got('prompt by name, escaped').status, 200);
  t.equal(got('rule create, stranger origin').status, 403);
  t.equal(got('rule create, allowed origin').headers['access-control-allow-origin'], ALLOWED);
  t.equal(got('rule create, a request id').headers['x-request-id'], 'mine-1');
  t.equal(got('rule delete').status, 204);
  t.match(got('rule delete').headers['rulevault-position'], /^\d+$/);
  t.equal(got('rule delete, again').status, 404);
  t.equal(got('prompt create, duplicate name').status, 409);
  t.equal(got('prompt version').status, 201);
  t.equal(got('prompt version by name, stale If-Match').status, 409);
  t.equal(got('prompt version, not greater').status, 409, 'a version not greater than the latest is a conflict');
  t.equal(got('prompt version, unknown prompt').status, 404);
});
