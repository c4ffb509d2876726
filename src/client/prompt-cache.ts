/**
 * The prompt cache's rules, apart from any I/O: an answer younger than its
 * TTL is served as is; an older one is served at once while one refresh runs
 * in the background (stale-while-revalidate); a transient failure keeps the
 * old answer and remembers why; the service's refusal (say, the prompt was
 * deleted) drops it. The cache holds at most `capacity` answers, the least
 * recently used leaving first.
 */

export interface CacheEntry<V> {
  readonly value: V;
  /** Clock reading when the service gave this answer. */
  readonly fetchedAt: number;
  /** Why the last refresh did not replace it; null after a successful one. */
  readonly lastError: string | null;
}

export type Lookup<V> =
  | { readonly kind: 'fresh'; readonly entry: CacheEntry<V> }
  | { readonly kind: 'stale'; readonly entry: CacheEntry<V> }
  | { readonly kind: 'miss' };

export class PromptCache<V> {
  private readonly entries = new Map<string, CacheEntry<V>>();

  constructor(private readonly capacity: number) {}

  lookup(key: string, now: number, ttlMs: number): Lookup<V> {
    const entry = this.entries.get(key);
    if (entry === undefined) return { kind: 'miss' };
    // Re-inserting moves the key to the end of the Map's order: most recently used.
    this.entries.delete(key);
    this.entries.set(key, entry);
    return { kind: now - entry.fetchedAt < ttlMs ? 'fresh' : 'stale', entry };
  }

  /** Any answer for the key, fresh or not, for when the service cannot be asked. */
  peek(key: string): CacheEntry<V> | undefined {
    return this.entries.get(key);
  }

  store(key: string, value: V, now: number): CacheEntry<V> {
    const entry = { value, fetchedAt: now, lastError: null };
    this.entries.delete(key);
    this.entries.set(key, entry);
    while (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
    }
    return entry;
  }

  /** A refresh failed for a transient reason: the old answer stays, with the reason. */
  failed(key: string, message: string): void {
    const entry = this.entries.get(key);
    if (entry !== undefined) this.entries.set(key, { ...entry, lastError: message });
  }

  /** The service refused the request: its old answer must not be served again. */
  drop(key: string): void {
    this.entries.delete(key);
  }
}

/** One cache key per distinct request: member order of `variables` does not matter. Throws on what JSON cannot hold. */
export function cacheKey(parts: readonly unknown[]): string {
  // The sorting replacer hands back copies, which would hide a cycle from
  // JSON.stringify's own check (and recurse until the stack runs out): check first.
  JSON.stringify(parts);
  return JSON.stringify(parts, (_name, value: unknown) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
    const record = value as Record<string, unknown>;
    return Object.fromEntries(Object.keys(record).sort().map((name) => [name, record[name]]));
  });
}
