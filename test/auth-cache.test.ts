/**
 * The cache of verified Authorization headers (src/service/auth.ts): a hit is only
 * answered while the key is still the live record under its hash, so a
 * revocation takes effect on the next request, and the cache stays bounded.
 */
import t from 'tap';
import { initialApiKeys, evolveApiKeys } from '../projections/api-keys';
import { authenticate, generateApiKey, hashApiKey, VERIFIED_CACHE_SIZE } from '../src/service/auth';
import { AppError } from '../src/base/errors';
import type { ApiKeyEvent, StoredEvent } from '../src/events';

function event(type: ApiKeyEvent['type'], data: ApiKeyEvent['data'], revision: number): StoredEvent<ApiKeyEvent> {
  return { type, data, revision, metadata: { actor: 'test', at: '2026-01-01T00:00:00.000Z' } } as unknown as StoredEvent<ApiKeyEvent>;
}

function code(fn: () => unknown): string | undefined {
  try {
    fn();
    return undefined;
  } catch (error) {
    return error instanceof AppError ? error.code : 'not an AppError';
  }
}

t.test('a revoked key is refused on the very next request, though it was verified before', async (t) => {
  const keys = initialApiKeys();
  const { key, hash } = generateApiKey();
  evolveApiKeys(keys, event('ApiKeyCreated', { id: 'k1', name: 'one', scopes: ['evaluate'], secret_tags: ['a'], key_hash: hash } as never, 0));
  const header = `Bearer ${key}`;
  const first = authenticate(header, keys, undefined);
  t.same(first, { id: 'k1', scopes: ['evaluate'], secretTags: ['a'] });
  t.equal(authenticate(header, keys, undefined), first, 'the second request is answered from the cache (same principal)');
  evolveApiKeys(keys, event('ApiKeyRevoked', { id: 'k1' } as never, 1));
  t.equal(code(() => authenticate(header, keys, undefined)), 'unauthorized');
  t.equal(code(() => authenticate(header, keys, undefined)), 'unauthorized', 'and stays refused');
});

t.test('the env admin key is cached only while it is the configured one', async (t) => {
  const keys = initialApiKeys();
  const header = 'Bearer env-admin-secret';
  t.equal(authenticate(header, keys, hashApiKey('env-admin-secret')).id, 'env-admin');
  t.equal(code(() => authenticate(header, keys, hashApiKey('another'))), 'unauthorized', 'a different admin key hash refuses the old one');
  t.equal(code(() => authenticate(header, keys, undefined)), 'unauthorized');
});

t.test('unknown keys and malformed headers are never cached as valid; the cache is bounded', async (t) => {
  const keys = initialApiKeys();
  t.equal(code(() => authenticate('Bearer nope', keys, undefined)), 'unauthorized');
  t.equal(code(() => authenticate('Basic abc', keys, undefined)), 'unauthorized');
  t.equal(code(() => authenticate(undefined, keys, undefined)), 'unauthorized');
  const made = Array.from({ length: VERIFIED_CACHE_SIZE + 10 }, (_, i) => {
    const { key, hash } = generateApiKey();
    evolveApiKeys(keys, event('ApiKeyCreated', { id: `k${i}`, name: 'n', scopes: ['evaluate'], secret_tags: [], key_hash: hash } as never, 0));
    return key;
  });
  for (const [i, key] of made.entries()) t.equal(authenticate(`Bearer ${key}`, keys, undefined).id, `k${i}`);
  // The oldest entries were evicted: still verified correctly, the slow way.
  t.equal(authenticate(`Bearer ${made[0]}`, keys, undefined).id, 'k0');
  evolveApiKeys(keys, event('ApiKeyRevoked', { id: 'k1' } as never, 1));
  t.equal(code(() => authenticate(`Bearer ${made[1]}`, keys, undefined)), 'unauthorized');
});
