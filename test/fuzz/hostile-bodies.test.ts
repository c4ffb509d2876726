/**
 * Every hostile body in a catalog against every endpoint that reads a body:
 * 10k-deep nesting, huge arrays, long strings, invalid UTF-8, prototype keys,
 * odd numbers, duplicate keys, odd charsets and content encodings (gzip of
 * garbage, a gzip bomb). Exhaustive rather than sampled: the catalog is small.
 * Afterwards the reads that render stored data still answer, the process is
 * healthy and unpolluted, and its memory stayed bounded.
 */
import { gzipSync } from 'node:zlib';
import t from 'tap';
import { STATUSES, RSS_HEADROOM_BYTES, checkAnswer, checkHealthy, send, startFuzzNode, type Disclosure, type FuzzNode } from './harness';

interface Payload {
  readonly name: string;
  readonly bytes: Buffer;
  readonly headers?: Record<string, string>;
}

const utf8 = (text: string) => Buffer.from(text, 'utf8');
const DEPTH = 10_000;
const deepArray = '['.repeat(DEPTH) + ']'.repeat(DEPTH);
const deepObject = '{"a":'.repeat(DEPTH) + '1' + '}'.repeat(DEPTH);
const hugeArray = '[' + '0,'.repeat(400_000) + '0]';

/** Wraps `inner` (JSON text) as the member most endpoints read: evaluate's fields, a context's meta_properties. */
const asMembers = (inner: string) =>
  `{"entity_type":"context","fields":${inner},"name":"n","content":"c","meta_properties":${inner},"prompt":"p","key":"HOSTILE_KEY","value":"v","scopes":["evaluate"],"as_of":0}`;

const PAYLOADS: readonly Payload[] = [
  { name: 'deep array', bytes: utf8(deepArray) },
  { name: 'deep object', bytes: utf8(deepObject) },
  { name: 'deep object in members', bytes: utf8(asMembers(deepObject)) },
  { name: 'deep array in members', bytes: utf8(asMembers(deepArray)) },
  { name: 'huge array', bytes: utf8(hugeArray) },
  { name: 'huge array in members', bytes: utf8(asMembers(hugeArray)) },
  { name: 'wide object', bytes: utf8('{' + Array.from({ length: 50_000 }, (_, i) => `"k${i}":${i}`).join(',') + '}') },
  { name: 'string over the field limit', bytes: utf8(`{"entity_type":"context","fields":{"a":"${'x'.repeat(70_000)}"},"name":"${'x'.repeat(300)}"}`) },
  { name: 'body over the size limit', bytes: utf8(`{"a":"${'x'.repeat(1_100_000)}"}`) },
  { name: 'unicode everywhere', bytes: utf8(asMembers('{"\u202Eevil":"\uD83D\uDE00\u0000","\uFEFF":"\u2028"}')) },
  { name: 'lone surrogates', bytes: utf8(asMembers('{"\\ud800":"\\udc00"}').replace('"value":"v"', '"value":"\\ud800"')) },
  { name: 'invalid UTF-8 in a string', bytes: Buffer.concat([utf8('{"entity_type":"context","fields":{"a":"'), Buffer.from([0xff, 0xfe, 0xc0, 0xaf, 0x80]), utf8('"}}')]) },
  { name: 'invalid UTF-8 in a key', bytes: Buffer.concat([utf8('{"entity_type":"context","fields":{"'), Buffer.from([0xed, 0xa0, 0x80]), utf8('":"a"}}')]) },
  { name: '__proto__ at the top', bytes: utf8('{"__proto__":{"polluted":"yes"},"entity_type":"context","fields":{}}') },
  { name: '__proto__ in members', bytes: utf8(asMembers('{"__proto__":{"polluted":"yes"},"polluted":"no"}')) },
  { name: 'constructor.prototype', bytes: utf8(asMembers('{"constructor":{"prototype":{"polluted":"yes"}}}')) },
  { name: '__proto__ field value', bytes: utf8('{"entity_type":"evaluation","fields":{"__proto__":"yes","constructor":"x","prototype":1}}') },
  { name: '__proto__ prompt variables', bytes: utf8('{"entity_type":"prompt","fields":{},"entity_inputs":{"variables":{"__proto__":{"polluted":"yes"},"constructor":{"name":"x"}}}}') },
  { name: 'deep prompt variables', bytes: utf8(`{"entity_type":"prompt","fields":{"a":"1"},"include_entity_data":true,"entity_inputs":{"variables":{"name":${deepObject}}}}`) },
  { name: '__proto__ tags', bytes: utf8('{"name":"n","content":"c","tags":["__proto__","constructor"],"key":"__proto__","value":"v","scopes":["__proto__"]}') },
  { name: 'odd numbers', bytes: utf8('{"entity_type":"context","fields":{"a":1e400,"b":-0,"c":-1e400,"d":1E-400,"e":123456789012345678901234567890,"f":"NaN","g":"Infinity"}}') },
  { name: 'duplicate keys', bytes: utf8('{"entity_type":"context","entity_type":"nope","fields":{"a":1},"fields":null,"name":"a","name":7}') },
  { name: 'empty body', bytes: Buffer.alloc(0) },
  { name: 'whitespace', bytes: utf8(' \n\t ') },
  { name: 'null', bytes: utf8('null') },
  { name: 'a bare string', bytes: utf8('"context"') },
  { name: 'a bare number', bytes: utf8('1e400') },
  { name: 'byte order mark', bytes: utf8('\uFEFF{"entity_type":"context","fields":{}}') },
  { name: 'truncated JSON', bytes: utf8('{"entity_type":"context","fields":{"a":') },
  { name: 'NUL bytes', bytes: Buffer.from([0, 0, 0, 0]) },
  { name: 'UTF-16 declared', bytes: Buffer.from('{"entity_type":"context","fields":{}}', 'utf16le'), headers: { 'content-type': 'application/json; charset=utf-16le' } },
  { name: 'latin1 declared', bytes: utf8('{"entity_type":"context","fields":{}}'), headers: { 'content-type': 'application/json; charset=latin1' } },
  { name: 'form declared', bytes: utf8('entity_type=context&fields=1'), headers: { 'content-type': 'application/x-www-form-urlencoded' } },
  { name: 'gzip, valid', bytes: gzipSync(utf8('{"entity_type":"context","fields":{}}')), headers: { 'content-encoding': 'gzip' } },
  { name: 'gzip of garbage', bytes: utf8('this is not gzip at all'), headers: { 'content-encoding': 'gzip' } },
  { name: 'gzip, truncated', bytes: gzipSync(utf8(asMembers('{}'))).subarray(0, 20), headers: { 'content-encoding': 'gzip' } },
  { name: 'gzip bomb', bytes: gzipSync(Buffer.alloc(64 * 1024 * 1024, 0x20)), headers: { 'content-encoding': 'gzip' } },
  { name: 'deflate label on gzip', bytes: gzipSync(utf8('{}')), headers: { 'content-encoding': 'deflate' } },
  { name: 'brotli label on garbage', bytes: utf8('garbage'), headers: { 'content-encoding': 'br' } },
  { name: 'unknown encoding', bytes: utf8('{}'), headers: { 'content-encoding': 'x-squish' } },
  { name: 'double encoding', bytes: gzipSync(gzipSync(utf8('{}'))), headers: { 'content-encoding': 'gzip, gzip' } },
];

interface Target {
  readonly method: string;
  readonly path: string;
  readonly key: 'admin' | 'evaluate' | 'taggedReader';
  readonly statuses: readonly number[];
  readonly getSecrets?: boolean;
  readonly disclosure?: Disclosure;
}

let fuzz: FuzzNode;
let ruleId: string;
let contextId: string;
let promptId: string;

t.before(async () => {
  fuzz = await startFuzzNode();
  const admin = { authorization: `Bearer ${fuzz.keys.admin}` };
  const post = async (path: string, body: unknown) => (await send(fuzz.url, { method: 'POST', path, headers: admin, body: JSON.stringify(body) })).json as { id: string };
  contextId = (await post('/api/contexts', { name: 'target', content: 'c' })).id;
  promptId = (await post('/api/prompts', { name: 'target', prompt: 'Hi {{name}}' })).id;
  ruleId = (await post('/api/rule-engine/rules', {
    name: 'target', condition_groups: [{ conditions: [{ field: 'a', operator: 'equals', value: '1' }] }],
    entities: [{ entity_type: 'context', entity_id: contextId }, { entity_type: 'prompt', entity_id: promptId }],
  })).id;
});
t.teardown(() => fuzz.stop());

function targets(): Target[] {
  const admin = (method: string, path: string): Target => ({ method, path, key: 'admin', statuses: STATUSES.admin });
  return [
    { method: 'POST', path: '/api/rule-engine/evaluate', key: 'evaluate', statuses: STATUSES.evaluate },
    { method: 'POST', path: '/api/vault/get-secrets', key: 'taggedReader', statuses: STATUSES.getSecrets, getSecrets: true, disclosure: 'tagged' },
    { method: 'POST', path: '/api/rule-engine/explain', key: 'admin', statuses: STATUSES.evaluate },
    admin('POST', '/api/rule-engine/rules'),
    admin('PATCH', `/api/rule-engine/rules/${ruleId}`),
    admin('POST', '/api/contexts'),
    admin('PATCH', `/api/contexts/${contextId}`),
    admin('POST', '/api/prompts'),
    admin('POST', `/api/prompts/${promptId}/versions`),
    admin('POST', '/api/vault/secrets'),
    admin('POST', '/api/api-keys'),
    admin('POST', '/api/audit/evaluate'),
    admin('GET', '/api/rule-engine/rules'),
  ];
}

t.test('every hostile body at every endpoint gets a documented answer', async (t) => {
  const rssBefore = process.memoryUsage().rss;
  const rounds = 2;
  for (let round = 0; round < rounds; round += 1) {
    for (const target of targets()) {
      const problems: string[] = [];
      for (const payload of PAYLOADS) {
        const answer = await send(fuzz.url, {
          method: target.method,
          path: target.path,
          headers: { authorization: `Bearer ${fuzz.keys[target.key]}`, ...payload.headers },
          body: payload.bytes,
        });
        for (const problem of checkAnswer(fuzz, answer, target)) problems.push(`${payload.name}: ${problem}`);
      }
      t.same(problems, [], `${target.method} ${target.path} (round ${round + 1})`);
    }
    await checkHealthy(t, fuzz);
  }
  const growth = process.memoryUsage().rss - rssBefore;
  t.ok(growth < RSS_HEADROOM_BYTES, `RSS grew ${Math.round(growth / 1e6)} MB over ${rounds * targets().length * PAYLOADS.length} hostile requests`);
});

t.test('a deeply nested meta_properties is refused, so it cannot poison listings and the digest', async (t) => {
  // About 4,000 levels still serialize when written but overflow the stack when a listing renders them.
  const deep = '{"a":'.repeat(4_000) + '1' + '}'.repeat(4_000);
  const admin = { authorization: `Bearer ${fuzz.keys.admin}` };
  const written = await send(fuzz.url, { method: 'POST', path: '/api/contexts', headers: admin, body: `{"name":"deep","content":"c","meta_properties":${deep}}` });
  t.equal(written.status, 400, `refused: ${written.text.slice(0, 200)}`);
  t.match((written.json as { err?: string } | undefined)?.err, /meta_properties/, 'the message names meta_properties');
  for (const path of ['/api/contexts', '/api/audit/digest']) {
    const read = await send(fuzz.url, { method: 'GET', path, headers: admin });
    t.equal(read.status, 200, `GET ${path} still answers`);
  }
});

t.test('a malformed %-escape in a path id is a 400 {err}, not a 500', async (t) => {
  for (const path of ['/api/contexts/%E0%A4%A', '/api/rule-engine/rules/%ZZ/history', '/api/api-keys/%']) {
    const method = path.startsWith('/api/api-keys') ? 'DELETE' : 'GET';
    const answer = await send(fuzz.url, { method, path, headers: { authorization: `Bearer ${fuzz.keys.admin}` } });
    t.equal(answer.status, 400, `${method} ${path}: ${answer.text.slice(0, 100)}`);
    t.type((answer.json as { err?: unknown } | undefined)?.err, 'string', `${method} ${path}: {err}`);
  }
});

t.test('what hostile writes stored can still be read back, listed, audited and digested', async (t) => {
  const reads = [
    '/api/rule-engine/rules', '/api/contexts', '/api/prompts', '/api/vault/secrets', '/api/api-keys',
    `/api/rule-engine/rules/${ruleId}/history`, '/api/audit/events?limit=1000', '/api/audit/digest', '/metrics',
  ];
  for (const path of reads) {
    const answer = await send(fuzz.url, { method: 'GET', path, headers: { authorization: `Bearer ${fuzz.keys.admin}` } });
    t.equal(answer.status, 200, `GET ${path}: ${answer.text.slice(0, 200)}`);
    t.same(checkAnswer(fuzz, answer, { statuses: [200] }), [], `GET ${path}: no secret value`);
  }
  const evaluated = await send(fuzz.url, {
    method: 'POST', path: '/api/rule-engine/evaluate', headers: { authorization: `Bearer ${fuzz.keys.evaluate}` },
    body: JSON.stringify({ entity_type: 'context', fields: { a: '1' }, include_entity_data: true }),
  });
  t.equal(evaluated.status, 200, 'evaluate with entity data still answers');
  await checkHealthy(t, fuzz);
});
