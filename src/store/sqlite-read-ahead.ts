/**
 * Read-ahead for long catch-ups on the embedded store. Profile of a 1M-event
 * cold start (bench: replay): SQLite reads and row building took a third of
 * the main thread, JSON parsing another third. A worker thread now does the
 * reading on the other core, several pages ahead of the fold, and hands each
 * page over as one JSON text; this thread parses it in one call and folds.
 * Memory stays bounded: the worker runs at most `pagesAhead` pages ahead.
 * The events it delivers carry no `metadata.chain` (see `pageText`).
 */
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { StoreUnavailableError, type EventMetadata, type RecordedEvent } from './port';
import type { ReadAheadJob, ReadAheadMessage } from './sqlite-read-ahead-worker';

const WORKER_FILE = path.join(__dirname, 'sqlite-read-ahead-worker.js');

export interface ReadAhead {
  /** The next page, in position order; undefined once `head` was delivered or after `cancel`. */
  next(): Promise<RecordedEvent[] | undefined>;
  /** Stops the worker; pending and later `next` calls answer undefined. */
  cancel(): void;
}

export interface ReadAheadOptions {
  readonly pageSize: number;
  /** A page ends with the row whose data brings it to this many bytes (a page is one string: V8 caps one at ~512 MB). */
  readonly pageBytes: number;
  readonly pagesAhead: number;
}

type PageRow = [string, string, string, string, string, RecordedEvent['data'], EventMetadata];

/** Parses a page the worker wrote (see `pageText`) into recorded events. */
export function parsePage(text: string): RecordedEvent[] {
  const rows = JSON.parse(text) as PageRow[];
  const events = new Array<RecordedEvent>(rows.length);
  for (let i = 0; i < rows.length; i++) {
    const [position, stream, revision, id, type, data, metadata] = rows[i];
    // Same member order as the synchronous read path: one object shape.
    events[i] = { id, stream, type, revision: BigInt(revision), position: BigInt(position), data, metadata };
  }
  return events;
}

/** Reads the log at `file` after `after` up to `head` (inclusive) on a worker thread. */
export function readAhead(file: string, after: bigint | undefined, head: bigint, options: ReadAheadOptions): ReadAhead {
  const job: ReadAheadJob = { path: file, after: String(after ?? 0n), head: String(head), ...options };
  const worker = new Worker(WORKER_FILE, { workerData: job });
  const pages: string[] = [];
  let ended = false;
  let failure: Error | undefined;
  let wake: (() => void) | undefined;

  const settle = (): void => {
    wake?.();
    wake = undefined;
  };
  const fail = (error: Error): void => {
    if (ended || failure !== undefined) return;
    failure = error;
    void worker.terminate();
    settle();
  };
  worker.on('message', (message: ReadAheadMessage) => {
    if ('page' in message) pages.push(message.page);
    else if ('done' in message) ended = true;
    else fail(new StoreUnavailableError(`sqlite: ${message.error}`));
    settle();
  });
  worker.on('error', (error) => fail(new StoreUnavailableError(`sqlite: the log reader failed: ${error.message}`, error)));
  worker.on('exit', (code) => fail(new StoreUnavailableError(`sqlite: the log reader stopped early (exit code ${code})`)));

  return {
    async next() {
      while (pages.length === 0 && !ended && failure === undefined) {
        await new Promise<void>((resolve) => (wake = resolve));
      }
      const text = pages.shift();
      if (text !== undefined) {
        if (!ended) worker.postMessage(1);
        return parsePage(text);
      }
      if (failure !== undefined && !ended) throw failure;
      return undefined;
    },
    cancel() {
      if (ended) return;
      ended = true;
      pages.length = 0;
      void worker.terminate();
      settle();
    },
  };
}
