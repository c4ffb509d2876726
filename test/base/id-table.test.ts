/**
 * The id table (src/base/id-table.ts) finds every id at its place and
 * nothing else, through collisions and a full load; a duplicate keeps its first place.
 */
import t from 'tap';
import { IdTable } from '../../src/base/id-table';
import { perSeed, replayHint, testSeeds } from '../support/seeds';
import { seededRandom } from '../engine/random-rules';

t.test('every id at its place, absent ids nowhere, a duplicate answered with the first place', async (t) => {
  for (const seed of testSeeds()) {
    const random = seededRandom(seed);
    const count = perSeed(2000);
    // Short ids over a small alphabet: many share hash slots.
    const word = () => Array.from({ length: 1 + Math.floor(random() * 4) }, () => 'ab\u00e9\u{1F600}'[Math.floor(random() * 4)]).join('');
    const ids: string[] = [];
    const places = new Map<string, number>();
    const table = new IdTable(ids, count);
    let wrong = 0;
    for (let i = 0; i < count; i++) {
      const id = `${word()}-${Math.floor(random() * count)}`;
      ids.push(id);
      const place = table.add(ids.length - 1);
      const first = places.get(id);
      if (first === undefined) places.set(id, ids.length - 1);
      if (place !== (first ?? ids.length - 1)) wrong++;
      if (first !== undefined) ids.pop();
    }
    for (const [id, place] of places) if (table.placeOf(id) !== place) wrong++;
    for (let i = 0; i < 200; i++) if (table.placeOf(`absent-${word()}-${i}`) !== -1) wrong++;
    t.equal(wrong, 0, `seed ${seed}: ${places.size} ids${replayHint(seed)}`);
  }
});

t.test('an id past the capacity is refused, not looped on', async (t) => {
  const ids = ['a', 'b', 'c'];
  const table = new IdTable(ids, 2);
  t.same([table.add(0), table.add(1), table.add(0)], [0, 1, 0], 'two ids, and one again');
  t.throws(() => table.add(2), RangeError);
});
