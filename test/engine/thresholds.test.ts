/**
 * The sorted threshold drivers (src/engine/thresholds.ts) on their own: the
 * order a walk relies on, through inserts, growth and removals. The engine's
 * use of them is checked by the differential, bulk-build and image tests.
 */
import t from 'tap';
import { createThresholds, insertThreshold, removeThreshold, type Thresholds } from '../../src/engine/thresholds';

/** The filed drivers in walk order, as [bound, handle]. */
const filed = (list: Thresholds): Array<[number, number]> =>
  Array.from({ length: list.size }, (_, i) => [list.bound[i], list.handle[i]]);

t.test('ascending and descending lists keep the bounds true for a value as a prefix', async (t) => {
  const above = createThresholds(1);
  const below = createThresholds(-1);
  for (const [bound, handle] of [[5, 1], [1, 2], [3, 3], [1, 4]]) {
    insertThreshold(above, bound, NaN, false, handle);
    insertThreshold(below, bound, NaN, false, handle);
  }
  t.same(filed(above), [[1, 2], [1, 4], [3, 3], [5, 1]], 'ascending; an equal bound files after the ones before it');
  t.same(filed(below), [[5, 1], [3, 3], [1, 2], [1, 4]], 'descending');
});

t.test('equal bounds keep their filing order through growth and removals', async (t) => {
  const list = createThresholds(1);
  // Twelve drivers on three bounds (the arrays start at 4 and grow twice).
  for (let h = 1; h <= 12; h++) insertThreshold(list, h % 3, NaN, true, h);
  t.equal(list.size, 12);
  t.ok(list.handle.length >= 12 && list.bound.length === list.handle.length, 'the arrays grew together');
  removeThreshold(list, 2);
  removeThreshold(list, 3);
  removeThreshold(list, 99);
  t.same(
    filed(list),
    [[0, 6], [0, 9], [0, 12], [1, 1], [1, 4], [1, 7], [1, 10], [2, 5], [2, 8], [2, 11]],
    'removals shift the others in place; an unknown handle changes nothing',
  );
});
