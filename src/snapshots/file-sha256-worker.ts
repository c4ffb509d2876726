/**
 * Worker thread of file-sha256.ts: hashes byte ranges of a file (a range
 * without an end runs to the file's end) and posts their hex digests once
 * (or the error's message).
 */
import { createHash } from 'node:crypto';
import { open } from 'node:fs/promises';
import { parentPort, workerData } from 'node:worker_threads';

export interface ByteRange {
  readonly from: number;
  /** Exclusive; undefined: to the end of the file. */
  readonly to?: number;
}

export interface DigestJob {
  readonly path: string;
  readonly ranges: readonly ByteRange[];
}

const CHUNK = 1 << 23;

async function digests(job: DigestJob): Promise<string[]> {
  const handle = await open(job.path, 'r');
  try {
    const buffer = Buffer.allocUnsafe(CHUNK);
    const sums: string[] = [];
    for (const { from, to = Infinity } of job.ranges) {
      const hash = createHash('sha256');
      for (let position = from; position < to; ) {
        const { bytesRead } = await handle.read(buffer, 0, Math.min(CHUNK, to - position), position);
        if (bytesRead === 0) break;
        hash.update(buffer.subarray(0, bytesRead));
        position += bytesRead;
      }
      sums.push(hash.digest('hex'));
    }
    return sums;
  } finally {
    await handle.close();
  }
}

if (parentPort !== null) {
  const port = parentPort;
  digests(workerData as DigestJob).then(
    (hex) => port.postMessage({ hex }),
    (error: unknown) => port.postMessage({ error: error instanceof Error ? error.message : String(error) }),
  );
}
