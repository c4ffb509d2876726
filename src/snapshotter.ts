/**
 * When snapshots are taken: periodically, on shutdown, and right after a
 * secret is erased (so no snapshot on disk keeps its sealed value), and how a
 * start-up picks one: only a snapshot of this very log, not ahead of it.
 */
import path from 'node:path';
import type { CatalogState } from '../projections';
import type { Logger } from './log';
import type { ReadModel } from './read-model';
import { readSnapshotFile, SNAPSHOT_FILE, writeSnapshotFile } from './snapshot';
import type { EventStore } from './store/port';

export interface Snapshotter {
  /** Writes a snapshot now if the model moved since the last one. */
  save(reason: string): Promise<void>;
  stop(): void;
}

/** Identity of a log: the id of its first event (undefined for an empty log). */
export async function logIdentity(store: EventStore): Promise<string | undefined> {
  const [first] = await store.readAll({ limit: 1 });
  return first?.id;
}

/** The state to start from: a usable snapshot's, or undefined (replay the whole log). */
export async function loadStartState(store: EventStore, dataDir: string, logger: Logger): Promise<CatalogState | undefined> {
  const file = path.join(dataDir, SNAPSHOT_FILE);
  const loaded = await readSnapshotFile(file);
  if (!loaded.ok) {
    if (loaded.reason !== 'none') logger.warn('snapshot ignored; replaying the whole log', { file, reason: loaded.reason });
    return undefined;
  }
  const [logId, head] = await Promise.all([logIdentity(store), store.headPosition()]);
  const snapshot = loaded.snapshot;
  if (logId !== snapshot.logId) {
    logger.warn('snapshot ignored; replaying the whole log', { file, reason: 'it was taken from another log' });
    return undefined;
  }
  if (head === undefined || snapshot.position > head) {
    logger.warn('snapshot ignored; replaying the whole log', { file, reason: 'it is ahead of the log' });
    return undefined;
  }
  return snapshot.state;
}

export function createSnapshotter(
  store: EventStore,
  readModel: ReadModel,
  dataDir: string,
  intervalMs: number,
  logger: Logger,
): Snapshotter {
  const file = path.join(dataDir, SNAPSHOT_FILE);
  let saved: bigint | undefined;
  let writing: Promise<void> = Promise.resolve();
  const enabled = intervalMs > 0;

  async function write(reason: string): Promise<void> {
    const position = readModel.position;
    if (!enabled || position === undefined || position === saved || !readModel.caughtUp) return;
    const logId = await logIdentity(store);
    if (logId === undefined) return;
    const started = Date.now();
    await writeSnapshotFile(file, readModel.state, logId);
    saved = position;
    logger.info('snapshot written', { reason, position: position.toString(), ms: Date.now() - started });
  }

  const timer = enabled ? setInterval(() => void save('periodic'), intervalMs) : undefined;
  timer?.unref();

  function save(reason: string): Promise<void> {
    // One write at a time; a failure is logged, never thrown at the caller's request.
    writing = writing.then(() => write(reason)).catch((error: unknown) => {
      logger.error('snapshot failed', { reason, error: error instanceof Error ? error.message : String(error) });
    });
    return writing;
  }

  return {
    save,
    stop: () => clearInterval(timer),
  };
}
