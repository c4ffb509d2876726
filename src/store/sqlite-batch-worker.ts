/**
 * Worker thread of the embedded store's large batches (sqlite-batch.ts):
 * takes a batch's appends as texts, part by part, then writes them as one
 * transaction on a connection of its own (sqlite-append.ts, as the store's
 * connection would) and posts the results, or the error that refused the
 * whole batch. One batch per worker.
 */
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { ConcurrencyError, StreamDeletedError, type AppendResult, type ExpectedRevision } from './port';
import { prepareAppends, type TextAppend } from './sqlite-append';
import { prepareDatabase } from './sqlite-schema';

export interface BatchJob {
  readonly path: string;
  /** The store connection's own setting (group commit: NORMAL; off: FULL, every commit synced). */
  readonly synchronous: 'FULL' | 'NORMAL';
}

/** What the main thread posts: a part of the batch, then the word to write it. */
export type BatchPart = { readonly appends: readonly TextAppend[] } | { readonly commit: true };

/** Why a batch was refused, as the store's own errors are rebuilt from it (sqlite-batch.ts). */
export type BatchRefusal =
  | { readonly kind: 'concurrency'; readonly stream: string; readonly expected: ExpectedRevision; readonly actual: bigint | undefined }
  | { readonly kind: 'deleted'; readonly stream: string }
  | { readonly kind: 'sqlite'; readonly message: string }
  | { readonly kind: 'other'; readonly message: string };

/** What the worker posts once: the batch's results in order, or its refusal (nothing written). */
export type BatchOutcome = { readonly results: readonly AppendResult[] } | { readonly refused: BatchRefusal };

function refusal(error: unknown): BatchRefusal {
  if (error instanceof ConcurrencyError) return { kind: 'concurrency', stream: error.stream, expected: error.expected, actual: error.actual };
  if (error instanceof StreamDeletedError) return { kind: 'deleted', stream: error.stream };
  const message = error instanceof Error ? error.message : String(error);
  return error instanceof Database.SqliteError ? { kind: 'sqlite', message } : { kind: 'other', message };
}

function run(port: NonNullable<typeof parentPort>, job: BatchJob): void {
  const appends: TextAppend[] = [];
  port.on('message', (part: BatchPart) => {
    if ('appends' in part) {
      for (const append of part.appends) appends.push(append);
      return;
    }
    let outcome: BatchOutcome;
    let db: Database.Database | undefined;
    try {
      db = new Database(job.path, { fileMustExist: true, timeout: 5000 });
      db.defaultSafeIntegers(true);
      prepareDatabase(db, job.synchronous);
      outcome = { results: prepareAppends(db).appendManyTx.immediate(appends) };
    } catch (error) {
      outcome = { refused: refusal(error) };
    } finally {
      db?.close();
    }
    port.postMessage(outcome);
    port.close();
  });
}

if (parentPort !== null) run(parentPort, workerData as BatchJob);
