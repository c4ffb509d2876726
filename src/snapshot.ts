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
import {
  initialState, type ApiKeyRecord, type CatalogState, type ContextRecord, type PromptRecord, type PromptVersion,
  type RuleRecord, type SecretRecord,
} from '../projections';
import type { SealedCanary } from './events';
import { compilePromptTemplate } from './prompts/template';

/**
 * 2: a header line `{"format":2,"sha256":...}`, then the body JSON. Format 1
 * carried the body as a JSON string inside the envelope, and unescaping it
 * was a fifth of a snapshot's decoding (20k rules: 38 of 200 ms).
 */
export const SNAPSHOT_FORMAT = 2;
export const SNAPSHOT_FILE = 'snapshot.json';

type Stringified<T> = { [K in keyof T]: T[K] extends bigint ? string : T[K] };

interface SnapshotBody {
  readonly format: number;
  /** Id of the first event of the log: a snapshot never applies to another log. */
  readonly log_id: string;
  readonly position: string;
  readonly rules: Stringified<RuleRecord>[];
  readonly contexts: Stringified<ContextRecord>[];
  readonly prompts: (Stringified<Omit<PromptRecord, 'versions'>> & { versions: Omit<PromptVersion, 'compiled'>[] })[];
  readonly secrets: Stringified<SecretRecord>[];
  readonly erasure_pending: string[];
  readonly canary: SealedCanary | null;
  readonly api_keys: Stringified<ApiKeyRecord>[];
}

export interface Snapshot {
  readonly logId: string;
  readonly position: bigint;
  readonly state: CatalogState;
}

export type SnapshotLoad = { readonly ok: true; readonly snapshot: Snapshot } | { readonly ok: false; readonly reason: string };

const withStrings = <T extends { revision: bigint; position?: bigint }>(record: T) => ({
  ...record,
  revision: record.revision.toString(),
  ...(record.position !== undefined ? { position: record.position.toString() } : {}),
});
const withBigints = <T extends { revision: string; position?: string }>(record: T) => ({
  ...record,
  revision: BigInt(record.revision),
  ...(record.position !== undefined ? { position: BigInt(record.position) } : {}),
});

/** Serializes the state as the snapshot file's text (JSON with a SHA-256 of the body). */
export function encodeSnapshot(state: CatalogState, logId: string): string {
  if (state.position === undefined) throw new Error('nothing to snapshot: no event applied');
  const body: SnapshotBody = {
    format: SNAPSHOT_FORMAT,
    log_id: logId,
    position: state.position.toString(),
    rules: [...state.rules.values()].map(withStrings) as Stringified<RuleRecord>[],
    contexts: [...state.contexts.values()].map(withStrings) as Stringified<ContextRecord>[],
    prompts: [...state.prompts.values()].map((prompt) => ({
      ...withStrings(prompt),
      versions: prompt.versions.map(({ compiled: _compiled, ...version }) => version),
    })) as SnapshotBody['prompts'],
    secrets: [...state.vault.secrets.values()].map(withStrings) as Stringified<SecretRecord>[],
    erasure_pending: [...state.vault.erasurePending],
    canary: state.vault.keyring.canary ?? null,
    api_keys: [...state.apiKeys.byId.values()].map(withStrings) as Stringified<ApiKeyRecord>[],
  };
  const text = JSON.stringify(body);
  return `${JSON.stringify({ format: SNAPSHOT_FORMAT, sha256: sha256(text) })}\n${text}`;
}

const invalid: SnapshotLoad = { ok: false, reason: 'the snapshot is not valid JSON' };
const formatMismatch = (format: unknown): SnapshotLoad => ({
  ok: false,
  reason: `the snapshot has format ${String(format)}, this version reads ${SNAPSHOT_FORMAT}`,
});

/** Parses and checks a snapshot file's text; rebuilds indexes and compiled templates. */
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
  const state = initialState();
  state.position = BigInt(body.position);
  for (const rule of body.rules) state.rules.set(rule.id, withBigints(rule) as RuleRecord);
  for (const context of body.contexts) state.contexts.set(context.id, withBigints(context) as ContextRecord);
  for (const prompt of body.prompts) {
    const versions = prompt.versions.map((version) => {
      const compiled = compilePromptTemplate(version.template);
      return { ...version, compiled: compiled.ok ? compiled.template : undefined };
    });
    state.prompts.set(prompt.id, { ...(withBigints(prompt) as Omit<PromptRecord, 'versions'>), versions });
  }
  for (const secret of body.secrets) {
    state.vault.secrets.set(secret.id, withBigints(secret) as SecretRecord);
    state.vault.idsByKey.set(secret.key, secret.id);
  }
  for (const id of body.erasure_pending) state.vault.erasurePending.add(id);
  state.vault.keyring = { canary: body.canary ?? undefined };
  for (const key of body.api_keys) {
    const record = withBigints(key) as ApiKeyRecord;
    state.apiKeys.byId.set(record.id, record);
    state.apiKeys.byHash.set(record.key_hash, record);
  }
  return { logId: body.log_id, position: state.position, state };
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
