/**
 * The snapshotter names the position its files hold. A write reads the log's
 * identity before it takes the state; events applied meanwhile are in the
 * file, so the position it logs and remembers is the file's, not the one
 * read before that wait (CI once saw the logged position one behind the image's).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { ENGINE_IMAGE_FILE } from '../src/engine-image-file';
import { createLogger } from '../src/log';
import { readSnapshotFile, SNAPSHOT_FILE } from '../src/snapshot';
import { createSnapshotter } from '../src/snapshotter';
import type { EventStore } from '../src/store/port';
import { commandNodeFor } from './audit/support/history';

const actor = { id: 'alice', requestId: 'r' };
const HOUR = 3_600_000;

t.test('a write applied while the snapshot reads the log identity: the logged position is the one the files hold', async (t) => {
  const { node, dir } = await commandNodeFor(t);
  await node.catalog.createContext({ name: 'before', content: 'x' }, actor);
  let during: (() => Promise<unknown>) | undefined;
  // The store as the snapshotter sees it: its first read (the log's identity) waits for a write to be applied.
  const store: EventStore = Object.create(node.store, {
    readAll: {
      value: async (options: Parameters<EventStore['readAll']>[0]) => {
        const write = during;
        during = undefined;
        await write?.();
        return node.store.readAll(options);
      },
    },
  });
  during = () => node.catalog.createContext({ name: 'during', content: 'y' }, actor);
  const before = node.readModel.position;
  const lines: string[] = [];
  const snapshotter = createSnapshotter(store, node.readModel, dir, HOUR, createLogger((line) => lines.push(line)), 'every');
  t.teardown(() => snapshotter.stop());
  const writtenLines = () => lines.map((line) => JSON.parse(line) as { msg: string; position?: string }).filter((l) => l.msg === 'snapshot written');
  await snapshotter.save('periodic');

  const written = writtenLines();
  t.equal(written.length, 1, 'one snapshot written');
  const now = node.readModel.position;
  t.not(now, before, 'the write during the wait moved the model');
  t.equal(written[0]?.position, String(now), 'the log names the position after the write');
  const snapshot = await readSnapshotFile(path.join(dir, SNAPSHOT_FILE));
  t.equal(snapshot.ok && snapshot.snapshot.position, now, 'the snapshot file holds it');
  const image = readFileSync(path.join(dir, ENGINE_IMAGE_FILE));
  t.equal(JSON.parse(image.toString('utf8', 0, image.indexOf(10))).position, String(now), 'and so does the image');

  await snapshotter.save('periodic');
  t.equal(writtenLines().length, 1, 'a save at that position writes nothing more');
});
