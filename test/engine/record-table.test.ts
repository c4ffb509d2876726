import t from 'tap';
import { createRecordTable } from '../../src/engine/record-table';

t.test('records are zeroed, reused after release, and survive growth', async (t) => {
  const table = createRecordTable(3, 2);
  const a = table.allocate();
  const b = table.allocate();
  table.data[a * 3 + 1] = 7;
  table.data[b * 3 + 2] = 9;
  const c = table.allocate(); // grows past the 2 initial records
  t.equal(c, 2);
  t.equal(table.data[a * 3 + 1], 7, 'growth keeps the contents');
  t.equal(table.data[b * 3 + 2], 9);
  table.release(a);
  const d = table.allocate();
  t.equal(d, a, 'a released record is reused');
  t.same([...table.data.subarray(d * 3, d * 3 + 3)], [0, 0, 0], 'and zeroed');
  table.data[b * 3] = 5;
  table.data[c * 3] = 6;
  table.data[c * 3 + 1] = 8;
  table.clearField(0);
  t.same([table.data[b * 3], table.data[c * 3], table.data[c * 3 + 1]], [0, 0, 8], 'clearField touches only its field');
});
