/**
 * Sorting matched rules by id without comparing strings: each rule carries a
 * numeric key that orders ids exactly as their UTF-16 code units do, as far
 * as it reaches, and the answer's rule numbers are sorted by key, falling
 * back to the ids only on a tie. A string comparison through a comparator
 * costs ~30 ns; a key comparison a few (bench: engine, 100k mixed with ~140
 * matches and broad with ~1,000, where sorting the answer was the largest
 * single cost).
 */

/** Characters a key covers: 7 digits of base 128 fit a double's 53-bit integer range. */
const KEY_CHARS = 7;
const BASE = 128;

/**
 * The id's order key: its first 7 code units as base-128 digits (code + 1,
 * 0 for "the id ended", so a prefix sorts first). NaN when one of them is
 * 127 or above: such ids always compare as strings.
 */
export function orderKey(id: string): number {
  let key = 0;
  for (let i = 0; i < KEY_CHARS; i++) {
    let digit = 0;
    if (i < id.length) {
      const code = id.charCodeAt(i);
      if (code >= BASE - 1) return NaN;
      digit = code + 1;
    }
    key = key * BASE + digit;
  }
  return key;
}

/** Whether rule a sorts before rule b: by key where both keys decide, by id otherwise. */
function before(a: number, b: number, keys: readonly number[], ids: readonly string[]): boolean {
  const ka = keys[a];
  const kb = keys[b];
  if (ka < kb) return true;
  if (ka > kb) return false;
  // Equal keys (a shared 7-character prefix) or NaN: the ids decide.
  return ids[a] < ids[b];
}

/** Sorts rule numbers `list` in place by their ids' order (insertion sort below 16, quicksort above). */
export function sortByOrder(list: number[], keys: readonly number[], ids: readonly string[]): void {
  quicksort(list, 0, list.length - 1, keys, ids);
}

function quicksort(list: number[], lo: number, hi: number, keys: readonly number[], ids: readonly string[]): void {
  while (hi - lo >= 16) {
    // Median of three as the pivot, then Hoare partition.
    const mid = (lo + hi) >>> 1;
    if (before(list[mid], list[lo], keys, ids)) swap(list, lo, mid);
    if (before(list[hi], list[lo], keys, ids)) swap(list, lo, hi);
    if (before(list[hi], list[mid], keys, ids)) swap(list, mid, hi);
    const pivot = list[mid];
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (before(list[i], pivot, keys, ids)) i++;
      while (before(pivot, list[j], keys, ids)) j--;
      if (i <= j) swap(list, i++, j--);
    }
    // Recurse into the smaller side, loop on the larger: stack depth stays O(log n).
    if (j - lo < hi - i) {
      quicksort(list, lo, j, keys, ids);
      lo = i;
    } else {
      quicksort(list, i, hi, keys, ids);
      hi = j;
    }
  }
  for (let i = lo + 1; i <= hi; i++) {
    const x = list[i];
    let j = i - 1;
    while (j >= lo && before(x, list[j], keys, ids)) {
      list[j + 1] = list[j];
      j--;
    }
    list[j + 1] = x;
  }
}

function swap(list: number[], i: number, j: number): void {
  const t = list[i];
  list[i] = list[j];
  list[j] = t;
}
