/** The client library against a real node: env fallbacks, shouldSetEnv, errors as `{ err }`. */
import t from 'tap';
import { evaluate, getSecrets, RuleVaultClient } from '../src/client';
import { client } from './support/http';
import { freePort } from './support/process';
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

t.test('shouldSetEnv with a key that does not exist: err naming the key, nothing set', async (t) => {
  const result = await getSecrets({ url: live.url, apiKey: readerKey, key: 'CLIENT_TEST_TOKN', shouldSetEnv: true });
  t.same(result, { err: 'no secret "CLIENT_TEST_TOKN" that this API key may read', code: 'not_found', res: null });
  t.equal(process.env.CLIENT_TEST_TOKN, undefined);
  t.same(await getSecrets({ url: live.url, apiKey: readerKey, tags: ['none'], shouldSetEnv: true }), { err: null, res: {} }, 'tags that match nothing: an empty answer');
});

t.test('failures come back as err, the way the server reports them', async (t) => {
  t.same(await getSecrets({ url: live.url, apiKey: 'rv_wrong' }), { err: 'the API key is invalid or has been revoked', code: 'unauthorized', res: null });
  t.same(await getSecrets({ url: live.url, apiKey: evaluatorKey }), { err: 'this API key lacks the secrets:read scope', code: 'forbidden', res: null });
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
  t.match(bad, { err: /entity_type must be one of/, code: 'bad_request', status: 400 });
  const forbidden = await evaluate({ url: live.url, apiKey: readerKey, entity_type: 'context', fields: {} });
  t.match(forbidden, { err: /evaluate scope/, code: 'forbidden', status: 403 });
  t.match(await evaluate({ url: live.url, apiKey: 'rv_wrong', entity_type: 'context', fields: {} }), { code: 'unauthorized', status: 401 });
});

t.test('an unreachable service is named with its cause, not just "fetch failed"', async (t) => {
  const port = await freePort();
  const result = await getSecrets({ url: `http://127.0.0.1:${port}`, apiKey: readerKey });
  t.same(result, { err: `RuleVault is unreachable (POST http://127.0.0.1:${port}/api/vault/get-secrets): connect ECONNREFUSED 127.0.0.1:${port}`, res: null });
  const evaluated = await evaluate({ url: `http://127.0.0.1:${port}/prefix/`, apiKey: evaluatorKey, entity_type: 'context', fields: {} });
  t.match(evaluated.err, `(POST http://127.0.0.1:${port}/prefix/api/rule-engine/evaluate): connect ECONNREFUSED`);
  t.same(Object.keys(evaluated), ['err'], 'no code and no status: the service gave no answer');
});

t.test('getPrompt: the service\'s refusal carries its code; get-compiled answers it 200, so no status', async (t) => {
  const client = new RuleVaultClient({ url: live.url, apiKey: evaluatorKey });
  const missing = await client.getPrompt('no-such-prompt', { fallback: 'fb' });
  t.match(missing, { source: null, res: null, code: 'not_found', err: /no-such-prompt/ }, 'a refusal, not an outage: no fallback');
  t.notOk('status' in missing);
  t.match(await new RuleVaultClient({ url: live.url, apiKey: readerKey }).getPrompt('x'), { source: null, code: 'forbidden' });
});

t.test('admin helpers: create, get, list, update with If-Match, remove; failures as err', async (t) => {
  const admin = new RuleVaultClient({ url: live.url, apiKey: live.node.adminKey });
  const created = await admin.rules.create({ name: 'helper rule', condition_groups: [{ conditions: [{ field: 'x', operator: 'equals', value: 1 }] }] });
  if (created.err !== null) return t.fail(created.err);
  t.match(created.res, { name: 'helper rule', status: 'ACTIVE', condition_groups: [{ conditions: [{ field: 'x', value: '1' }] }] });
  const id = created.res.id;
  t.match(await admin.rules.get(id), { err: null, res: { id, name: 'helper rule' } });
  const listed = await admin.rules.list();
  t.ok(listed.res?.some((rule) => rule.id === id), 'listed');
  const updated = await admin.rules.update(id, { status: 'INACTIVE' }, { ifMatch: created.res.revision });
  t.match(updated, { err: null, res: { status: 'INACTIVE' } });
  const stale = await admin.rules.update(id, { name: 'late' }, { ifMatch: created.res.revision });
  t.match(stale, { res: null, err: /revision/i, code: 'conflict', status: 409 }, 'a stale If-Match is the service\'s 409');
  t.same(await admin.rules.remove(id), { err: null, res: null });
  t.match(await admin.rules.get(id), { res: null, err: /not found|no rule/i, code: 'not_found', status: 404 });
  t.match(await admin.rules.remove(id), { res: null, code: 'not_found', status: 404 }, 'remove fails with its code too');
  const key = await admin.apiKeys.create({ name: 'helper key', scopes: ['evaluate'] });
  t.match(key, { err: null, res: { name: 'helper key', scopes: ['evaluate'], key: /^rv_/ } });
  t.same(await admin.apiKeys.revoke(key.res!.id), { err: null, res: null });
  const forbidden = await new RuleVaultClient({ url: live.url, apiKey: evaluatorKey }).rules.list();
  t.match(forbidden, { res: null, err: /admin scope/, code: 'forbidden', status: 403 });
});
