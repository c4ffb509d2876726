/**
 * When snapshots are taken: periodically, on shutdown, and right after
 * secrets are erased (so no snapshot on disk keeps an erased secret's sealed
 * value), and how a start-up picks one: only a snapshot of this very log,
 * whose position holds the very event it was taken after, and never one that
 * contradicts the log about a secret.
 */
import { rm } from 'node:fs/promises';
import path from 'node:path';
import type { CatalogState, SecretRecord } from '../../projections';
import { engineFromImage, engineImage, type Engine } from '../engine';
import type { SnapshotEngineImage } from '../base/config';
import { ENGINE_IMAGE_FILE, readEngineImageFile, writeEngineImageFile, type ImageBinding, type ImageLoad } from './engine-image-file';
import { streams } from '../events';
import type { Logger } from '../base/log';
import type { ReadModel } from '../read-model/read-model';
import { readSnapshotFile, SNAPSHOT_FILE, writeSnapshotFile, type Snapshot } from './snapshot';
import { markOf, type LogMark } from '../store/chain';
import { isErased, type EventStore } from '../store/port';

export interface Snapshotter {
  /** Writes a snapshot now if the model moved since the last one; with the engine's image when `reason` is SHUTDOWN (or always, `every`). */
  save(reason: string): Promise<void>;
  /**
   * After an erasure (the read model has applied it): rewrites the snapshot
   * at once, or removes it when snapshots are off or the rewrite failed, so
   * that no snapshot on disk keeps an erased secret. Throws only when it
   * could do neither (the caller retries).
   */
  afterErasure(): Promise<void>;
  stop(): void;
}

/** Identity of a log: the id of its first event (undefined for an empty log). */
export async function logIdentity(store: EventStore): Promise<string | undefined> {
  const [first] = await store.readAll({ limit: 1 });
  return first?.id;
}

/** The reason a stopping service gives `save`: by default the one snapshot written with the engine's image. */
export const SHUTDOWN = 'shutdown';

/**
 * What a start restores from a usable snapshot: the read models' state, the
 * compiled engine when the snapshot's image held it (createReadModel then
 * compiles no rule), and which snapshot it was. The snapshotter given it
 * counts those files as written, so a node stopped with nothing new since
 * its start writes no snapshot (at 1M rules that rewrite took seconds and
 * most of a GB of RSS: bench: million).
 */
export interface StartPoint {
  readonly state: CatalogState;
  /** Holds exactly `state.rules`; undefined when the image was missing, of another snapshot or corrupt. */
  readonly engine: Engine | undefined;
  readonly position: bigint;
  readonly mark: LogMark;
}

/** Secret streams read at once while a snapshot is checked against the log. */
const CHECK_BATCH = 32;

/**
 * The state to start from: a usable snapshot's, or undefined (replay the
 * whole log). A snapshot that holds a secret its log has erased is removed.
 */
export async function loadStartState(store: EventStore, dataDir: string, logger: Logger): Promise<StartPoint | undefined> {
  // The engine image is read (and hashed, on a worker) while the snapshot is parsed, and bound to the
  // snapshot once that passed its checks: one after the other took ~0.3 s more at 1M (bench: million).
  let bind: (binding: ImageBinding | undefined) => void = () => undefined;
  const imageFile = path.join(dataDir, ENGINE_IMAGE_FILE);
  const image = readEngineImageFile(imageFile, new Promise<ImageBinding | undefined>((resolve) => {
    bind = resolve;
  }));
  try {
    return await checkedStartState(store, dataDir, logger, (snapshot) => {
      bind({ logId: snapshot.logId, position: snapshot.position, snapshotSha256: snapshot.sha256 });
      return restoreEngine(imageFile, image, snapshot, logger);
    });
  } finally {
    // A snapshot not used: the image's read ends with nothing restored.
    bind(undefined);
  }
}

async function checkedStartState(
  store: EventStore, dataDir: string, logger: Logger, withEngine: (snapshot: Snapshot) => Promise<Engine | undefined>,
): Promise<StartPoint | undefined> {
  const file = path.join(dataDir, SNAPSHOT_FILE);
  const loaded = await readSnapshotFile(file);
  const ignored = (reason: string): undefined => {
    logger.warn('snapshot ignored; replaying the whole log', { file, reason });
    return undefined;
  };
  if (!loaded.ok) return loaded.reason === 'none' ? undefined : ignored(loaded.reason);
  const [logId, head] = await Promise.all([logIdentity(store), store.headPosition()]);
  const snapshot = loaded.snapshot;
  if (logId !== snapshot.logId) return ignored('it was taken from another log');
  if (head === undefined || snapshot.position > head) return ignored('it is ahead of the log');
  const other = await otherEventAt(store, snapshot);
  if (other !== undefined) return ignored(other);
  const contradicted = await secretTheLogErased(store, snapshot);
  if (contradicted !== undefined) {
    await rm(file, { force: true });
    await rm(path.join(dataDir, ENGINE_IMAGE_FILE), { force: true });
    return ignored(`it holds secret ${contradicted}, which the log has erased (the snapshot is removed)`);
  }
  return { state: snapshot.state, engine: await withEngine(snapshot), position: snapshot.position, mark: snapshot.mark };
}

/**
 * The engine saved beside the snapshot, for the read model made from the
 * snapshot's state, so it compiles no rule; undefined when the image is
 * missing, of another snapshot or corrupt: the read model then compiles the
 * rules as before (a warning says why, except for a missing image).
 */
async function restoreEngine(file: string, read: Promise<ImageLoad>, snapshot: Snapshot, logger: Logger): Promise<Engine | undefined> {
  const started = Date.now();
  const image = await read;
  const compiling = (reason: string): void => logger.warn('engine image ignored; compiling the rules', { file, reason });
  if (!image.ok) {
    if (image.reason !== 'none') compiling(image.reason);
    return undefined;
  }
  try {
    // The image's rules are in the order of the snapshot's rule records (write, below).
    const engine = engineFromImage(image.sections, snapshot.state.rules.keys());
    logger.info('engine image restored', { rules: snapshot.state.rules.size, ms: Date.now() - started });
    return engine;
  } catch (error) {
    compiling(`it could not be restored: ${error instanceof Error ? error.message : String(error)}`);
    return undefined;
  }
}

/**
 * Why the log is not the one the snapshot was taken from at its position, or
 * undefined when it has the very event there (its id and chain link). A log
 * put back from an older copy, or one that lost its tail, and written since,
 * has other events at the positions the snapshot knew: the snapshot would
 * bring back what the log lost and skip what it has there now.
 */
async function otherEventAt(store: EventStore, snapshot: Snapshot): Promise<string | undefined> {
  let event;
  try {
    event = await store.readAt(snapshot.position);
  } catch (error) {
    return `the log could not be read at its position ${snapshot.position} (${error instanceof Error ? error.message : String(error)})`;
  }
  if (event === undefined) return `the log has no event at its position ${snapshot.position}`;
  const mark = markOf(event);
  if (mark.id === snapshot.mark.id && mark.chain === snapshot.mark.chain) return undefined;
  return `the log holds another event at its position ${snapshot.position} than the one it was taken after ` +
    '(the log was put back from an older copy, or lost its tail, and was written since)';
}

/** The id of a secret the snapshot holds but its log has deleted or erased at or before the snapshot's position. */
async function secretTheLogErased(store: EventStore, snapshot: Snapshot): Promise<string | undefined> {
  const records = [...snapshot.state.vault.secrets.values()];
  for (let start = 0; start < records.length; start += CHECK_BATCH) {
    const batch = records.slice(start, start + CHECK_BATCH);
    const confirmed = await Promise.all(batch.map((record) => logConfirms(store, record, snapshot.position)));
    const index = confirmed.indexOf(false);
    if (index !== -1) return batch[index]!.id;
  }
  return undefined;
}

/**
 * True when the log agrees with the snapshot's record of a secret: its stream
 * still holds the record's last event unerased, or deletes the secret after
 * the snapshot (that deletion is replayed on top of the snapshot).
 */
async function logConfirms(store: EventStore, record: SecretRecord, at: bigint): Promise<boolean> {
  const events = await store.readStream(streams.secret(record.id), { fromRevision: record.revision });
  const deletion = events.find((event) => event.type === 'SecretDeleted');
  if (deletion !== undefined) return deletion.position > at;
  const [own] = events;
  return own !== undefined && own.revision === record.revision && own.position === record.position && !isErased(own);
}

export function createSnapshotter(
  store: EventStore,
  readModel: ReadModel,
  dataDir: string,
  intervalMs: number,
  logger: Logger,
  imageWith: SnapshotEngineImage = 'shutdown',
  /** The snapshot `readModel` was made from, if any. */
  restored?: StartPoint,
): Snapshotter {
  const file = path.join(dataDir, SNAPSHOT_FILE);
  const imageFile = path.join(dataDir, ENGINE_IMAGE_FILE);
  /** The position of the snapshot on disk as far as this snapshotter knows: the one the start restored, then its own. */
  let saved: bigint | undefined = restored?.position;
  /** Whether the snapshot at `saved` has its engine image: a shutdown at the same position still writes one if not. */
  let savedImage = restored?.engine !== undefined;
  let writing: Promise<void> = Promise.resolve();
  const enabled = intervalMs > 0;

  async function write(reason: string): Promise<void> {
    const position = readModel.position;
    const [logId, there] = await Promise.all([logIdentity(store), position === undefined ? undefined : store.readAt(position)]);
    if (position === undefined || logId === undefined) return;
    const stored = there === undefined ? undefined : markOf(there);
    // What identifies the log at the position the state is at, asked in the step that takes the state. The event
    // the model applied lacks its link after a cold start (the read-ahead drops links): the log's, when it is that event.
    const mark = (): LogMark => {
      const last = readModel.mark() ?? restored?.mark;
      if (last === undefined) throw new Error('the read model names no event at its position');
      return last.chain === null && stored?.id === last.id ? stored : last;
    };
    const started = Date.now();
    // The engine's image is taken with the state's members, in one synchronous step: it matches the snapshot exactly.
    // Its rules go in the order of the snapshot's rule records, which a start restores them from (restoreEngine).
    // By default only at shutdown: taking it blocks the process, which a serving one should not (bench:
    // snapshot-stall, 1M: the longest gap in answers 1.6 to 1.8 s with the image, 0.13 to 0.29 s without; the image
    // 1.8 to 1.9 s of CPU), so a start after a crash compiles. `every` trades that stall for a fast start after a crash.
    let imageCpuMs = 0;
    const image = reason !== SHUTDOWN && imageWith !== 'every' ? undefined : () => {
      const before = process.cpuUsage();
      const sections = engineImage(readModel.engine, readModel.state.rules.keys());
      const used = process.cpuUsage(before);
      imageCpuMs = Math.round((used.user + used.system) / 1000);
      return sections;
    };
    const written = await writeSnapshotFile(file, readModel.state, logId, mark, image);
    // An older image belongs to the older snapshot: removed, so a start does not warn about it.
    await rm(imageFile, { force: true });
    let imaged = false;
    try {
      if (written.taken !== undefined) {
        await writeEngineImageFile(imageFile, written.taken, { logId, position: written.position, snapshotSha256: written.sha256 });
        imaged = true;
      }
    } catch (error) {
      // The snapshot stands without it (a start then compiles the rules): after an erasure it must not be removed for this.
      await rm(`${imageFile}.tmp`, { force: true }).catch(() => undefined);
      logger.warn('engine image not written; the next start compiles the rules', { error: error instanceof Error ? error.message : String(error) });
    }
    // The position the file holds: events applied while logIdentity was awaited are in it (the one read above is older).
    saved = written.position;
    savedImage = imaged;
    logger.info('snapshot written', { reason, position: written.position.toString(), ms: Date.now() - started, image_cpu_ms: imageCpuMs });
  }

  /** Removes the snapshot (and a temp file a failed write may have left). */
  async function remove(): Promise<void> {
    await rm(`${file}.tmp`, { force: true }).catch(() => undefined);
    await rm(`${imageFile}.tmp`, { force: true }).catch(() => undefined);
    await rm(file, { force: true });
    await rm(imageFile, { force: true });
    saved = undefined;
  }

  /** One write at a time; a failure is logged, never thrown at the caller's request. */
  function queue(reason: string, work: () => Promise<void>): Promise<void> {
    writing = writing.then(work).catch((error: unknown) => {
      logger.error('snapshot failed', { reason, error: error instanceof Error ? error.message : String(error) });
    });
    return writing;
  }

  const timer = enabled ? setInterval(() => void save('periodic'), intervalMs) : undefined;
  timer?.unref();

  function save(reason: string): Promise<void> {
    return queue(reason, async () => {
      const position = readModel.position;
      if (!enabled || position === undefined || !readModel.caughtUp) return;
      if (position === saved && (reason !== SHUTDOWN || savedImage)) return;
      await write(reason);
    });
  }

  // Runs also during start-up's bootstrap, before the model is marked caught
  // up: it is called only once the log has been replayed. In the one queue
  // of writes, but its failure (no removal either) reaches the caller.
  function afterErasure(): Promise<void> {
    const done = writing.then(async () => {
      if (enabled) {
        try {
          await write('secret erased');
          return;
        } catch (error) {
          logger.error('snapshot failed after an erasure; removing the old snapshot, which may hold the erased secret', {
            error: error instanceof Error ? error.message : String(error),
          });
        }
      }
      await remove();
    });
    writing = done.catch(() => undefined);
    return done;
  }

  return {
    save,
    afterErasure,
    stop: () => clearInterval(timer),
  };
}
