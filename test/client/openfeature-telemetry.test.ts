/**
 * Black-box: the telemetry example of docs/client.md#openfeature (issue 66
 * item 4). RuleVaultProvider under the official SDK with the standard
 * @openfeature/open-telemetry-hooks EventHook emits an OpenTelemetry
 * `feature_flag.evaluation` log event per evaluation, its
 * `feature_flag.version` the rule's revision (the hook reads the metadata's
 * `version`; the attribute mapper gives it RuleVault's `revision`), read
 * here from the SDK's in-memory log exporter.
 */
import { OpenFeature } from '@openfeature/server-sdk';
import { EventHook } from '@openfeature/open-telemetry-hooks';
import { logs } from '@opentelemetry/api-logs';
import { InMemoryLogRecordExporter, LoggerProvider, SimpleLogRecordProcessor } from '@opentelemetry/sdk-logs';
import t from 'tap';
import { RuleVaultProvider } from '../../src/client/openfeature';
import { withNode } from '../support/with-node';

const live = withNode(t);

t.test('each evaluation is a feature_flag.evaluation event with the rule revision as feature_flag.version', async (t) => {
  const admin = live.admin;
  const key = (await admin.post('/api/api-keys', { name: 'telemetry', scopes: ['evaluate'] })).json.key as string;
  const created = await admin.post('/api/rule-engine/rules', {
    name: 'new checkout', key: 'new-checkout', condition_groups: [{ conditions: [{ field: 'plan', operator: 'equals', value: 'pro' }] }],
  });
  const patched = await admin.patch(`/api/rule-engine/rules/${created.json.id}`, { description: 'revision 1' });
  t.equal(patched.status, 200, patched.text);

  // The example, as docs/client.md shows it.
  const exporter = new InMemoryLogRecordExporter();
  logs.setGlobalLoggerProvider(new LoggerProvider({ processors: [new SimpleLogRecordProcessor(exporter)] }));
  OpenFeature.addHooks(new EventHook({
    attributeMapper: (_hook, { flagMetadata }) => (flagMetadata.revision === undefined ? {} : { 'feature_flag.version': String(flagMetadata.revision) }),
  }));
  const provider = new RuleVaultProvider({ url: live.url, apiKey: key });
  await OpenFeature.setProviderAndWait(provider);
  await provider.waitFor(patched.headers.get('rulevault-position')!);
  const flags = OpenFeature.getClient();
  const pro = await flags.getBooleanValue('new-checkout', false, { targetingKey: 'user-1', plan: 'pro' });
  const free = await flags.getBooleanValue('new-checkout', false, { targetingKey: 'user-2', plan: 'free' });
  const unknown = await flags.getBooleanValue('old-checkout', false, { targetingKey: 'user-3' });
  // The example ends here.
  t.teardown(async () => {
    OpenFeature.clearHooks();
    await OpenFeature.close();
    logs.disable();
  });
  t.same([pro, free, unknown], [true, false, false]);

  const records = exporter.getFinishedLogRecords();
  // The hook's error stage logs the exception before its finally stage logs the evaluation.
  t.same(records.map((record) => record.eventName), ['feature_flag.evaluation', 'feature_flag.evaluation', 'exception', 'feature_flag.evaluation']);
  t.same(records[0]!.attributes, {
    'feature_flag.key': 'new-checkout', 'feature_flag.provider.name': 'RuleVault', 'feature_flag.result.reason': 'targeting_match',
    'feature_flag.result.variant': 'on', 'feature_flag.result.value': true, 'feature_flag.context.id': 'user-1', 'feature_flag.version': '1',
  });
  t.same(records[1]!.attributes, {
    'feature_flag.key': 'new-checkout', 'feature_flag.provider.name': 'RuleVault', 'feature_flag.result.reason': 'default',
    'feature_flag.result.variant': 'off', 'feature_flag.result.value': false, 'feature_flag.context.id': 'user-2', 'feature_flag.version': '1',
  });
  t.match(records[2]!.attributes, { 'exception.type': 'FLAG_NOT_FOUND', 'exception.message': 'flag "old-checkout" was not found: no rule has the key "old-checkout"' });
  t.same(records[3]!.attributes, {
    'feature_flag.key': 'old-checkout', 'feature_flag.provider.name': 'RuleVault', 'feature_flag.result.reason': 'error', 'feature_flag.result.value': false,
    'feature_flag.context.id': 'user-3', 'error.type': 'flag_not_found', 'error.message': 'flag "old-checkout" was not found: no rule has the key "old-checkout"',
  }, 'an unknown flag: the error, and no revision to give');
});
