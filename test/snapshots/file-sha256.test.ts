/** The worker thread's file digests (src/snapshots/file-sha256.ts): the SHA-256 of each byte range (or from an offset on), or a rejection. */
import { createHash, randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { sha256OfFile, sha256OfRanges } from '../../src/snapshots/file-sha256';
import { removeDir, tempDir } from '../support/temp';

/** A file of `size` random bytes, removed when `t` ends. */
function bytesFile(t: tap.Test, size: number): { file: string; bytes: Buffer } {
  const dir = tempDir();
  t.teardown(() => removeDir(dir));
  const file = path.join(dir, 'f');
  const bytes = randomBytes(size);
  writeFileSync(file, bytes);
  return { file, bytes };
}

t.test('the digest of the bytes from the offset to the end, across its read chunks', async (t) => {
  // Longer than the worker's 8 MiB read, so the digest spans reads.
  const { file, bytes } = bytesFile(t, (1 << 23) + 12_345);
  for (const from of [0, 1, 4_000, bytes.length - 1, bytes.length]) {
    t.equal(await sha256OfFile(file, from), createHash('sha256').update(bytes.subarray(from)).digest('hex'), `from ${from}`);
  }
});

t.test('the digest of each range, in order: bounded, empty, across reads, past the end', async (t) => {
  const { file, bytes } = bytesFile(t, (1 << 23) + 999);
  const ranges = [{ from: 10, to: 20 }, { from: 5, to: 5 }, { from: 100, to: (1 << 23) + 500 }, { from: 0, to: 7 }, { from: bytes.length - 3, to: bytes.length + 50 }];
  const sum = (part: Buffer) => createHash('sha256').update(part).digest('hex');
  t.same(await sha256OfRanges(file, ranges), ranges.map(({ from, to }) => sum(bytes.subarray(from, to))));
});

t.test('a missing file rejects, naming the file', async (t) => {
  const dir = tempDir();
  t.teardown(() => removeDir(dir));
  await t.rejects(sha256OfFile(path.join(dir, 'missing')), /ENOENT.*missing/);
});
