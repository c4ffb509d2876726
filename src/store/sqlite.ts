/**
 * The embedded event store: one SQLite file through better-sqlite3.
 *
 * better-sqlite3 is synchronous, so every method commits before its promise
 * settles. Durability is a separate step: with group commit (the default)
 * commits do not wait for the disk (synchronous=NORMAL) and one fdatasync of
 * the WAL, shared by every commit made before it started, makes them durable
 * (group-sync.ts); a write resolves after that sync unless the caller asked to
 * defer durability and await `durable()` itself. With group commit off,
 * every commit fsyncs (synchronous=FULL).
 */
import { randomUUID } from 'node:crypto';
import { closeSync, fdatasync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { crashPoint, failPoint } from '../crash-points';
import { EMPTY_CHAIN, headOf, linkAppend, splitMetadataText, type ChainHead } from './chain';
import {
  ConcurrencyError,
  ERASED_DATA,
  StoreUnavailableError,
  StreamDeletedError,
  type AppendOptions,
  type AppendResult,
  type EventMetadata,
  type EventStore,
  type ExpectedRevision,
  type NewEvent,
  type ReadAllOptions,
  type RecordedEvent,
  type StreamAppend,
  type Subscription,
  type SubscriptionHandlers,
} from './port';
import { createGroupSync, type GroupSync } from './group-sync';
import { EVENT_COLUMNS, prepareDatabase, type EventRow } from './sqlite-schema';
import { readAhead } from './sqlite-read-ahead';
import { followLog, type LogFollower } from './sqlite-subscription';

export interface SqliteStoreOptions {
  /** How often subscriptions look for appends by other processes, in ms (default 50). */
  readonly pollIntervalMs?: number;
  /**
   * Catch-ups longer than this many log positions read ahead on a worker
   * thread (sqlite-read-ahead.ts; default 20,000: below that the worker's
   * start-up costs more than it saves; Infinity turns it off).
   */
  readonly readAheadFrom?: number;
  /** Events per read-ahead page (default 5,000; tests make it small). */
  readonly readAheadPageSize?: number;
  /**
   * Group commit (default true): commits share one fdatasync of the WAL
   * instead of one fsync each. False: synchronous=FULL, every commit its own
   * fsync (RULEVAULT_GROUP_COMMIT=0; the baseline of bench http-writes).
   */
  readonly groupCommit?: boolean;
  /**
   * Called once when a sync of the WAL fails: commits may be visible that are
   * not on disk, so the owner must stop (the service exits). The store
   * refuses every later write either way.
   */
  readonly onSyncFailure?: (error: StoreUnavailableError) => void;
}

const defaultPageSize = 1000;
/** Catch-up reads bigger pages: fewer statement runs and event-loop yields per replayed event (bench: replay). */
const subscriptionPageSize = 5000;
const maxPageSize = 10_000;


interface StreamRow {
  readonly revision: bigint | null;
  readonly deleted: bigint;
}

/** True when a stream at `current` (undefined: absent) satisfies `expected`. */
export function expectationHolds(expected: ExpectedRevision, current: bigint | undefined): boolean {
  switch (expected) {
    case 'any':
      return true;
    case 'no_stream':
      return current === undefined;
    case 'stream_exists':
      return current !== undefined;
    default:
      return current === expected;
  }
}

/** Clamps a requested page size to 1..10000, 1000 when absent. */
export function pageSize(limit: number | undefined): number {
  if (limit === undefined || !Number.isFinite(limit)) return defaultPageSize;
  return Math.min(maxPageSize, Math.max(1, Math.floor(limit)));
}

/**
 * Opens (creating folder and file when needed) the event store at `path`.
 * Appends by other processes on the same file reach this store's
 * subscriptions within about `pollIntervalMs`; appends through this store
 * reach them at once.
 */
export function openSqliteStore(path: string, options: SqliteStoreOptions = {}): EventStore {
  const pollIntervalMs = options.pollIntervalMs ?? 50;
  const readAheadFrom = options.readAheadFrom ?? 20_000;
  const readAheadOptions = { pageSize: options.readAheadPageSize ?? subscriptionPageSize, pagesAhead: 4 };
  mkdirSync(dirname(path), { recursive: true });
  const groupCommit = options.groupCommit ?? true;
  const db = new Database(path, { timeout: 5000 });
  let walFd: number | undefined;
  try {
    db.defaultSafeIntegers(true);
    prepareDatabase(db, groupCommit ? 'NORMAL' : 'FULL');
    // A process killed between an erasure's commit and its checkpoint left
    // the old rows' page images in the WAL: fold the WAL into the file and
    // truncate it before anything else. Busy (another process is reading):
    // that reader's own close or the next erasure checkpoints.
    db.pragma('wal_checkpoint(TRUNCATE)');
    // The WAL outlives every commit of this connection (SQLite deletes it only
    // when the last connection closes), and checkpoints truncate it in place,
    // so one descriptor opened now syncs every later commit.
    if (groupCommit) walFd = openSync(`${path}-wal`, 'r');
  } catch (error) {
    db.close();
    throw error;
  }
  const fd = walFd;
  const group: GroupSync | undefined = fd === undefined ? undefined : createGroupSync(
    () => new Promise<void>((resolve, reject) => {
      if (failPoint('store:sync-fails')) return reject(Object.assign(new Error('EIO: i/o error, fdatasync (test failpoint)'), { code: 'EIO' }));
      fdatasync(fd, (error) => (error === null ? resolve() : reject(error)));
    }),
    (error) => options.onSyncFailure?.(error),
  );
  /** Commits that had to become durable (with group commit off each fsynced on its own). */
  let commits = 0;

  const statements = {
    stream: db.prepare<[string], StreamRow>('SELECT revision, deleted FROM streams WHERE stream = ?'),
    insert: db.prepare<[string, bigint, string, string, string, string], unknown>(
      'INSERT INTO events (stream, revision, id, type, data, metadata) VALUES (?, ?, ?, ?, ?, ?)',
    ),
    setRevision: db.prepare<[string, bigint], unknown>(
      'INSERT INTO streams (stream, revision) VALUES (?, ?) ON CONFLICT (stream) DO UPDATE SET revision = excluded.revision',
    ),
    markDeleted: db.prepare<[string], unknown>(
      'INSERT INTO streams (stream, revision, deleted) VALUES (?, NULL, 1) ON CONFLICT (stream) DO UPDATE SET revision = NULL, deleted = 1',
    ),
    eraseStream: db.prepare<[string], unknown>('DELETE FROM events WHERE stream = ?'),
    // Rows already erased are skipped: an idempotent finish writes nothing.
    eraseBefore: db.prepare<[string, string, bigint, string], unknown>(
      'UPDATE events SET data = ? WHERE stream = ? AND revision < ? AND data <> ?',
    ),
    // Rows as arrays: building a keyed object per row halved readAll's rate
    // (1M-event readAll benchmark in the store report: ~85k vs ~190k rows/s).
    readStream: db
      .prepare<[string, bigint], EventRow>(
        `SELECT ${EVENT_COLUMNS} FROM events WHERE stream = ? AND revision >= ? ORDER BY revision`,
      )
      .raw(),
    readAll: db
      .prepare<[bigint, number], EventRow>(
        `SELECT ${EVENT_COLUMNS} FROM events WHERE position > ? ORDER BY position LIMIT ?`,
      )
      .raw(),
    head: db.prepare<[], bigint | null>('SELECT max(position) FROM events').pluck(),
    lastMetadata: db.prepare<[], string>('SELECT metadata FROM events ORDER BY position DESC LIMIT 1').pluck(),
    dataVersion: db.prepare<[], bigint>('PRAGMA data_version').pluck(),
  };

  /** The stream's current revision; throws when it was deleted. */
  const currentRevision = (stream: string): bigint | undefined => {
    const row = statements.stream.get(stream);
    if (row === undefined) return undefined;
    if (row.deleted !== 0n) throw new StreamDeletedError(stream);
    return row.revision ?? undefined;
  };

  /** The chain's head, read inside the write transaction (another process may have appended); undefined: an unchained log. */
  const chainHead = (): ChainHead | undefined => {
    const last = statements.lastMetadata.get();
    if (last === undefined) return EMPTY_CHAIN;
    const { link } = splitMetadataText(last);
    return link === undefined ? undefined : headOf(link);
  };

  // Checked and written in one IMMEDIATE transaction: the write lock is taken
  // before the revision is read, so two processes cannot both pass the check.
  // UNIQUE (stream, revision) backs this up should that ever be broken.
  // The chain's head is read under the same lock, so links never fork.
  /** One stream's append, inside a write transaction, after chain head `head`; returns the head after it. */
  const appendInTx = (
    stream: string, events: readonly NewEvent[], expected: ExpectedRevision, erasing: boolean, head: ChainHead | undefined,
  ): { readonly result: AppendResult; readonly head: ChainHead | undefined } => {
    const current = currentRevision(stream);
    if (!expectationHolds(expected, current)) throw new ConcurrencyError(stream, expected, current);
    let revision = current ?? -1n;
    let position = 0n;
    const linked = linkAppend(head, stream, revision + 1n, events, erasing, randomUUID);
    for (const event of linked.events) {
      revision += 1n;
      const result = statements.insert.run(stream, revision, event.id, event.type, event.dataText, event.metadataText);
      position = BigInt(result.lastInsertRowid);
      written?.push([position, stream, revision, event.id, event.type, event.dataText, event.metadataText]);
    }
    statements.setRevision.run(stream, revision);
    return { result: { nextRevision: revision, position }, head: linked.head };
  };
  const appendTx = db.transaction((stream: string, events: readonly NewEvent[], expected: ExpectedRevision, erasing = false): AppendResult =>
    appendInTx(stream, events, expected, erasing, chainHead()).result);

  // Import (issue 18 item 4): several streams' appends as one transaction, so one commit, one fsync. The
  // chain's head is read once and carried from stream to stream, and no stream has a savepoint of its own
  // (a failure rolls the whole batch back anyway): per stream, both were a share of the transaction that holds
  // the node (bench: import probe, README Import).
  const appendManyTx = db.transaction((appends: readonly StreamAppend[]): AppendResult[] => {
    let head = chainHead();
    return appends.map(({ stream, events, expected }) => {
      const appended = appendInTx(stream, events, expected, false, head);
      head = appended.head;
      return appended.result;
    });
  });

  const erasedText = JSON.stringify(ERASED_DATA);
  const eraseBefore = (stream: string, revision: bigint): number =>
    statements.eraseBefore.run(erasedText, stream, revision, erasedText).changes;

  // The erasure record and the erasure in one transaction: no reader, crash
  // or restart ever sees the one without the other.
  const appendErasingTx = db.transaction((stream: string, events: readonly NewEvent[], expected: ExpectedRevision): AppendResult => {
    const result = appendTx(stream, events, expected, true);
    eraseBefore(stream, result.nextRevision - BigInt(events.length) + 1n);
    crashPoint('erasure:in-transaction');
    return result;
  });

  /**
   * secure_delete zeroed the old rows in their pages, but the WAL still holds
   * the frames that first wrote them: copy everything into the main file and
   * truncate the WAL so that no copy of the old content survives.
   */
  const checkpointAfterErasure = (stream: string): void => {
    const [checkpoint] = guard(() => db.pragma('wal_checkpoint(TRUNCATE)') as { busy: bigint }[]);
    if (checkpoint === undefined || checkpoint.busy !== 0n) {
      throw new StoreUnavailableError(`stream ${stream} is erased, but a reader kept the WAL from being checkpointed: the old content stays in the WAL until the next checkpoint`);
    }
  };

  const deleteTx = db.transaction((stream: string, expected: ExpectedRevision): void => {
    const current = currentRevision(stream);
    if (!expectationHolds(expected, current)) throw new ConcurrencyError(stream, expected, current);
    statements.eraseStream.run(stream);
    statements.markDeleted.run(stream);
  });

  /** The rows the commit under way inserts, as a read would return them; undefined when it may rewrite older rows (erasures). */
  let written: EventRow[] | undefined;
  /**
   * The rows of this connection's last commit, handed to a follower whose
   * cursor is right before them instead of being read back from the file
   * (bench: http-writes, cpu-per-request --workload writes). The same values
   * as the file holds; anything else (another process's commits, several
   * commits behind, an erasure since) is read from the file.
   */
  let lastCommit: readonly EventRow[] | undefined;

  const followers = new Set<LogFollower>();
  let pollTimer: NodeJS.Timeout | undefined;
  let seenVersion = 0n;
  let closed = false;

  const stopPolling = (): void => {
    clearTimeout(pollTimer);
    pollTimer = undefined;
  };
  const wakeAll = (): void => {
    for (const follower of followers) follower.wake();
  };
  // PRAGMA data_version changes only when another connection commits, so a
  // poll costs one tiny query and never rereads the log for nothing.
  const poll = (): void => {
    pollTimer = undefined;
    if (closed || followers.size === 0) return;
    try {
      const version = statements.dataVersion.get()!;
      if (version !== seenVersion) {
        seenVersion = version;
        wakeAll();
      }
    } catch {
      // The next read by a follower reports the failure through onError.
      wakeAll();
    }
    pollTimer = setTimeout(poll, pollIntervalMs);
  };

  /** Runs one write; refused after a failed sync, since what survived it is unknown. `rewrites`: it may change rows already written. */
  const commit = <T>(work: () => T, rewrites = false): T => {
    if (group?.failure !== undefined) throw group.failure;
    if (closed) throw new StoreUnavailableError('the event store is closed');
    lastCommit = undefined;
    const rows: EventRow[] | undefined = rewrites ? undefined : [];
    written = rows;
    let result: T;
    try {
      result = guard(work);
    } finally {
      written = undefined;
    }
    if (rows !== undefined && rows.length > 0) lastCommit = rows;
    commits++;
    wakeAll();
    return result;
  };
  /**
   * A follower's next page: from the last commit's rows when the next one is among them, else read from the file.
   * A page at most, as from the file: handing an import of 20k events over as one page held the node ~0.4 s while
   * it was applied, where the follower gives way between pages (bench: import probe, README Import).
   */
  const followerPage = (cursor: bigint | undefined): RecordedEvent[] => {
    const recent = lastCommit;
    const next = (cursor ?? 0n) + 1n;
    if (recent !== undefined) {
      const from = Number(next - recent[0]![0]);
      if (from >= 0 && from < recent.length && recent[from]![0] === next) return recent.slice(from, from + subscriptionPageSize).map(toRecordedEvent);
    }
    return readPage(cursor, subscriptionPageSize);
  };
  const durable = (): Promise<void> => (group === undefined ? Promise.resolve() : group.durable());
  const settle = async <T>(result: T, options: AppendOptions | undefined): Promise<T> => {
    if (options?.deferDurability !== true) await durable();
    return result;
  };

  const readPage = (after: bigint | undefined, limit: number): RecordedEvent[] =>
    statements.readAll.all(after ?? 0n, limit).map(toRecordedEvent);
  const headPosition = (): bigint | undefined => statements.head.get() ?? undefined;

  return {
    description: `sqlite:${path}`,

    async append(stream, events, expected, options) {
      if (events.length === 0) throw new RangeError(`append to ${stream}: no events given`);
      return settle(commit(() => appendTx.immediate(stream, events, expected)), options);
    },

    async appendAtomically(appends, options) {
      for (const { stream, events } of appends) if (events.length === 0) throw new RangeError(`append to ${stream}: no events given`);
      return settle(commit(() => appendManyTx.immediate(appends)), options);
    },

    durable,

    durabilityStats: () => ({ commits, syncs: group?.syncs ?? commits }),

    async readStream(stream, options = {}) {
      return guard(() => statements.readStream.all(stream, options.fromRevision ?? 0n).map(toRecordedEvent));
    },

    async readAll(options: ReadAllOptions = {}) {
      return guard(() => readPage(options.after, pageSize(options.limit)));
    },

    subscribe(after: bigint | undefined, handlers: SubscriptionHandlers): Subscription {
      if (closed) throw new StoreUnavailableError('the event store is closed');
      const follower = followLog(
        {
          readPage: followerPage,
          pageSize: subscriptionPageSize,
          headPosition,
          readAhead: (cursor, head) =>
            Number(head - (cursor ?? 0n)) > readAheadFrom ? readAhead(path, cursor, head, readAheadOptions) : undefined,
        },
        after,
        handlers,
        () => {
          followers.delete(follower);
          if (followers.size === 0) stopPolling();
        },
      );
      followers.add(follower);
      if (pollTimer === undefined) {
        seenVersion = statements.dataVersion.get()!;
        pollTimer = setTimeout(poll, pollIntervalMs);
      }
      return {
        async close() {
          follower.stop();
        },
      };
    },

    async appendErasing(stream, events, expected) {
      if (events.length === 0) throw new RangeError(`append to ${stream}: no events given`);
      // Erasures stay on the durable path: rare, and answered only once both the record and the erasure are on disk.
      const result = commit(() => appendErasingTx.immediate(stream, events, expected), true);
      await durable();
      crashPoint('erasure:after-commit');
      checkpointAfterErasure(stream);
      return result;
    },

    async eraseBefore(stream, revision) {
      const erased = commit(() => eraseBefore(stream, revision), true);
      await durable();
      if (erased > 0) checkpointAfterErasure(stream);
    },

    async deleteStream(stream, expected = 'any') {
      commit(() => deleteTx.immediate(stream, expected), true);
      await durable();
      checkpointAfterErasure(stream);
    },

    async headPosition() {
      return guard(headPosition);
    },

    wake() {
      if (!closed) wakeAll();
    },

    async close() {
      if (closed) return;
      closed = true;
      for (const follower of [...followers]) follower.stop();
      stopPolling();
      await group?.close();
      if (fd !== undefined) closeSync(fd);
      db.close();
    },
  };
}

function toRecordedEvent([position, stream, revision, id, type, data, metadata]: EventRow): RecordedEvent {
  return {
    id,
    stream,
    type,
    revision,
    position,
    data: JSON.parse(data) as RecordedEvent['data'],
    metadata: JSON.parse(metadata) as EventMetadata,
  };
}

/** Driver failures (busy, I/O, closed connection) become `StoreUnavailableError`. */
function guard<T>(work: () => T): T {
  try {
    return work();
  } catch (error) {
    if (error instanceof Database.SqliteError) throw new StoreUnavailableError(`sqlite: ${error.message}`, error);
    if (error instanceof TypeError && /database connection is not open/.test(error.message)) {
      throw new StoreUnavailableError('the event store is closed', error);
    }
    throw error;
  }
}
