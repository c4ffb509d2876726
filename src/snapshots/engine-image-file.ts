/**
 * The compiled engine saved beside the snapshot (`snapshot.engine`), so a
 * start from the snapshot restores the engine instead of compiling every
 * rule (bench: million). It belongs to one snapshot: its header names the
 * snapshot's checksum, log id and position, and it is used only with that
 * very snapshot, once the snapshot itself passed its checks against the log
 * (snapshotter.ts). It holds rule conditions only, never a secret.
 *
 * Layout: one JSON header line, padded with spaces to a multiple of 8 bytes,
 *   {"format":3,"log_id":...,"position":"...","snapshot_sha256":...,
 *    "sections":[{"name":...,"bytes":n,"sha256":...},...]}
 * then each section's bytes, each padded with zeros to a multiple of 8, so
 * the arena's words and the float64 keys are read in place, without a copy.
 * A section whose checksum does not match, a file shorter or longer than its
 * header says, or a header of another format is refused with its reason;
 * the start then compiles the rules from the snapshot as before.
 */
import { createHash } from 'node:crypto';
import { open, rename } from 'node:fs/promises';
import { setImmediate } from 'node:timers/promises';
import { markRoom, sectionRoom, type ImageSection } from '../engine';
import { sha256OfRanges } from './file-sha256';
import { openToRead } from './snapshot';
import type { ByteRange } from './file-sha256-worker';

export const ENGINE_IMAGE_FILE = 'snapshot.engine';
/**
 * 3: the predicates one JSON row per line, made after the start, and the regexes' patterns in the meta
 * (engine/shared-predicates.ts); 2: the rule entries are restored in place and the engine's epoch is kept
 * (engine/rule-table.ts). An image of another format is ignored (the start compiles the rules, once).
 */
const FORMAT = 3;

/** What an image must belong to: the snapshot's checksum, its log and position. */
export interface ImageBinding {
  readonly logId: string;
  readonly position: bigint;
  readonly snapshotSha256: string;
}

interface Header {
  readonly format: number;
  readonly log_id: string;
  readonly position: string;
  readonly snapshot_sha256: string;
  readonly sections: ReadonlyArray<{ readonly name: string; readonly bytes: number; readonly sha256: string }>;
}

const padded = (n: number): number => n + ((8 - (n % 8)) % 8);

/** Bytes hashed between yields while writing: a 1M-rule arena (~140 MB) hashed at once held the event loop ~0.3 s. */
const HASH_SLICE = 8 << 20;

/** sha256 of `bytes`, yielding to the event loop between slices: a periodic snapshot writes the image while serving. */
async function sha256Yielding(bytes: Uint8Array): Promise<string> {
  const hash = createHash('sha256');
  for (let at = 0; at < bytes.byteLength; at += HASH_SLICE) {
    hash.update(bytes.subarray(at, at + HASH_SLICE));
    await setImmediate();
  }
  return hash.digest('hex');
}

/** Writes the image atomically (temp file, then rename), owner-only. */
export async function writeEngineImageFile(path: string, sections: readonly ImageSection[], binding: ImageBinding): Promise<void> {
  const sums: string[] = [];
  for (const { bytes } of sections) sums.push(await sha256Yielding(bytes));
  const header: Header = {
    format: FORMAT,
    log_id: binding.logId,
    position: binding.position.toString(),
    snapshot_sha256: binding.snapshotSha256,
    sections: sections.map(({ name, bytes }, k) => ({ name, bytes: bytes.byteLength, sha256: sums[k] })),
  };
  const line = JSON.stringify(header);
  const head = Buffer.from(`${line}${' '.repeat(padded(line.length + 1) - line.length - 1)}\n`, 'utf8');
  const temp = `${path}.tmp`;
  const handle = await open(temp, 'w', 0o600);
  try {
    await handle.write(head);
    const zeros = Buffer.alloc(8);
    for (const { bytes } of sections) {
      await handle.write(bytes);
      const pad = padded(bytes.byteLength) - bytes.byteLength;
      if (pad > 0) await handle.write(zeros, 0, pad);
    }
  } finally {
    await handle.close();
  }
  await rename(temp, path);
}

export type ImageLoad = { readonly ok: true; readonly sections: Map<string, Uint8Array> } | { readonly ok: false; readonly reason: string };

/** Bytes read at once while looking for the header's end. */
const HEADER_CHUNK = 1 << 16;

/**
 * Reads and checks the image of the snapshot `binding` names; a missing file
 * is `{ ok: false, reason: 'none' }`, as is any image when `binding` comes
 * to undefined (its snapshot is not used). `binding` may be a promise: the
 * file is read meanwhile and checked against it at the end. Each section is read into a buffer of
 * its own, aligned, so the engine keeps the arena's words where they were
 * read (image.ts), and no buffer holds the whole file; a worker thread
 * reads the sections again and hashes them meanwhile (file-sha256.ts).
 */
export async function readEngineImageFile(path: string, binding: ImageBinding | PromiseLike<ImageBinding | undefined>): Promise<ImageLoad> {
  const handle = await openToRead(path);
  if (handle === undefined) return { ok: false, reason: 'none' };
  try {
    const size = (await handle.stat()).size;
    let head = Buffer.alloc(0);
    let newline = -1;
    while (newline === -1 && head.length < size) {
      const chunk = Buffer.alloc(Math.min(HEADER_CHUNK, size - head.length));
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, head.length);
      if (bytesRead === 0) break;
      head = Buffer.concat([head, chunk.subarray(0, bytesRead)]);
      newline = head.indexOf(10);
    }
    let header: Header;
    try {
      header = JSON.parse(head.toString('utf8', 0, newline === -1 ? 0 : newline)) as Header;
    } catch {
      return { ok: false, reason: 'its header is not valid JSON' };
    }
    if (header?.format !== FORMAT) return { ok: false, reason: `it has format ${String(header?.format)}, this version reads ${FORMAT}` };
    if (!Array.isArray(header.sections)) return { ok: false, reason: 'its header lists no sections' };
    // Where each section is in the file (each padded to 8 bytes): the size check, the digests and the reads use them.
    const ranges: ByteRange[] = [];
    let expected = newline + 1;
    for (const { bytes } of header.sections) {
      ranges.push({ from: expected, to: expected + Number(bytes) });
      expected += padded(Number(bytes));
    }
    if (size !== expected) return { ok: false, reason: `it is ${size} bytes, its header says ${expected} (truncated or extended)` };
    // The sections' checksums, computed on another thread from the file while this one reads it (file-sha256.ts).
    const digests = sha256OfRanges(path, ranges).catch(() => undefined);
    const sections = new Map<string, Uint8Array>();
    for (const [k, { name, bytes }] of header.sections.entries()) {
      // A buffer of its own (offset 0), never a slice of the shared pool; with room (the arena's: sectionRoom),
      // zeroed past the section (Buffer.alloc: untouched pages are not resident until the arena grows into them).
      const room = sectionRoom(name, bytes);
      const body = room === 0 ? Buffer.allocUnsafeSlow(padded(bytes)) : Buffer.alloc(padded(bytes) + room);
      const end = padded(bytes);
      for (let got = 0; got < end; ) {
        const { bytesRead } = await handle.read(body, got, end - got, ranges[k]!.from + got);
        if (bytesRead === 0) return { ok: false, reason: `its section ${name} ends early (truncated)` };
        got += bytesRead;
      }
      const section = body.subarray(0, bytes);
      if (room > 0) markRoom(section);
      sections.set(name, section);
    }
    // The snapshot it must belong to may be known only now (loadStartState reads both files at once).
    const bound = await binding;
    if (bound === undefined) return { ok: false, reason: 'none' };
    if (header.snapshot_sha256 !== bound.snapshotSha256 || header.log_id !== bound.logId || header.position !== bound.position.toString()) {
      return { ok: false, reason: 'it belongs to another snapshot' };
    }
    const sums = await digests;
    if (sums === undefined) return { ok: false, reason: 'it could not be read' };
    const wrong = header.sections.find((section, k) => section.sha256 !== sums[k]);
    if (wrong !== undefined) return { ok: false, reason: `its section ${wrong.name} does not match its checksum (corrupt)` };
    return { ok: true, sections };
  } catch (error) {
    return { ok: false, reason: `it could not be read: ${error instanceof Error ? error.message : String(error)}` };
  } finally {
    await handle.close();
  }
}
