/**
 * Secret commands. The plaintext value never reaches a decision: the service
 * seals it first (src/vault) and decides with the sealed value. Pure.
 */
import { badRequest, conflict, notFound } from '../base/errors';
import type { KeyringEvent, SealedCanary, SealedValue, SecretEvent } from '../events';
import type { SecretRecord } from '../../projections';
import { changedMembers, checkIfMatch, has, readMembers, readString, readTags, type IfMatch } from './input';

export const SECRET_LIMITS = { keyLength: 256, valueLength: 64 * 1024 } as const;
const SECRET_MEMBERS = ['key', 'value', 'tags'] as const;

export interface SecretCreateInput {
  readonly key: string;
  readonly value: string;
  readonly tags: readonly string[];
}

export interface SecretPatch {
  readonly key?: string;
  readonly value?: string;
  readonly tags?: readonly string[];
}

export function parseSecretCreate(body: unknown): SecretCreateInput {
  const input = readMembers(body, 'body', SECRET_MEMBERS);
  for (const member of ['key', 'value']) if (!has(input, member)) throw badRequest(`${member} is required`);
  return {
    key: readKey(input.key),
    value: readValue(input.value),
    tags: has(input, 'tags') ? readTags(input.tags, 'tags') : [],
  };
}

export function parseSecretPatch(body: unknown): SecretPatch {
  const input = readMembers(body, 'body', SECRET_MEMBERS);
  const patch: { key?: string; value?: string; tags?: string[] } = {};
  if (has(input, 'key')) patch.key = readKey(input.key);
  if (has(input, 'value')) patch.value = readValue(input.value);
  if (has(input, 'tags')) patch.tags = readTags(input.tags, 'tags');
  return patch;
}

/** `keyOwner` is the id of the secret that holds `input.key` now, if any. */
export function decideCreateSecret(
  id: string,
  input: { readonly key: string; readonly tags: readonly string[] },
  sealed: SealedValue,
  keyOwner: string | undefined,
): SecretEvent[] {
  if (keyOwner !== undefined) throw conflict(`a secret with key ${input.key} already exists`);
  return [{ type: 'SecretCreated', data: { id, key: input.key, tags: input.tags, version: 1, sealed } }];
}

/**
 * A new version, unless nothing changes: a key and tags equal to the current
 * ones and no value decide no event. A value always makes a new version: it is
 * never compared with the current one, or an admin key (which may not read
 * values) could test guesses by watching the revision.
 */
export function decideUpdateSecret(
  id: string,
  current: SecretRecord | undefined,
  patch: { readonly key?: string; readonly tags?: readonly string[] },
  sealed: SealedValue | undefined,
  keyOwner: string | undefined,
  ifMatch: IfMatch | undefined,
): SecretEvent[] {
  if (current === undefined) throw notFound('secret', id);
  checkIfMatch('secret', id, current.revision, ifMatch);
  const changes = changedMembers<{ key: string; tags: readonly string[] }>(current, { key: patch.key, tags: patch.tags });
  if (changes.key !== undefined && keyOwner !== undefined && keyOwner !== id) {
    throw conflict(`a secret with key ${changes.key} already exists`);
  }
  if (changes.key === undefined && changes.tags === undefined && sealed === undefined) return [];
  return [{
    type: 'SecretUpdated',
    data: {
      id,
      version: current.version + 1,
      ...(changes.key !== undefined ? { key: changes.key } : {}),
      ...(changes.tags !== undefined ? { tags: changes.tags } : {}),
      ...(sealed !== undefined ? { sealed } : {}),
    },
  }];
}

export function decideDeleteSecret(id: string, current: SecretRecord | undefined, ifMatch?: IfMatch): SecretEvent[] {
  if (current === undefined) throw notFound('secret', id);
  checkIfMatch('secret', id, current.revision, ifMatch);
  return [{ type: 'SecretDeleted', data: { id } }];
}

function readKey(value: unknown): string {
  const key = readString(value, 'key', { maxLength: SECRET_LIMITS.keyLength });
  // Keys become environment variable names and log labels: keep them printable.
  if (/[\u0000-\u001f\u007f]/.test(key)) throw badRequest('key must not contain control characters');
  return key;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function readValue(value: unknown): string {
  const text = readString(value, 'value', { allowEmpty: true, maxLength: SECRET_LIMITS.valueLength });
  // UTF-8 cannot carry a lone surrogate: sealing would silently change the value.
  if (LONE_SURROGATE.test(text)) throw badRequest('value must be valid Unicode text (it contains a lone surrogate)');
  return text;
}

/** Master-key rotation of one secret: the same value, its data key wrapped under the new master key. */
export function decideRewrapSecret(id: string, current: SecretRecord | undefined, sealed: SealedValue): SecretEvent[] {
  if (current === undefined) throw notFound('secret', id);
  return [{ type: 'SecretRewrapped', data: { id, value_version: current.value_version, sealed } }];
}

/** The end of a rotation: the keyring now recognises the new master key by its canary. */
export function decideMasterKeyRotated(fromMasterKeyId: string, canary: SealedCanary): KeyringEvent[] {
  return [{ type: 'MasterKeyRotated', data: { from_master_key_id: fromMasterKeyId, canary } }];
}
