/** The ids minted per request (src/base/uuid.ts): request ids, decision ids and secret-read ids, UUIDs version 7. */
import t from 'tap';
import { timeOrderedId } from '../../src/base/uuid';

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

t.test('an id is its own string: minting the next leaves it unchanged', async (t) => {
  const at = Date.UTC(2026, 10, 25, 15, 0);
  const record = timeOrderedId(at);
  const kept = `${record}`;
  timeOrderedId(at);
  timeOrderedId(at + 1);
  t.equal(record, kept);
});

t.test('every random digit is random: over many milliseconds each takes all 16 values', async (t) => {
  const start = Date.UTC(2026, 10, 27, 6, 0);
  const ids = Array.from({ length: 2000 }, (_, i) => timeOrderedId(start + i));
  t.ok(ids.every((id) => UUID_V7.test(id)), 'version 7, RFC variant, lower-case hex');
  const randomAt = [15, 16, 17, 20, 21, 22, 24, 25, 26, 27, 28, 29, 30, 31, 32];
  const stuck = randomAt.filter((i) => new Set(ids.map((id) => id[i])).size !== 16);
  t.same(stuck, [], 'no random position keeps fewer than 16 digits');
  t.same([...new Set(ids.map((id) => id[19]))].sort(), ['8', '9', 'a', 'b'], 'the variant digit takes all four values');
  t.equal(new Set(ids.map((id) => id.slice(14, 33))).size, ids.length, 'each millisecond draws its own random bits');
});

t.test('record ids of one millisecond are distinct, rising, and carry the time', async (t) => {
  const at = Date.UTC(2026, 10, 25, 7, 40);
  const ids = Array.from({ length: 3000 }, () => timeOrderedId(at));
  t.ok(ids.every((id) => UUID_V7.test(id)), 'version 7, RFC variant');
  t.equal(new Set(ids).size, ids.length, 'all distinct');
  t.ok(ids.every((id, i) => i === 0 || id > ids[i - 1]), 'each sorts after the one before');
  t.equal(parseInt(ids[0].slice(0, 8) + ids[0].slice(9, 13), 16), at, 'the first 48 bits are the milliseconds');
  const next = timeOrderedId(at + 1);
  t.ok(next > ids.at(-1)!, 'a later millisecond sorts after');
  t.not(next.slice(14, 33), ids[0].slice(14, 33), 'and draws new random bits');
  t.equal(next.slice(33), '000', 'its counter starts again at 0');
});

t.test('past 4,096 record ids in one millisecond: fresh random bits, still distinct', async (t) => {
  const at = Date.UTC(2026, 10, 25, 7, 41);
  const ids = Array.from({ length: 5000 }, () => timeOrderedId(at));
  t.equal(new Set(ids).size, 5000);
  t.ok(ids.every((id) => UUID_V7.test(id)));
  t.equal(ids[4095].slice(33), 'fff', 'the 4,096th holds the last counter value');
  t.not(ids[4096].slice(19, 33), ids[0].slice(19, 33), 'the 4,097th draws new random bits');
  t.ok(ids.slice(4096).every((id, i) => i === 0 || id > ids[4096 + i - 1]), 'and rises from there');
});

t.test('the milliseconds of a far date fill all 48 bits', async (t) => {
  const at = 2 ** 48 - 1;
  const id = timeOrderedId(at);
  t.ok(UUID_V7.test(id));
  t.equal(id.slice(0, 13), 'ffffffff-ffff');
});
