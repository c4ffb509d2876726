/** Record ids (src/audit/sink.ts timeOrderedId): UUID version 7 by RFC 9562's counter method. */
import t from 'tap';
import { timeOrderedId } from '../../src/audit/sink';

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

t.test('ids of one millisecond are distinct, rising, and carry the time', async (t) => {
  const at = Date.UTC(2026, 10, 25, 7, 40);
  const ids = Array.from({ length: 3000 }, () => timeOrderedId(at));
  t.ok(ids.every((id) => UUID_V7.test(id)), 'version 7, RFC variant');
  t.equal(new Set(ids).size, ids.length, 'all distinct');
  t.ok(ids.every((id, i) => i === 0 || id > ids[i - 1]), 'each sorts after the one before');
  t.equal(parseInt(ids[0].slice(0, 8) + ids[0].slice(9, 13), 16), at, 'the first 48 bits are the milliseconds');
  const next = timeOrderedId(at + 1);
  t.ok(next > ids.at(-1)!, 'a later millisecond sorts after');
  t.not(next.slice(14, 33), ids[0].slice(14, 33), 'and draws new random bits');
});

t.test('past 4,096 ids in one millisecond: fresh random bits, still distinct', async (t) => {
  const at = Date.UTC(2026, 10, 25, 7, 41);
  const ids = Array.from({ length: 5000 }, () => timeOrderedId(at));
  t.equal(new Set(ids).size, 5000);
  t.ok(ids.every((id) => UUID_V7.test(id)));
  t.not(ids[4096].slice(19, 33), ids[0].slice(19, 33), 'the 4,097th draws new random bits');
  t.ok(ids.slice(4096).every((id, i) => i === 0 || id > ids[4096 + i - 1]), 'and rises from there');
});
