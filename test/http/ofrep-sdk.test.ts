/**
 * Issue 66's done-when, with the official clients: `@openfeature/server-sdk`
 * with `@openfeature/ofrep-provider` (0.1.3) against a real node, and bulk
 * evaluation through `@openfeature/ofrep-core`'s OFREPApi (what the web
 * provider calls; the server provider has no bulk). Boolean, string and
 * object flags with their details; an unknown flag, a wrong type and no key
 * give the caller's default with an error code, never a throw; a rule
 * change shows on the next evaluation; bulk answers 304 until a write.
 */
import t from 'tap';
import { ErrorCode, OpenFeature, type Client as FlagClient } from '@openfeature/server-sdk';
import { OFREPProvider } from '@openfeature/ofrep-provider';
import { OFREPApi } from '@openfeature/ofrep-core';
import { withNode } from '../support/with-node';

t.test('the official OpenFeature SDK and OFREP provider against a node', async (t) => {
  const live = withNode(t);
  let app: FlagClient;
  let key: string;
  const ids: Record<string, string> = {};
  t.before(async () => {
    const made = async (path: string, body: unknown) => {
      const answer = await live.admin.post(path, body);
      if (answer.status !== 201) throw new Error(`${path}: ${answer.text}`);
      return answer.json.id as string;
    };
    ids.blue = await made('/api/contexts', { name: 'blue', content: 'blue theme' });
    ids.green = await made('/api/contexts', { name: 'green', content: 'green theme' });
    ids.greet = await made('/api/prompts', { name: 'greet', prompt: 'Hello {{name}}' });
    ids.beta = await made('/api/rule-engine/rules', {
      name: 'beta', key: 'beta', condition_groups: [{ conditions: [{ field: 'user.tier', operator: 'equals', value: 'gold' }] }],
      entities: [{ entity_type: 'prompt', entity_id: ids.greet }],
    });
    ids.theme = await made('/api/rule-engine/rules', {
      name: 'theme', key: 'theme', condition_groups: [{ conditions: [{ field: 'country', operator: 'equals', value: 'CA' }] }],
      entities: [{ entity_type: 'context', entity_id: ids.blue }, { entity_type: 'context', entity_id: ids.green }],
      splits: [{ entity_type: 'context', variants: [{ name: 'blue', entity_id: ids.blue, weight: 100 }, { name: 'green', entity_id: ids.green, weight: 0 }] }],
    });
    key = (await live.admin.post('/api/api-keys', { name: 'app', scopes: ['evaluate'] })).json.key as string;
    await OpenFeature.setProviderAndWait('rulevault', new OFREPProvider({ baseUrl: live.url, headers: [['Authorization', `Bearer ${key}`]] }));
    await OpenFeature.setProviderAndWait('keyless', new OFREPProvider({ baseUrl: live.url }));
    app = OpenFeature.getClient('rulevault');
  });
  t.teardown(() => OpenFeature.close());
  const gold = { targetingKey: 'u1', user: { tier: 'gold' }, country: 'CA' };

  t.test('boolean, string and object flags with value, variant, reason and flag metadata', async (t) => {
    const beta = await app.getBooleanDetails('beta', false, gold);
    t.match(beta, { flagKey: 'beta', value: true, variant: 'on', reason: 'TARGETING_MATCH', flagMetadata: { rule_id: ids.beta, revision: 0, position: /^[0-9]+$/ } });
    t.equal(beta.errorCode, undefined, 'no error');
    const theme = await app.getStringDetails('theme', 'default', gold);
    t.match(theme, { flagKey: 'theme', value: 'blue', variant: 'blue', reason: 'SPLIT', flagMetadata: { rule_id: ids.theme } });
    const prompt = await app.getObjectDetails('beta:prompt', {}, { ...gold, variables: { name: 'Ada' } });
    t.match(prompt, { value: { name: 'greet', compiled_prompt: 'Hello Ada' }, variant: ids.greet, reason: 'TARGETING_MATCH' });
    const silver = await app.getBooleanDetails('beta', true, { targetingKey: 'u2', user: { tier: 'silver' } });
    t.match(silver, { value: false, variant: 'off', reason: 'DEFAULT' }, 'not matching is the rule\'s answer: false');
  });

  t.test('an unknown flag, a wrong type and no key: the caller\'s default, with an error code', async (t) => {
    const unknown = await app.getBooleanDetails('nope', true, gold);
    t.match(unknown, { value: true, reason: 'ERROR', errorCode: ErrorCode.FLAG_NOT_FOUND });
    const wrong = await app.getNumberDetails('beta', 7, gold);
    t.match(wrong, { value: 7, reason: 'ERROR', errorCode: ErrorCode.TYPE_MISMATCH });
    const keyless = await OpenFeature.getClient('keyless').getBooleanDetails('beta', false, gold);
    t.match(keyless, { value: false, reason: 'ERROR', errorCode: ErrorCode.GENERAL }, 'a 401: the default, not a throw');
    const missing = await app.getStringDetails('theme', 'fallback', { country: 'CA' });
    t.match(missing, { value: 'fallback', errorCode: ErrorCode.TARGETING_KEY_MISSING });
  });

  t.test('a rule change is visible on the next evaluation', async (t) => {
    t.equal(await app.getStringValue('theme', 'default', gold), 'blue');
    const rule = (await live.admin.get(`/api/rule-engine/rules/${ids.theme}`)).json;
    const moved = await live.admin.patch(`/api/rule-engine/rules/${ids.theme}`, {
      splits: [{ ...rule.splits[0], variants: rule.splits[0].variants.map((v: { name: string }) => ({ ...v, weight: v.name === 'green' ? 100 : 0 })) }],
    });
    t.equal(moved.status, 200, moved.text);
    t.equal(await app.getStringValue('theme', 'default', gold), 'green', 'the write is answered once applied: the next evaluation sees it');
  });

  t.test('bulk through OFREPApi: 200 with an ETag, 304 while nothing changed, 200 after a write', async (t) => {
    const api = new OFREPApi(live.url);
    const headers = { Authorization: `Bearer ${key}` };
    const first = await api.postBulkEvaluateFlags({ context: gold }, { headers });
    t.equal(first.httpStatus, 200);
    const etag = first.httpResponse!.headers.get('etag')!;
    t.ok(etag, 'an ETag');
    const flags = (first.value as { flags: { key: string }[] }).flags;
    t.same(flags.map((f) => f.key), ['beta', 'beta:prompt', 'theme', 'theme:context']);
    const again = await api.postBulkEvaluateFlags({ context: gold }, { headers: { ...headers, 'If-None-Match': etag } });
    t.equal(again.httpStatus, 304, 'nothing changed');
    t.equal(again.value, undefined);
    t.equal((await live.admin.patch(`/api/rule-engine/rules/${ids.beta}`, { status: 'INACTIVE' })).status, 200);
    const after = await api.postBulkEvaluateFlags({ context: gold }, { headers: { ...headers, 'If-None-Match': etag } });
    t.equal(after.httpStatus, 200, 'after a write');
    t.match((after.value as { flags: unknown[] }).flags[0], { key: 'beta', reason: 'DISABLED' });
  });
});
