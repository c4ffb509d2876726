/**
 * The declared matrix (test/support/matrix.ts) is the one that runs: each cell
 * reaches the node it starts (its store and its workers), and every suite
 * the matrix names is a file of test/http (or test/client) that runs on the cells declared for it.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { loadConfig } from '../src/base/config';
import { cellName, MATRIX, type Cell, type Suite } from './support/matrix';
import { withNode } from './support/with-node';

const cells = new Map<string, Cell>();
for (const suiteCells of Object.values(MATRIX)) for (const cell of suiteCells) cells.set(cellName(cell), cell);

for (const [name, cell] of cells) {
  t.test(`a node started on ${name} runs on that store with those workers`, async (t) => {
    const live = withNode(t, { cell });
    t.test('settings', async (t) => {
      const config = loadConfig(live.node.env);
      t.equal(config.workers, cell.workers ?? 1, 'workers exactly on workers cells');
      t.equal(existsSync(path.join(live.node.dataDir, 'events.db')), cell.store === 'sqlite', 'an SQLite log file exactly on sqlite cells');
      t.equal(live.node.env.RULEVAULT_EVENTSTORE?.startsWith('esdb://') ?? false, cell.store === 'esdb', 'an EventStoreDB connection exactly on esdb cells');
      t.equal((await live.admin.get('/api/api-keys')).status, 200, 'and the node answers its admin');
    });
  });
}

t.test('each suite of the matrix runs its own cells', async (t) => {
  const sources = ['http', 'client'].map((folder) => path.join(__dirname, '..', '..', 'test', folder));
  for (const suite of Object.keys(MATRIX) as Suite[]) {
    const file = sources.map((folder) => path.join(folder, `${suite}.test.ts`)).find(existsSync);
    t.ok(file, `${suite}.test.ts is in test/http or test/client`);
    const text = file === undefined ? '' : readFileSync(file, 'utf8');
    t.match(text, `forCells(t, '${suite}', `, `${suite}.test.ts runs forCells under its own name`);
  }
});
