/**
 * The SHA-256 of a file from an offset to its end, computed on a worker
 * thread so the caller's thread parses the same file meanwhile: at 1M rules
 * hashing the ~700 MB snapshot was ~0.5 s of the start's one busy thread
 * (bench: million), which the second core now takes.
 */
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { DigestJob } from './file-sha256-worker';

const WORKER_FILE = path.join(__dirname, 'file-sha256-worker.js');

/** Rejects when the file cannot be read or the worker fails. */
export function sha256OfFile(file: string, from = 0): Promise<string> {
  return new Promise((resolve, reject) => {
    const job: DigestJob = { path: file, from };
    const worker = new Worker(WORKER_FILE, { workerData: job });
    let settled = false;
    const settle = (done: () => void): void => {
      if (settled) return;
      settled = true;
      done();
      void worker.terminate();
    };
    worker.on('message', (answer: { hex?: string; error?: string }) =>
      settle(() => (answer.hex !== undefined ? resolve(answer.hex) : reject(new Error(answer.error)))));
    worker.on('error', (error) => settle(() => reject(error)));
    worker.on('exit', (code) => settle(() => reject(new Error(`the digest worker exited with code ${code}`))));
  });
}
