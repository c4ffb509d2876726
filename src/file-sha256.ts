/**
 * SHA-256s of a file's byte ranges, computed on a worker thread so the
 * caller's thread parses the same file meanwhile: at 1M rules hashing the
 * ~700 MB snapshot was ~0.5 s of the start's one busy thread, and the engine
 * image's sections ~0.2 s more (bench: million); the second core takes them.
 */
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { ByteRange, DigestJob } from './file-sha256-worker';

const WORKER_FILE = path.join(__dirname, 'file-sha256-worker.js');

/** The digest of each range, in order (a range past the end hashes what is there); rejects when the file cannot be read. */
export function sha256OfRanges(file: string, ranges: readonly ByteRange[]): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const job: DigestJob = { path: file, ranges };
    const worker = new Worker(WORKER_FILE, { workerData: job });
    let settled = false;
    const settle = (done: () => void): void => {
      if (settled) return;
      settled = true;
      done();
      void worker.terminate();
    };
    worker.on('message', (answer: { hex?: string[]; error?: string }) =>
      settle(() => (answer.hex !== undefined ? resolve(answer.hex) : reject(new Error(answer.error)))));
    worker.on('error', (error) => settle(() => reject(error)));
    worker.on('exit', (code) => settle(() => reject(new Error(`the digest worker exited with code ${code}`))));
  });
}

/** The digest of the bytes from `from` to the end of the file. */
export async function sha256OfFile(file: string, from = 0): Promise<string> {
  const [sum] = await sha256OfRanges(file, [{ from }]);
  return sum!;
}
