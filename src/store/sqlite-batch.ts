/**
 * A large batch of the embedded store (an import: `appendAtomically`)
 * written on a worker thread, so that the event loop goes on answering
 * evaluate while SQLite writes it. better-sqlite3 is synchronous: on the
 * store's own connection the transaction of a 100k-rule import held the
 * node 2 to 3 s in one piece (bench/import-stall.ts).
 *
 * This thread turns the events into their texts (JSON) a slice at a time,
 * turning the event loop between slices, and posts each slice to the worker
 * as it is made: texts, not the parsed events (100k rule events took ~0.4 s
 * to stringify, which the links need anyway, and ~1.4 s to structuredClone;
 * bench/import-stall.ts); the worker
 * links and inserts them in one transaction (sqlite-batch-worker.ts) and
 * answers once it committed or refused the whole. The chain's head is read
 * inside that transaction, as on the store's connection, so links never fork.
 */
import path from 'node:path';
import { setImmediate as turn } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';
import { ConcurrencyError, StoreUnavailableError, StreamDeletedError, type AppendResult, type StreamAppend } from './port';
import { textAppends } from './sqlite-append';
import type { BatchJob, BatchOutcome, BatchPart, BatchRefusal } from './sqlite-batch-worker';

const WORKER_FILE = path.join(__dirname, 'sqlite-batch-worker.js');

/** Events turned into texts between two turns of the event loop. */
const SLICE_EVENTS = 1000;

/** The store's error for a refusal the worker reported. */
function refusalError(refused: BatchRefusal): Error {
  switch (refused.kind) {
    case 'concurrency':
      return new ConcurrencyError(refused.stream, refused.expected, refused.actual);
    case 'deleted':
      return new StreamDeletedError(refused.stream);
    case 'sqlite':
      return new StoreUnavailableError(`sqlite: ${refused.message}`);
    default:
      return new Error(refused.message);
  }
}

/** Writes `appends` as one transaction on a worker thread's connection to the store at `file`; all or nothing. */
export async function appendOnWorker(file: string, synchronous: BatchJob['synchronous'], appends: readonly StreamAppend[]): Promise<AppendResult[]> {
  const worker = new Worker(WORKER_FILE, { workerData: { path: file, synchronous } satisfies BatchJob });
  const outcome = new Promise<BatchOutcome>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', (error) => reject(new StoreUnavailableError(`sqlite: the batch writer failed: ${error.message}`, error)));
    worker.once('exit', (code) => reject(new StoreUnavailableError(`sqlite: the batch writer stopped before it answered (exit code ${code})`)));
  });
  // A rejection before the parts are all posted is read below; never unhandled meanwhile.
  outcome.catch(() => undefined);
  try {
    for (let from = 0; from < appends.length;) {
      let to = from;
      for (let events = 0; to < appends.length && events < SLICE_EVENTS; to++) events += appends[to]!.events.length;
      worker.postMessage({ appends: textAppends(appends.slice(from, to)) } satisfies BatchPart);
      from = to;
      await turn();
    }
    worker.postMessage({ commit: true } satisfies BatchPart);
    const answer = await outcome;
    if ('refused' in answer) throw refusalError(answer.refused);
    return [...answer.results];
  } finally {
    void worker.terminate();
  }
}
