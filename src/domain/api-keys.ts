/** API key commands. The key is generated and hashed by the service; only the hash is decided on. Pure. */
import { badRequest, conflict, notFound } from '../base/errors';
import { SCOPES, type ApiKeyEvent, type Scope } from '../events';
import type { ApiKeyRecord } from '../../projections';
import { INPUT_LIMITS, checkIfMatch, has, readArray, readEnum, readMembers, readString, readTags, type IfMatch } from './input';

const API_KEY_MEMBERS = ['name', 'scopes', 'secret_tags'] as const;

export interface ApiKeyCreateInput {
  readonly name: string;
  readonly scopes: readonly Scope[];
  readonly secret_tags: readonly string[];
}

export function parseApiKeyCreate(body: unknown): ApiKeyCreateInput {
  const input = readMembers(body, 'body', API_KEY_MEMBERS);
  for (const member of ['name', 'scopes']) if (!has(input, member)) throw badRequest(`${member} is required`);
  const scopes = readArray(input.scopes, 'scopes', SCOPES.length * 4).map((s, i) => readEnum(s, `scopes[${i}]`, SCOPES));
  if (scopes.length === 0) throw badRequest(`scopes must name at least one of ${SCOPES.join(', ')}`);
  return {
    name: readString(input.name, 'name', { maxLength: INPUT_LIMITS.nameLength }),
    scopes: [...new Set(scopes)],
    secret_tags: has(input, 'secret_tags') ? readTags(input.secret_tags, 'secret_tags') : [],
  };
}

export function decideCreateApiKey(id: string, input: ApiKeyCreateInput, keyHash: string): ApiKeyEvent[] {
  return [{ type: 'ApiKeyCreated', data: { id, ...input, key_hash: keyHash } }];
}

/**
 * Revocation. `otherAdmins` counts the admin keys that stay usable: the other
 * active stored keys with the admin scope, plus RULEVAULT_ADMIN_KEY when this
 * node has one. The last one is not revoked (409): nobody could administer
 * the service until it is restarted with RULEVAULT_ADMIN_KEY or the CLI
 * creates a key (docs/api.md#the-last-admin-key-and-a-lost-one).
 */
export function decideRevokeApiKey(
  id: string,
  current: ApiKeyRecord | undefined,
  otherAdmins: number,
  ifMatch?: IfMatch,
): ApiKeyEvent[] {
  if (current === undefined) throw notFound('API key', id);
  checkIfMatch('API key', id, current.revision, ifMatch);
  if (current.scopes.includes('admin') && otherAdmins === 0) {
    throw conflict(
      `API key ${id} is the last active admin key: revoking it would leave no key that can administer RuleVault; ` +
        'create another admin key first',
    );
  }
  return [{ type: 'ApiKeyRevoked', data: { id } }];
}
