/**
 * POST /api/vault/get-secrets, minus HTTP: selects the secrets a key may read
 * and opens them, per request, from the sealed vault. Plaintext lives only in
 * the answer being built. A lookup by `key` that selects nothing is an error
 * (not_found, naming the key); one by tags alone that matches nothing is an
 * empty answer (docs/decisions/0039-get-secrets-missing-key.md).
 */
import type { SecretRecord, VaultState } from '../../projections';
import type { Principal } from './auth';
import { AppError, badRequest } from '../base/errors';
import { isPlainObject, quoteName } from '../domain/input';
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

/**
 * Which secrets a read answers, in the answer's order: what a (query, key's
 * tags) pair selects from one vault state. Never a value: the records are
 * sealed, and the key prefixes are the answer's skeleton.
 */
export interface SecretsSelection {
  readonly secrets: readonly SecretRecord[];
  /** Per secret, its key as JSON and a colon (`"KEY":`), ready for the answer's text. */
  readonly keyPrefixes: readonly string[];
}

/** The answer to one read: the selection (what the read audit records) and the answer's JSON text. */
export interface SecretsAnswer {
  readonly selection: SecretsSelection;
  /** `{"err":null,"res":{...}}`: byte for byte what JSON.stringify of that answer gives. */
  readonly text: string;
}

/**
 * Selections cached per vault state and log position: the vault is folded in
 * place, and every event applied advances the position, so a selection made
 * at one position is the one any read at that position would make. Selecting
 * is a scan of every secret with a tag filter; cached, a read only opens its
 * values (bench: cpu-per-request --workload secrets). Plaintext is never
 * cached: values are opened afresh for every read.
 */
interface SelectionCache {
  position: bigint | undefined;
  readonly byQuery: Map<string, SecretsSelection>;
}
const selectionCaches = new WeakMap<VaultState, SelectionCache>();
/** Distinct (query, key tags) pairs kept per position; past it the cache starts afresh (a caller varying its tags cannot grow memory). */
const MAX_SELECTIONS = 1024;

/**
 * Opens the secrets `principal` may read that `query` selects, from the
 * vault state as of log position `position`; a secret that does not open
 * fails the whole read.
 */
export function getSecrets(
  vault: VaultState, position: bigint | undefined, sealer: Sealer, principal: Principal, query: SecretsQuery,
): SecretsAnswer {
  const selection = selectionFor(vault, position, principal, query);
  // A key lookup names what the caller needs: finding nothing is an error (a mistyped key would start an app with it unset).
  if (query.key !== undefined && selection.secrets.length === 0) throw new AppError('not_found', notFoundMessage(query));
  let text = '{"err":null,"res":{';
  for (let i = 0; i < selection.secrets.length; i++) {
    const secret = selection.secrets[i]!;
    let value: string;
    try {
      value = sealer.open(secret.id, secret.value_version, secret.sealed);
    } catch {
      // Fail closed: a secret that does not open (tampered, wrong key) fails the whole call.
      throw new AppError('internal', `secret ${secret.key} could not be opened; the vault may be tampered with or the master key is wrong`);
    }
    text += (i === 0 ? '' : ',') + selection.keyPrefixes[i]! + JSON.stringify(value);
  }
  return { selection, text: text + '}}' };
}

/**
 * Why a key lookup found nothing, the same whether the key does not exist, carries none of the tags asked for, or is
 * one the API key may not read: the answer must not tell a key that exists from one that does not.
 */
export function notFoundMessage(query: SecretsQuery): string {
  const tags = query.tags === undefined ? '' : ` carrying one of the tags ${query.tags.map(quoteName).join(', ')}`;
  return `no secret ${quoteName(query.key!)}${tags} that this API key may read`;
}

function selectionFor(vault: VaultState, position: bigint | undefined, principal: Principal, query: SecretsQuery): SecretsSelection {
  let cache = selectionCaches.get(vault);
  if (cache === undefined) {
    cache = { position, byQuery: new Map() };
    selectionCaches.set(vault, cache);
  }
  if (cache.position !== position || cache.byQuery.size >= MAX_SELECTIONS) {
    cache.position = position;
    cache.byQuery.clear();
  }
  const key = JSON.stringify([query.key ?? null, query.tags ?? null, principal.secretTags]);
  let selection = cache.byQuery.get(key);
  if (selection === undefined) {
    selection = select(vault, principal, query);
    cache.byQuery.set(key, selection);
  }
  return selection;
}

function select(vault: VaultState, principal: Principal, query: SecretsQuery): SecretsSelection {
  // An object orders its keys as the answer's JSON does (integer-like keys first): the answer keeps the order it always had.
  const byKey: Record<string, SecretRecord> = Object.create(null);
  for (const secret of candidates(vault, query)) if (mayRead(principal, secret)) byKey[secret.key] = secret;
  const secrets = Object.keys(byKey).map((key) => byKey[key]!);
  return { secrets, keyPrefixes: secrets.map((secret) => `${JSON.stringify(secret.key)}:`) };
}

function candidates(vault: VaultState, query: SecretsQuery): Iterable<SecretRecord> {
  let found: Iterable<SecretRecord>;
  if (query.key !== undefined) {
    const id = vault.idsByKey.get(query.key);
    const secret = id === undefined ? undefined : vault.secrets.get(id);
    found = secret === undefined ? [] : [secret];
  } else {
    found = vault.secrets.values();
  }
  const tags = query.tags;
  if (tags === undefined) return found;
  return [...found].filter((secret) => secret.tags.some((tag) => tags.includes(tag)));
}

/** A key with secret_tags reads only secrets carrying one of them. */
function mayRead(principal: Principal, secret: SecretRecord): boolean {
  return principal.secretTags.length === 0 || secret.tags.some((tag) => principal.secretTags.includes(tag));
}
