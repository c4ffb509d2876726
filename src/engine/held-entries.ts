/**
 * A field's kept drivers per value id (field-index.ts textHeld) with their
 * posting entries copied side by side, so a request's value walks one run
 * of words instead of reaching each list's block through the handle table.
 * At 10k rules a value rules name holds ~2.3 lists of a few entries each,
 * scattered over the arena: each was a cache miss or two between requests
 * (bench: `engine-ab`, 10k rules, 1 MiB written between evaluations: about
 * -1 µs of 7 to 8.5 per evaluation, against an A/A noise of 0.1).
 *
 * Record of a value, at its offset in `words`:
 *   [N, (target, mask) * N/2, K, handle * K]
 * N words of copied entries, then K lists too long to copy (more than
 * COPY_LIST_MAX entries), walked in place by handle: a list every value
 * holds (a negation, a short prefix) is then not copied once per value.
 *
 * A copy is only right while its lists' entries are: drivers.ts forgets a
 * value's record when an entry of its equals/in list comes or goes, and the
 * field's records when one of an affix or residual list does. Never imaged:
 * a restored engine copies again as values are asked for.
 */
import { Layout } from './layout';

export interface HeldEntries {
  /** By value id: its record's offset in `words`; 0 when none is kept. */
  byValue: Int32Array;
  words: Int32Array;
  /** Words in use; word 0 is never a record (0 means none). */
  used: number;
}

/** Lists with more entries are walked in place, not copied. */
export const COPY_LIST_MAX = 32;

/** Past this many words a field's records are all forgotten and copied again as asked for (1 MiB). */
export const HELD_WORDS_MAX = 1 << 18;

export function createHeldEntries(): HeldEntries {
  return { byValue: new Int32Array(16), words: new Int32Array(256), used: 1 };
}

export function forgetEntries(held: HeldEntries, id: number): void {
  if (id < held.byValue.length) held.byValue[id] = 0;
}

export function forgetAllEntries(held: HeldEntries): void {
  if (held.used === 1) return;
  held.byValue.fill(0);
  held.used = 1;
}

/** The record `lists` (posting handles) make now: their entries copied, the long ones by handle. */
export function recordOf(lists: readonly number[], i32: Int32Array, at: Int32Array): number[] {
  const copied: number[] = [];
  const walked: number[] = [];
  for (const h of lists) {
    const block = at[h];
    const len = i32[block + Layout.P_LEN];
    if (len > COPY_LIST_MAX) {
      walked.push(h);
      continue;
    }
    const first = block + Layout.P_HEAD + i32[block + Layout.P_COND];
    for (let w = first; w < first + Layout.ENTRY_WORDS * len; w++) copied.push(i32[w]);
  }
  return [copied.length, ...copied, walked.length, ...walked];
}

/** Keeps value id `id`'s record for `lists`; returns its offset (read `held.words` after: it may grow). */
export function keepEntries(held: HeldEntries, id: number, lists: readonly number[], i32: Int32Array, at: Int32Array, wordsMax = HELD_WORDS_MAX): number {
  const record = recordOf(lists, i32, at);
  if (held.used + record.length > wordsMax) forgetAllEntries(held);
  if (held.used + record.length > held.words.length) {
    const bigger = new Int32Array(Math.max(2 * held.words.length, held.used + record.length));
    bigger.set(held.words.subarray(0, held.used));
    held.words = bigger;
  }
  if (id >= held.byValue.length) {
    const bigger = new Int32Array(Math.max(2 * held.byValue.length, id + 1));
    bigger.set(held.byValue);
    held.byValue = bigger;
  }
  const offset = held.used;
  held.words.set(record, offset);
  held.used += record.length;
  held.byValue[id] = offset;
  return offset;
}

/** The record kept at `offset`, as recordOf writes it. */
export function recordAt(held: HeldEntries, offset: number): number[] {
  const n = held.words[offset];
  const k = held.words[offset + 1 + n];
  return Array.from(held.words.subarray(offset, offset + 2 + n + k));
}
