/**
 * MurmurHash3, x86 32-bit, over the UTF-8 bytes of two strings one after the
 * other: the hash flagd's `fractional` buckets by (flag key, then targeting
 * key). The bytes are made from the UTF-16 units as they are read, so a hash
 * allocates nothing: no Buffer, no joined string (a split costs every
 * request that matches its rule; test/engine/split.test.ts). A lone surrogate is U+FFFD's three bytes, as Buffer.from and
 * TextEncoder write it; a pair split across the two strings is one code point.
 *
 * flagd-core (the JavaScript reference) hashes UTF-16 units through
 * imurmurhash instead, so it agrees with this (and with flagd's Go service)
 * on ASCII only: `é-user` is 4dda53ae here and 78acc76b there
 * (docs/concepts.md#splits).
 */

const C1 = 0xcc9e2d51;
const C2 = 0x1b873593;

// The hash being made: module state, not a closure per call, so a hash allocates nothing (one call at a time: evaluate is synchronous).
let h = 0;
let block = 0;
let filled = 0;
let length = 0;

/** The hash as an unsigned 32-bit number, seed `seed` (0: flagd's). */
export function murmur3Utf8(first: string, second: string, seed = 0): number {
  return murmur3Utf8Int32(first, second, seed) >>> 0;
}

/**
 * The same hash as a signed 32-bit number, for the hot path: a number past
 * 2^31 - 1 (half of all hashes, as an unsigned one) is returned boxed, a
 * heap number per call (bench: splits, bucketing_heap_bytes_per_call went
 * from ~8.7 to ~0.05), where an int32 is a small integer.
 */
export function murmur3Utf8Int32(first: string, second: string, seed = 0): number {
  h = seed | 0;
  block = 0;
  filled = 0;
  length = 0;
  const total = first.length + second.length;
  for (let i = 0; i < total; i++) {
    let c = i < first.length ? first.charCodeAt(i) : second.charCodeAt(i - first.length);
    if (c < 0x80) {
      put(c);
      continue;
    }
    if (c < 0x800) {
      put(0xc0 | (c >> 6));
      put(0x80 | (c & 0x3f));
      continue;
    }
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < total) {
      const next = i + 1 < first.length ? first.charCodeAt(i + 1) : second.charCodeAt(i + 1 - first.length);
      if (next >= 0xdc00 && next <= 0xdfff) {
        const point = 0x10000 + ((c - 0xd800) << 10) + (next - 0xdc00);
        put(0xf0 | (point >> 18));
        put(0x80 | ((point >> 12) & 0x3f));
        put(0x80 | ((point >> 6) & 0x3f));
        put(0x80 | (point & 0x3f));
        i += 1;
        continue;
      }
    }
    if (c >= 0xd800 && c <= 0xdfff) c = 0xfffd;
    put(0xe0 | (c >> 12));
    put(0x80 | ((c >> 6) & 0x3f));
    put(0x80 | (c & 0x3f));
  }
  if (filled > 0) h ^= scramble(block);
  h ^= length;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h | 0;
}

/** One byte into the current 4-byte block (little-endian); a full block is mixed into h. */
function put(byte: number): void {
  block |= byte << (filled * 8);
  filled += 1;
  length += 1;
  if (filled === 4) {
    h ^= scramble(block);
    h = (h << 13) | (h >>> 19);
    h = (Math.imul(h, 5) + 0xe6546b64) | 0;
    block = 0;
    filled = 0;
  }
}

function scramble(k: number): number {
  k = Math.imul(k, C1);
  k = (k << 15) | (k >>> 17);
  return Math.imul(k, C2);
}
