/**
 * SHA-256s of a file's byte ranges, computed on a worker thread so the
 * caller's thread parses the same file meanwhile: at 1M rules hashing the
 * ~700 MB snapshot was ~0.5 s of the start's one busy thread, and the engine
 * image's sections ~0.2 s more (bench: million); the second core takes them.
 */
import path from 'node:path';
import type { ByteRange, DigestJob } from './file-sha256-worker';
import { workerAnswer } from '../base/worker-answer';

const WORKER_FILE = path.join(__dirname, 'file-sha256-worker.js');

/** The digest of each range, in order (a range past the end hashes what is there); rejects when the file cannot be read. */
export async function sha256OfRanges(file: string, ranges: readonly ByteRange[]): Promise<string[]> {
  const job: DigestJob = { path: file, ranges };
  const answer = await workerAnswer<{ hex?: string[]; error?: string }>(WORKER_FILE, job);
  if (answer.hex === undefined) throw new Error(answer.error);
  return answer.hex;
}

/** The digest of the bytes from `from` to the end of the file. */
export async function sha256OfFile(file: string, from = 0): Promise<string> {
  const [sum] = await sha256OfRanges(file, [{ from }]);
  return sum!;
}
