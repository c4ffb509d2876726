/**
 * Worker thread of the embedded store's read-ahead (sqlite-read-ahead.ts):
 * reads the log after `after` up to `head` on its own read-only connection
 * and posts it page by page, each page one JSON text (one string crosses
 * the thread boundary as a copy; the main thread parses it in one call).
 * It stays at most `pagesAhead` pages in front: each message from the main
 * thread grants one more page.
 */
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { withoutLinkText } from './chain';
import { rangePages, type EventRow } from './sqlite-schema';

export interface ReadAheadJob {
  readonly path: string;
  /** Decimal positions: after (exclusive, '0' for the start) and head (inclusive). */
  readonly after: string;
  readonly head: string;
  readonly pageSize: number;
  /** Bytes of data that end a page (ReadAheadOptions.pageBytes). */
  readonly pageBytes: number;
  readonly pagesAhead: number;
}

/** What the worker posts: a page, the end, or why it stopped. */
export type ReadAheadMessage = { readonly page: string } | { readonly done: true } | { readonly error: string };

/**
 * A page as `[[position, stream, revision, id, type, data, metadata], ...]`:
 * positions and revisions as decimal strings (exact beyond 2^53); data and
 * metadata are stored as JSON text already and go in as they are, except
 * that the metadata's hash-chain link is left out. A catch-up feeds read
 * models, which never read links; parsing them cost the main thread about
 * a fifth more per event (bench: chain, cold replay). Whoever needs links
 * reads them with readAll (the verifier, export, the checkpointer).
 */
export function pageText(rows: readonly EventRow[]): string {
  let text = '[';
  for (let i = 0; i < rows.length; i++) {
    const [position, stream, revision, id, type, data, metadata] = rows[i];
    text += `${i === 0 ? '' : ','}["${position}",${JSON.stringify(stream)},"${revision}",${JSON.stringify(id)},${JSON.stringify(type)},${data},${withoutLinkText(metadata)}]`;
  }
  return text + ']';
}

function run(port: NonNullable<typeof parentPort>, job: ReadAheadJob): void {
  const db = new Database(job.path, { readonly: true, fileMustExist: true });
  db.defaultSafeIntegers(true);
  const readPage = rangePages(db, { rows: job.pageSize, bytes: job.pageBytes });
  const head = BigInt(job.head);
  let cursor = BigInt(job.after);
  let credit = job.pagesAhead;
  let finished = false;

  const finish = (message: ReadAheadMessage): void => {
    finished = true;
    db.close();
    port.postMessage(message);
    port.close();
  };
  const pump = (): void => {
    try {
      while (credit > 0 && !finished) {
        const { rows, more } = readPage(cursor, head);
        if (rows.length > 0) {
          cursor = rows[rows.length - 1][0];
          port.postMessage({ page: pageText(rows) } satisfies ReadAheadMessage);
          credit -= 1;
        }
        if (!more) finish({ done: true });
      }
    } catch (error) {
      if (!finished) finish({ error: error instanceof Error ? error.message : String(error) });
    }
  };
  port.on('message', (granted: number) => {
    credit += granted;
    pump();
  });
  pump();
}

if (parentPort !== null) run(parentPort, workerData as ReadAheadJob);
