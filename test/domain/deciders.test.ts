/** Pure decider tests: command + current state -> events, or the error a caller sees. */
import t from 'tap';
import type { ContextRecord, RuleRecord, SecretRecord } from '../../projections';
import type { ApiKeyRecord } from '../../projections';
import { DEFAULTS } from '../../src/base/config';
import { decideCreateApiKey, decideRevokeApiKey, parseApiKeyCreate } from '../../src/domain/api-keys';
import { decideDeleteContext, decideUpdateContext, parseContextCreate, parseContextPatch } from '../../src/domain/contexts';
import { checkIfMatch, parseIfMatch, readQuery } from '../../src/domain/input';
import {
  decideAddPromptVersion, decideCreatePrompt, decideDeletePrompt, decideUpdatePrompt, parsePromptCreate, parsePromptPatch, parsePromptVersion,
} from '../../src/domain/prompts';
import { decideCreateRule, decideDeleteRule, decideUnlinkEntity, decideUpdateRule, parseRuleCreate, parseRulePatch } from '../../src/domain/rules';
import { decideCreateSecret, decideUpdateSecret, parseSecretCreate, parseSecretPatch } from '../../src/domain/secrets';
import { AppError } from '../../src/base/errors';
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
  rejects(t, () => decideUpdateRule('r1', rule, { name: 'n' }, [1n], ruleContext), 'conflict', /revision 2, not 1/);
  rejects(t, () => decideUpdateRule('r9', undefined, {}, undefined, ruleContext), 'not_found', /rule r9 not found/);
  rejects(t, () => decideDeleteRule('r9', undefined, undefined), 'not_found', /rule r9/);
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
  t.same(decideUpdateContext('c1', context, { content: 'y' }, [2n]), [{ type: 'ContextUpdated', data: { id: 'c1', changes: { content: 'y' } } }]);
  rejects(t, () => decideUpdateContext('c1', context, { content: 'y' }, [0n]), 'conflict', /revision 2/);
});

t.test('prompts', async (t) => {
  const input = parsePromptCreate({ name: 'p', prompt: 'Hi {{x}}' }, DEFAULTS.limits);
  t.equal(input.version, '1.0.0');
  t.match(decideCreatePrompt('p1', input), [{ type: 'PromptCreated', data: { id: 'p1', version: '1.0.0', template: 'Hi {{x}}' } }]);
  const prompt = { id: 'p1', name: 'p', tags: [], meta_properties: {}, status: 'ACTIVE', ...provenance, labels: {}, versions: [{ version: '1.9.0', template: 'x', compiled: undefined, created_by: 'k', created_at: 'now' }] } as PromptRecord;
  t.match(decideAddPromptVersion('p1', prompt, { template: 'y', version: undefined }, undefined), [{ data: { version: '1.10.0' } }]);
  rejects(t, () => decideAddPromptVersion('p1', prompt, { template: 'y', version: '1.9.0' }, undefined), 'conflict', /greater than the latest version 1\.9\.0/);
});

t.test('secrets', async (t) => {
  const input = parseSecretCreate({ key: 'K', value: 'v', tags: ['a'] });
  t.same(decideCreateSecret('s1', input, sealed, undefined), [{ type: 'SecretCreated', data: { id: 's1', key: 'K', tags: ['a'], version: 1, sealed } }]);
  rejects(t, () => decideCreateSecret('s2', input, sealed, 's1'), 'conflict', /key K already exists/);
  const secret: SecretRecord = { id: 's1', key: 'K', tags: [], version: 3, value_version: 2, sealed, ...provenance };
  t.same(decideUpdateSecret('s1', secret, { tags: ['b'] }, undefined, undefined, undefined), [{ type: 'SecretUpdated', data: { id: 's1', version: 4, tags: ['b'] } }]);
  rejects(t, () => decideUpdateSecret('s1', secret, { key: 'L' }, undefined, 's7', undefined), 'conflict', /key L already exists/);
  t.same(decideUpdateSecret('s1', secret, { key: 'K' }, undefined, 's1', undefined), [], 'keeping its own key is no conflict (and, since issue 14, no change: no event)');
  rejects(t, () => parseSecretCreate({ key: 'a\nb', value: 'v' }), 'bad_request', /control characters/);
});

t.test('api keys', async (t) => {
  const input = parseApiKeyCreate({ name: 'k', scopes: ['evaluate', 'evaluate'] });
  t.same(input.scopes, ['evaluate']);
  t.same(decideCreateApiKey('a1', input, 'h'), [{ type: 'ApiKeyCreated', data: { id: 'a1', name: 'k', scopes: ['evaluate'], secret_tags: [], key_hash: 'h' } }]);
  rejects(t, () => decideRevokeApiKey('a9', undefined, 1), 'not_found', /API key a9/);
});

t.test('admin parsers: an unknown member is a 400 naming it and the allowed members', async (t) => {
  const condition = { field: 'a', operator: 'equals', value: 'b' };
  const cases: [string, () => unknown, RegExp][] = [
    ['rule patch', () => parseRulePatch({ stauts: 'INACTIVE' }), /body has an unknown member "stauts" \(did you mean status\?\); allowed: name, description, status, group_operator, condition_groups, entities/],
    ['rule create', () => parseRuleCreate({ name: 'r', condition_groups: [{ conditions: [condition] }], source: 'x' }), /body has an unknown member "source"; allowed: /],
    ['rule group', () => parseRuleCreate({ name: 'r', condition_groups: [{ conditions: [condition], operator: 'OR' }] }), /condition_groups\[0\] has an unknown member "operator"; allowed: condition_operator, conditions/],
    ['rule condition', () => parseRulePatch({ condition_groups: [{ conditions: [{ ...condition, data_tyep: 'number' }] }] }), /condition_groups\[0\]\.conditions\[0\] has an unknown member "data_tyep" \(did you mean data_type\?\)/],
    ['rule link', () => parseRulePatch({ entities: [{ entity_type: 'evaluation', entity_id: 'e', id: 'e' }] }), /entities\[0\] has an unknown member "id"/],
    ['context create', () => parseContextCreate({ name: 'c', content: 'x', metaProperties: {} }), /unknown member "metaProperties" \(did you mean meta_properties\?\)/],
    ['context patch', () => parseContextPatch({ stauts: 'INACTIVE' }), /unknown member "stauts".*allowed: name, description, content, tags, meta_properties, status/],
    ['prompt create', () => parsePromptCreate({ name: 'p', prompt: 'x', template: 'y' }, DEFAULTS.limits), /unknown member "template"/],
    ['prompt version', () => parsePromptVersion({ prompt: 'x', name: 'y' }, DEFAULTS.limits), /unknown member "name"; allowed: prompt, version/],
    ['prompt patch', () => parsePromptPatch({ tag: ['a'] }), /unknown member "tag" \(did you mean tags\?\); allowed: name, tags, meta_properties, status/],
    ['secret create', () => parseSecretCreate({ key: 'K', value: 'v', tgas: [] }), /unknown member "tgas" \(did you mean tags\?\)/],
    ['secret patch', () => parseSecretPatch({ vaule: 'v' }), /unknown member "vaule" \(did you mean value\?\); allowed: key, value, tags/],
    ['api key create', () => parseApiKeyCreate({ name: 'k', scopes: ['admin'], secret_tag: ['a'] }), /unknown member "secret_tag" \(did you mean secret_tags\?\)/],
    ['prototype key', () => parseContextPatch(JSON.parse('{"__proto__": {"status": "INACTIVE"}}')), /unknown member "__proto__"/],
  ];
  for (const [name, parse, message] of cases) {
    t.test(name, async (t) => rejects(t, parse, 'bad_request', message));
  }
  rejects(t, () => parseContextPatch({ ['x'.repeat(5000)]: 1 }), 'bad_request', /^body has an unknown member "x{100}"\.\.\.; allowed: /);
  t.same(parsePromptPatch({ status: 'INACTIVE' }), { status: 'INACTIVE' }, 'known members still parse');
  rejects(t, () => parsePromptPatch({ prompt: 'x' }), 'bad_request', /prompt cannot be patched: add a version/);
});

t.test('query parameters: only the ones a route takes, each once', async (t) => {
  t.same(readQuery({ version: '1.0.0' }, ['version']), { version: '1.0.0' });
  t.same(readQuery({}, []), {});
  rejects(t, () => readQuery({ verison: '1' }, ['version']), 'bad_request', /unknown query parameter "verison"; allowed: version/);
  rejects(t, () => readQuery({ force: '1' }, []), 'bad_request', /unknown query parameter "force": this route takes none/);
  rejects(t, () => readQuery({ version: ['1', '2'] }, ['version']), 'bad_request', /version must be given once/);
});

t.test('If-Match: *, a revision, its ETag, or a list', async (t) => {
  t.equal(parseIfMatch(undefined), undefined);
  t.equal(parseIfMatch(' * '), '*');
  t.same(parseIfMatch('3'), [3n]);
  t.same(parseIfMatch('"3"'), [3n]);
  t.same(parseIfMatch('W/"3"'), [3n]);
  t.same(parseIfMatch('"1", "4"'), [1n, 4n]);
  for (const bad of ['', 'abc', '-1', '1.5', '"1",', '**', '* , 1']) {
    rejects(t, () => parseIfMatch(bad), 'bad_request', /If-Match must be \*, a revision number/);
  }
  t.doesNotThrow(() => checkIfMatch('rule', 'r1', 4n, '*'));
  t.doesNotThrow(() => checkIfMatch('rule', 'r1', 4n, [1n, 4n]));
  rejects(t, () => checkIfMatch('rule', 'r1', 4n, [1n, 2n]), 'conflict', /rule r1 is at revision 4, not 1 or 2/);
  // Given no rule, when If-Match is *, then 404 (a missing resource is 404 with or without preconditions).
  rejects(t, () => decideUpdateRule('r9', undefined, { name: 'n' }, '*', ruleContext), 'not_found', /rule r9 not found/);
  t.equal(decideUpdateRule('r1', rule, { name: 'n' }, '*', ruleContext).length, 1, 'given a rule, If-Match * lets the write through');
  rejects(t, () => decideDeleteRule('r1', rule, [0n]), 'conflict', /revision 2, not 0/);
  t.same(decideDeleteRule('r1', rule, '*'), [{ type: 'RuleDeleted', data: { id: 'r1' } }]);
});

t.test('a write that changes nothing decides no event; a partial change records only what changed', async (t) => {
  // Given a rule, when a PATCH repeats its current values (or is empty), then no event.
  t.same(decideUpdateRule('r1', rule, {}, undefined, ruleContext), []);
  t.same(decideUpdateRule('r1', rule, { name: rule.name, status: 'ACTIVE', condition_groups: ruleBody.condition_groups }, [2n], ruleContext), []);
  t.same(decideUpdateRule('r1', rule, { name: rule.name, status: 'INACTIVE' }, undefined, ruleContext),
    [{ type: 'RuleUpdated', data: { id: 'r1', changes: { status: 'INACTIVE' } } }]);
  rejects(t, () => decideUpdateRule('r1', rule, {}, [1n], ruleContext), 'conflict', /revision 2, not 1/);

  const context: ContextRecord = { id: 'c1', ...parseContextCreate({ name: 'c', content: 'x', meta_properties: { a: 1, b: { c: [1, 2] } } }), ...provenance };
  t.same(decideUpdateContext('c1', context, parseContextPatch({ content: 'x', meta_properties: { b: { c: [1, 2] }, a: 1 } }), undefined), [], 'member order in meta_properties is no change');
  t.same(decideUpdateContext('c1', context, { meta_properties: { a: 1, b: { c: [2, 1] } } }, undefined),
    [{ type: 'ContextUpdated', data: { id: 'c1', changes: { meta_properties: { a: 1, b: { c: [2, 1] } } } } }], 'array order is a change');

  const prompt = { id: 'p1', name: 'p', tags: ['a'], meta_properties: {}, status: 'ACTIVE', ...provenance, versions: [] } as unknown as PromptRecord;
  t.same(decideUpdatePrompt('p1', prompt, { tags: ['a'], status: 'ACTIVE' }, undefined), []);
  t.same(decideUpdatePrompt('p1', prompt, { tags: ['a', 'b'] }, undefined), [{ type: 'PromptUpdated', data: { id: 'p1', changes: { tags: ['a', 'b'] } } }]);

  const secret: SecretRecord = { id: 's1', key: 'K', tags: ['t'], version: 3, value_version: 2, sealed, ...provenance };
  t.same(decideUpdateSecret('s1', secret, parseSecretPatch({}), undefined, undefined, undefined), [], 'an empty secret PATCH is no change');
  t.same(decideUpdateSecret('s1', secret, { key: 'K', tags: ['t'] }, undefined, 's1', undefined), []);
  t.same(decideUpdateSecret('s1', secret, { key: 'K' }, sealed, 's1', undefined), [{ type: 'SecretUpdated', data: { id: 's1', version: 4, sealed } }],
    'a value always makes a version: it is never compared (that would be an oracle for the value)');
});

t.test('links to deleted contexts and prompts', async (t) => {
  const live = new Set(['context:c-live', 'prompt:p-live']);
  const context = { ...ruleContext, entityExists: (l: { entity_type: string; entity_id: string }) => live.has(`${l.entity_type}:${l.entity_id}`) };
  const dead = { entity_type: 'context' as const, entity_id: 'c-gone' };
  const kept = [{ entity_type: 'context' as const, entity_id: 'c-live' }, { entity_type: 'evaluation' as const, entity_id: 'e-any' }];
  const withDeadLink: RuleRecord = { ...rule, entities: [dead, ...kept] };

  // Given a rule linking a context deleted since, when it is PATCHed to INACTIVE, then the write passes and drops the dead link.
  t.same(decideUpdateRule('r1', withDeadLink, { status: 'INACTIVE' }, undefined, context),
    [{ type: 'RuleUpdated', data: { id: 'r1', changes: { status: 'INACTIVE', entities: kept } } }]);
  // ... when the PATCH is empty, then the dead link is dropped all the same (the way to repair a rule).
  t.same(decideUpdateRule('r1', withDeadLink, {}, undefined, context), [{ type: 'RuleUpdated', data: { id: 'r1', changes: { entities: kept } } }]);
  // ... when the PATCH sends the links back as read (dead one included), then the dead one is dropped, not refused.
  t.same(decideUpdateRule('r1', withDeadLink, { entities: withDeadLink.entities }, undefined, context),
    [{ type: 'RuleUpdated', data: { id: 'r1', changes: { entities: kept } } }]);
  // ... when the PATCH adds a link to a missing context, then 400 naming it.
  rejects(t, () => decideUpdateRule('r1', withDeadLink, { entities: [...kept, { entity_type: 'prompt', entity_id: 'p-none' }] }, undefined, context),
    'bad_request', /entities\[2\]: prompt p-none does not exist/);
  // ... when the PATCH adds a live prompt, then it is linked.
  t.same(decideUpdateRule('r1', { ...rule, entities: kept }, { entities: [...kept, { entity_type: 'prompt', entity_id: 'p-live' }] }, undefined, context),
    [{ type: 'RuleUpdated', data: { id: 'r1', changes: { entities: [...kept, { entity_type: 'prompt', entity_id: 'p-live' }] } } }]);

  // Given a rule whose regex predates a lower limit, when only its status is PATCHed, then its conditions are not re-judged.
  const longRegex = parseRuleCreate({ name: 'r', condition_groups: [{ conditions: [{ field: 'a', operator: 'regex', value: 'a'.repeat(50) }] }] });
  const old: RuleRecord = { id: 'r1', ...longRegex, ...provenance };
  t.equal(decideUpdateRule('r1', old, { status: 'INACTIVE' }, undefined, { ...ruleContext, maxRegexLength: 10 }).length, 1);

  // Given a rule linking a context, when the context is deleted, then the rule is unlinked first (and keeps its other links).
  t.same(decideUnlinkEntity('r1', { ...rule, entities: [{ entity_type: 'prompt', entity_id: 'p-live' }, ...kept] }, { entity_type: 'prompt', entity_id: 'p-live' }, context),
    [{ type: 'RuleUpdated', data: { id: 'r1', changes: { entities: kept } } }]);
  t.same(decideUnlinkEntity('r1', withDeadLink, { entity_type: 'context', entity_id: 'c-live' }, context),
    [{ type: 'RuleUpdated', data: { id: 'r1', changes: { entities: [kept[1]] } } }], 'dropping any dead link on the way');
  rejects(t, () => decideUnlinkEntity('r9', undefined, dead, context), 'not_found', /rule r9 not found/);
  const contextRecord: ContextRecord = { id: 'c-live', ...parseContextCreate({ name: 'c', content: 'x' }), ...provenance };
  t.same(decideDeleteContext('c-live', contextRecord, undefined), [{ type: 'ContextDeleted', data: { id: 'c-live' } }]);
  rejects(t, () => decideDeleteContext('c-live', contextRecord, [0n]), 'conflict', /revision 2, not 0/);
  rejects(t, () => decideDeleteContext('c-gone', undefined, '*'), 'not_found', /context c-gone not found/);
  const promptRecord = { id: 'p-live', name: 'p', tags: [], meta_properties: {}, status: 'ACTIVE', ...provenance, versions: [] } as unknown as PromptRecord;
  t.same(decideDeletePrompt('p-live', promptRecord, '*'), [{ type: 'PromptDeleted', data: { id: 'p-live' } }]);
  rejects(t, () => decideDeletePrompt('p-live', promptRecord, [1n]), 'conflict', /prompt p-live is at revision 2, not 1/);
});

t.test('the last admin key is not revoked', async (t) => {
  const key = (scopes: ApiKeyRecord['scopes']): ApiKeyRecord =>
    ({ id: 'a1', name: 'k', scopes, secret_tags: [], key_hash: 'h', created_by: 'k', created_at: 'now', revision: 0n });
  // Given the only admin key, when it is revoked, then 409 saying why.
  rejects(t, () => decideRevokeApiKey('a1', key(['admin']), 0), 'conflict', /API key a1 is the last active admin key: revoking it would leave no key that can administer RuleVault/);
  // Given another admin (a stored key or RULEVAULT_ADMIN_KEY), then it is revoked.
  t.same(decideRevokeApiKey('a1', key(['admin', 'evaluate']), 1), [{ type: 'ApiKeyRevoked', data: { id: 'a1' } }]);
  // A key without the admin scope is revoked whatever the count.
  t.same(decideRevokeApiKey('a1', key(['evaluate']), 0), [{ type: 'ApiKeyRevoked', data: { id: 'a1' } }]);
  rejects(t, () => decideRevokeApiKey('a1', key(['evaluate']), 0, [1n]), 'conflict', /API key a1 is at revision 0, not 1/);
});
