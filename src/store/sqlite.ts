/**
 * The embedded event store: one SQLite file through better-sqlite3.
 *
 * better-sqlite3 is synchronous, so every method commits before its promise
 * settles. Durability is a separate step: with group commit (the default)
 * commits do not wait for the disk (synchronous=NORMAL) and one fdatasync of
 * the WAL, shared by every commit made before it started, makes them durable
 * (group-sync.ts); a write resolves after that sync unless the caller asked to
 * defer durability and await `durable()` itself. With group commit off,
 * every commit fsyncs (synchronous=FULL). A large atomic batch (an import)
 * is written on a worker thread's connection instead (sqlite-batch.ts), so
 * the event loop goes on meanwhile; writes that come then wait for it.
 */
import { closeSync, fdatasync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { crashPoint, failPoint } from '../base/crash-points';
import {
  ConcurrencyError,
  ERASED_DATA,
  LOG_PAGE_BYTES,
  StoreUnavailableError,
  type AppendOptions,
  type AppendResult,
  type EventMetadata,
  type EventStore,
  type ExpectedRevision,
  type ReadAllOptions,
  type RecordedEvent,
  type StreamAppend,
  type Subscription,
  type SubscriptionHandlers,
} from './port';
import { createGroupSync, type GroupSync } from './group-sync';
import type { EventTexts } from './chain';
import { expectationHolds, prepareAppends, textAppends, textsOf } from './sqlite-append';
import { appendOnWorker } from './sqlite-batch';
import { BUSY_TIMEOUT_MS, cutPage, EVENT_COLUMNS, prepareDatabase, type EventRow } from './sqlite-schema';
import { readAhead } from './sqlite-read-ahead';
import { followLog, type LogFollower, type LogPage } from './sqlite-subscription';

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
  /**
   * An `appendAtomically` of at least this many events (an import) is written
   * on a worker thread's connection, so the event loop goes on meanwhile
   * (sqlite-batch.ts; tests make it small). Default 2,000: 2,000 rule events
   * held the loop 31 to 46 ms on this connection and 5 to 8 ms through the
   * worker, which added ~90 ms to the write (the thread's start, the texts
   * copied); at 500, 17 to 19 ms against 5 to 13 ms, for ~40 ms more
   * (bench/import-stall.ts).
   */
  readonly batchWorkerFrom?: number;
}

const defaultPageSize = 1000;
/** Catch-up reads bigger pages: fewer statement runs and event-loop yields per replayed event (bench: replay). */
const subscriptionPageSize = 5000;
const maxPageSize = 10_000;


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
  const readAheadOptions = { pageSize: options.readAheadPageSize ?? subscriptionPageSize, pageBytes: LOG_PAGE_BYTES, pagesAhead: 4 };
  mkdirSync(dirname(path), { recursive: true });
  const groupCommit = options.groupCommit ?? true;
  const db = new Database(path, { timeout: BUSY_TIMEOUT_MS });
  let walFd: number | undefined;
  let checkpointedAtOpen = false;
  try {
    db.defaultSafeIntegers(true);
    prepareDatabase(db, groupCommit ? 'NORMAL' : 'FULL');
    // A process killed between an erasure's commit and its checkpoint left
    // the old rows' page images in the WAL: fold the WAL into the file and
    // truncate it before anything else. When that cannot complete (another
    // process reads the file, the disk is full) it stays owed: `scrub`.
    checkpointedAtOpen = checkpointWithoutWaiting(db) === undefined;
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

  const synchronous = groupCommit ? 'NORMAL' : 'FULL';
  const batchWorkerFrom = options.batchWorkerFrom ?? 2000;
  /** The rows the commit under way inserts, as a read would return them; undefined when it may rewrite older rows (erasures). */
  let written: EventRow[] | undefined;
  const { currentRevision, appendTx, appendManyTx } = prepareAppends(db, (row) => written?.push(row));

  /** The batch being written on a worker's connection (sqlite-batch.ts), if any. */
  let batch: Promise<unknown> | undefined;
  /**
   * Resolves once no batch is being written on a worker: a write on this
   * connection meanwhile would wait for SQLite's write lock (busy_timeout)
   * with the event loop held. Writes that waited run in the order they came.
   */
  const afterBatch = async (): Promise<void> => {
    while (batch !== undefined) await batch.catch(() => undefined);
  };

  const statements = {
    eraseStream: db.prepare<[string], unknown>('DELETE FROM events WHERE stream = ?'),
    markDeleted: db.prepare<[string], unknown>(
      'INSERT INTO streams (stream, revision, deleted) VALUES (?, NULL, 1) ON CONFLICT (stream) DO UPDATE SET revision = NULL, deleted = 1',
    ),
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
    dataBytes: db.prepare<[bigint, number], bigint>('SELECT octet_length(data) FROM events WHERE position > ? ORDER BY position LIMIT ?').pluck(),
    readAt: db.prepare<[bigint], EventRow>(`SELECT ${EVENT_COLUMNS} FROM events WHERE position = ?`).raw(),
    head: db.prepare<[], bigint | null>('SELECT max(position) FROM events').pluck(),
    dataVersion: db.prepare<[], bigint>('PRAGMA data_version').pluck(),
  };

  const erasedText = JSON.stringify(ERASED_DATA);
  const eraseBefore = (stream: string, revision: bigint): number =>
    statements.eraseBefore.run(erasedText, stream, revision, erasedText).changes;

  // The erasure record and the erasure in one transaction: no reader, crash
  // or restart ever sees the one without the other.
  const appendErasingTx = db.transaction((stream: string, events: readonly EventTexts[], expected: ExpectedRevision): AppendResult => {
    const result = appendTx(stream, events, expected, true);
    eraseBefore(stream, result.nextRevision - BigInt(events.length) + 1n);
    crashPoint('erasure:in-transaction');
    return result;
  });

  /**
   * True while copies of erased content may remain beside the rows: secure_delete zeroed the old rows in their
   * pages, but the WAL still holds the frames that first wrote them, and the file the older pages, until a
   * checkpoint copies everything into the file and truncates the WAL. Set by every erasure's commit; cleared by
   * a checkpoint that completed.
   */
  let scrubOwed = !checkpointedAtOpen;
  const scrub = async (): Promise<void> => {
    if (!scrubOwed) return;
    // A batch written on a worker meanwhile would hold the WAL: the checkpoint waits for it.
    if (batch !== undefined) await afterBatch();
    if (closed) throw new StoreUnavailableError('the event store is closed');
    const why = checkpointWithoutWaiting(db);
    if (why !== undefined) {
      throw new StoreUnavailableError(`the WAL could not be checkpointed (${why}): the erased content's older copies stay in ${path} and its WAL until it is`);
    }
    scrubOwed = false;
  };

  const deleteTx = db.transaction((stream: string, expected: ExpectedRevision): void => {
    const current = currentRevision(stream);
    if (!expectationHolds(expected, current)) throw new ConcurrencyError(stream, expected, current);
    statements.eraseStream.run(stream);
    statements.markDeleted.run(stream);
  });

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

  /** `commit` for a batch written on a worker thread's connection: the loop turns meanwhile. */
  const commitOnWorker = async (appends: readonly StreamAppend[]): Promise<AppendResult[]> => {
    if (group?.failure !== undefined) throw group.failure;
    if (closed) throw new StoreUnavailableError('the event store is closed');
    lastCommit = undefined;
    const writing = appendOnWorker(path, synchronous, appends);
    batch = writing;
    try {
      const results = await writing;
      commits++;
      return results;
    } finally {
      batch = undefined;
      // Its rows are read from the file (another connection wrote them), as another process's are.
      wakeAll();
    }
  };
  /**
   * A follower's next page: from the last commit's rows when the next one is among them, else read from the file,
   * bounded by rows and by bytes as a reader of the whole log is (`LOG_PAGE_BYTES`): 5,000 events of a few hundred
   * KB each would otherwise be held at once. The sizes' read costs ~5 µs on a tail of one small commit (15 against
   * 10 µs; bench/HISTORY.md, "the in-process follower's pages"). A page at most from the last commit too: handing an import of
   * 20k events over as one page held the node ~0.4 s while it was applied, where the follower gives way between
   * pages (bench: import probe, docs/api.md#import); those rows are in memory already, so only their count is bounded.
   */
  const followerPage = (cursor: bigint | undefined): LogPage => {
    const recent = lastCommit;
    const next = (cursor ?? 0n) + 1n;
    if (recent !== undefined) {
      const from = Number(next - recent[0]![0]);
      if (from >= 0 && from < recent.length && recent[from]![0] === next) {
        const to = Math.min(recent.length, from + subscriptionPageSize);
        return { events: recent.slice(from, to).map(toRecordedEvent), more: to < recent.length };
      }
    }
    return readPageOfBytes(cursor, subscriptionPageSize, LOG_PAGE_BYTES);
  };
  const durable = (): Promise<void> => (group === undefined ? Promise.resolve() : group.durable());
  const settle = async <T>(result: T, options: AppendOptions | undefined): Promise<T> => {
    if (options?.deferDurability !== true) await durable();
    return result;
  };

  const readPage = (after: bigint | undefined, limit: number): RecordedEvent[] =>
    statements.readAll.all(after ?? 0n, limit).map(toRecordedEvent);
  /**
   * A page that ends with the row whose data brings it to `maxBytes`: the sizes are read first (octet_length reads
   * a row's header, not its text: 0.75 ms for 2,000 rows of 1 MB, where length() took 0.93 s), then only the rows
   * that fit. This costs ~0.2 µs a row more than one read; iterating the rows ~0.35 µs (bench/HISTORY.md,
   * "pages of the log held to 8 MB"). One read transaction: a stream another process deletes between the two reads
   * would let later, unmeasured rows into the page.
   */
  const readPageOfBytes = db.transaction((after: bigint | undefined, limit: number, maxBytes: number): LogPage => {
    const page = cutPage(statements.dataBytes.all(after ?? 0n, limit), { rows: limit, bytes: maxBytes }, (take) => readPage(after, take));
    return { events: page.rows, more: page.more };
  });
  const headPosition = (): bigint | undefined => statements.head.get() ?? undefined;

  return {
    description: `sqlite:${path}`,

    async append(stream, events, expected, options) {
      if (events.length === 0) throw new RangeError(`append to ${stream}: no events given`);
      if (batch !== undefined) await afterBatch();
      return settle(commit(() => appendTx.immediate(stream, textsOf(events), expected)), options);
    },

    async appendAtomically(appends, options) {
      let count = 0;
      for (const { stream, events } of appends) {
        if (events.length === 0) throw new RangeError(`append to ${stream}: no events given`);
        count += events.length;
      }
      if (batch !== undefined) await afterBatch();
      if (count >= batchWorkerFrom) return settle(await commitOnWorker(appends), options);
      return settle(commit(() => appendManyTx.immediate(textAppends(appends))), options);
    },

    durable,

    durabilityStats: () => ({ commits, syncs: group?.syncs ?? commits }),

    async readStream(stream, options = {}) {
      return guard(() => statements.readStream.all(stream, options.fromRevision ?? 0n).map(toRecordedEvent));
    },

    async readAll(options: ReadAllOptions = {}) {
      const { after, limit, maxDataBytes } = options;
      return guard(() => (maxDataBytes === undefined ? readPage(after, pageSize(limit)) : readPageOfBytes(after, pageSize(limit), Math.max(1, maxDataBytes)).events));
    },

    async readAt(position) {
      const row = guard(() => statements.readAt.get(position));
      return row === undefined ? undefined : toRecordedEvent(row);
    },

    subscribe(after: bigint | undefined, handlers: SubscriptionHandlers): Subscription {
      if (closed) throw new StoreUnavailableError('the event store is closed');
      const follower = followLog(
        {
          readPage: followerPage,
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
      if (batch !== undefined) await afterBatch();
      // Erasures stay on the durable path: rare, and answered only once both the record and the erasure are on disk.
      const result = commit(() => appendErasingTx.immediate(stream, textsOf(events), expected), true);
      scrubOwed = true;
      await durable();
      crashPoint('erasure:after-commit');
      // Committed: the erasure happened. What keeps the checkpoint from running now is the caller's to retry.
      const unfinished = await scrub().then(() => undefined, (error: unknown) => (error instanceof Error ? error.message : String(error)));
      return unfinished === undefined ? result : { ...result, unfinished };
    },

    async eraseBefore(stream, revision) {
      if (batch !== undefined) await afterBatch();
      const erased = commit(() => eraseBefore(stream, revision), true);
      if (erased > 0) {
        scrubOwed = true;
        await durable();
      }
      await scrub();
    },

    scrub,

    async deleteStream(stream, expected = 'any') {
      if (batch !== undefined) await afterBatch();
      commit(() => deleteTx.immediate(stream, expected), true);
      scrubOwed = true;
      await durable();
      await scrub();
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
      // A batch being written finishes (committed or refused) before its connection's file is let go.
      await afterBatch();
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

/**
 * One TRUNCATE checkpoint that does not wait for readers: better-sqlite3 is
 * synchronous, so the busy timeout would hold the event loop for 5 s behind
 * another process's read transaction, which may last hours; the caller tries
 * again later instead. Returns why it did not complete; undefined when every
 * page is in the file and the WAL is empty.
 */
function checkpointWithoutWaiting(db: Database.Database): string | undefined {
  db.pragma('busy_timeout = 0');
  try {
    const [checkpoint] = db.pragma('wal_checkpoint(TRUNCATE)') as { busy: bigint }[];
    return checkpoint !== undefined && checkpoint.busy === 0n ? undefined : 'another connection holds a read transaction on the file (a process reading it: the sqlite3 shell, a backup)';
  } catch (error) {
    // SQLITE_FULL (database or disk is full), SQLITE_IOERR: what a full disk or a file-size limit answers.
    return `sqlite: ${error instanceof Error ? error.message : String(error)}`;
  } finally {
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  }
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
