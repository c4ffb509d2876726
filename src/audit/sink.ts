/**
 * The audit sink: where decision records and secret-read records go, in
 * the audit folder (default `<data dir>/audit`), never the event log: the
 * log stays the record of changes, and these records (many per second)
 * neither grow it nor slow its replay. A queue (below) in front of a writer:
 * NDJSON files rotated by size for decision records (ndjson-writer.ts: an
 * append is the cheapest write, and records are only looked up by id), a
 * SQLite file for secret reads (`sqliteWriter`: listed by key, secret and
 * time with paging, which indexes answer). Rotation of the SQLite file is by
 * retention: past `maxRecords` the oldest rows are deleted, and SQLite
 * reuses their pages, so the file stops growing at its steady size.
 *
 * Two ways to write:
 * - `enqueue` (decision records, fail-open reads): a bounded queue drained
 *   after the current I/O turn, one transaction per batch. A full queue
 *   drops the record and counts it; a request never waits for the disk.
 *   A batch that cannot be written (the file is locked, gone, the disk full)
 *   stays queued and is retried with back-off, so the queue's bound is what
 *   a stuck sink costs in memory.
 * - `writeNow` (fail-closed reads): the record is committed before the
 *   caller goes on; a failure throws.
 *
 * A sink file that disappears under the service (its folder removed) must
 * fail, not keep writing into an unlinked inode nobody can read: before each
 * write the path is checked to still be the file opened (device and inode),
 * and reopened otherwise, without recreating the folder.
 */
import Database from 'better-sqlite3';
import { mkdirSync, statSync } from 'node:fs';
import path from 'node:path';

export interface SinkTable<R> {
  /** The file's name in the audit folder. */
  readonly file: string;
  /**
   * Readies a freshly opened file (its schema, a migration of an older
   * layout) and prepares its statements; run on every open.
   */
  open(db: Database.Database): SinkStatements<R>;
}

/** The prepared writes of one open sink file. */
export interface SinkStatements<R> {
  /** Writes one record (inside the batch's transaction). */
  write(record: R): void;
  /** Retention: deletes all but the newest `keep` records (inside the same transaction). */
  trim(keep: number): void;
  /** The batch's transaction was rolled back: forget anything remembered of its writes. */
  rolledBack(): void;
}

/** Where a sink's batches go. */
export interface SinkWriter<R> {
  /** Writes the records (all or none); throws when they cannot be written. */
  write(records: readonly R[]): void;
  close(): void;
}

export interface SinkOptions {
  /** Records the queue holds at most. */
  readonly queueCapacity: number;
  /** Called with the count of records dropped because the queue was full. */
  readonly onDropped: (count: number) => void;
  /** Called when a write fails (the batch stays queued, or writeNow throws). */
  readonly onWriteError: (error: Error) => void;
}

export interface Sink<R> {
  /** Queues a record for writing; false when the queue was full and it was dropped. */
  enqueue(record: R): boolean;
  /** Writes a record at once; throws when it cannot be written. */
  writeNow(record: R): void;
  /** Writes what is queued now (one attempt; what fails stays queued), so a read that follows sees it. */
  flush(): void;
  /** Writes what is queued (one attempt) and closes the file. */
  close(): void;
  /** Records waiting in the queue. */
  readonly queued: number;
}

/** Rows deleted per retention step; retention runs every this many writes. */
const RETENTION_STEP = 1000;
/** Records written per transaction, at most, by one drain. */
const BATCH = 2000;
const RETRY_FIRST_MS = 50;
const RETRY_MAX_MS = 5000;

/**
 * The path of a sink file must still name the file a writer holds (device
 * and inode): a file removed or replaced under the service is reopened by
 * its path, never written into unseen.
 */
export function sameFile(file: string, identity: { readonly dev: number; readonly ino: number }): boolean {
  const now = statSync(file, { throwIfNoEntry: false });
  return now !== undefined && now.dev === identity.dev && now.ino === identity.ino;
}

/**
 * A SQLite sink file in `dir`: one transaction per batch, retention every
 * RETENTION_STEP records. It opens on its first write, or on `open()`.
 */
export function sqliteWriter<R>(dir: string, table: SinkTable<R>, maxRecords: number): SinkWriter<R> & { open(): void } {
  const file = path.join(dir, table.file);
  let db: Database.Database | undefined;
  let identity: { dev: number; ino: number } | undefined;
  let writeBatch: Database.Transaction<(records: readonly R[]) => void> | undefined;
  let statements: SinkStatements<R> | undefined;
  let sinceRetention = 0;
  let opened = false;

  /** The open database, (re)opened when the path no longer names the file we hold. */
  function database(): Database.Database {
    if (db !== undefined) {
      if (sameFile(file, identity!)) return db;
      db.close();
      db = undefined;
    }
    // The folder is created once, on the first open; a folder removed later is a failure to report, not to paper over.
    if (!opened) mkdirSync(dir, { recursive: true, mode: 0o700 });
    const fresh = new Database(file, { fileMustExist: false });
    try {
      fresh.pragma('journal_mode = WAL');
      // NORMAL: a commit reaches the OS before the caller goes on (a crash of the process loses nothing); no fsync per record.
      fresh.pragma('synchronous = NORMAL');
      // Worker processes (docs/operations.md#workers) share the file: wait out another's batch (a millisecond or so) rather than
      // fail the write, which fail-closed reads would answer with a 503; a lock held longer still fails and is retried.
      fresh.pragma('busy_timeout = 100');
      statements = table.open(fresh);
    } catch (error) {
      fresh.close();
      throw error;
    }
    const stat = statSync(file);
    identity = { dev: stat.dev, ino: stat.ino };
    const { write, trim } = statements;
    writeBatch = fresh.transaction((records: readonly R[]) => {
      for (const record of records) write(record);
      sinceRetention += records.length;
      if (sinceRetention >= RETENTION_STEP) {
        sinceRetention = 0;
        trim(maxRecords);
      }
    });
    db = fresh;
    opened = true;
    return fresh;
  }

  return {
    open: () => void database(),
    write(records) {
      database();
      try {
        // IMMEDIATE: the write lock first (waiting out another worker's batch), so what the batch reads stays true until it commits.
        writeBatch!.immediate(records);
      } catch (error) {
        statements!.rolledBack();
        throw error;
      }
    },
    close() {
      db?.close();
      db = undefined;
    },
  };
}

/** A bounded queue in front of `writer` (see the header). */
export function createSink<R>(writer: SinkWriter<R>, options: SinkOptions): Sink<R> {
  const queue: R[] = [];
  let scheduled = false;
  let retryMs = RETRY_FIRST_MS;
  let retryTimer: NodeJS.Timeout | undefined;
  let closed = false;

  /** Writes up to a batch of queued records; false when the write failed (they stay queued). */
  function writeNext(): boolean {
    const batch = queue.slice(0, BATCH);
    try {
      writer.write(batch);
    } catch (error) {
      options.onWriteError(error as Error);
      return false;
    }
    queue.splice(0, batch.length);
    retryMs = RETRY_FIRST_MS;
    return true;
  }

  function drain(): void {
    scheduled = false;
    retryTimer = undefined;
    if (queue.length === 0) return;
    if (!writeNext()) {
      if (!closed) {
        retryTimer = setTimeout(drain, retryMs);
        retryTimer.unref();
        retryMs = Math.min(RETRY_MAX_MS, retryMs * 2);
      }
      return;
    }
    if (queue.length > 0) schedule();
  }

  function schedule(): void {
    if (scheduled || retryTimer !== undefined || closed) return;
    scheduled = true;
    // After the answers of this I/O turn are written: the drain never delays a response it could follow.
    setImmediate(drain);
  }

  return {
    get queued() {
      return queue.length;
    },
    enqueue(record) {
      if (queue.length >= options.queueCapacity) {
        options.onDropped(1);
        return false;
      }
      queue.push(record);
      schedule();
      return true;
    },
    writeNow(record) {
      try {
        writer.write([record]);
      } catch (error) {
        options.onWriteError(error as Error);
        throw error;
      }
    },
    flush: writeQueued,
    close() {
      closed = true;
      if (retryTimer !== undefined) clearTimeout(retryTimer);
      retryTimer = undefined;
      writeQueued();
      writer.close();
    },
  };

  function writeQueued(): void {
    while (queue.length > 0 && writeNext());
  }
}

/** Opens a sink file to read beside a running service (the CLI); undefined when it does not exist. */
export function openSinkForReading(dir: string, file: string): Database.Database | undefined {
  const full = path.join(dir, file);
  if (statSync(full, { throwIfNoEntry: false }) === undefined) return undefined;
  return new Database(full, { readonly: true, fileMustExist: true });
}
