/**
 * The compiled engine's memory: blocks of int32 words in one growable
 * ArrayBuffer, with a float64 view of the same bytes for numeric operands.
 * Group and rule records (their hit counters and the conditions they verify)
 * and posting lists live here, so a hit reads a few adjacent words rather
 * than chasing pointers between heap objects (bench: engine, 10k mixed: half
 * of evaluate's time was waiting on such loads).
 *
 * Blocks come in power-of-two sizes of at least 4 words, each size with its
 * own free list, and start at offsets that are multiples of 4 words: a
 * float64 stored at an even word offset is aligned. Offset 0 is never handed
 * out, so it can stand for "none".
 */
export interface Arena {
  /** The words; replaced when the arena grows, so read it again after `alloc`. */
  readonly i32: Int32Array;
  /** The same bytes as float64s: the one at word offset `w` (even) is `f64[w >> 1]`. */
  readonly f64: Float64Array;
  /** A zeroed block of at least `words` words; returns its offset. */
  alloc(words: number): number;
  /** Grows the words to at least `words` at once, so a bulk build does not double and copy its way there; true when it grew. */
  reserve(words: number): boolean;
  /**
   * After a reservation that overshot by more than a quarter: shrinks the
   * words to those in use plus a sixteenth (a smaller overshoot is kept: the
   * copy would briefly hold both).
   */
  fit(): void;
  /** Returns a block allocated for `words` words. */
  free(offset: number, words: number): void;
  /** Words in use or on free lists (for memory figures). */
  readonly used: number;
  /** Every free block as [offset, words] (inspect.ts checks them; not for the hot path). */
  freeBlocks(): Array<[number, number]>;
  /** What restores this arena (image.ts): the words in use (a view, not a copy) and the free lists. */
  image(): ArenaImage;
}

/** An arena as image.ts stores it: its words up to the top, and each size class's free list. */
export interface ArenaImage {
  readonly words: Int32Array;
  readonly free: ReadonlyArray<readonly number[] | null>;
  /**
   * Words the arena may use in place from the start of `words`' buffer, past
   * `words` themselves (zeroed there): an image read with room (image.ts
   * markRoom) grows into it without a copy. Unset: only `words`.
   */
  readonly capacity?: number;
}

/** Words before the first block: offset 0 is never handed out. */
export const FIRST_BLOCK = 4;

const MIN_BLOCK = 4;

/** The size of the block that holds `words` words. */
export function blockWords(words: number): number {
  let size = MIN_BLOCK;
  while (size < words) size *= 2;
  return size;
}

/**
 * A new arena, or one restored from an image: its words taken where they
 * are when they start their buffer (a 1M-rule arena is ~140 MB: a copy
 * would briefly hold it twice), copied otherwise.
 */
export function createArena(initialWords = 1 << 12, from?: ArenaImage): Arena {
  let i32: Int32Array;
  const words = from?.words;
  if (words !== undefined && words.byteOffset === 0 && words.buffer.byteLength % 8 === 0 && words.length >= MIN_BLOCK * 2) {
    const capacity = from?.capacity;
    i32 = capacity !== undefined && capacity > words.length && capacity % 2 === 0 && capacity * 4 <= words.buffer.byteLength
      ? new Int32Array(words.buffer, 0, capacity)
      : words;
  } else {
    i32 = new Int32Array(Math.max(initialWords, MIN_BLOCK * 2, words?.length ?? 0));
    if (words !== undefined) i32.set(words);
  }
  let f64 = new Float64Array(i32.buffer);
  let top = from?.words.length ?? FIRST_BLOCK;
  // Free blocks by size class (log2 of the size).
  const free: number[][] = from === undefined ? [] : from.free.map((list) => (list === null ? [] : [...list]));

  /** Moves the words to a new buffer of at least `needed` (exactly that, rounded to a block, when `exact`). */
  function grow(needed: number, exact = false): void {
    let length = i32.length * 2;
    while (length < needed) length *= 2;
    // A reservation takes what it asks for: doubling past a 1M-rule estimate would hold up to twice the words unused.
    if (exact) length = needed + ((MIN_BLOCK - (needed % MIN_BLOCK)) % MIN_BLOCK);
    const bigger = new Int32Array(length);
    bigger.set(i32.subarray(0, top));
    i32 = bigger;
    f64 = new Float64Array(i32.buffer);
  }

  return {
    get i32() {
      return i32;
    },
    get f64() {
      return f64;
    },
    get used() {
      return top;
    },
    freeBlocks() {
      return free.flatMap((list, log) => (list ?? []).map((offset): [number, number] => [offset, 2 ** log]));
    },
    image: () => ({ words: i32.subarray(0, top), free: free.map((list) => list ?? null) }),
    reserve(words) {
      if (words <= i32.length) return false;
      grow(words, true);
      return true;
    },
    fit() {
      if (i32.length - top > top >> 2) grow(top + (top >> 4), true);
    },
    alloc(words) {
      const size = blockWords(words);
      const list = free[Math.log2(size)];
      if (list !== undefined && list.length > 0) {
        const offset = list.pop()!;
        i32.fill(0, offset, offset + size);
        return offset;
      }
      if (top + size > i32.length) grow(top + size);
      const offset = top;
      top += size;
      return offset;
    },
    free(offset, words) {
      const size = blockWords(words);
      (free[Math.log2(size)] ??= []).push(offset);
    },
  };
}
