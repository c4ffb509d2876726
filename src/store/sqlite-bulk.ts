/**
 * Loads a whole log into an EMPTY embedded store in large transactions: one
 * fsync per batch instead of one per append. For imports and for building
 * benchmark logs of millions of events; the service itself never uses it.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { EMPTY_CHAIN, eventTexts, linkTexts, type ChainHead } from './chain';
import type { EventMetadata, Json } from './port';
import { prepareDatabase } from './sqlite-schema';

export interface BulkEvent {
  readonly stream: string;
  readonly type: string;
  readonly data: { readonly [key: string]: Json };
  readonly metadata: EventMetadata;
  readonly id?: string;
}

/**
 * Appends `events` in order (revisions per stream from 0); throws if the store
 * already holds events. `linked` false writes a log as it was before the hash
 * chain (benchmarks compare the two; tests build logs for chain-upgrade).
 */
export function bulkLoadSqlite(path: string, events: Iterable<BulkEvent>, batchSize = 50_000, linked = true): number {
  mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path);
  try {
    prepareDatabase(db);
    if ((db.prepare('SELECT count(*) AS n FROM events').get() as { n: number }).n > 0) {
      throw new Error(`${path} already holds events: bulk loading needs an empty store`);
    }
    const insert = db.prepare('INSERT INTO events (stream, revision, id, type, data, metadata) VALUES (?, ?, ?, ?, ?, ?)');
    const setRevision = db.prepare(
      'INSERT INTO streams (stream, revision) VALUES (?, ?) ON CONFLICT (stream) DO UPDATE SET revision = excluded.revision',
    );
    const revisions = new Map<string, number>();
    // Linked as the adapter links appends (src/store/chain.ts), one event at a time.
    let head: ChainHead | undefined = linked ? EMPTY_CHAIN : undefined;
    const flush = db.transaction((batch: BulkEvent[]) => {
      const touched = new Set<string>();
      for (const event of batch) {
        const revision = (revisions.get(event.stream) ?? -1) + 1;
        revisions.set(event.stream, revision);
        touched.add(event.stream);
        const linked = linkTexts(head, event.stream, BigInt(revision), [eventTexts(event, randomUUID)], false);
        head = linked.head;
        const row = linked.events[0]!;
        insert.run(event.stream, revision, row.id, row.type, row.dataText, row.metadataText);
      }
      for (const stream of touched) setRevision.run(stream, revisions.get(stream)!);
    });
    let batch: BulkEvent[] = [];
    let count = 0;
    for (const event of events) {
      batch.push(event);
      count++;
      if (batch.length >= batchSize) {
        flush(batch);
        batch = [];
      }
    }
    if (batch.length > 0) flush(batch);
    return count;
  } finally {
    db.close();
  }
}
