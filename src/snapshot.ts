/**
 * Snapshots of the read models: the folded catalog state (rules, contexts,
 * prompts, the sealed vault, API keys) with its log position, a format
 * version, the identity of the log it came from, and a checksum. Secrets stay
 * sealed in a snapshot, exactly as in the log.
 *
 * A snapshot that is corrupt, of another format or from another log is
 * ignored with a warning: the caller replays the whole log instead.
 */
import { createHash } from 'node:crypto';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { restoreState, snapshotMembers, type CatalogState, type SnapshotMembers } from '../projections';

/**
 * 2: a header line `{"format":2,"sha256":...}`, then the body JSON. Format 1
 * carried the body as a JSON string inside the envelope, and unescaping it
 * was a fifth of a snapshot's decoding (20k rules: 38 of 200 ms).
 */
export const SNAPSHOT_FORMAT = 2;
export const SNAPSHOT_FILE = 'snapshot.json';

/** The envelope's members, then each read model's (projections/read-models.ts). */
type SnapshotBody = SnapshotMembers & {
  readonly format: number;
  /** Id of the first event of the log: a snapshot never applies to another log. */
  readonly log_id: string;
  readonly position: string;
};

export interface Snapshot {
  readonly logId: string;
  readonly position: bigint;
  readonly state: CatalogState;
}

export type SnapshotLoad = { readonly ok: true; readonly snapshot: Snapshot } | { readonly ok: false; readonly reason: string };

/** Serializes the state as the snapshot file's text (JSON with a SHA-256 of the body). */
export function encodeSnapshot(state: CatalogState, logId: string): string {
  if (state.position === undefined) throw new Error('nothing to snapshot: no event applied');
  const body: SnapshotBody = {
    format: SNAPSHOT_FORMAT,
    log_id: logId,
    position: state.position.toString(),
    ...snapshotMembers(state),
  };
  const text = JSON.stringify(body);
  return `${JSON.stringify({ format: SNAPSHOT_FORMAT, sha256: sha256(text) })}\n${text}`;
}

const invalid: SnapshotLoad = { ok: false, reason: 'the snapshot is not valid JSON' };
const formatMismatch = (format: unknown): SnapshotLoad => ({
  ok: false,
  reason: `the snapshot has format ${String(format)}, this version reads ${SNAPSHOT_FORMAT}`,
});

/** Parses and checks a snapshot file's text; rebuilds indexes (templates stay unparsed until first use). */
export function decodeSnapshot(text: string): SnapshotLoad {
  const newline = text.indexOf('\n');
  let header: { format?: unknown; sha256?: unknown; body?: unknown } | null;
  try {
    header = JSON.parse(newline === -1 ? text : text.slice(0, newline));
  } catch {
    return invalid;
  }
  if (header === null || typeof header !== 'object') return invalid;
  // Format 1 was one JSON object with the body inside as a string.
  const format = typeof header.body === 'string' ? 1 : header.format;
  if (format !== SNAPSHOT_FORMAT) return formatMismatch(format);
  const bodyText = newline === -1 ? '' : text.slice(newline + 1);
  if (header.sha256 !== sha256(bodyText)) {
    return { ok: false, reason: 'the snapshot checksum does not match (corrupt or truncated)' };
  }
  let body: SnapshotBody;
  try {
    body = JSON.parse(bodyText) as SnapshotBody;
  } catch {
    return invalid;
  }
  if (body.format !== SNAPSHOT_FORMAT) return formatMismatch(body.format);
  try {
    return { ok: true, snapshot: restore(body) };
  } catch (error) {
    return { ok: false, reason: `the snapshot could not be restored: ${error instanceof Error ? error.message : String(error)}` };
  }
}

function restore(body: SnapshotBody): Snapshot {
  const position = BigInt(body.position);
  return { logId: body.log_id, position, state: restoreState(position, body) };
}

/** Writes atomically (temp file, then rename), owner-only. */
export async function writeSnapshotFile(path: string, state: CatalogState, logId: string): Promise<void> {
  const temp = `${path}.tmp`;
  await writeFile(temp, encodeSnapshot(state, logId), { mode: 0o600 });
  await rename(temp, path);
}

/** Reads a snapshot file; a missing file is `{ ok: false, reason: 'none' }`. */
export async function readSnapshotFile(path: string): Promise<SnapshotLoad> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch {
    return { ok: false, reason: 'none' };
  }
  return decodeSnapshot(text);
}

function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}
