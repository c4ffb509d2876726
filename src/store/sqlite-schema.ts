/** The embedded event store's connection settings and tables. */
import type Database from 'better-sqlite3';

/**
 * SQLite checkpoints the WAL into the database file automatically once it
 * holds this many pages (4 KiB each), on the committing connection: on the
 * event loop, with an fsync of the WAL and one of the file. A rule write
 * adds about 5 frames to the WAL (the events leaf, its index, the stream
 * row, the autoincrement counter), so SQLite's default of 1,000 pages
 * checkpointed every ~200 writes, 25 times a second at 5,000 writes/s; at
 * 10,000 pages it is every ~2,000 writes, each copying barely more distinct
 * pages (the same hot leaves are rewritten frame after frame). The WAL stays
 * bounded at about 40 MB: the checkpoint runs on the one writer between its
 * commits, so it always catches up and the next commit starts the WAL over
 * (a checkpoint on another thread never caught up under a sustained load:
 * the writer kept appending past it, and the WAL grew without bound).
 * test/store/sqlite-wal.test.ts holds it bounded.
 * Bench: cpu-per-request --workload writes, A/B against the default (same CPU per write, +32% writes/s under load).
 */
export const WAL_AUTOCHECKPOINT_PAGES = 10_000;

/** How long a connection waits for another one's lock before it fails (busy_timeout). */
export const BUSY_TIMEOUT_MS = 5000;

/** The columns an event is read with, in `EventRow` order (the adapter and its read-ahead worker). */
export const EVENT_COLUMNS = 'position, stream, revision, id, type, data, metadata';
/** An events row read raw (as an array, with safe integers): position, stream, revision, id, type, data, metadata. */
export type EventRow = readonly [bigint, string, bigint, string, string, string, string];

/**
 * How many of the rows whose data sizes are `sizes` (in order) a page takes: up to and with the one that
 * brings it to `maxBytes`. Pages are decoded, or joined into one text, whole: 5,000 rows of 110 KB made a
 * text longer than V8's longest string, and a catch-up that read them failed.
 */
export function rowsWithin(sizes: readonly (number | bigint)[], maxBytes: number): number {
  let bytes = 0;
  for (let i = 0; i < sizes.length; i++) {
    bytes += Number(sizes[i]);
    if (bytes >= maxBytes) return i + 1;
  }
  return sizes.length;
}

/** One page: its rows, and whether more may follow it (it stopped at its bound, rows or bytes). */
export interface BoundedPage<R> {
  readonly rows: R[];
  readonly more: boolean;
}

/**
 * The page that the next rows, whose data sizes are `sizes` (at most `limits.rows` of them, read first), make:
 * `read(n)` reads the first n of them. The one rule for where every bounded page of the log ends.
 */
export function cutPage<R>(sizes: readonly bigint[], limits: { readonly rows: number; readonly bytes: number }, read: (take: number) => R[]): BoundedPage<R> {
  const take = rowsWithin(sizes, limits.bytes);
  return { rows: take === 0 ? [] : read(take), more: take < sizes.length || sizes.length === limits.rows };
}

/**
 * Reads (from, through] on `db` a page at a time (the read-ahead worker, the verify threads): at most
 * `limits.rows` rows, ending with the row whose data brings the page to `limits.bytes` (`rowsWithin`). The
 * sizes come first, from the rows' headers (`octet_length` reads no text: 2,000 rows of 1 MB in 0.75 ms,
 * where length() took 0.93 s; bench/HISTORY.md, "pages of the log held to 8 MB"), then only the rows that fit, in
 * one read transaction: a stream deleted between the two reads would let unmeasured rows in.
 */
export function rangePages(db: Database.Database, limits: { readonly rows: number; readonly bytes: number }): (from: bigint, through: bigint) => BoundedPage<EventRow> {
  const range = 'FROM events WHERE position > ? AND position <= ? ORDER BY position LIMIT ?';
  const sizes = db.prepare<[bigint, bigint, number], bigint>(`SELECT octet_length(data) ${range}`).pluck();
  const rows = db.prepare<[bigint, bigint, number], EventRow>(`SELECT ${EVENT_COLUMNS} ${range}`).raw();
  return db.transaction((from: bigint, through: bigint) => cutPage(sizes.all(from, through, limits.rows), limits, (take) => rows.all(from, through, take)));
}

/**
 * Applies the connection pragmas and creates the tables when missing.
 *
 * - WAL: readers (subscriptions, an operator CLI) never block the writer.
 * - synchronous: FULL (the default, and the store with group commit off)
 *   fsyncs the WAL at every commit, so a commit survives not only `kill -9`
 *   but also power loss and kernel panics, which is what the port's "durable
 *   when the promise resolves" means for an audit log; single-event appends
 *   measured ~450/s on the 2-core dev VM (store report). NORMAL (the store
 *   with group commit on) leaves a commit in the OS page cache, which
 *   survives `kill -9` only: the store then makes commits durable itself,
 *   many at a time, with one fdatasync of the WAL (group-sync.ts) before any
 *   of them is acknowledged. Checkpoints still sync under NORMAL.
 * - secure_delete=ON: deleted rows are overwritten with zeros, so an erased
 *   secret's sealed value does not linger in free pages.
 * - busy_timeout: another process holding the write lock makes us wait, not fail.
 * - wal_autocheckpoint: WAL_AUTOCHECKPOINT_PAGES (above).
 */
export function prepareDatabase(db: Database.Database, synchronous: 'FULL' | 'NORMAL' = 'FULL'): void {
  db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${synchronous}`);
  db.pragma('secure_delete = ON');
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  db.pragma(`wal_autocheckpoint = ${WAL_AUTOCHECKPOINT_PAGES}`);
  db.exec(`
    CREATE TABLE IF NOT EXISTS events (
      position INTEGER PRIMARY KEY AUTOINCREMENT,
      stream   TEXT    NOT NULL,
      revision INTEGER NOT NULL,
      id       TEXT    NOT NULL,
      type     TEXT    NOT NULL,
      data     TEXT    NOT NULL,
      metadata TEXT    NOT NULL,
      UNIQUE (stream, revision)
    );
    -- One row per stream ever written: its last revision, or deleted = 1 for good.
    CREATE TABLE IF NOT EXISTS streams (
      stream   TEXT    PRIMARY KEY,
      revision INTEGER,
      deleted  INTEGER NOT NULL DEFAULT 0
    ) WITHOUT ROWID;
  `);
}
