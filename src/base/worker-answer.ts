/**
 * A worker thread that posts one answer: started on `file` with `data`,
 * settled once by its first message, its error or its exit, then
 * terminated. The file digests (src/snapshots/file-sha256.ts) and the chain verify's
 * ranges (src/audit/chain-verify-sqlite.ts) run this way.
 */
import { Worker } from 'node:worker_threads';

/** A worker that stopped before it answered. */
export class WorkerExitError extends Error {
  constructor(readonly code: number) {
    super(`the worker exited with code ${code} before it answered`);
  }
}

/** The worker's first message; rejects with its error, or a WorkerExitError when it exits first. */
export function workerAnswer<T>(file: string, data: unknown): Promise<T> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(file, { workerData: data });
    let settled = false;
    const settle = (done: () => void): void => {
      if (settled) return;
      settled = true;
      done();
      void worker.terminate();
    };
    worker.on('message', (answer: T) => settle(() => resolve(answer)));
    worker.on('error', (error) => settle(() => reject(error)));
    worker.on('exit', (code) => settle(() => reject(new WorkerExitError(code))));
  });
}
