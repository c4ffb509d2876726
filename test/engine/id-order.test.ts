/** Sorting by order keys must give exactly the order of Array.prototype.sort() on the ids. */
import fc from 'fast-check';
import t from 'tap';
import { orderKey, sortByOrder } from '../../src/engine/id-order';
import { propertyOptions } from '../support/seeds';

t.test('keys order ids as their code units do, where they decide', async (t) => {
  t.ok(orderKey('ab') < orderKey('abc'), 'a prefix sorts first');
  t.ok(orderKey('a\u0000') > orderKey('a'), 'NUL is a character, not the end');
  t.equal(orderKey('abcdefgX'), orderKey('abcdefgY'), 'only 7 characters count: a tie, settled by the ids');
  t.ok(Number.isNaN(orderKey('é')), 'code 127 and above: compared as strings');
  t.ok(Number.isNaN(orderKey('abc\u007f')));
});

const id = fc.oneof(
  fc.uuid(),
  fc.string({ maxLength: 12 }),
  fc.string({ unit: 'binary', maxLength: 10 }),
  fc.constantFrom('rule-1', 'rule-10', 'rule-2', 'rule-', 'abcdefgh1', 'abcdefgh0', 'abcdefg', 'é', 'e\u0301', '😀', ''),
);

t.test('sortByOrder agrees with the default sort (fast-check)', async (t) => {
  const sorted = fc.property(fc.uniqueArray(id, { maxLength: 120 }), (ids) => {
    const list = ids.map((_, i) => i);
    sortByOrder(list, ids.map(orderKey), ids);
    const got = list.map((i) => ids[i]);
    const want = [...ids].sort();
    if (JSON.stringify(got) !== JSON.stringify(want)) throw new Error(`${JSON.stringify(got)} != ${JSON.stringify(want)}`);
  });
  for (const options of propertyOptions(2000)) fc.assert(sorted, options);
  t.pass('2000 random id sets sorted as Array.prototype.sort() sorts them');
});
