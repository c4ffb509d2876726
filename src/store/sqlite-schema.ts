/** The embedded event store's connection settings and tables. */
import type Database from 'better-sqlite3';

/** The columns an event is read with, in `EventRow` order (the adapter and its read-ahead worker). */
export const EVENT_COLUMNS = 'position, stream, revision, id, type, data, metadata';
/** An events row read raw (as an array, with safe integers): position, stream, revision, id, type, data, metadata. */
export type EventRow = readonly [bigint, string, bigint, string, string, string, string];

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
 */
export function prepareDatabase(db: Database.Database, synchronous: 'FULL' | 'NORMAL' = 'FULL'): void {
  db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${synchronous}`);
  db.pragma('secure_delete = ON');
  db.pragma('busy_timeout = 5000');
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
