/**
 * The per-value copies of posting entries (src/engine/held-entries.ts) on
 * their own: the record's layout, growth, and the bound past which a
 * field's copies are all forgotten. The engine's use of them is in
 * text-held.test.ts and the differential tests.
 */
import t from 'tap';
import { createArena } from '../../src/engine/arena';
import { COPY_LIST_MAX, createHeldEntries, forgetAllEntries, forgetEntries, keepEntries, recordAt } from '../../src/engine/held-entries';
import { createPostings } from '../../src/engine/postings';

/** Posting lists made by postings.ts in a fresh arena, one per array of (target, mask) pairs; every second one a residual list (2 words of condition before its entries). */
function lists(...entries: Array<Array<[number, number]>>): { i32: Int32Array; at: Int32Array; handles: number[] } {
  const arena = createArena();
  const postings = createPostings(arena);
  const handles = entries.map((list, k) => {
    const h = postings.create(k % 2 === 0 ? 0 : 2);
    for (const [target, mask] of list) postings.add(h, target, mask);
    return h;
  });
  return { i32: arena.i32, at: postings.at, handles };
}

t.test('a record copies short lists\' entries and names long ones by handle', async (t) => {
  const long = Array.from({ length: COPY_LIST_MAX + 1 }, (_, i): [number, number] => [100 + i, 0]);
  const { i32, at, handles } = lists([[-1, 3], [40, 5]], long, [[-7, 0]]);
  const held = createHeldEntries();
  const offset = keepEntries(held, 3, handles, i32, at);
  t.not(offset, 0, 'a record is never at offset 0');
  t.equal(held.byValue[3], offset);
  t.same(recordAt(held, offset), [6, -1, 3, 40, 5, -7, 0, 1, handles[1]]);
  t.equal(held.byValue[2], 0, 'other values keep nothing');
});

t.test('records grow the words and the index by value as needed', async (t) => {
  const { i32, at, handles } = lists([[8, 1], [9, 2], [10, 4]]);
  const held = createHeldEntries();
  const offsets = new Map<number, number>();
  for (let id = 1; id <= 200; id++) offsets.set(id, keepEntries(held, id, handles, i32, at));
  for (const [id, offset] of offsets) {
    t.equal(held.byValue[id], offset);
    t.same(recordAt(held, offset), [6, 8, 1, 9, 2, 10, 4, 0]);
  }
});

t.test('past the bound a field\'s records are all forgotten, the new one kept', async (t) => {
  const { i32, at, handles } = lists([[8, 1], [9, 2]]);
  const held = createHeldEntries();
  // Each record is 1 + 4 + 1 = 6 words; word 0 is unused, so 3 records fill 19 words of 20.
  const bound = 20;
  const first = [1, 2, 3].map((id) => keepEntries(held, id, handles, i32, at, bound));
  t.same([1, 2, 3].map((id) => held.byValue[id]), first, 'three kept');
  const fourth = keepEntries(held, 4, handles, i32, at, bound);
  t.same([held.byValue[1], held.byValue[2], held.byValue[3]], [0, 0, 0], 'the others forgotten');
  t.equal(fourth, 1, 'the new one starts the words again');
  t.same(recordAt(held, fourth), [4, 8, 1, 9, 2, 0]);
});

t.test('forgetting one value or all', async (t) => {
  const { i32, at, handles } = lists([[8, 1]]);
  const held = createHeldEntries();
  keepEntries(held, 1, handles, i32, at);
  keepEntries(held, 2, handles, i32, at);
  forgetEntries(held, 1);
  forgetEntries(held, 999); // beyond the index: nothing to forget
  t.equal(held.byValue[1], 0);
  t.not(held.byValue[2], 0);
  forgetAllEntries(held);
  t.equal(held.byValue[2], 0);
  t.equal(held.used, 1, 'the words are reused from the start');
});
