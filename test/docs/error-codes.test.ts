/**
 * The API page's table of error codes is the catalog: every code of
 * src/base/errors.ts appears in docs/api.md with its status, and no other code does.
 */
import t from 'tap';
import { ERROR_CODES, ERROR_STATUS } from '../../src/base/errors';
import { codeCell, readDoc, tableRows } from './markdown';

t.test('docs/api.md lists every error code of the catalog, with its status', async (t) => {
  const rows = tableRows(readDoc('docs/api.md'), 'Error codes');
  const documented = new Map(rows.map(([code, status]) => [codeCell(code ?? ''), Number(status)]));
  t.same([...documented.keys()].sort(), [...ERROR_CODES].sort(), 'the same codes as the catalog');
  for (const code of ERROR_CODES) t.equal(documented.get(code), ERROR_STATUS[code], `${code} is ${ERROR_STATUS[code]}`);
  for (const row of rows) t.ok((row[2] ?? '').length > 10, `${row[0]} says when it is answered`);
});
