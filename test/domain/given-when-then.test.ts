/**
 * Every decider, given a history: events in (folded as the service folds
 * them), a command, then the events it decides or the error it raises.
 */
import t from 'tap';
import type { CatalogState } from '../../projections';
import { decideCreateApiKey, decideRevokeApiKey } from '../../src/domain/api-keys';
import { decideCreateContext, decideDeleteContext, decideUpdateContext } from '../../src/domain/contexts';
import { decideAddPromptVersion, decideCreatePrompt, decideDeletePrompt, decideUpdatePrompt } from '../../src/domain/prompts';
import { decideCreateRule, decideDeleteRule, decideUnlinkEntity, decideUpdateRule, type RuleContext } from '../../src/domain/rules';
import {
  decideCreateSecret, decideDeleteSecret, decideMasterKeyRotated, decideRewrapSecret, decideUpdateSecret,
} from '../../src/domain/secrets';
import type { DomainEvent, EntityLink, SealedCanary, SealedValue } from '../../src/events';
import { given } from '../support/given';

const sealed = (master: string): SealedValue => ({ alg: 'xchacha20poly1305-ietf', master_key_id: master, wrapped_key: 'w', wrap_nonce: 'n', nonce: 'n', ciphertext: 'c' });
const canary = (master: string): SealedCanary => ({ master_key_id: master, nonce: 'n', ciphertext: 'c' });
const groups = [{ condition_operator: 'AND' as const, conditions: [{ field: 'tier', operator: 'equals' as const, value: 'gold', data_type: 'string' as const }] }];
const ruleBody = { name: 'r', description: '', status: 'ACTIVE' as const, group_operator: 'AND' as const, condition_groups: groups, entities: [] };
const contextBody = { name: 'c', description: '', content: 'x', tags: [], meta_properties: {}, status: 'ACTIVE' as const };
const promptAttributes = { name: 'p', tags: [], meta_properties: {}, status: 'ACTIVE' as const };

const ruleCreated = (id: string, entities: EntityLink[] = []): DomainEvent => ({ type: 'RuleCreated', data: { id, ...ruleBody, entities } });
const contextCreated = (id: string): DomainEvent => ({ type: 'ContextCreated', data: { id, ...contextBody } });
const promptCreated = (id: string): DomainEvent => ({ type: 'PromptCreated', data: { id, version: '1.0.0', template: 'Hi {{who}}', ...promptAttributes } });
const secretCreated = (id: string, key: string): DomainEvent => ({ type: 'SecretCreated', data: { id, key, tags: [], version: 1, sealed: sealed('m1') } });
const apiKeyCreated = (id: string, scopes: ('admin' | 'evaluate')[]): DomainEvent =>
  ({ type: 'ApiKeyCreated', data: { id, name: id, scopes, secret_tags: [], key_hash: `hash-${id}` } });

/** The links a rule may name, as the service judges them: the contexts and prompts in the state. */
const ruleContext = (state: CatalogState): RuleContext => ({
  maxRegexLength: 1000,
  entityExists: (link) => (link.entity_type === 'context' ? state.contexts.has(link.entity_id) : state.prompts.has(link.entity_id)),
});
const context1: EntityLink = { entity_type: 'context', entity_id: 'c1' };

t.test('rules', async (t) => {
  given([]).when((s) => decideCreateRule('r1', ruleBody, ruleContext(s))).then(t, [ruleCreated('r1')], 'create');
  given([]).when((s) => decideCreateRule('r1', { ...ruleBody, entities: [context1] }, ruleContext(s)))
    .rejects(t, 'bad_request', /entities\[0\]: context c1 does not exist/);
  given([contextCreated('c1')]).when((s) => decideCreateRule('r1', { ...ruleBody, entities: [context1] }, ruleContext(s)))
    .then(t, [ruleCreated('r1', [context1])], 'create linking a context that exists');
  given([ruleCreated('r1')]).when((s) => decideUpdateRule('r1', s.rules.get('r1'), { status: 'INACTIVE' }, [0n], ruleContext(s)))
    .then(t, [{ type: 'RuleUpdated', data: { id: 'r1', changes: { status: 'INACTIVE' } } }], 'update at the current revision');
  given([ruleCreated('r1'), { type: 'RuleUpdated', data: { id: 'r1', changes: { name: 'n' } } }])
    .when((s) => decideUpdateRule('r1', s.rules.get('r1'), { status: 'INACTIVE' }, [0n], ruleContext(s)))
    .rejects(t, 'conflict', /rule r1 is at revision 1, not 0/);
  given([ruleCreated('r1')]).when((s) => decideUpdateRule('r1', s.rules.get('r1'), { name: 'r' }, undefined, ruleContext(s))).then(t, [], 'no change, no event');
  given([ruleCreated('r1'), { type: 'RuleDeleted', data: { id: 'r1' } }])
    .when((s) => decideUpdateRule('r1', s.rules.get('r1'), { name: 'n' }, undefined, ruleContext(s))).rejects(t, 'not_found', /rule r1 not found/);
  given([ruleCreated('r1')]).when((s) => decideDeleteRule('r1', s.rules.get('r1'), '*')).then(t, [{ type: 'RuleDeleted', data: { id: 'r1' } }], 'delete');
  given([]).when((s) => decideDeleteRule('r1', s.rules.get('r1'), undefined)).rejects(t, 'not_found', /rule r1 not found/);
  const prompt1: EntityLink = { entity_type: 'prompt', entity_id: 'p1' };
  given([contextCreated('c1'), promptCreated('p1'), ruleCreated('r1', [context1, prompt1])])
    .when((s) => decideUnlinkEntity('r1', s.rules.get('r1'), context1, ruleContext(s)))
    .then(t, [{ type: 'RuleUpdated', data: { id: 'r1', changes: { entities: [prompt1] } } }], 'unlink a context about to be deleted');
});

t.test('contexts', async (t) => {
  given([]).when(() => decideCreateContext('c1', contextBody)).then(t, [contextCreated('c1')], 'create');
  given([contextCreated('c1')]).when((s) => decideUpdateContext('c1', s.contexts.get('c1'), { content: 'y' }, undefined))
    .then(t, [{ type: 'ContextUpdated', data: { id: 'c1', changes: { content: 'y' } } }], 'update');
  given([contextCreated('c1')]).when((s) => decideUpdateContext('c1', s.contexts.get('c1'), { content: 'x' }, undefined)).then(t, [], 'no change, no event');
  given([contextCreated('c1')]).when((s) => decideUpdateContext('c1', s.contexts.get('c1'), { content: 'y' }, [3n]))
    .rejects(t, 'conflict', /context c1 is at revision 0, not 3/);
  given([contextCreated('c1')]).when((s) => decideDeleteContext('c1', s.contexts.get('c1'), [0n])).then(t, [{ type: 'ContextDeleted', data: { id: 'c1' } }], 'delete');
  given([contextCreated('c1'), { type: 'ContextDeleted', data: { id: 'c1' } }])
    .when((s) => decideDeleteContext('c1', s.contexts.get('c1'), undefined)).rejects(t, 'not_found', /context c1 not found/);
});

t.test('prompts', async (t) => {
  given([]).when(() => decideCreatePrompt('p1', { ...promptAttributes, version: '1.0.0', template: 'Hi {{who}}' })).then(t, [promptCreated('p1')], 'create');
  given([promptCreated('p1')]).when((s) => decideAddPromptVersion('p1', s.prompts.get('p1'), { template: 'Hello', version: undefined }, undefined))
    .then(t, [{ type: 'PromptVersionAdded', data: { id: 'p1', version: '1.1.0', template: 'Hello' } }], 'a version without a number is the next minor');
  given([promptCreated('p1'), { type: 'PromptVersionAdded', data: { id: 'p1', version: '2.0.0', template: 'x' } }])
    .when((s) => decideAddPromptVersion('p1', s.prompts.get('p1'), { template: 'y', version: '1.5.0' }, undefined))
    .rejects(t, 'conflict', /version 1\.5\.0 must be greater than the latest version 2\.0\.0/);
  given([promptCreated('p1')]).when((s) => decideUpdatePrompt('p1', s.prompts.get('p1'), { tags: ['a'] }, '*'))
    .then(t, [{ type: 'PromptUpdated', data: { id: 'p1', changes: { tags: ['a'] } } }], 'update');
  given([promptCreated('p1')]).when((s) => decideUpdatePrompt('p1', s.prompts.get('p1'), { status: 'ACTIVE' }, undefined)).then(t, [], 'no change, no event');
  given([promptCreated('p1')]).when((s) => decideDeletePrompt('p1', s.prompts.get('p1'), undefined)).then(t, [{ type: 'PromptDeleted', data: { id: 'p1' } }], 'delete');
  given([]).when((s) => decideDeletePrompt('p1', s.prompts.get('p1'), undefined)).rejects(t, 'not_found', /prompt p1 not found/);
});

t.test('secrets and the keyring', async (t) => {
  const keyOwner = (s: CatalogState, key: string) => s.vault.idsByKey.get(key);
  given([]).when((s) => decideCreateSecret('s1', { key: 'K', tags: [] }, sealed('m1'), keyOwner(s, 'K'))).then(t, [secretCreated('s1', 'K')], 'create');
  given([secretCreated('s1', 'K')]).when((s) => decideCreateSecret('s2', { key: 'K', tags: [] }, sealed('m1'), keyOwner(s, 'K')))
    .rejects(t, 'conflict', /a secret with key K already exists/);
  given([secretCreated('s1', 'K'), { type: 'SecretDeleted', data: { id: 's1' } }])
    .when((s) => decideCreateSecret('s2', { key: 'K', tags: [] }, sealed('m1'), keyOwner(s, 'K')))
    .then(t, [secretCreated('s2', 'K')], 'a deleted secret frees its key');
  given([secretCreated('s1', 'K')]).when((s) => decideUpdateSecret('s1', s.vault.secrets.get('s1'), { tags: ['t'] }, undefined, keyOwner(s, 'K'), [0n]))
    .then(t, [{ type: 'SecretUpdated', data: { id: 's1', version: 2, tags: ['t'] } }], 'update makes a version');
  given([secretCreated('s1', 'K'), secretCreated('s2', 'L')])
    .when((s) => decideUpdateSecret('s1', s.vault.secrets.get('s1'), { key: 'L' }, undefined, keyOwner(s, 'L'), undefined))
    .rejects(t, 'conflict', /a secret with key L already exists/);
  given([secretCreated('s1', 'K')]).when((s) => decideDeleteSecret('s1', s.vault.secrets.get('s1'))).then(t, [{ type: 'SecretDeleted', data: { id: 's1' } }], 'delete');
  given([]).when((s) => decideDeleteSecret('s1', s.vault.secrets.get('s1'))).rejects(t, 'not_found', /secret s1 not found/);
  given([secretCreated('s1', 'K'), { type: 'SecretUpdated', data: { id: 's1', version: 2, sealed: sealed('m1') } }])
    .when((s) => decideRewrapSecret('s1', s.vault.secrets.get('s1'), sealed('m2')))
    .then(t, [{ type: 'SecretRewrapped', data: { id: 's1', value_version: 2, sealed: sealed('m2') } }], 're-wrap the current value version');
  given([]).when((s) => decideRewrapSecret('s1', s.vault.secrets.get('s1'), sealed('m2'))).rejects(t, 'not_found', /secret s1 not found/);
  given([{ type: 'MasterKeyEnrolled', data: { canary: canary('m1') } }]).when(() => decideMasterKeyRotated('m1', canary('m2')))
    .then(t, [{ type: 'MasterKeyRotated', data: { from_master_key_id: 'm1', canary: canary('m2') } }], 'the rotation ends with the new canary');
});

t.test('API keys', async (t) => {
  const otherAdmins = (s: CatalogState, id: string) => [...s.apiKeys.byId.values()].filter((k) => k.id !== id && k.scopes.includes('admin')).length;
  given([]).when(() => decideCreateApiKey('a1', { name: 'a1', scopes: ['admin'], secret_tags: [] }, 'hash-a1')).then(t, [apiKeyCreated('a1', ['admin'])], 'create');
  given([apiKeyCreated('a1', ['admin'])]).when((s) => decideRevokeApiKey('a1', s.apiKeys.byId.get('a1'), otherAdmins(s, 'a1')))
    .rejects(t, 'conflict', /API key a1 is the last active admin key/);
  given([apiKeyCreated('a1', ['admin']), apiKeyCreated('a2', ['admin'])])
    .when((s) => decideRevokeApiKey('a1', s.apiKeys.byId.get('a1'), otherAdmins(s, 'a1'))).then(t, [{ type: 'ApiKeyRevoked', data: { id: 'a1' } }], 'another admin stays');
  given([apiKeyCreated('a1', ['admin']), apiKeyCreated('a2', ['admin']), { type: 'ApiKeyRevoked', data: { id: 'a2' } }])
    .when((s) => decideRevokeApiKey('a1', s.apiKeys.byId.get('a1'), otherAdmins(s, 'a1'))).rejects(t, 'conflict', /last active admin key/);
  given([apiKeyCreated('a1', ['evaluate'])]).when((s) => decideRevokeApiKey('a1', s.apiKeys.byId.get('a1'), 0)).then(t, [{ type: 'ApiKeyRevoked', data: { id: 'a1' } }], 'a non-admin key');
  given([]).when((s) => decideRevokeApiKey('a1', s.apiKeys.byId.get('a1'), 0)).rejects(t, 'not_found', /API key a1 not found/);
});
