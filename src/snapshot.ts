/**
 * Snapshots of the read models: the folded catalog state (rules, contexts,
 * prompts, the sealed vault, API keys) with its log position, a format
 * version, the identity of the log it came from, and a checksum. Secrets stay
 * sealed in a snapshot, exactly as in the log.
 *
 * A snapshot that is corrupt, of another format or from another log is
 * ignored with a warning: the caller replays the whole log instead.
 */
import { createHash, type Hash } from 'node:crypto';
import { open, readFile, rename } from 'node:fs/promises';
import { restoreState, snapshotMembers, type CatalogState, type SnapshotMembers } from '../projections';

/**
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
export const SNAPSHOT_FORMAT = 3;
export const SNAPSHOT_FILE = 'snapshot.json';

interface Envelope {
  readonly format: number;
  /** Id of the first event of the log: a snapshot never applies to another log. */
  readonly log_id: string;
  readonly position: string;
}

type MemberLine = { readonly member: string; readonly items: number } | { readonly member: string; readonly value: unknown };

export interface Snapshot {
  readonly logId: string;
  readonly position: bigint;
  readonly state: CatalogState;
}

export type SnapshotLoad = { readonly ok: true; readonly snapshot: Snapshot } | { readonly ok: false; readonly reason: string };

/** The body's lines (each without its newline), in file order. */
function* bodyLines(state: CatalogState, logId: string): Generator<string> {
  if (state.position === undefined) throw new Error('nothing to snapshot: no event applied');
  const envelope: Envelope = { format: SNAPSHOT_FORMAT, log_id: logId, position: state.position.toString() };
  yield JSON.stringify(envelope);
  for (const [member, value] of Object.entries(snapshotMembers(state))) {
    if (!Array.isArray(value)) {
      yield JSON.stringify({ member, value });
      continue;
    }
    yield JSON.stringify({ member, items: value.length });
    for (const item of value) yield JSON.stringify(item);
  }
}

const headerLine = (hash: Hash): string => JSON.stringify({ format: SNAPSHOT_FORMAT, sha256: hash.digest('hex') });

/** The snapshot file's text, for states small enough to be one string (tests); files are written by `writeSnapshotFile`. */
export function encodeSnapshot(state: CatalogState, logId: string): string {
  const body = [...bodyLines(state, logId)].map((line) => `${line}\n`).join('');
  return `${headerLine(createHash('sha256').update(body, 'utf8'))}\n${body}`;
}

const invalid: SnapshotLoad = { ok: false, reason: 'the snapshot is not valid JSON' };
const formatMismatch = (format: unknown): SnapshotLoad => ({
  ok: false,
  reason: `the snapshot has format ${String(format)}, this version reads ${SNAPSHOT_FORMAT}`,
});

/** Parses and checks a snapshot file's bytes (or text); rebuilds indexes (templates stay unparsed until first use). */
export function decodeSnapshot(file: Buffer | string): SnapshotLoad {
  const bytes = typeof file === 'string' ? Buffer.from(file, 'utf8') : file;
  const newline = bytes.indexOf(10);
  let header: { format?: unknown; sha256?: unknown; body?: unknown } | null;
  try {
    header = JSON.parse(bytes.toString('utf8', 0, newline === -1 ? bytes.length : newline));
  } catch {
    return invalid;
  }
  if (header === null || typeof header !== 'object') return invalid;
  // Format 1 was one JSON object with the body inside as a string.
  const format = typeof header.body === 'string' ? 1 : header.format;
  if (format !== SNAPSHOT_FORMAT) return formatMismatch(format);
  const body = newline === -1 ? Buffer.alloc(0) : bytes.subarray(newline + 1);
  // The bytes are hashed as read: no decoding of the whole file into one string.
  if (header.sha256 !== createHash('sha256').update(body).digest('hex')) {
    return { ok: false, reason: 'the snapshot checksum does not match (corrupt or truncated)' };
  }
  let envelope: Envelope;
  let members: SnapshotMembers;
  try {
    ({ envelope, members } = parseBody(body));
  } catch {
    return invalid;
  }
  if (envelope.format !== SNAPSHOT_FORMAT) return formatMismatch(envelope.format);
  try {
    const position = BigInt(envelope.position);
    return { ok: true, snapshot: { logId: envelope.log_id, position, state: restoreState(position, members) } };
  } catch (error) {
    return { ok: false, reason: `the snapshot could not be restored: ${error instanceof Error ? error.message : String(error)}` };
  }
}

/** The envelope and the members of a body; throws on a line that is not JSON or a body that ends early. */
function parseBody(body: Buffer): { envelope: Envelope; members: SnapshotMembers } {
  let at = 0;
  const next = (): unknown => {
    const end = body.indexOf(10, at);
    if (end === -1) throw new Error('the snapshot ends early');
    const value: unknown = JSON.parse(body.toString('utf8', at, end));
    at = end + 1;
    return value;
  };
  const envelope = next() as Envelope;
  const members: { [member: string]: unknown } = {};
  while (at < body.length) {
    const line = next() as MemberLine;
    if ('value' in line) {
      members[line.member] = line.value;
      continue;
    }
    const items: unknown[] = new Array(line.items);
    for (let i = 0; i < line.items; i++) items[i] = next();
    members[line.member] = items;
  }
  return { envelope, members };
}

/** Lines are written in chunks of about this many characters. */
const CHUNK = 1 << 22;

/**
 * Writes atomically (temp file, then rename), owner-only, streaming the
 * lines: the header's fixed-width checksum is written last, over a
 * placeholder of the same length.
 */
export async function writeSnapshotFile(path: string, state: CatalogState, logId: string): Promise<void> {
  const temp = `${path}.tmp`;
  const hash = createHash('sha256');
  const placeholder = `${JSON.stringify({ format: SNAPSHOT_FORMAT, sha256: '0'.repeat(64) })}\n`;
  const handle = await open(temp, 'w', 0o600);
  try {
    await handle.write(placeholder);
    let chunk = '';
    const flush = async (): Promise<void> => {
      hash.update(chunk, 'utf8');
      await handle.write(chunk);
      chunk = '';
    };
    for (const line of bodyLines(state, logId)) {
      chunk += `${line}\n`;
      if (chunk.length >= CHUNK) await flush();
    }
    await flush();
    await handle.write(`${headerLine(hash)}\n`, 0);
  } finally {
    await handle.close();
  }
  await rename(temp, path);
}

/** Reads a snapshot file; a missing file is `{ ok: false, reason: 'none' }`. */
export async function readSnapshotFile(path: string): Promise<SnapshotLoad> {
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch {
    return { ok: false, reason: 'none' };
  }
  return decodeSnapshot(bytes);
}
