/**
 * The sorted threshold drivers (src/engine/thresholds.ts) on their own: the
 * order a walk relies on, and the copies of the lists' presence masks kept
 * beside the bounds through inserts, growth and removals. The engine's use
 * of them (drivers.ts keeps the copies, image.ts derives them) is checked by
 * checkInvariants in the differential, bulk-build and image tests.
 */
import t from 'tap';
import { Layout } from '../../src/engine/layout';
import { createThresholds, insertThreshold, removeThreshold, setThresholdMask, type Thresholds } from '../../src/engine/thresholds';

/** The filed drivers in walk order, as [bound, handle, mask]. */
const filed = (list: Thresholds): Array<[number, number, number]> =>
  Array.from({ length: list.size }, (_, i) => [list.bound[i], list.handle[i], list.mask[i]]);

t.test('ascending and descending lists keep the bounds true for a value as a prefix', async (t) => {
  const above = createThresholds(1);
  const below = createThresholds(-1);
  for (const [bound, handle] of [[5, 1], [1, 2], [3, 3], [1, 4]]) {
    insertThreshold(above, bound, NaN, false, handle);
    insertThreshold(below, bound, NaN, false, handle);
  }
  t.same(filed(above).map(([b, h]) => [b, h]), [[1, 2], [1, 4], [3, 3], [5, 1]], 'ascending; an equal bound files after the ones before it');
  t.same(filed(below).map(([b, h]) => [b, h]), [[5, 1], [3, 3], [1, 2], [1, 4]], 'descending');
});

t.test('a mask copy follows its own driver among equal bounds, through growth and removals', async (t) => {
  const list = createThresholds(1);
  // Twelve drivers on three bounds (the arrays start at 4 and grow twice).
  for (let h = 1; h <= 12; h++) insertThreshold(list, h % 3, NaN, true, h);
  t.equal(list.size, 12);
  t.ok(list.mask.length >= 12, 'the mask array grew with the others');
  for (const [, handle, mask] of filed(list)) t.equal(mask, Layout.ALL_FIELDS, `driver #${handle} is filed with its empty list's mask`);
  for (let h = 1; h <= 12; h++) setThresholdMask(list, h % 3, h, h);
  for (const [, handle, mask] of filed(list)) t.equal(mask, handle, `driver #${handle} took its own mask among its bound's equals`);

  setThresholdMask(list, 2, 8, 0x70);
  setThresholdMask(list, 0, 3, 0x1);
  const masks = new Map(filed(list).map(([, handle, mask]) => [handle, mask]));
  t.equal(masks.get(8), 0x70, 'driver #8 (bound 2) took its new mask');
  t.equal(masks.get(3), 0x1, 'driver #3 (bound 0, the first place) took its new mask');
  t.equal(masks.get(5), 5, 'driver #5 (bound 2, beside #8) kept its own');

  setThresholdMask(list, 1, 8, 0x7f);
  t.equal(new Map(filed(list).map(([, h, m]) => [h, m])).get(8), 0x70, 'a bound the driver is not filed under changes nothing');

  removeThreshold(list, 2);
  removeThreshold(list, 3);
  t.same(
    filed(list),
    [[0, 6, 6], [0, 9, 9], [0, 12, 12], [1, 1, 1], [1, 4, 4], [1, 7, 7], [1, 10, 10], [2, 5, 5], [2, 8, 0x70], [2, 11, 11]],
    'removals shift the masks with their drivers',
  );
});
