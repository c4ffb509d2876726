/** The client library against a real node: env fallbacks, shouldSetEnv, errors as `{ err }`. */
import t from 'tap';
import { evaluate, getSecrets } from '../src/client';
import { client } from './support/http';
import { withNode } from './support/with-node';

let readerKey: string;
let evaluatorKey: string;

const live = withNode(t);
t.before(async () => {
  const admin = live.admin;
  readerKey = (await admin.post('/api/api-keys', { name: 'r', scopes: ['secrets:read'] })).json.key;
  evaluatorKey = (await admin.post('/api/api-keys', { name: 'e', scopes: ['evaluate'] })).json.key;
  await admin.post('/api/vault/secrets', { key: 'CLIENT_TEST_TOKEN', value: 'tok-123', tags: ['client'] });
  await admin.post('/api/vault/secrets', { key: 'CLIENT_OTHER', value: 'other-456', tags: ['other'] });
  await admin.post('/api/rule-engine/rules', {
    name: 'client rule', condition_groups: [{ conditions: [{ field: 'who', operator: 'equals', value: 'client' }] }],
    entities: [{ entity_type: 'evaluation', entity_id: 'eval-1' }],
  });
});

t.test('getSecrets with explicit url and key, by tags', async (t) => {
  const result = await getSecrets({ url: live.url, apiKey: readerKey, tags: ['client'] });
  t.same(result, { err: null, res: { CLIENT_TEST_TOKEN: 'tok-123' } });
  t.equal(process.env.CLIENT_TEST_TOKEN, undefined, 'the environment is untouched without shouldSetEnv');
});

t.test('getSecrets falls back to RULEVAULT_URL and RULEVAULT_API_KEY; shouldSetEnv sets only the answer', async (t) => {
  process.env.RULEVAULT_URL = live.url;
  process.env.RULEVAULT_API_KEY = readerKey;
  t.teardown(() => {
    delete process.env.RULEVAULT_URL;
    delete process.env.RULEVAULT_API_KEY;
    delete process.env.CLIENT_TEST_TOKEN;
  });
  const result = await getSecrets({ key: 'CLIENT_TEST_TOKEN', shouldSetEnv: true });
  t.same(result, { err: null, res: { CLIENT_TEST_TOKEN: 'tok-123' } }, 'the answer is the same with shouldSetEnv');
  t.equal(process.env.CLIENT_TEST_TOKEN, 'tok-123');
  t.equal(process.env.CLIENT_OTHER, undefined);
});

t.test('failures come back as err, the way the server reports them', async (t) => {
  t.same(await getSecrets({ url: live.url, apiKey: 'rv_wrong' }), { err: 'the API key is invalid or has been revoked', res: null });
  t.same(await getSecrets({ url: live.url, apiKey: evaluatorKey }), { err: 'this API key lacks the secrets:read scope', res: null });
  const unreachable = await getSecrets({ url: 'http://127.0.0.1:1', apiKey: readerKey });
  t.equal(unreachable.res, null);
  t.match(unreachable.err, /unreachable/);
  const noUrl = await getSecrets({ apiKey: readerKey });
  t.match(noUrl.err, /RULEVAULT_URL/);
});

t.test('evaluate', async (t) => {
  const result = await evaluate({ url: live.url, apiKey: evaluatorKey, entity_type: 'evaluation', fields: { who: 'client' } });
  t.equal(result.err, null);
  if (result.err === null) {
    t.equal(result.matchingRuleIds.length, 1);
    t.same(result.entities.map((e) => e.entity_id), ['eval-1']);
  }
  const bad = await evaluate({ url: live.url, apiKey: evaluatorKey, entity_type: 'dataset' as 'context', fields: {} });
  t.match(bad.err, /entity_type must be one of/);
  const forbidden = await evaluate({ url: live.url, apiKey: readerKey, entity_type: 'context', fields: {} });
  t.match(forbidden.err, /evaluate scope/);
});
