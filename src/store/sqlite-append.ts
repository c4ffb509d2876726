/**
 * The embedded store's appends, on one connection: the statements, the
 * optimistic-concurrency check and the chain's links, in IMMEDIATE
 * transactions. The store's own connection (sqlite.ts) and its batch
 * worker's (sqlite-batch-worker.ts) both write through these, so an import
 * written on the worker is checked and linked exactly as one written here.
 *
 * Checked and written in one IMMEDIATE transaction: the write lock is taken
 * before the revision is read, so two connections cannot both pass the
 * check; UNIQUE (stream, revision) backs this up should that ever be broken.
 * The chain's head is read under the same lock, so links never fork.
 */
import { randomUUID } from 'node:crypto';
import type Database from 'better-sqlite3';
import { EMPTY_CHAIN, eventTexts, headOf, linkTexts, splitMetadataText, type ChainHead, type EventTexts } from './chain';
import { ConcurrencyError, StreamDeletedError, type AppendResult, type ExpectedRevision, type NewEvent, type StreamAppend } from './port';
import type { EventRow } from './sqlite-schema';
import { crashPoint } from '../base/crash-points';

/** One stream's part of a batch, its events as texts (what crosses to the batch worker). */
export interface TextAppend {
  readonly stream: string;
  readonly events: readonly EventTexts[];
  readonly expected: ExpectedRevision;
}

export interface SqliteAppends {
  /** The stream's current revision (undefined: no stream); throws `StreamDeletedError` when it was deleted. */
  currentRevision(stream: string): bigint | undefined;
  /** One stream's append as one transaction (call `.immediate`). `erasing`: its link says it erases the stream's earlier events. */
  readonly appendTx: Database.Transaction<(stream: string, events: readonly EventTexts[], expected: ExpectedRevision, erasing?: boolean) => AppendResult>;
  /** Several streams' appends, in order, as one transaction (call `.immediate`); all or nothing. */
  readonly appendManyTx: Database.Transaction<(appends: readonly TextAppend[]) => AppendResult[]>;
}

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

/** A batch's events as texts (ids given to those without). */
export function textAppends(appends: readonly StreamAppend[]): TextAppend[] {
  return appends.map(({ stream, events, expected }) => ({ stream, expected, events: textsOf(events) }));
}

export const textsOf = (events: readonly NewEvent[]): EventTexts[] => events.map((event) => eventTexts(event, randomUUID));

/** The appends on `db` (safe integers on); `onRow` sees each row as it is inserted, as a read would return it. */
export function prepareAppends(db: Database.Database, onRow?: (row: EventRow) => void): SqliteAppends {
  const statements = {
    stream: db.prepare<[string], StreamRow>('SELECT revision, deleted FROM streams WHERE stream = ?'),
    insert: db.prepare<[string, bigint, string, string, string, string], unknown>(
      'INSERT INTO events (stream, revision, id, type, data, metadata) VALUES (?, ?, ?, ?, ?, ?)',
    ),
    setRevision: db.prepare<[string, bigint], unknown>(
      'INSERT INTO streams (stream, revision) VALUES (?, ?) ON CONFLICT (stream) DO UPDATE SET revision = excluded.revision',
    ),
    lastMetadata: db.prepare<[], string>('SELECT metadata FROM events ORDER BY position DESC LIMIT 1').pluck(),
  };

  const currentRevision = (stream: string): bigint | undefined => {
    const row = statements.stream.get(stream);
    if (row === undefined) return undefined;
    if (row.deleted !== 0n) throw new StreamDeletedError(stream);
    return row.revision ?? undefined;
  };

  /** The chain's head, read inside the write transaction (another connection may have appended); undefined: an unchained log. */
  const chainHead = (): ChainHead | undefined => {
    const last = statements.lastMetadata.get();
    if (last === undefined) return EMPTY_CHAIN;
    const { link } = splitMetadataText(last);
    return link === undefined ? undefined : headOf(link);
  };

  /** One stream's append, inside a write transaction, after chain head `head`; returns the head after it. */
  const appendInTx = (
    stream: string, events: readonly EventTexts[], expected: ExpectedRevision, erasing: boolean, head: ChainHead | undefined,
  ): { readonly result: AppendResult; readonly head: ChainHead | undefined } => {
    const current = currentRevision(stream);
    if (!expectationHolds(expected, current)) throw new ConcurrencyError(stream, expected, current);
    let revision = current ?? -1n;
    let position = 0n;
    const linked = linkTexts(head, stream, revision + 1n, events, erasing);
    for (const event of linked.events) {
      revision += 1n;
      const result = statements.insert.run(stream, revision, event.id, event.type, event.dataText, event.metadataText);
      position = BigInt(result.lastInsertRowid);
      onRow?.([position, stream, revision, event.id, event.type, event.dataText, event.metadataText]);
    }
    statements.setRevision.run(stream, revision);
    return { result: { nextRevision: revision, position }, head: linked.head };
  };

  const appendTx = db.transaction((stream: string, events: readonly EventTexts[], expected: ExpectedRevision, erasing = false): AppendResult =>
    appendInTx(stream, events, expected, erasing, chainHead()).result);

  // Import (issue 18 item 4): several streams' appends as one transaction, so one commit, one fsync. The
  // chain's head is read once and carried from stream to stream, and no stream has a savepoint of its own
  // (a failure rolls the whole batch back anyway): per stream, both were a share of the transaction that holds
  // the node (bench: import probe, docs/api.md#import).
  const appendManyTx = db.transaction((appends: readonly TextAppend[]): AppendResult[] => {
    let head = chainHead();
    const results = appends.map(({ stream, events, expected }) => {
      const appended = appendInTx(stream, events, expected, false, head);
      head = appended.head;
      return appended.result;
    });
    crashPoint('atomic:in-transaction');
    return results;
  });

  return { currentRevision, appendTx, appendManyTx };
}
