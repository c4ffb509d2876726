/**
 * Posting lists in the arena: for each driver (a value named by equals/in,
 * a threshold, an affix, a residual condition) the groups it counts toward,
 * each beside the presence mask that group requires, so a group the request
 * cannot satisfy is skipped without reading its record.
 *
 * Block layout, in words:
 *   [LEN, CAP, MASK, COND_WORDS, condition code (COND_WORDS words), (group, mask) * CAP]
 * MASK is the intersection of the entries' masks: a request lacking one of
 * those fields skips the whole list. A residual driver carries its condition
 * in the block, so testing it and walking its groups read one block.
 *
 * A list moves when it outgrows its block, so its owner (a hash map entry, a
 * threshold, an affix) holds a handle, and `at[handle]` is the block.
 */
import { blockWords, type Arena } from './arena';
import { Layout } from './layout';

export interface Postings {
  /** Block offset by handle; replaced when it grows, so read it again after `create`. */
  readonly at: Int32Array;
  /** A new, empty list whose block leaves room for `condWords` words of condition code; returns its handle. */
  create(condWords: number): number;
  /** Appends (group, mask). */
  add(handle: number, group: number, mask: number): void;
  /** Removes one entry for `group`; returns how many entries are left. */
  remove(handle: number, group: number): number;
  /** Frees an empty list and its handle. */
  destroy(handle: number): void;
  /** What restores these lists (image.ts): the handle table in use (a view) and the free handles. */
  image(): PostingsImage;
}

export interface PostingsImage {
  readonly at: Int32Array;
  readonly freeHandles: readonly number[];
}

const FIRST_CAPACITY = 2;

/** The posting lists of `arena`: none yet, or those of an image (whose blocks the arena restored). */
export function createPostings(arena: Arena, from?: PostingsImage): Postings {
  let at = new Int32Array(Math.max(256, from?.at.length ?? 0));
  if (from !== undefined) at.set(from.at);
  // Handle 0 is "none"; freed handles are reused.
  let nextHandle = from?.at.length ?? Layout.NONE + 1;
  const freeHandles: number[] = from === undefined ? [] : [...from.freeHandles];

  const words = (condWords: number, capacity: number): number => Layout.P_HEAD + condWords + Layout.ENTRY_WORDS * capacity;
  /** Entries that fit in the block holding `capacity` entries (blocks come in power-of-two sizes). */
  const fitting = (condWords: number, capacity: number): number =>
    Math.floor((blockWords(words(condWords, capacity)) - Layout.P_HEAD - condWords) / Layout.ENTRY_WORDS);

  function create(condWords: number): number {
    const handle = freeHandles.length > 0 ? freeHandles.pop()! : nextHandle++;
    if (handle >= at.length) {
      const bigger = new Int32Array(at.length * 2);
      bigger.set(at);
      at = bigger;
    }
    const block = arena.alloc(words(condWords, FIRST_CAPACITY));
    const i32 = arena.i32;
    i32[block + Layout.P_CAP] = fitting(condWords, FIRST_CAPACITY);
    i32[block + Layout.P_MASK] = Layout.ALL_FIELDS;
    i32[block + Layout.P_COND] = condWords;
    at[handle] = block;
    return handle;
  }

  function add(handle: number, group: number, mask: number): void {
    let block = at[handle];
    let i32 = arena.i32;
    const len = i32[block + Layout.P_LEN];
    const condWords = i32[block + Layout.P_COND];
    if (len === i32[block + Layout.P_CAP]) {
      const capacity = fitting(condWords, len * 2);
      const moved = arena.alloc(words(condWords, capacity));
      i32 = arena.i32;
      i32.copyWithin(moved, block, block + words(condWords, len));
      i32[moved + Layout.P_CAP] = capacity;
      arena.free(block, words(condWords, len));
      at[handle] = block = moved;
    }
    const entry = block + Layout.P_HEAD + condWords + Layout.ENTRY_WORDS * len;
    i32[entry + Layout.E_TARGET] = group;
    i32[entry + Layout.E_MASK] = mask;
    i32[block + Layout.P_LEN] = len + 1;
    i32[block + Layout.P_MASK] = len === 0 ? mask : i32[block + Layout.P_MASK] & mask;
  }

  function remove(handle: number, group: number): number {
    const block = at[handle];
    const i32 = arena.i32;
    const len = i32[block + Layout.P_LEN];
    const first = block + Layout.P_HEAD + i32[block + Layout.P_COND];
    let found = -1;
    for (let k = 0; k < len; k++) {
      if (i32[first + Layout.ENTRY_WORDS * k + Layout.E_TARGET] === group) {
        found = k;
        break;
      }
    }
    if (found < 0) return len;
    // Keep the order of the rest (answers do not depend on it, but it keeps walks reproducible).
    i32.copyWithin(first + Layout.ENTRY_WORDS * found, first + Layout.ENTRY_WORDS * (found + 1), first + Layout.ENTRY_WORDS * len);
    const left = len - 1;
    i32[block + Layout.P_LEN] = left;
    let mask = Layout.ALL_FIELDS;
    for (let k = 0; k < left; k++) mask &= i32[first + Layout.ENTRY_WORDS * k + Layout.E_MASK];
    i32[block + Layout.P_MASK] = mask;
    return left;
  }

  function destroy(handle: number): void {
    const block = at[handle];
    const i32 = arena.i32;
    arena.free(block, words(i32[block + Layout.P_COND], i32[block + Layout.P_CAP]));
    at[handle] = Layout.NONE;
    freeHandles.push(handle);
  }

  return {
    get at() {
      return at;
    },
    create,
    add,
    remove,
    destroy,
    image: () => ({ at: at.subarray(0, nextHandle), freeHandles }),
  };
}
