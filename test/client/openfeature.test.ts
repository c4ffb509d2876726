/**
 * Black-box: RuleVaultProvider (issue 66 item 3, docs/client.md#openfeature)
 * under the official @openfeature/server-sdk against a real node, on both
 * stores: each flag type's details, the errors an OFREP provider gives for
 * the same answers, the events (READY, CONFIGURATION_CHANGED naming the
 * flags a write touched, STALE while the node is down and READY when it is
 * back, ERROR when nothing listens), and waitFor as read-your-writes.
 */
import { OpenFeature, ProviderEvents, ProviderStatus, type Client as FeatureClient, type EventDetails } from '@openfeature/server-sdk';
import t, { type Test } from 'tap';
import { RuleVaultProvider } from '../../src/client/openfeature';
import { client, type Client } from '../support/http';
import { ESDB, SQLITE, cellName } from '../support/matrix';
import { removeDir, startTestNode, tempDir, testEnv } from '../support/node';
import { withNode } from '../support/with-node';

async function evaluateKey(admin: Client): Promise<string> {
  return (await admin.post('/api/api-keys', { name: 'openfeature', scopes: ['evaluate'] })).json.key;
}

let domains = 0;

/** The provider registered with the SDK under a domain of its own; closed when `t` ends. */
async function register(t: Test, provider: RuleVaultProvider): Promise<FeatureClient> {
  const domain = `rulevault-${++domains}`;
  t.teardown(() => provider.onClose());
  const registered = OpenFeature.setProviderAndWait(domain, provider);
  const feature = OpenFeature.getClient(domain);
  await registered;
  return feature;
}

/** The next `event` the client hears (a READY handler runs at once when the provider is READY). */
function next(feature: FeatureClient, event: ProviderEvents): Promise<EventDetails> {
  return new Promise((resolve) => {
    const handler = (details?: EventDetails) => {
      feature.removeHandler(event, handler);
      resolve(details!);
    };
    feature.addHandler(event, handler);
  });
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

for (const cell of [SQLITE, ESDB]) {
  t.test(`[${cellName(cell)}] flags under the OpenFeature SDK`, async (t) => {
    const live = withNode(t, { cell });
    let feature: FeatureClient;
    let provider: RuleVaultProvider;
    const ids: Record<string, string> = {};
    t.before(async () => {
      const admin = live.admin;
      for (const name of ['a', 'b']) ids[name] = (await admin.post('/api/contexts', { name, content: `context ${name}` })).json.id;
      ids.beta = (await admin.post('/api/rule-engine/rules', {
        name: 'beta', key: 'beta', condition_groups: [{ conditions: [{ field: 'user.tier', operator: 'equals', value: 'gold' }] }],
        entities: [{ entity_type: 'context', entity_id: ids.a }],
      })).json.id;
      ids.checkout = (await admin.post('/api/rule-engine/rules', {
        name: 'checkout', key: 'checkout', condition_groups: [{ conditions: [{ field: 'country', operator: 'equals', value: 'NL' }] }],
        entities: [{ entity_type: 'context', entity_id: ids.a }, { entity_type: 'context', entity_id: ids.b }],
        splits: [{ entity_type: 'context', variants: [{ name: 'blue', entity_id: ids.a, weight: 1 }, { name: 'green', entity_id: ids.b, weight: 1 }] }],
      })).json.id;
      const retired = await admin.post('/api/rule-engine/rules', {
        name: 'retired', key: 'retired', status: 'INACTIVE', condition_groups: [{ conditions: [{ field: 'country', operator: 'equals', value: 'NL' }] }],
        entities: [{ entity_type: 'context', entity_id: ids.b }],
      });
      ids.retired = retired.json.id;
      provider = new RuleVaultProvider({ url: live.url, apiKey: await evaluateKey(admin), reconnectMs: 20 });
      feature = await register(t, provider);
      await provider.waitFor(retired.headers.get('rulevault-position')!);
    });
    const metadata = (rule: string) => ({ rule_id: ids[rule], revision: 0, position: String(provider.position) });

    t.test('READY after the first rule set', async (t) => {
      t.equal(feature.providerStatus, ProviderStatus.READY);
      t.ok(provider.position !== undefined);
    });

    t.test('a boolean flag: true and on when the rule matches, false and off with DEFAULT when not', async (t) => {
      t.same(await feature.getBooleanDetails('beta', false, { user: { tier: 'gold' } }),
        { flagKey: 'beta', value: true, variant: 'on', reason: 'TARGETING_MATCH', flagMetadata: metadata('beta') });
      t.same(await feature.getBooleanDetails('beta', true, { user: { tier: 'silver' } }),
        { flagKey: 'beta', value: false, variant: 'off', reason: 'DEFAULT', flagMetadata: metadata('beta') });
    });

    t.test('an object flag answers the linked record; a string flag the split\'s variant', async (t) => {
      const object = await feature.getObjectDetails('beta:context', {}, { user: { tier: 'gold' } });
      t.match(object, { flagKey: 'beta:context', value: { id: ids.a, content: 'context a' }, variant: ids.a, reason: 'TARGETING_MATCH', flagMetadata: metadata('beta') });
      t.equal(object.errorCode, undefined);
      const split = await feature.getStringDetails('checkout', 'none', { country: 'NL', targetingKey: 'user-7' });
      t.ok(['blue', 'green'].includes(split.value), `a variant: ${split.value}`);
      t.same(split, { flagKey: 'checkout', value: split.value, variant: split.value, reason: 'SPLIT', flagMetadata: metadata('checkout') });
      const again = await feature.getStringValue('checkout', 'none', { country: 'NL', targetingKey: 'user-7' });
      t.equal(again, split.value, 'the same key, the same variant');
      t.same(await feature.getStringDetails('checkout', 'none', { country: 'DE', targetingKey: 'user-7' }),
        { flagKey: 'checkout', value: 'none', reason: 'DEFAULT', flagMetadata: metadata('checkout') }, 'not matching: the caller\'s default');
    });

    t.test('an inactive keyed rule is DISABLED with the caller\'s default, as OFREP answers', async (t) => {
      t.same(await feature.getBooleanDetails('retired', true, { country: 'NL' }),
        { flagKey: 'retired', value: true, reason: 'DISABLED', flagMetadata: metadata('retired') });
      t.same(await feature.getObjectDetails('retired:context', { none: true }, {}),
        { flagKey: 'retired:context', value: { none: true }, reason: 'DISABLED', flagMetadata: metadata('retired') }, 'its object flag too');
    });

    t.test('errors give the caller\'s default with the code an OFREP provider gives', async (t) => {
      const failed = async (details: Promise<{ value: unknown; reason?: string; errorCode?: string; errorMessage?: string }>, value: unknown, code: string, message: RegExp) => {
        const seen = await details;
        t.match(seen, { value, reason: 'ERROR', errorCode: code, errorMessage: message }, code);
      };
      await failed(feature.getBooleanDetails('nope', true, {}), true, 'FLAG_NOT_FOUND', /no rule has the key "nope"/);
      await failed(feature.getObjectDetails('beta:prompt', {}, {}), {}, 'FLAG_NOT_FOUND', /links no prompt/);
      await failed(feature.getStringDetails('beta', 'x', { user: { tier: 'gold' } }), 'x', 'TYPE_MISMATCH', /boolean flag, asked for as a string/);
      await failed(feature.getNumberDetails('beta', 3, {}), 3, 'TYPE_MISMATCH', /asked for as a number/);
      await failed(feature.getBooleanDetails('checkout:context', false, { country: 'NL', targetingKey: 'u' }), false, 'TYPE_MISMATCH', /object flag/);
      await failed(feature.getStringDetails('checkout', 'none', { country: 'NL' }), 'none', 'TARGETING_KEY_MISSING', /"targetingKey"/);
      await failed(feature.getBooleanDetails('beta', false, { tags: ['a', 'b'] }), false, 'INVALID_CONTEXT', /context.tags is an array/);
      // A Date travels as its ISO string, as an OFREP provider's JSON sends it.
      t.equal(await feature.getBooleanValue('beta', true, { when: new Date(0), user: { tier: 'silver' } }), false);
    });

    t.test('CONFIGURATION_CHANGED names the flags a write touched; waitFor makes the next evaluation see it', async (t) => {
      const changed = next(feature, ProviderEvents.ConfigurationChanged);
      const patched = await live.admin.patch(`/api/rule-engine/rules/${ids.beta}`, { condition_groups: [{ conditions: [{ field: 'user.tier', operator: 'equals', value: 'platinum' }] }] });
      t.equal(patched.status, 200, patched.text);
      await provider.waitFor(patched.headers.get('rulevault-position')!);
      t.equal(await feature.getBooleanValue('beta', false, { user: { tier: 'platinum' } }), true, 'the next evaluation sees the write');
      t.same((await changed).flagsChanged, ['beta', 'beta:context']);

      const content = next(feature, ProviderEvents.ConfigurationChanged);
      const edited = await live.admin.patch(`/api/contexts/${ids.a}`, { content: 'context a, edited' });
      t.equal(edited.status, 200, edited.text);
      t.same((await content).flagsChanged, ['beta:context', 'checkout:context'], 'a linked context changed: the object flags of the rules linking it');
      await provider.waitFor(edited.headers.get('rulevault-position')!);
      t.match((await feature.getObjectValue('beta:context', {}, { user: { tier: 'platinum' } })), { content: 'context a, edited' });

      const retiring = next(feature, ProviderEvents.ConfigurationChanged);
      const off = await live.admin.patch(`/api/rule-engine/rules/${ids.checkout}`, { status: 'INACTIVE' });
      t.same((await retiring).flagsChanged, ['checkout', 'checkout:context']);
      await provider.waitFor(off.headers.get('rulevault-position')!);
      t.match(await feature.getStringDetails('checkout', 'none', { country: 'NL', targetingKey: 'u' }), { value: 'none', reason: 'DISABLED' }, 'deactivated: DISABLED');
    });

    t.test('without an API key: ERROR, then the caller\'s default with an error, no crash', async (t) => {
      const keyless = new RuleVaultProvider({ url: live.url, apiKey: '', reconnectMs: 50 });
      const domain = `keyless-${++domains}`;
      t.teardown(() => keyless.onClose());
      await t.rejects(OpenFeature.setProviderAndWait(domain, keyless), { message: /no API key/ });
      const feature = OpenFeature.getClient(domain);
      t.equal(feature.providerStatus, ProviderStatus.ERROR);
      t.match(await feature.getBooleanDetails('beta', true, {}), { value: true, reason: 'ERROR', errorCode: 'PROVIDER_NOT_READY' });
      const wrong = new RuleVaultProvider({ url: live.url, apiKey: 'rv_not_a_key', reconnectMs: 50 });
      t.teardown(() => wrong.onClose());
      await t.rejects(OpenFeature.setProviderAndWait(`wrong-key-${++domains}`, wrong), { message: /refused the stream \(401\)/ });
    });
  });
}

t.test('ERROR while nothing listens at the URL, READY once the node comes up there', async (t) => {
  // The node's key is made first, then the node stops: its port refuses connections until it starts again on the same data.
  const env = testEnv(tempDir());
  t.teardown(() => removeDir(env.RULEVAULT_DATA_DIR!));
  let node = await startTestNode(env);
  t.teardown(() => node.stop());
  const key = await evaluateKey(client(node.url, node.adminKey));
  const url = node.url;
  await node.stop();

  const provider = new RuleVaultProvider({ url, apiKey: key, reconnectMs: 20, maxReconnectMs: 50 });
  const domain = `refused-${++domains}`;
  t.teardown(() => provider.onClose());
  const feature = OpenFeature.getClient(domain);
  const error = next(feature, ProviderEvents.Error);
  await t.rejects(OpenFeature.setProviderAndWait(domain, provider), { message: /RuleVault is unreachable at http:\/\/127\.0\.0\.1:\d+: fetch failed/ });
  t.match(await error, { message: /unreachable/ }, 'the SDK emitted ERROR');
  t.equal(feature.providerStatus, ProviderStatus.ERROR);
  t.match(await feature.getBooleanDetails('any', true, {}), { value: true, reason: 'ERROR', errorCode: 'PROVIDER_NOT_READY' }, 'the caller\'s default');

  const ready = next(feature, ProviderEvents.Ready);
  node = await startTestNode({ ...env, PORT: new URL(url).port });
  await ready;
  t.equal(feature.providerStatus, ProviderStatus.READY, 'the first rule set: READY');
  t.match(await feature.getBooleanDetails('any', true, {}), { value: true, reason: 'ERROR', errorCode: 'FLAG_NOT_FOUND' }, 'and it answers');
});

t.test('STALE once the stream is silent past staleAfterMs, READY when it speaks again', async (t) => {
  const env = testEnv(tempDir(), { RULEVAULT_STREAM_HEARTBEAT_MS: '50' });
  t.teardown(() => removeDir(env.RULEVAULT_DATA_DIR!));
  let node = await startTestNode(env);
  t.teardown(() => node.stop());
  const admin = client(() => node.url, node.adminKey);
  const rule = (await admin.post('/api/rule-engine/rules', { name: 'on', key: 'on', condition_groups: [{ conditions: [{ field: 'x', operator: 'equals', value: '1' }] }] })).json.id;
  const provider = new RuleVaultProvider({ url: node.url, apiKey: await evaluateKey(admin), staleAfterMs: 300, reconnectMs: 20, maxReconnectMs: 50 });
  const feature = await register(t, provider);
  await sleep(600);
  t.equal(feature.providerStatus, ProviderStatus.READY, 'heartbeats every 50 ms keep it READY past the bound');

  const stale = next(feature, ProviderEvents.Stale);
  const port = new URL(node.url).port;
  const stoppedAt = Date.now();
  await node.stop();
  t.match(await stale, { message: /RuleVault's stream has said nothing for \d+ ms: / });
  t.ok(Date.now() - stoppedAt >= 250, `STALE after the bound (${Date.now() - stoppedAt} ms)`);
  t.equal(feature.providerStatus, ProviderStatus.STALE);
  t.same(await feature.getBooleanDetails('on', false, { x: '1' }), {
    flagKey: 'on', value: true, variant: 'on', reason: 'TARGETING_MATCH', flagMetadata: { rule_id: rule, revision: 0, position: String(provider.position) },
  }, 'still answering from the rule set held');

  const ready = next(feature, ProviderEvents.Ready);
  node = await startTestNode({ ...env, PORT: port });
  await ready;
  t.equal(feature.providerStatus, ProviderStatus.READY, 'the stream speaks again: READY');
});
