/**
 * POST /api/vault/get-secrets, minus HTTP: selects the secrets a key may read
 * and opens them, per request, from the sealed vault. Plaintext lives only in
 * the answer being built.
 */
import type { SecretRecord, VaultState } from '../../projections';
import type { Principal } from '../auth';
import { AppError, badRequest } from '../errors';
import { isPlainObject } from '../domain/input';
import type { Sealer } from '../vault/seal';

export interface SecretsQuery {
  readonly key: string | undefined;
  readonly tags: readonly string[] | undefined;
}

export function parseSecretsQuery(body: unknown): SecretsQuery {
  if (body === undefined) return { key: undefined, tags: undefined };
  if (!isPlainObject(body)) throw badRequest('request body must be a JSON object');
  const { key, tags } = body;
  if (key !== undefined && typeof key !== 'string') throw badRequest('key must be a string');
  if (tags !== undefined && (!Array.isArray(tags) || !tags.every((t) => typeof t === 'string'))) {
    throw badRequest('tags must be an array of strings');
  }
  return { key, tags: tags as string[] | undefined };
}

export function getSecrets(vault: VaultState, sealer: Sealer, principal: Principal, query: SecretsQuery): Record<string, string> {
  const res: Record<string, string> = Object.create(null);
  for (const secret of select(vault, query)) {
    if (!mayRead(principal, secret)) continue;
    try {
      res[secret.key] = sealer.open(secret.id, secret.value_version, secret.sealed);
    } catch {
      // Fail closed: a secret that does not open (tampered, wrong key) fails the whole call.
      throw new AppError('internal', `secret ${secret.key} could not be opened; the vault may be tampered with or the master key is wrong`);
    }
  }
  return { ...res };
}

function select(vault: VaultState, query: SecretsQuery): Iterable<SecretRecord> {
  let candidates: Iterable<SecretRecord>;
  if (query.key !== undefined) {
    const id = vault.idsByKey.get(query.key);
    const secret = id === undefined ? undefined : vault.secrets.get(id);
    candidates = secret === undefined ? [] : [secret];
  } else {
    candidates = vault.secrets.values();
  }
  const tags = query.tags;
  if (tags === undefined) return candidates;
  return [...candidates].filter((secret) => secret.tags.some((tag) => tags.includes(tag)));
}

/** A key with secret_tags reads only secrets carrying one of them. */
function mayRead(principal: Principal, secret: SecretRecord): boolean {
  return principal.secretTags.length === 0 || secret.tags.some((tag) => principal.secretTags.includes(tag));
}
