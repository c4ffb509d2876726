/** Every fold, given a history: events in, then the read model's state out (test/support/given.ts). */
import t from 'tap';
import type { CatalogState } from '../../projections';
import type { DomainEvent, SealedCanary, SealedValue } from '../../src/events';
import { GIVEN_ACTOR, given, givenAt } from '../support/given';

const sealed = (master: string): SealedValue => ({ alg: 'xchacha20poly1305-ietf', master_key_id: master, wrapped_key: 'w', wrap_nonce: 'n', nonce: 'n', ciphertext: 'c' });
const canary = (master: string): SealedCanary => ({ master_key_id: master, nonce: 'n', ciphertext: 'c' });
const groups = [{ condition_operator: 'AND' as const, conditions: [{ field: 'tier', operator: 'equals' as const, value: 'gold', data_type: 'string' as const }] }];
const ruleBody = { name: 'r', description: '', status: 'ACTIVE' as const, group_operator: 'AND' as const, condition_groups: groups, entities: [] };
const contextBody = { name: 'c', description: '', content: 'x', tags: [], meta_properties: {}, status: 'ACTIVE' as const };
const promptCreated: DomainEvent = { type: 'PromptCreated', data: { id: 'p1', version: '1.0.0', template: 'Hi', name: 'p', tags: [], meta_properties: {}, status: 'ACTIVE' } };
const secretCreated = (id: string, key: string): DomainEvent => ({ type: 'SecretCreated', data: { id, key, tags: [], version: 1, sealed: sealed('m1') } });
const apiKeyCreated = (id: string): DomainEvent => ({ type: 'ApiKeyCreated', data: { id, name: id, scopes: ['evaluate'], secret_tags: [], key_hash: `hash-${id}` } });

/** Provenance after the n-th event of the history, for a resource created by the c-th. */
const provenance = (c: number, n: number, revision: bigint) => ({ created_by: GIVEN_ACTOR, created_at: givenAt(c), updated_at: givenAt(n), revision, position: BigInt(n) });

t.test('rules', async (t) => {
  const created: DomainEvent = { type: 'RuleCreated', data: { id: 'r1', ...ruleBody } };
  given([created]).then(t, (s) => s.rules.get('r1'), { id: 'r1', ...ruleBody, ...provenance(1, 1, 0n) }, 'created');
  given([created, { type: 'RuleUpdated', data: { id: 'r1', changes: { status: 'INACTIVE' } } }])
    .then(t, (s) => s.rules.get('r1'), { id: 'r1', ...ruleBody, status: 'INACTIVE', ...provenance(1, 2, 1n) }, 'updated: the named member, the provenance');
  given([created, { type: 'RuleDeleted', data: { id: 'r1' } }]).then(t, (s) => [...s.rules.keys()], [], 'deleted');
  given([created]).then(t, (s) => s.position, 1n, 'the state remembers the last position');
});

t.test('contexts', async (t) => {
  const created: DomainEvent = { type: 'ContextCreated', data: { id: 'c1', ...contextBody } };
  given([created]).then(t, (s) => s.contexts.get('c1'), { id: 'c1', ...contextBody, ...provenance(1, 1, 0n) }, 'created');
  given([created, { type: 'ContextUpdated', data: { id: 'c1', changes: { content: 'y', tags: ['t'] } } }])
    .then(t, (s) => s.contexts.get('c1'), { id: 'c1', ...contextBody, content: 'y', tags: ['t'], ...provenance(1, 2, 1n) }, 'updated');
  given([created, { type: 'ContextDeleted', data: { id: 'c1' } }]).then(t, (s) => s.contexts.has('c1'), false, 'deleted');
});

t.test('prompts', async (t) => {
  const versions = (s: CatalogState) => s.prompts.get('p1')?.versions.map((v) => [v.version, v.template, v.created_at]);
  given([promptCreated]).then(t, versions, [['1.0.0', 'Hi', givenAt(1)]], 'created with its first version');
  given([promptCreated, { type: 'PromptVersionAdded', data: { id: 'p1', version: '1.10.0', template: 'b' } }, { type: 'PromptVersionAdded', data: { id: 'p1', version: '1.2.0', template: 'a' } }])
    .then(t, versions, [['1.0.0', 'Hi', givenAt(1)], ['1.2.0', 'a', givenAt(3)], ['1.10.0', 'b', givenAt(2)]], 'versions in semantic order, the latest last');
  given([promptCreated, { type: 'PromptUpdated', data: { id: 'p1', changes: { status: 'INACTIVE' } } }])
    .then(t, (s) => [s.prompts.get('p1')?.status, s.prompts.get('p1')?.revision], ['INACTIVE', 1n], 'updated');
  given([promptCreated, { type: 'PromptDeleted', data: { id: 'p1' } }]).then(t, (s) => s.prompts.size, 0, 'deleted');
});

t.test('the vault and its keyring', async (t) => {
  given([secretCreated('s1', 'K')]).then(t, (s) => [s.vault.secrets.get('s1'), s.vault.idsByKey.get('K')],
    [{ id: 's1', key: 'K', tags: [], version: 1, value_version: 1, sealed: sealed('m1'), ...provenance(1, 1, 0n) }, 's1'], 'created, found by its key');
  given([secretCreated('s1', 'K'), { type: 'SecretUpdated', data: { id: 's1', version: 2, key: 'L' } }])
    .then(t, (s) => [s.vault.secrets.get('s1')?.key, s.vault.secrets.get('s1')?.version, s.vault.secrets.get('s1')?.value_version, [...s.vault.idsByKey]],
      ['L', 2, 1, [['L', 's1']]], 'a new key moves the lookup; no value, so the value version stays');
  given([secretCreated('s1', 'K'), { type: 'SecretUpdated', data: { id: 's1', version: 2, sealed: sealed('m1') } }, { type: 'SecretRewrapped', data: { id: 's1', value_version: 1, sealed: sealed('m2') } }])
    .then(t, (s) => s.vault.secrets.get('s1')?.sealed.master_key_id, 'm1', 'a re-wrap of a value replaced meanwhile is moot');
  given([secretCreated('s1', 'K'), { type: 'SecretRewrapped', data: { id: 's1', value_version: 1, sealed: sealed('m2') } }])
    .then(t, (s) => s.vault.secrets.get('s1')?.sealed.master_key_id, 'm2', 'a re-wrap of the current value');
  given([secretCreated('s1', 'K'), { type: 'SecretDeleted', data: { id: 's1' } }])
    .then(t, (s) => [s.vault.secrets.size, s.vault.idsByKey.size, [...s.vault.erasurePending]], [0, 0, ['s1']], 'deleted; its unerased sealed event awaits erasure');
  given([{ type: 'MasterKeyEnrolled', data: { canary: canary('m1') } }, { type: 'MasterKeyRotated', data: { from_master_key_id: 'm1', canary: canary('m2') } }])
    .then(t, (s) => s.vault.keyring, { canary: canary('m2') }, 'the keyring holds the newest canary');
});

t.test('API keys', async (t) => {
  given([apiKeyCreated('a1')]).then(t, (s) => [s.apiKeys.byId.get('a1'), s.apiKeys.byHash.get('hash-a1')?.id],
    [{ id: 'a1', name: 'a1', scopes: ['evaluate'], secret_tags: [], key_hash: 'hash-a1', created_by: GIVEN_ACTOR, created_at: givenAt(1), revision: 0n }, 'a1'], 'created, found by its hash');
  given([apiKeyCreated('a1'), apiKeyCreated('a2'), { type: 'ApiKeyRevoked', data: { id: 'a1' } }])
    .then(t, (s) => [[...s.apiKeys.byId.keys()], [...s.apiKeys.byHash.keys()]], [['a2'], ['hash-a2']], 'revoked: gone from both lookups');
});
