/**
 * The secret-read audit: every get-secrets answer is recorded with the key
 * id, the request id, the time, and the secrets returned as ids, keys and
 * versions. Never a value: the record is built from the vault's records
 * (ids and versions), not from the answer's plaintext, which only names the
 * keys that were returned.
 *
 * Fail-open (default): the record is queued like a decision record (sink.ts);
 * a record that cannot be written is retried, and dropped and counted when
 * the queue is full. Fail-closed (RULEVAULT_READ_AUDIT_FAIL_CLOSED=1, as
 * Vault does with its audit devices): the record is committed before the
 * values are answered, and a read whose record cannot be written answers
 * an error instead of the values.
 */
import type Database from 'better-sqlite3';
import { AppError, badRequest } from '../errors';
import type { ReadModel } from '../read-model';
import { decodeCursor, encodeCursor, parseLimit } from '../service/listing';
import { isoTime } from './event-filter';
import { createSink, openSinkForReading, sqliteWriter, timeOrderedId, type Sink, type SinkTable } from './sink';
import type { AuditSinkMetrics } from './sink-metrics';

export interface SecretReadRecord {
  readonly read_id: string;
  readonly at: string;
  readonly key_id: string;
  readonly request_id: string | null;
  /** The secrets returned, by key order of the answer. */
  readonly secrets: readonly { readonly id: string; readonly key: string; readonly version: number; readonly value_version: number }[];
}

export interface ReadAuditSettings {
  readonly failClosed: boolean;
  readonly maxRecords: number;
}

export interface ReadAudit {
  /**
   * Records a get-secrets answer (`answer`: key to value; only its keys are
   * read). Fail-closed: throws a 503 AppError when the record cannot be written.
   */
  recordRead(keyId: string, answer: Readonly<Record<string, string>>, requestId: string | undefined): void;
  /** Writes what is queued now, so a lookup that follows sees it. */
  flush(): void;
  close(): void;
}

export const SECRET_READS_FILE = 'secret-reads.db';
/** Records the queue holds while the sink cannot keep up or be written. */
const QUEUE_CAPACITY = 10_000;

export const REFUSED_MESSAGE =
  'secret read refused: the read audit could not be written (RULEVAULT_READ_AUDIT_FAIL_CLOSED is on); the values were not sent';

export function createReadAudit(deps: {
  readonly dir: string;
  readonly settings: ReadAuditSettings;
  readonly readModel: ReadModel;
  readonly metrics: AuditSinkMetrics;
  readonly now?: () => number;
}): ReadAudit {
  const { settings, readModel, metrics, now = Date.now } = deps;
  const sink: Sink<SecretReadRecord> = createSink(sqliteWriter(deps.dir, readTable, settings.maxRecords), {
    queueCapacity: QUEUE_CAPACITY,
    onDropped: (count) => metrics.dropped('secret-reads', count),
    onWriteError: (error) => metrics.writeFailed('secret-reads', error),
  });
  return {
    recordRead(keyId, answer, requestId) {
      const vault = readModel.state.vault;
      const secrets: SecretReadRecord['secrets'][number][] = [];
      for (const key of Object.keys(answer)) {
        const id = vault.idsByKey.get(key);
        const secret = id === undefined ? undefined : vault.secrets.get(id);
        if (secret !== undefined) secrets.push({ id: secret.id, key, version: secret.version, value_version: secret.value_version });
      }
      const atMs = now();
      const record: SecretReadRecord = {
        read_id: timeOrderedId(atMs), at: new Date(atMs).toISOString(), key_id: keyId, request_id: requestId ?? null, secrets,
      };
      if (!settings.failClosed) {
        sink.enqueue(record);
        return;
      }
      try {
        sink.writeNow(record);
      } catch {
        throw new AppError('unavailable', REFUSED_MESSAGE);
      }
    },
    flush: () => sink.flush(),
    close: () => sink.close(),
  };
}

const readTable: SinkTable<SecretReadRecord> = {
  file: SECRET_READS_FILE,
  schema: `
    CREATE TABLE IF NOT EXISTS reads (
      seq INTEGER PRIMARY KEY, id TEXT NOT NULL, at TEXT NOT NULL, key_id TEXT NOT NULL, request_id TEXT, record TEXT NOT NULL);
    CREATE INDEX IF NOT EXISTS reads_by_key ON reads (key_id, seq);
    CREATE INDEX IF NOT EXISTS reads_by_time ON reads (at, seq);
    CREATE TABLE IF NOT EXISTS read_secrets (seq INTEGER NOT NULL, secret_id TEXT NOT NULL, secret_key TEXT NOT NULL);
    CREATE INDEX IF NOT EXISTS read_secrets_by_id ON read_secrets (secret_id, seq);
    CREATE INDEX IF NOT EXISTS read_secrets_by_key ON read_secrets (secret_key, seq);
    CREATE INDEX IF NOT EXISTS read_secrets_by_seq ON read_secrets (seq);`,
  prepare(db) {
    const read = db.prepare('INSERT INTO reads (id, at, key_id, request_id, record) VALUES (?, ?, ?, ?, ?)');
    const secret = db.prepare('INSERT INTO read_secrets (seq, secret_id, secret_key) VALUES (?, ?, ?)');
    return (record) => {
      const { lastInsertRowid } = read.run(record.read_id, record.at, record.key_id, record.request_id, JSON.stringify(record));
      for (const s of record.secrets) secret.run(lastInsertRowid, s.id, s.key);
    };
  },
  trim(db) {
    const reads = db.prepare('DELETE FROM reads WHERE seq <= (SELECT max(seq) FROM reads) - ?');
    const secrets = db.prepare('DELETE FROM read_secrets WHERE seq < (SELECT min(seq) FROM reads)');
    return (keep) => {
      reads.run(keep);
      secrets.run();
    };
  },
};

// ---- listing ------------------------------------------------------------------

export const SECRET_READ_QUERY_PARAMS = ['key_id', 'secret', 'from', 'to', 'limit', 'cursor'] as const;
const DEFAULT_LIMIT = 100;

interface ReadQuery {
  readonly keyId: string | undefined;
  readonly secret: string | undefined;
  readonly from: string | undefined;
  readonly to: string | undefined;
  readonly limit: number;
  readonly afterSeq: number;
}

type QueryText = { readonly [name: string]: string | undefined };

/** Reads the list's query; a bad parameter is a 400 whose message starts with its name. */
export function parseReadQuery(query: QueryText): ReadQuery {
  const text = (name: string) => {
    const value = query[name];
    if (value === undefined) return undefined;
    if (value === '' || value.length > 256) throw badRequest(`${name} must be 1 to 256 characters`);
    return value;
  };
  const time = (name: string) => isoTime(name, text(name));
  const cursor = text('cursor');
  let afterSeq = 0;
  if (cursor !== undefined) {
    const key = decodeCursor('secret_reads', cursor);
    if (!/^[0-9]{1,15}$/.test(key)) throw badRequest('cursor is not a cursor of this list: pass the next_cursor of a previous page of it unchanged');
    afterSeq = Number(key);
  }
  return {
    keyId: text('key_id'), secret: text('secret'), from: time('from'), to: time('to'),
    limit: parseLimit(query.limit, DEFAULT_LIMIT), afterSeq,
  };
}

export interface SecretReadPage {
  readonly reads: SecretReadRecord[];
  readonly next_cursor: string | null;
}

/**
 * A page of the secret reads in `dir`, oldest first, filtered: by the key
 * that read (`key_id`), by a secret (`secret`: its id or its key), by time
 * (`from`, `to`, inclusive). Read beside a running service (the admin API
 * and the CLI both call this).
 */
export function listSecretReads(dir: string, query: QueryText): SecretReadPage {
  const parsed = parseReadQuery(query);
  const db = openSinkForReading(dir, SECRET_READS_FILE);
  if (db === undefined) return { reads: [], next_cursor: null };
  try {
    return page(db, parsed);
  } finally {
    db.close();
  }
}

function page(db: Database.Database, query: ReadQuery): SecretReadPage {
  const where = ['r.seq > ?'];
  const params: (string | number)[] = [query.afterSeq];
  if (query.keyId !== undefined) {
    where.push('r.key_id = ?');
    params.push(query.keyId);
  }
  if (query.from !== undefined) {
    where.push('r.at >= ?');
    params.push(query.from);
  }
  if (query.to !== undefined) {
    where.push('r.at <= ?');
    params.push(query.to);
  }
  if (query.secret !== undefined) {
    where.push('EXISTS (SELECT 1 FROM read_secrets s WHERE s.seq = r.seq AND (s.secret_id = ? OR s.secret_key = ?))');
    params.push(query.secret, query.secret);
  }
  // One more than the page: whether a next page exists, so the last page never points at an empty one.
  const rows = db
    .prepare(`SELECT r.seq AS seq, r.record AS record FROM reads r WHERE ${where.join(' AND ')} ORDER BY r.seq LIMIT ?`)
    .all(...params, query.limit + 1) as { seq: number; record: string }[];
  const shown = rows.slice(0, query.limit);
  const more = rows.length > query.limit;
  return {
    reads: shown.map((row) => JSON.parse(row.record) as SecretReadRecord),
    next_cursor: more ? encodeCursor('secret_reads', String(shown[shown.length - 1]!.seq)) : null,
  };
}
