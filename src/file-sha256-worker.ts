/**
 * Worker thread of file-sha256.ts: hashes a file from an offset to its end
 * and posts the hex digest once (or the error's message).
 */
import { createHash } from 'node:crypto';
import { open } from 'node:fs/promises';
import { parentPort, workerData } from 'node:worker_threads';

export interface DigestJob {
  readonly path: string;
  readonly from: number;
}

const CHUNK = 1 << 23;

async function digest(job: DigestJob): Promise<string> {
  const handle = await open(job.path, 'r');
  try {
    const hash = createHash('sha256');
    const buffer = Buffer.allocUnsafe(CHUNK);
    for (let position = job.from; ;) {
      const { bytesRead } = await handle.read(buffer, 0, CHUNK, position);
      if (bytesRead === 0) return hash.digest('hex');
      hash.update(buffer.subarray(0, bytesRead));
      position += bytesRead;
    }
  } finally {
    await handle.close();
  }
}

if (parentPort !== null) {
  const port = parentPort;
  digest(workerData as DigestJob).then(
    (hex) => port.postMessage({ hex }),
    (error: unknown) => port.postMessage({ error: error instanceof Error ? error.message : String(error) }),
  );
}
