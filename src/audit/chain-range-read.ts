/**
 * Reads one position range of the embedded store for the verify's range
 * check (chain-range.ts): what a verify worker runs (chain-verify-worker.ts),
 * and the caller itself when one range is all there is. Kept apart from
 * chain-verify-sqlite.ts so that a worker loads only this, not the replay.
 */
import Database from 'better-sqlite3';
import { createRangeCheck, type PriorLink, type RangeResult } from './chain-range';
import { CHECKPOINT_WINDOW, type VerifyOptions } from './chain-verify';
import { splitMetadataText } from '../store/chain';
import { rangePages } from '../store/sqlite-schema';
import { LOG_PAGE_BYTES } from '../store/port';

/** Rows per read: large pages, few statement runs (bench: chain, verify). */
const PAGE = 5000;

/** Positions: after (exclusive) and through (inclusive). */
export interface Range {
  readonly after: bigint;
  readonly through: bigint;
}

/** What a worker is given: the file and its range (decimal positions). */
export interface RangeJob {
  readonly file: string;
  readonly after: string;
  readonly through: string;
}

/**
 * Checks the rows of `range` on `db` (a read-only connection of its own),
 * starting from the links stored just before it. Yields to the event loop
 * between pages.
 */
export async function checkRange(db: Database.Database, range: Range, options: Pick<VerifyOptions, 'checkSignature'>): Promise<RangeResult> {
  const before = db
    .prepare<[bigint, number], [bigint, string]>('SELECT position, metadata FROM events WHERE position <= ? ORDER BY position DESC LIMIT ?')
    .raw()
    .all(range.after, CHECKPOINT_WINDOW)
    .reverse()
    .flatMap(([position, metadata]): PriorLink[] => {
      const { link } = splitMetadataText(metadata);
      return link === undefined ? [] : [{ position, seq: link.seq, hash: link.hash }];
    });
  const check = createRangeCheck({ before, checkSignature: options.checkSignature });
  // Pages held to LOG_PAGE_BYTES of data too: 5,000 rows of 1 MB would be 5 GB decoded at once on each thread.
  const readPage = rangePages(db, { rows: PAGE, bytes: LOG_PAGE_BYTES });
  let cursor = range.after;
  for (;;) {
    const { rows, more } = readPage(cursor, range.through);
    for (const row of rows) if (!check.add(row)) return check.result();
    if (!more) return check.result();
    cursor = rows[rows.length - 1]![0];
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** Opens `file` read-only with the adapter's integer settings. */
export function openForVerify(file: string): Database.Database {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  db.defaultSafeIntegers(true);
  return db;
}

