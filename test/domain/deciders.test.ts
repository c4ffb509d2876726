/** Pure decider tests: command + current state -> events, or the error a caller sees. */
import t from 'tap';
import type { ContextRecord, RuleRecord, SecretRecord } from '../../projections';
import { DEFAULTS } from '../../src/config';
import { decideCreateApiKey, decideRevokeApiKey, parseApiKeyCreate } from '../../src/domain/api-keys';
import { decideUpdateContext, parseContextCreate } from '../../src/domain/contexts';
import { decideAddPromptVersion, decideCreatePrompt, parsePromptCreate } from '../../src/domain/prompts';
import { decideCreateRule, decideDeleteRule, decideUpdateRule, parseRuleCreate, parseRulePatch } from '../../src/domain/rules';
import { decideCreateSecret, decideUpdateSecret, parseSecretCreate } from '../../src/domain/secrets';
import { AppError } from '../../src/errors';
import type { SealedValue } from '../../src/events';
import type { PromptRecord } from '../../projections';

const provenance = { created_by: 'k', created_at: '2026-01-01T00:00:00.000Z', updated_at: '2026-01-01T00:00:00.000Z', revision: 2n, position: 10n };
const ruleContext = { entityExists: () => false, maxRegexLength: 1000 };
const ruleBody = parseRuleCreate({ name: 'r', condition_groups: [{ conditions: [{ field: 'a', operator: 'equals', value: 'b' }] }] });
const rule: RuleRecord = { id: 'r1', ...ruleBody, ...provenance };
const sealed: SealedValue = { alg: 'xchacha20poly1305-ietf', master_key_id: 'm', wrapped_key: 'w', wrap_nonce: 'n', nonce: 'n', ciphertext: 'c' };

function rejects(t: tap.Test, fn: () => unknown, code: AppError['code'], message: RegExp) {
  try {
    fn();
    t.fail('expected an error');
  } catch (error) {
    t.type(error, AppError);
    t.equal((error as AppError).code, code);
    t.match((error as AppError).message, message);
  }
}

t.test('rules', async (t) => {
  t.same(decideCreateRule('r1', ruleBody, ruleContext), [{ type: 'RuleCreated', data: { id: 'r1', ...ruleBody } }]);
  t.same(decideUpdateRule('r1', rule, { name: 'n' }, undefined, ruleContext), [{ type: 'RuleUpdated', data: { id: 'r1', changes: { name: 'n' } } }]);
  rejects(t, () => decideUpdateRule('r1', rule, { name: 'n' }, 1n, ruleContext), 'conflict', /revision 2, not 1/);
  rejects(t, () => decideUpdateRule('r9', undefined, {}, undefined, ruleContext), 'not_found', /rule r9 not found/);
  rejects(t, () => decideDeleteRule('r9', undefined), 'not_found', /rule r9/);
  const linked = { ...ruleBody, entities: [{ entity_type: 'context' as const, entity_id: 'c1' }] };
  rejects(t, () => decideCreateRule('r2', linked, ruleContext), 'bad_request', /entities\[0\]: context c1 does not exist/);
  t.equal(decideCreateRule('r2', linked, { ...ruleContext, entityExists: () => true }).length, 1);
  const patch = parseRulePatch({ condition_groups: [{ conditions: [{ field: 'x', operator: 'regex', value: '(' }] }] });
  rejects(t, () => decideUpdateRule('r1', rule, patch, undefined, ruleContext), 'bad_request', /condition_groups\[0\]\.conditions\[0\]/);
  t.same(parseRuleCreate({ ...ruleBody, condition_groups: [{ conditions: [{ field: 'n', operator: 'gt', value: 5, data_type: 'number' }] }] }).condition_groups[0]!.conditions[0]!.value, '5', 'a number value is taken as its JSON text');
  t.same(parseRuleCreate({ ...ruleBody, entities: [{ entity_type: 'evaluation', entity_id: 'e' }, { entity_type: 'evaluation', entity_id: 'e' }] }).entities.length, 1, 'duplicate links collapse');
});

t.test('contexts', async (t) => {
  const body = parseContextCreate({ name: 'c', content: 'x' });
  const context: ContextRecord = { id: 'c1', ...body, ...provenance };
  t.same(decideUpdateContext('c1', context, { content: 'y' }, 2n), [{ type: 'ContextUpdated', data: { id: 'c1', changes: { content: 'y' } } }]);
  rejects(t, () => decideUpdateContext('c1', context, { content: 'y' }, 0n), 'conflict', /revision 2/);
});

t.test('prompts', async (t) => {
  const input = parsePromptCreate({ name: 'p', prompt: 'Hi {{x}}' }, DEFAULTS.limits);
  t.equal(input.version, '1.0.0');
  t.match(decideCreatePrompt('p1', input), [{ type: 'PromptCreated', data: { id: 'p1', version: '1.0.0', template: 'Hi {{x}}' } }]);
  const prompt = { id: 'p1', name: 'p', tags: [], meta_properties: {}, status: 'ACTIVE', ...provenance, versions: [{ version: '1.9.0', template: 'x', compiled: undefined, created_by: 'k', created_at: 'now' }] } as PromptRecord;
  t.match(decideAddPromptVersion('p1', prompt, { template: 'y', version: undefined }), [{ data: { version: '1.10.0' } }]);
  rejects(t, () => decideAddPromptVersion('p1', prompt, { template: 'y', version: '1.9.0' }), 'conflict', /greater than the latest version 1\.9\.0/);
});

t.test('secrets', async (t) => {
  const input = parseSecretCreate({ key: 'K', value: 'v', tags: ['a'] });
  t.same(decideCreateSecret('s1', input, sealed, undefined), [{ type: 'SecretCreated', data: { id: 's1', key: 'K', tags: ['a'], version: 1, sealed } }]);
  rejects(t, () => decideCreateSecret('s2', input, sealed, 's1'), 'conflict', /key K already exists/);
  const secret: SecretRecord = { id: 's1', key: 'K', tags: [], version: 3, value_version: 2, sealed, ...provenance };
  t.same(decideUpdateSecret('s1', secret, { tags: ['b'] }, undefined, undefined, undefined), [{ type: 'SecretUpdated', data: { id: 's1', version: 4, tags: ['b'] } }]);
  rejects(t, () => decideUpdateSecret('s1', secret, { key: 'L' }, undefined, 's7', undefined), 'conflict', /key L already exists/);
  t.equal(decideUpdateSecret('s1', secret, { key: 'K' }, undefined, 's1', undefined).length, 1, 'keeping its own key is no conflict');
  rejects(t, () => parseSecretCreate({ key: 'a\nb', value: 'v' }), 'bad_request', /control characters/);
});

t.test('api keys', async (t) => {
  const input = parseApiKeyCreate({ name: 'k', scopes: ['evaluate', 'evaluate'] });
  t.same(input.scopes, ['evaluate']);
  t.same(decideCreateApiKey('a1', input, 'h'), [{ type: 'ApiKeyCreated', data: { id: 'a1', name: 'k', scopes: ['evaluate'], secret_tags: [], key_hash: 'h' } }]);
  rejects(t, () => decideRevokeApiKey('a9', undefined), 'not_found', /API key a9/);
});
