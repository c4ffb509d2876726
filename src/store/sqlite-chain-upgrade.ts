/**
 * Links a log written before the hash chain (docs/auditors.md#the-hash-chain: `rulevault
 * audit chain-upgrade`): every event without a link gets one, in position
 * order, continuing from the last linked event. Only `metadata.chain` is
 * added; stream, revision, id, type, data and the rest of the metadata stay
 * byte for byte as they were. Batches commit one by one, so an interrupted
 * upgrade resumes where it stopped when run again. Run with no writer on the
 * file (the CLI takes the data folder's lock).
 */
import Database from 'better-sqlite3';
import { EMPTY_CHAIN, headOf, nextLink, splitMetadataText, withLinkText, type ChainHead } from './chain';
import { EVENT_COLUMNS, prepareDatabase, type EventRow } from './sqlite-schema';

export interface UpgradeResult {
  /** Events that got a link now. */
  readonly linked: number;
  /** Events that had one already. */
  readonly already_linked: number;
  /** The chain's last sequence after the upgrade (0: empty log). */
  readonly seq: number;
}

export class ChainUpgradeError extends Error {
  override readonly name = 'ChainUpgradeError';
}

/** Upgrades the embedded store at `path` in place. */
export function upgradeSqliteChain(path: string, batchSize = 10_000): UpgradeResult {
  const db = new Database(path, { fileMustExist: true, timeout: 5000 });
  try {
    db.defaultSafeIntegers(true);
    prepareDatabase(db);
    const page = db.prepare<[bigint, number], EventRow>(`SELECT ${EVENT_COLUMNS} FROM events WHERE position > ? ORDER BY position LIMIT ?`).raw();
    const update = db.prepare<[string, bigint], unknown>('UPDATE events SET metadata = ? WHERE position = ?');
    let head: ChainHead = EMPTY_CHAIN;
    let linked = 0;
    let already = 0;
    let after = 0n;
    const batch = db.transaction((): number => {
      const rows = page.all(after, batchSize);
      for (const [position, stream, revision, id, type, data, metadata] of rows) {
        const { metaText: storedMeta, link } = splitMetadataText(metadata);
        if (link !== undefined) {
          if (linked > 0) throw new ChainUpgradeError(`the event at position ${position} is linked, but events before it were not: this log was not written by RuleVault's adapters; verify it instead`);
          head = headOf(link);
          already++;
        } else {
          // Texts as the adapter writes them (JSON.stringify), whatever wrote the row.
          const metaText = JSON.stringify(JSON.parse(storedMeta));
          const next = nextLink(head, { stream, revision, id, type, dataText: JSON.stringify(JSON.parse(data)), metaText });
          update.run(withLinkText(metaText, next), position);
          head = headOf(next);
          linked++;
        }
        after = position;
      }
      return rows.length;
    });
    while (batch.immediate() === batchSize);
    return { linked, already_linked: already, seq: head.seq };
  } finally {
    db.close();
  }
}
