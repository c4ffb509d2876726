/**
 * API keys: generation, hashing, and the per-request authentication and
 * scope check. Keys are 256 random bits; only their SHA-256 is stored.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { ApiKeyRecord, ApiKeysState } from '../../projections';
import { AppError } from '../base/errors';
import type { Scope } from '../events';

export interface Principal {
  /** API key id, or `env-admin` for RULEVAULT_ADMIN_KEY. The actor of its writes. */
  readonly id: string;
  readonly scopes: readonly Scope[];
  /** Non-empty: the key reads only secrets carrying one of these tags. */
  readonly secretTags: readonly string[];
}

export const ENV_ADMIN_ID = 'env-admin';
const KEY_PREFIX = 'rv_';

/** A fresh API key and its hash; the key is shown once and never stored. */
export function generateApiKey(): { key: string; hash: string } {
  const key = KEY_PREFIX + randomBytes(32).toString('base64url');
  return { key, hash: hashApiKey(key) };
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

export const NO_KEY_MESSAGE = 'no API key was provided: send Authorization: Bearer <API_KEY>';
export const INVALID_KEY_MESSAGE = 'the API key is invalid or has been revoked';

/**
 * A header already verified: the principal it gave and what it was checked
 * against, so that a hit is re-checked with one map lookup instead of a
 * SHA-256 (bench: cpu-per-request --workload evaluate; the hash and the
 * header's regex were ~2% of the server's busy time). `record` undefined: the
 * env admin key, valid while `adminKeyHash` is.
 */
interface Verified {
  readonly principal: Principal;
  readonly hash: string;
  readonly record: ApiKeyRecord | undefined;
  readonly adminKeyHash: string | undefined;
}

/** Verified headers per key set; bounded, the oldest entry leaves first. */
const verifiedByKeys = new WeakMap<ApiKeysState, Map<string, Verified>>();
export const VERIFIED_CACHE_SIZE = 1024;

/**
 * Resolves the caller from an Authorization header; 401 when absent, unknown or revoked.
 * A header seen before is answered from a cache only while its key is still
 * the live record under its hash: a revocation (the record leaves `byHash`)
 * takes effect on the very next request.
 */
export function authenticate(
  header: string | undefined,
  keys: ApiKeysState,
  adminKeyHash: string | undefined,
): Principal {
  if (header === undefined) throw new AppError('unauthorized', NO_KEY_MESSAGE);
  let cache = verifiedByKeys.get(keys);
  const seen = cache?.get(header);
  if (seen !== undefined) {
    const live = seen.record === undefined ? seen.adminKeyHash === adminKeyHash : keys.byHash.get(seen.hash) === seen.record;
    if (live) return seen.principal;
    cache!.delete(header);
  }
  const key = bearerToken(header);
  if (key === undefined) throw new AppError('unauthorized', NO_KEY_MESSAGE);
  const hash = hashApiKey(key);
  let verified: Verified;
  if (adminKeyHash !== undefined && hash === adminKeyHash) {
    verified = { principal: { id: ENV_ADMIN_ID, scopes: ['admin'], secretTags: [] }, hash, record: undefined, adminKeyHash };
  } else {
    const record = keys.byHash.get(hash);
    if (record === undefined) throw new AppError('unauthorized', INVALID_KEY_MESSAGE);
    verified = { principal: { id: record.id, scopes: record.scopes, secretTags: record.secret_tags }, hash, record, adminKeyHash };
  }
  if (cache === undefined) verifiedByKeys.set(keys, (cache = new Map()));
  if (cache.size >= VERIFIED_CACHE_SIZE) cache.delete(cache.keys().next().value!);
  cache.set(header, verified);
  return verified.principal;
}

/** 403 unless the principal holds `scope` (or, given several, one of them). */
export function authorize(principal: Principal, scope: Scope | readonly Scope[]): void {
  const accepted: readonly Scope[] = typeof scope === 'string' ? [scope] : scope;
  if (!accepted.some((s) => principal.scopes.includes(s))) {
    throw new AppError('forbidden', `this API key lacks the ${accepted.join(' or ')} scope`);
  }
}

function bearerToken(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const match = /^\s*bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}
