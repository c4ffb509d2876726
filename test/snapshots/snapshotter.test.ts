/**
 * The snapshotter names the position its files hold. A write reads the log's
 * identity before it takes the state; events applied meanwhile are in the
 * file, so the position it logs and remembers is the file's, not the one
 * read before that wait (CI once saw the logged position one behind the image's).
 */
import { readFileSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { ENGINE_IMAGE_FILE } from '../../src/snapshots/engine-image-file';
import { createLogger } from '../../src/base/log';
import { readSnapshotFile, SNAPSHOT_FILE } from '../../src/snapshots/snapshot';
import { createReadModel } from '../../src/read-model/read-model';
import { createSnapshotter, loadStartState, SHUTDOWN } from '../../src/snapshots/snapshotter';
import type { EventStore } from '../../src/store/port';
import { openSqliteStore } from '../../src/store/sqlite';
import { commandNodeFor } from '../audit/support/history';

const actor = { id: 'alice', requestId: 'r' };
const HOUR = 3_600_000;

/** The `snapshot written` lines among a logger's JSON lines. */
const writtenIn = (lines: readonly string[]) =>
  lines.map((line) => JSON.parse(line) as { msg: string; position?: string }).filter((l) => l.msg === 'snapshot written');

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
  const writtenLines = () => writtenIn(lines);
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

t.test('a node stopped with nothing new since its start from a snapshot rewrites neither file; without the image restored, its shutdown writes it', async (t) => {
  const { node, dir } = await commandNodeFor(t);
  await node.catalog.createContext({ name: 'kept', content: 'x' }, actor);
  const first = createSnapshotter(node.store, node.readModel, dir, HOUR, createLogger(() => undefined));
  await first.save(SHUTDOWN);
  first.stop();
  const files = [path.join(dir, SNAPSHOT_FILE), path.join(dir, ENGINE_IMAGE_FILE)];
  const inodes = () => files.map((file) => statSync(file, { throwIfNoEntry: false })?.ino);

  /** A start from the files in `dir`, as main.ts makes one, with its own snapshotter and log. */
  async function restart(): Promise<{ readonly save: (reason: string) => Promise<void>; readonly written: () => number; readonly model: ReturnType<typeof createReadModel> }> {
    const lines: string[] = [];
    const logger = createLogger((line) => lines.push(line));
    const start = await loadStartState(node.store, dir, logger);
    const model = createReadModel(start?.state, start?.engine);
    model.markCaughtUp();
    const snapshotter = createSnapshotter(node.store, model, dir, HOUR, logger, 'shutdown', start);
    t.teardown(() => snapshotter.stop());
    const written = () => writtenIn(lines).length;
    return { save: (reason) => snapshotter.save(reason), written, model };
  }

  const before = inodes();
  t.ok(before.every((ino) => ino !== undefined), 'the snapshot and its image are on disk');
  const same = await restart();
  t.equal(same.model.position, node.readModel.position, 'the start restored the snapshot at the head');
  await same.save('periodic');
  await same.save(SHUTDOWN);
  t.equal(same.written(), 0, 'no snapshot written, periodic or at shutdown');
  t.same(inodes(), before, 'both files are the ones written before the start');

  rmSync(files[1]!);
  const compiled = await restart();
  await compiled.save('periodic');
  t.equal(compiled.written(), 0, 'without its image, a periodic save at the same position still writes nothing');
  await compiled.save(SHUTDOWN);
  t.equal(compiled.written(), 1, 'the shutdown writes the snapshot again, with its image');
  t.ok(statSync(files[1]!, { throwIfNoEntry: false }) !== undefined, 'the image is back on disk');

  const event = (await node.store.readAll()).at(-1)!;
  await node.catalog.createContext({ name: 'later', content: 'y' }, actor);
  const moved = await restart();
  const [latest] = await node.store.readAll({ after: event.position });
  moved.model.apply(latest!);
  await moved.save(SHUTDOWN);
  t.equal(moved.written(), 1, 'a node that applied an event since its start writes at shutdown');
});

t.test('a snapshot taken after a replay that read ahead (links left out) names the log\'s link there: the next start takes it', async (t) => {
  const { node, dir } = await commandNodeFor(t);
  for (let n = 0; n < 5; n++) await node.catalog.createContext({ name: `c${n}`, content: 'x' }, actor);
  // A second connection whose catch-up reads ahead on a worker, as a cold start of a long log does.
  const store = openSqliteStore(path.join(dir, 'events.db'), { readAheadFrom: 0, readAheadPageSize: 2 });
  t.teardown(() => store.close());
  const model = createReadModel();
  const subscription = await new Promise<{ close(): Promise<void> }>((resolve, reject) => {
    const opened = store.subscribe(undefined, { onEvent: (event) => model.apply(event), onCaughtUp: () => resolve(opened), onError: reject });
  });
  t.teardown(() => subscription.close());
  model.markCaughtUp();
  t.equal(model.mark()?.chain, null, 'the replayed events came without their links');

  const lines: string[] = [];
  const logger = createLogger((line) => lines.push(line));
  const snapshotter = createSnapshotter(store, model, dir, HOUR, logger);
  t.teardown(() => snapshotter.stop());
  await snapshotter.save(SHUTDOWN);
  t.equal(writtenIn(lines).length, 1, 'a snapshot written');
  const snapshot = await readSnapshotFile(path.join(dir, SNAPSHOT_FILE));
  t.match(snapshot.ok && snapshot.snapshot.mark, { chain: /^[0-9a-f]{64}$/ }, 'it names the link the log has at its position');
  t.ok(await loadStartState(store, dir, logger), 'the next start takes it');
  t.notOk(lines.some((line) => line.includes('snapshot ignored')), 'with no warning');
});
