/**
 * The secret-read audit: every get-secrets answer is recorded with the key
 * id, the request id, the time, its outcome and error code (a refused call,
 * no key or a bad one or no scope, is a probe of the vault worth keeping),
 * and the secrets returned as ids, keys and versions. Never a value: the record is built from the vault's records
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
import { existsSync } from 'node:fs';
import path from 'node:path';
import { AppError, badRequest, type ErrorCode } from '../base/errors';
import type { SecretRecord } from '../../projections';
import { decodeCursor, encodeCursor, parseLimit } from '../service/listing';
import { timeOrderedId } from '../base/uuid';
import { isoTime } from './event-filter';
import { createSink, openSinkForReading, sqliteWriter, type Sink, type SinkTable } from './sink';
import type { AuditSinkMetrics } from './sink-metrics';

export interface SecretReadRecord {
  readonly read_id: string;
  readonly at: string;
  /** The API key that called; null when the call named none that exists (no key, an unknown or revoked one). */
  readonly key_id: string | null;
  readonly request_id: string | null;
  /** `ok`: the answer's `err` was null; `error`: it named what was wrong, with `code`. */
  readonly outcome: ReadOutcome;
  /** The error code the caller was answered (docs/api.md#error-codes), null when `outcome` is ok. */
  readonly code: ErrorCode | null;
  /** The secrets returned, by key order of the answer (none when `outcome` is error). */
  readonly secrets: readonly { readonly id: string; readonly key: string; readonly version: number; readonly value_version: number }[];
}

export const READ_OUTCOMES = ['ok', 'error'] as const;
export type ReadOutcome = (typeof READ_OUTCOMES)[number];

/** What a secret read's record is made of: the vault's records of the secrets answered. */
export type ReadSecret = Pick<SecretRecord, 'id' | 'key' | 'version' | 'value_version'>;

export interface ReadAuditSettings {
  readonly failClosed: boolean;
  readonly maxRecords: number;
  /**
   * Several processes write the file (docs/operations.md#workers): another one's
   * retention may delete an answer set this one remembers, and its id may be
   * given again, so every write looks its set up in the file.
   */
  readonly shared?: boolean;
}

export interface ReadAudit {
  /**
   * Records a get-secrets answer: `secrets`, the vault's records of the
   * secrets answered, in the answer's order (values are never passed here).
   * Fail-closed: throws a 503 AppError when the record cannot be written.
   */
  recordRead(keyId: string, secrets: readonly ReadSecret[], requestId: string | undefined): void;
  /**
   * Records a get-secrets call answered with an error (no or bad key, no scope, a bad body, a key
   * lookup that found nothing, ...): `keyId` when the call named an existing key. Never refuses:
   * no value is answered, so fail-closed has nothing to hold back; the record is queued.
   */
  recordFailure(keyId: string | undefined, code: ErrorCode, requestId: string | undefined): void;
  /** Writes what is queued now, so a lookup that follows sees it. */
  flush(): void;
  close(): void;
}

export const SECRET_READS_FILE = 'secret-reads.db';
/** Records the queue holds while the sink cannot keep up or be written. */
const QUEUE_CAPACITY = 10_000;

export const REFUSED_MESSAGE =
  'secret read refused: the read audit could not be written (RULEVAULT_READ_AUDIT_FAIL_CLOSED is on); the values were not sent';

/** A read as queued: the id and the ISO time are made when it is written, off the request path. */
interface PendingRead {
  readonly atMs: number;
  /** '' for no key: the file's column is NOT NULL since version 1, and a key_id filter is never empty (parseReadQuery). */
  readonly keyId: string;
  readonly requestId: string | null;
  readonly code: ErrorCode | null;
  /** JSON of the record's `secrets` (its answer set, below). */
  readonly secrets: string;
}

export function createReadAudit(deps: {
  readonly dir: string;
  readonly settings: ReadAuditSettings;
  readonly metrics: AuditSinkMetrics;
  readonly now?: () => number;
}): ReadAudit {
  const { settings, metrics, now = Date.now } = deps;
  const writer = sqliteWriter(deps.dir, readTable(settings.shared === true), settings.maxRecords);
  // An existing file is opened now, at start-up: a file of the older layout is migrated before the
  // service listens (about 1 s of CPU per 100,000 reads), not by the first read's write. A failure is
  // counted, and the first write tries again.
  if (existsSync(path.join(deps.dir, SECRET_READS_FILE))) {
    try {
      writer.open();
    } catch (error) {
      metrics.writeFailed('secret-reads', error as Error);
    }
  }
  const sink: Sink<PendingRead> = createSink(writer, {
    queueCapacity: QUEUE_CAPACITY,
    onDropped: (count) => metrics.dropped('secret-reads', count),
    onWriteError: (error) => metrics.writeFailed('secret-reads', error),
  });
  return {
    recordRead(keyId, secrets, requestId) {
      const record: PendingRead = { atMs: now(), keyId, requestId: requestId ?? null, code: null, secrets: answerSetText(secrets) };
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
    recordFailure(keyId, code, requestId) {
      sink.enqueue({ atMs: now(), keyId: keyId ?? '', requestId: requestId ?? null, code, secrets: NOTHING_READ });
    },
    flush: () => sink.flush(),
    close: () => sink.close(),
  };
}

const NOTHING_READ = '[]';

// get-secrets hands the same array for every read of one selection (get-secrets.ts): its JSON is made once (bench: cpu-per-request --workload secrets).
const answerSetTexts = new WeakMap<readonly ReadSecret[], string>();

function answerSetText(secrets: readonly ReadSecret[]): string {
  let text = answerSetTexts.get(secrets);
  if (text === undefined) {
    text = JSON.stringify(secrets.map(({ id, key, version, value_version }) => ({ id, key, version, value_version })));
    answerSetTexts.set(secrets, text);
  }
  return text;
}

/**
 * The file's layout (version 2): one row per read in `read_calls`, which
 * names its answer set: the list of secrets it returned, stored once in
 * `answer_sets` however many reads returned the same list (callers read the
 * same keys or tags again and again), with one `answer_set_members` row per
 * secret of a set for the list's secret filter. A read costs one row and
 * its three index entries; version 1 wrote a row per secret returned, each
 * with three index entries, and the whole record as JSON (bench:
 * cpu-per-request --workload secrets, where the audit was 60% of the
 * route's CPU at about 15 secrets a read).
 */
const SCHEMA = `
  CREATE TABLE IF NOT EXISTS read_calls (
    seq INTEGER PRIMARY KEY, id TEXT NOT NULL, at TEXT NOT NULL, key_id TEXT NOT NULL, request_id TEXT, answer_set INTEGER NOT NULL, code TEXT);
  CREATE INDEX IF NOT EXISTS read_calls_by_key ON read_calls (key_id, seq);
  CREATE INDEX IF NOT EXISTS read_calls_by_time ON read_calls (at, seq);
  CREATE INDEX IF NOT EXISTS read_calls_by_set ON read_calls (answer_set, seq);
  CREATE TABLE IF NOT EXISTS answer_sets (set_id INTEGER PRIMARY KEY, secrets TEXT NOT NULL UNIQUE);
  CREATE TABLE IF NOT EXISTS answer_set_members (set_id INTEGER NOT NULL, secret_id TEXT NOT NULL, secret_key TEXT NOT NULL);
  CREATE INDEX IF NOT EXISTS answer_set_members_by_id ON answer_set_members (secret_id);
  CREATE INDEX IF NOT EXISTS answer_set_members_by_key ON answer_set_members (secret_key);
  CREATE INDEX IF NOT EXISTS answer_set_members_by_set ON answer_set_members (set_id);`;

/**
 * Version 1 (`reads` with the record as JSON, `read_secrets` a row per
 * secret) into version 2, in the same transaction as the schema: sequence
 * numbers are kept, so a cursor handed out before still pages on.
 */
const MIGRATE_V1 = `
  INSERT OR IGNORE INTO answer_sets (secrets) SELECT json_extract(record, '$.secrets') FROM reads ORDER BY seq;
  INSERT INTO read_calls (seq, id, at, key_id, request_id, answer_set)
    SELECT r.seq, r.id, r.at, r.key_id, r.request_id, s.set_id FROM reads r JOIN answer_sets s ON s.secrets = json_extract(r.record, '$.secrets');
  INSERT INTO answer_set_members (set_id, secret_id, secret_key)
    SELECT s.set_id, json_extract(m.value, '$.id'), json_extract(m.value, '$.key') FROM answer_sets s, json_each(s.secrets) m;
  DROP TABLE read_secrets;
  DROP TABLE reads;`;

/**
 * Version 3: `read_calls.code`, the error code of a call answered with `err` (null: answered). A
 * column added in place (no copy of the table): a file of version 2 is upgraded in an instant.
 * The index is partial: an answered read, the common call, pays no entry in it.
 */
const ADD_CODE = 'ALTER TABLE read_calls ADD COLUMN code TEXT';
const CODE_INDEX = 'CREATE INDEX IF NOT EXISTS read_calls_by_code ON read_calls (seq) WHERE code IS NOT NULL';

function hasColumn(db: Database.Database, table: string, column: string): boolean {
  return (db.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[]).some((row) => row.name === column);
}

/** Answer sets remembered by their JSON, per open file (a bound, not a working-set size: a set missed is looked up). */
const KNOWN_SETS = 4096;

function hasTable(db: Database.Database, name: string): boolean {
  return db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !== undefined;
}

const readTable = (shared: boolean): SinkTable<PendingRead> => ({
  file: SECRET_READS_FILE,
  open(db) {
    db.transaction(() => {
      db.exec(SCHEMA);
      if (hasTable(db, 'reads')) db.exec(MIGRATE_V1);
      if (!hasColumn(db, 'read_calls', 'code')) db.exec(ADD_CODE);
      db.exec(CODE_INDEX);
    })();
    const insertCall = db.prepare('INSERT INTO read_calls (id, at, key_id, request_id, answer_set, code) VALUES (?, ?, ?, ?, ?, ?)');
    const findSet = db.prepare('SELECT set_id FROM answer_sets WHERE secrets = ?').pluck();
    const insertSet = db.prepare('INSERT INTO answer_sets (secrets) VALUES (?)');
    const insertMember = db.prepare('INSERT INTO answer_set_members (set_id, secret_id, secret_key) VALUES (?, ?, ?)');
    const trimCalls = db.prepare('DELETE FROM read_calls WHERE seq <= (SELECT max(seq) FROM read_calls) - ?');
    const unused = 'SELECT set_id FROM answer_sets a WHERE NOT EXISTS (SELECT 1 FROM read_calls r WHERE r.answer_set = a.set_id)';
    const trimMembers = db.prepare(`DELETE FROM answer_set_members WHERE set_id IN (${unused})`);
    const trimSets = db.prepare(`DELETE FROM answer_sets WHERE set_id IN (${unused})`);
    const known = new Map<string, number | bigint>();

    function answerSet(secrets: string): number | bigint {
      const found = findSet.get(secrets) as number | bigint | undefined;
      if (found !== undefined) return found;
      const { lastInsertRowid } = insertSet.run(secrets);
      for (const s of JSON.parse(secrets) as SecretReadRecord['secrets']) insertMember.run(lastInsertRowid, s.id, s.key);
      return lastInsertRowid;
    }

    return {
      write(record) {
        let set = shared ? undefined : known.get(record.secrets);
        if (set === undefined) {
          set = answerSet(record.secrets);
          if (!shared) {
            if (known.size >= KNOWN_SETS) known.clear();
            known.set(record.secrets, set);
          }
        }
        insertCall.run(timeOrderedId(record.atMs), new Date(record.atMs).toISOString(), record.keyId, record.requestId, set, record.code);
      },
      trim(keep) {
        if (trimCalls.run(keep).changes === 0) return;
        trimMembers.run();
        trimSets.run();
        known.clear();
      },
      // A set inserted by a rolled-back batch is gone, and its id may be given to another.
      rolledBack: () => known.clear(),
    };
  },
});

// ---- listing ------------------------------------------------------------------

export const SECRET_READ_QUERY_PARAMS = ['key_id', 'secret', 'outcome', 'from', 'to', 'limit', 'cursor'] as const;
const DEFAULT_LIMIT = 100;

interface ReadQuery {
  readonly keyId: string | undefined;
  readonly secret: string | undefined;
  readonly outcome: ReadOutcome | undefined;
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
  const outcome = text('outcome');
  if (outcome !== undefined && !(READ_OUTCOMES as readonly string[]).includes(outcome)) {
    throw badRequest(`outcome must be one of ${READ_OUTCOMES.join(', ')}`);
  }
  return {
    keyId: text('key_id'), secret: text('secret'), outcome: outcome as ReadOutcome | undefined, from: time('from'), to: time('to'),
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

/**
 * How a page is read from a file of either layout: a file written by an
 * older build is migrated when the service starts (createReadAudit), and
 * until then (the CLI on a folder no new service has opened) it is read as it is.
 */
interface Layout {
  readonly from: string;
  readonly columns: string;
  readonly secretFilter: string;
  /** The SQL of a call answered with an error (older layouts recorded answered reads only). */
  readonly failed: string;
  record(row: Record<string, unknown>): SecretReadRecord;
}

/** A record as the API shows it, from the row's columns; the file keeps '' for no key (PendingRead). */
function v2Record(row: Record<string, unknown>): SecretReadRecord {
  const code = (row.code ?? null) as ErrorCode | null;
  return {
    read_id: row.id as string, at: row.at as string, key_id: row.key_id === '' ? null : (row.key_id as string),
    request_id: row.request_id as string | null, outcome: code === null ? 'ok' : 'error', code,
    secrets: JSON.parse(row.secrets as string) as SecretReadRecord['secrets'],
  };
}

const V2_COLUMNS = 'r.seq AS seq, r.id AS id, r.at AS at, r.key_id AS key_id, r.request_id AS request_id, s.secrets AS secrets';

const V3: Layout = {
  from: 'read_calls r JOIN answer_sets s ON s.set_id = r.answer_set',
  columns: `${V2_COLUMNS}, r.code AS code`,
  secretFilter: 'r.answer_set IN (SELECT m.set_id FROM answer_set_members m WHERE m.secret_id = ? OR m.secret_key = ?)',
  failed: 'r.code IS NOT NULL',
  record: v2Record,
};

const V2: Layout = { ...V3, columns: V2_COLUMNS, failed: '0' };

const V1: Layout = {
  from: 'reads r',
  columns: 'r.seq AS seq, r.record AS record',
  secretFilter: 'EXISTS (SELECT 1 FROM read_secrets s WHERE s.seq = r.seq AND (s.secret_id = ? OR s.secret_key = ?))',
  failed: '0',
  record: (row) => ({ ...(JSON.parse(row.record as string) as SecretReadRecord), outcome: 'ok', code: null }),
};

function layoutOf(db: Database.Database): Layout | undefined {
  if (hasTable(db, 'read_calls')) return hasColumn(db, 'read_calls', 'code') ? V3 : V2;
  return hasTable(db, 'reads') ? V1 : undefined;
}

function page(db: Database.Database, query: ReadQuery): SecretReadPage {
  const layout = layoutOf(db);
  if (layout === undefined) return { reads: [], next_cursor: null };
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
    where.push(layout.secretFilter);
    params.push(query.secret, query.secret);
  }
  if (query.outcome !== undefined) where.push(query.outcome === 'error' ? layout.failed : `NOT (${layout.failed})`);
  // One more than the page: whether a next page exists, so the last page never points at an empty one.
  const rows = db
    .prepare(`SELECT ${layout.columns} FROM ${layout.from} WHERE ${where.join(' AND ')} ORDER BY r.seq LIMIT ?`)
    .all(...params, query.limit + 1) as Record<string, unknown>[];
  const shown = rows.slice(0, query.limit);
  const more = rows.length > query.limit;
  return {
    reads: shown.map((row) => layout.record(row)),
    next_cursor: more ? encodeCursor('secret_reads', String(shown[shown.length - 1]!.seq)) : null,
  };
}
