/** API key commands. The key is generated and hashed by the service; only the hash is decided on. Pure. */
import { badRequest, notFound } from '../errors';
import { SCOPES, type ApiKeyEvent, type Scope } from '../events';
import type { ApiKeyRecord } from '../../projections';
import { INPUT_LIMITS, has, readArray, readEnum, readString, readTags, requireObject } from './input';

export interface ApiKeyCreateInput {
  readonly name: string;
  readonly scopes: readonly Scope[];
  readonly secret_tags: readonly string[];
}

export function parseApiKeyCreate(body: unknown): ApiKeyCreateInput {
  const input = requireObject(body, 'body');
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

export function decideRevokeApiKey(id: string, current: ApiKeyRecord | undefined): ApiKeyEvent[] {
  if (current === undefined) throw notFound('API key', id);
  return [{ type: 'ApiKeyRevoked', data: { id } }];
}
