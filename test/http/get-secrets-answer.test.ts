/**
 * Black-box, on a real node over loopback: get-secrets' answer is assembled
 * as text from selections cached per vault position (src/service/get-secrets.ts).
 * The text is byte for byte what JSON.stringify of the answer object gave
 * (key order included: integer-like keys first, as an object orders them),
 * and a cached selection never outlives a change: the same query asked
 * before and after each write sees the write.
 */
import t from 'tap';
import { client } from '../support/http';
import { nodeWith } from '../audit/support/sink';

const AWKWARD: [string, string][] = [
  ['b', 'plain'],
  ['10', 'ten "quoted" \\ back'],
  ['2', 'two\n\ttabbed \u2028 line sep'],
  ['__proto__', 'not a prototype'],
  ['a"key', '</script><b>é ü 😀</b>'],
  ['ключ', ''],
];

t.test('the answer text is JSON.stringify of the answer object, byte for byte', async (t) => {
  const node = await nodeWith(t);
  const admin = client(node.url, node.adminKey);
  for (const [key, value] of AWKWARD) t.equal((await admin.post('/api/vault/secrets', { key, value, tags: ['odd'] })).status, 201);
  const reader = client(node.url, (await admin.post('/api/api-keys', { name: 'r', scopes: ['secrets:read'] })).json.key);
  // What the answer was built as before: a null-prototype object filled in vault order, then spread.
  const res: Record<string, string> = Object.create(null);
  for (const [key, value] of AWKWARD) res[key] = value;
  const expected = JSON.stringify({ err: null, res: { ...res } });
  for (const body of [{}, { tags: ['odd'] }, { tags: ['odd'] }]) {
    const answer = await reader.post('/api/vault/get-secrets', body);
    t.equal(answer.text, expected);
    t.equal(Number(answer.headers.get('content-length')), Buffer.byteLength(expected));
  }
  t.equal((await reader.post('/api/vault/get-secrets', { key: '__proto__' })).text, '{"err":null,"res":{"__proto__":"not a prototype"}}');
});

t.test('a cached selection never outlives a write: the same query before and after each change', async (t) => {
  const node = await nodeWith(t);
  const admin = client(node.url, node.adminKey);
  const readerKey = (await admin.post('/api/api-keys', { name: 'r', scopes: ['secrets:read'] })).json;
  const reader = client(node.url, readerKey.key);
  const tagged = (await admin.post('/api/api-keys', { name: 't', scopes: ['secrets:read'], secret_tags: ['llm'] })).json.key;
  const llmOnly = client(node.url, tagged);
  const byTag = async () => (await reader.post('/api/vault/get-secrets', { tags: ['llm'] })).json.res;
  const all = async () => (await llmOnly.post('/api/vault/get-secrets', {})).json.res;

  const a = (await admin.post('/api/vault/secrets', { key: 'A', value: 'a-1', tags: ['llm'] })).json;
  t.same(await byTag(), { A: 'a-1' });
  t.same(await all(), { A: 'a-1' });
  await admin.post('/api/vault/secrets', { key: 'B', value: 'b-1', tags: ['llm'] });
  t.same(await byTag(), { A: 'a-1', B: 'b-1' }, 'a secret created');
  t.same(await all(), { A: 'a-1', B: 'b-1' }, 'a secret created, for a key with secret_tags');
  await admin.patch(`/api/vault/secrets/${a.id}`, { value: 'a-2' });
  t.same(await byTag(), { A: 'a-2', B: 'b-1' }, 'a value updated');
  await admin.patch(`/api/vault/secrets/${a.id}`, { tags: ['db'] });
  t.same(await byTag(), { B: 'b-1' }, 'retagged out of the selection');
  t.same(await all(), { B: 'b-1' }, 'retagged out of what the key may read');
  await admin.patch(`/api/vault/secrets/${a.id}`, { tags: ['llm'], key: 'A2' });
  const back = await byTag();
  t.same(back, { A2: 'a-2', B: 'b-1' }, 'retagged back and renamed');
  t.same(Object.keys(back), ['A2', 'B'], 'in vault order: a renamed secret keeps its place');
  await admin.delete(`/api/vault/secrets/${a.id}`);
  t.same(await byTag(), { B: 'b-1' }, 'deleted');

  // The audit records what each read returned, at the value version it was read.
  const reads = (await admin.get(`/api/audit/secret-reads?key_id=${readerKey.id}`)).json.reads;
  t.same(reads.map((r: any) => r.secrets.map((s: any) => `${s.key}@${s.value_version}`).join(',')), ['A@1', 'A@1,B@1', 'A@2,B@1', 'B@1', 'A2@2,B@1', 'B@1']);
});
