/**
 * API keys: generation, hashing, and the per-request authentication and
 * scope check. Keys are 256 random bits; only their SHA-256 is stored.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { ApiKeysState } from '../projections';
import { AppError } from './errors';
import type { Scope } from './events';

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

/** Resolves the caller from an Authorization header; 401 when absent, unknown or revoked. */
export function authenticate(
  header: string | undefined,
  keys: ApiKeysState,
  adminKeyHash: string | undefined,
): Principal {
  const key = bearerToken(header);
  if (key === undefined) throw new AppError('unauthorized', NO_KEY_MESSAGE);
  const hash = hashApiKey(key);
  if (adminKeyHash !== undefined && hash === adminKeyHash) {
    return { id: ENV_ADMIN_ID, scopes: ['admin'], secretTags: [] };
  }
  const record = keys.byHash.get(hash);
  if (record === undefined) throw new AppError('unauthorized', INVALID_KEY_MESSAGE);
  return { id: record.id, scopes: record.scopes, secretTags: record.secret_tags };
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
