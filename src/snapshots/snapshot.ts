/**
 * Snapshots of the read models: the folded catalog state (rules, contexts,
 * prompts, the sealed vault, API keys) with its log position, a format
 * version, the identity of the log it came from and of the event at its
 * position, and a checksum. Secrets stay sealed in a snapshot, exactly as in
 * the log.
 *
 * A snapshot that is corrupt, of another format or from another log is
 * ignored with a warning: the caller replays the whole log instead.
 */
import { createHash } from 'node:crypto';
import { open, rename, type FileHandle } from 'node:fs/promises';
import { LINES_MEMBERS, RawJson, restoreState, snapshotMembers, type CatalogState, type SnapshotMembers } from '../../projections';
import { sha256OfFile } from './file-sha256';
import type { LogMark } from '../store/chain';
import { PackedLines } from './packed-lines';

/**
 * 5: the members of change control too (protections, change requests:
 * projections/change-control.ts); a format 4 file, written by a version that
 * skipped those events, is discarded and the log replayed. Otherwise as 4.
 * 4: the envelope names the event at the snapshot's position
 * (`"last_event":{"id":...,"chain":...}`, its hash-chain link's hash or
 * null): a start uses the snapshot only on a log that has that very event
 * there (snapshotter.ts). Otherwise as 3.
 * 3: one JSON value per line, so that no string ever holds the whole
 * snapshot: V8 caps a string at 2^29-24 characters (~512 MB), and 1M rules
 * make a ~700 MB snapshot, which format 2 (the body as one JSON text) could
 * neither write nor read (bench: million). Line 1 is the header
 * `{"format":3,"sha256":...}` (of every byte after it), line 2 the envelope
 * `{"format":3,"log_id":...,"position":...}`, then each read model's
 * members: an array member as `{"member":name,"items":n}` and its n items
 * one per line, any other member as `{"member":name,"value":...}`.
 * JSON.stringify never writes a raw newline, so a line is one value.
 * Format 2 carried the body as one JSON text after the header; format 1 as
 * a JSON string inside the envelope.
 */
export const SNAPSHOT_FORMAT = 5;
export const SNAPSHOT_FILE = 'snapshot.json';

interface Envelope {
  readonly format: number;
  /** Id of the first event of the log: a snapshot never applies to another log. */
  readonly log_id: string;
  readonly position: string;
  /** The event at `position`: the snapshot applies only to a log that has it there. */
  readonly last_event: LogMark;
}

type MemberLine = { readonly member: string; readonly items: number } | { readonly member: string; readonly value: unknown };

export interface Snapshot {
  readonly logId: string;
  readonly position: bigint;
  /** What identifies the log at `position`. */
  readonly mark: LogMark;
  readonly state: CatalogState;
  /** The header's checksum of the body: what the engine image saved beside it names (engine-image-file.ts). */
  readonly sha256: string;
}

export type SnapshotLoad = { readonly ok: true; readonly snapshot: Snapshot } | { readonly ok: false; readonly reason: string };

/** The body's lines (each without its newline), in file order; `mark` is asked when the envelope is made, in the same step as the position is read. */
function* bodyLines(state: CatalogState, logId: string, mark: () => LogMark): Generator<string> {
  if (state.position === undefined) throw new Error('nothing to snapshot: no event applied');
  const last = mark();
  const envelope: Envelope = { format: SNAPSHOT_FORMAT, log_id: logId, position: state.position.toString(), last_event: { id: last.id, chain: last.chain } };
  yield JSON.stringify(envelope);
  for (const [member, value] of Object.entries(snapshotMembers(state))) {
    if (!Array.isArray(value)) {
      yield JSON.stringify({ member, value });
      continue;
    }
    yield JSON.stringify({ member, items: value.length });
    // A record never read since a start from a snapshot goes out as the line it came in as (projections/lazy-rules.ts).
    for (const item of value) yield item instanceof RawJson ? item.text : JSON.stringify(item);
  }
}

const headerLine = (sha256: string): string => JSON.stringify({ format: SNAPSHOT_FORMAT, sha256 });

/** The snapshot file's text, for states small enough to be one string (tests); files are written by `writeSnapshotFile`. */
export function encodeSnapshot(state: CatalogState, logId: string, mark: LogMark): string {
  const body = [...bodyLines(state, logId, () => mark)].map((line) => `${line}\n`).join('');
  return `${headerLine(createHash('sha256').update(body, 'utf8').digest('hex'))}\n${body}`;
}

const invalid: SnapshotLoad = { ok: false, reason: 'the snapshot is not valid JSON' };
const corrupt: SnapshotLoad = { ok: false, reason: 'the snapshot checksum does not match (corrupt or truncated)' };
const formatMismatch = (format: unknown): SnapshotLoad => ({
  ok: false,
  reason: `the snapshot has format ${String(format)}, this version reads ${SNAPSHOT_FORMAT}`,
});

/** The header line's checksum, or why the file is not a snapshot this version reads. */
function readHeader(text: string): { readonly sha256: string } | SnapshotLoad {
  let header: { format?: unknown; sha256?: unknown; body?: unknown } | null;
  try {
    header = JSON.parse(text);
  } catch {
    return invalid;
  }
  if (header === null || typeof header !== 'object') return invalid;
  // Format 1 was one JSON object with the body inside as a string.
  const format = typeof header.body === 'string' ? 1 : header.format;
  if (format !== SNAPSHOT_FORMAT) return formatMismatch(format);
  return typeof header.sha256 === 'string' ? { sha256: header.sha256 } : invalid;
}

/**
 * The body's lines, parsed as they come (each line's bytes without its
 * newline) into the envelope and the members; after a line that is not
 * JSON, or one that does not fit, it only notes that the body is invalid.
 * The items of a member the read models take as lines (LINES_MEMBERS: the
 * rule records) are kept as bytes, unparsed: a read model decodes each when
 * first read (bench: million), and the checksum has vouched for them.
 */
interface BodyReader {
  line(bytes: Buffer, start: number, end: number): void;
  /** Inside a member kept as lines: takes its whole lines from `start` (PackedLines.addLines); returns where the rest starts. */
  lines(bytes: Buffer, start: number): number;
  /** The envelope and members, or null when a line was invalid or the body ended early. */
  finish(): { envelope: Envelope; members: SnapshotMembers } | null;
}

/** `bodyBytes`: the body's size (at most), so a member kept as lines takes its memory at once (PackedLines). */
function createBodyReader(bodyBytes: number): BodyReader {
  let envelope: Envelope | undefined;
  const members: { [member: string]: unknown } = {};
  let items: unknown[] = [];
  let lines: PackedLines | undefined;
  let left = 0;
  let failed = false;
  return {
    lines(bytes, start) {
      if (failed || lines === undefined || left === 0) return start;
      const before = lines.count;
      const rest = lines.addLines(bytes, start, left);
      left -= lines.count - before;
      return rest;
    },
    line(bytes, start, end) {
      if (failed) return;
      let value: unknown;
      try {
        value = JSON.parse(bytes.toString('utf8', start, end));
      } catch {
        failed = true;
        return;
      }
      if (envelope === undefined) envelope = value as Envelope;
      else if (left > 0) items[items.length - left--] = value;
      else if (value !== null && typeof value === 'object' && 'value' in value) {
        const line = value as { member: string; value: unknown };
        members[line.member] = line.value;
      } else {
        const line = value as { member?: unknown; items?: unknown };
        if (typeof line?.member !== 'string' || !Number.isInteger(line.items) || (line.items as number) < 0) failed = true;
        else if (LINES_MEMBERS.has(line.member)) members[line.member] = lines = new PackedLines((left = line.items as number), bodyBytes);
        else {
          lines = undefined;
          members[line.member] = items = new Array((left = line.items as number));
        }
      }
    },
    finish: () => (failed || envelope === undefined || left > 0 ? null : { envelope, members }),
  };
}

/** Feeds every complete line of `bytes` from `from`; returns where the unfinished last line starts. */
function feedLines(reader: BodyReader, bytes: Buffer, from = 0): number {
  let at = reader.lines(bytes, from);
  for (let end = bytes.indexOf(10, at); end !== -1; end = bytes.indexOf(10, at)) {
    reader.line(bytes, at, end);
    at = reader.lines(bytes, end + 1);
  }
  return at;
}

/** The snapshot from a checked body's envelope and members. */
function restored(body: { envelope: Envelope; members: SnapshotMembers } | null, sha256: string): SnapshotLoad {
  if (body === null) return invalid;
  const { envelope, members } = body;
  if (envelope.format !== SNAPSHOT_FORMAT) return formatMismatch(envelope.format);
  const last = envelope.last_event as Partial<LogMark> | undefined;
  if (typeof last?.id !== 'string' || (last.chain !== null && typeof last.chain !== 'string')) {
    return { ok: false, reason: 'the snapshot does not name the event at its position' };
  }
  try {
    const position = BigInt(envelope.position);
    const mark: LogMark = { id: last.id, chain: last.chain };
    return { ok: true, snapshot: { logId: envelope.log_id, position, mark, state: restoreState(position, members), sha256 } };
  } catch (error) {
    return { ok: false, reason: `the snapshot could not be restored: ${error instanceof Error ? error.message : String(error)}` };
  }
}

/** Parses and checks a snapshot file's bytes (or text); rebuilds indexes (templates stay unparsed until first use). */
export function decodeSnapshot(file: Buffer | string): SnapshotLoad {
  const bytes = typeof file === 'string' ? Buffer.from(file, 'utf8') : file;
  const newline = bytes.indexOf(10);
  const header = readHeader(bytes.toString('utf8', 0, newline === -1 ? bytes.length : newline));
  if ('ok' in header) return header;
  const body = newline === -1 ? Buffer.alloc(0) : bytes.subarray(newline + 1);
  // The bytes are hashed as read: no decoding of the whole file into one string.
  if (header.sha256 !== createHash('sha256').update(body).digest('hex')) return corrupt;
  const reader = createBodyReader(body.length);
  return feedLines(reader, body) === body.length ? restored(reader.finish(), header.sha256) : invalid;
}

/** Bytes read from a snapshot file at a time. */
const READ_CHUNK = 1 << 23;

/**
 * The file at `path` opened for reading, or undefined when it cannot be
 * (missing, unreadable): the snapshot and the engine image alike are then
 * "none", and the node starts without them.
 */
export async function openToRead(path: string): Promise<FileHandle | undefined> {
  try {
    return await open(path, 'r');
  } catch {
    return undefined;
  }
}

/**
 * Reads a snapshot file; a missing file is `{ ok: false, reason: 'none' }`.
 * The file is read in chunks into one buffer, each chunk's lines parsed
 * before the next is read, so the file's bytes are never all in memory beside the state
 * they decode to (bench: million, a 1M-rule snapshot is ~700 MB); a worker
 * thread reads and hashes the file meanwhile (file-sha256.ts). Nothing
 * parsed is used unless the checksum matches at the end. `chunkBytes` is
 * for tests (lines and characters split between chunks).
 */
export async function readSnapshotFile(path: string, chunkBytes = READ_CHUNK): Promise<SnapshotLoad> {
  const handle = await openToRead(path);
  if (handle === undefined) return { ok: false, reason: 'none' };
  try {
    const reader = createBodyReader((await handle.stat()).size);
    let header: { readonly sha256: string } | undefined;
    // The body's checksum, hashed on another thread from the file as this one parses it (file-sha256.ts);
    // undefined when it could not be computed.
    let digest: Promise<string | undefined> | undefined;
    // One buffer for the whole read, its unfinished last line moved to the front before the next read:
    // a buffer per chunk made ~100 MB of external garbage per 1M-rule start, and V8 answers that with full GCs.
    let buffer = Buffer.allocUnsafe(chunkBytes);
    let filled = 0;
    for (;;) {
      if (filled === buffer.length) {
        // A line longer than the buffer.
        const bigger = Buffer.allocUnsafe(buffer.length * 2);
        buffer.copy(bigger, 0, 0, filled);
        buffer = bigger;
      }
      const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, null);
      if (bytesRead === 0) break;
      const bytes = buffer.subarray(0, filled + bytesRead);
      let at = 0;
      if (header === undefined) {
        const newline = bytes.indexOf(10);
        if (newline === -1) {
          filled = bytes.length;
          continue;
        }
        const read = readHeader(bytes.toString('utf8', 0, newline));
        if ('ok' in read) return read;
        header = read;
        // The buffer holds the file from its first byte until the header is found: the body starts here in the file too.
        at = newline + 1;
        digest = sha256OfFile(path, at).catch(() => undefined);
      }
      // A line that runs past the read is finished by the next one (a newline byte never sits inside a UTF-8 character).
      const rest = feedLines(reader, bytes, at);
      filled = buffer.copy(buffer, 0, rest, bytes.length);
    }
    if (header === undefined) {
      // One line and no body: a format 1 file, or a header with nothing after it.
      const read = readHeader(buffer.toString('utf8', 0, filled));
      if ('ok' in read) return read;
      return read.sha256 !== createHash('sha256').digest('hex') ? corrupt : invalid;
    }
    const sha256 = await digest;
    if (sha256 === undefined) return { ok: false, reason: 'the snapshot could not be read' };
    if (header.sha256 !== sha256) return corrupt;
    return filled > 0 ? invalid : restored(reader.finish(), header.sha256);
  } catch {
    return { ok: false, reason: 'the snapshot could not be read' };
  } finally {
    await handle.close();
  }
}

/** Lines are written in chunks of about this many characters. */
const CHUNK = 1 << 22;

/**
 * Writes atomically (temp file, then rename), owner-only, streaming the
 * lines: the header's fixed-width checksum is written last, over a
 * placeholder of the same length. Returns that checksum, the position
 * written, and what `atStart` took: it runs in the same synchronous step as
 * the state's members are taken (and `mark` is asked), so it sees the very
 * state written (the engine image of snapshotter.ts), however many events
 * apply while the lines are written.
 */
export async function writeSnapshotFile<T = undefined>(
  path: string,
  state: CatalogState,
  logId: string,
  mark: () => LogMark,
  atStart?: () => T,
): Promise<{ readonly sha256: string; readonly position: bigint; readonly taken: T | undefined }> {
  let position: bigint | undefined;
  let taken: T | undefined;
  const temp = `${path}.tmp`;
  const hash = createHash('sha256');
  const placeholder = `${JSON.stringify({ format: SNAPSHOT_FORMAT, sha256: '0'.repeat(64) })}\n`;
  const handle = await open(temp, 'w', 0o600);
  let sha256 = '';
  try {
    await handle.write(placeholder);
    let chunk = '';
    const flush = async (): Promise<void> => {
      hash.update(chunk, 'utf8');
      await handle.write(chunk);
      chunk = '';
    };
    let first = true;
    for (const line of bodyLines(state, logId, mark)) {
      if (first) {
        // The envelope and the members are taken in this one step (the generator's first lines), as is what atStart takes.
        position = state.position;
        taken = atStart?.();
        first = false;
      }
      chunk += `${line}\n`;
      if (chunk.length >= CHUNK) await flush();
    }
    await flush();
    sha256 = hash.digest('hex');
    await handle.write(`${headerLine(sha256)}\n`, 0);
  } finally {
    await handle.close();
  }
  await rename(temp, path);
  if (position === undefined) throw new Error('nothing to snapshot: no event applied');
  return { sha256, position, taken };
}

