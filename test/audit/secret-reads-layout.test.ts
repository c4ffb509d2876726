/**
 * The secret-read audit's file layout (src/audit/read-audit.ts), on real
 * SQLite files: one row per read naming a shared answer set; a file in the
 * version 1 layout (a row per secret returned) is read as it is and migrated
 * when the audit starts, keeping its records and cursors; retention removes the
 * answer sets no read names any more, and a set removed is recorded afresh.
 */
import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import t, { type Test } from 'tap';
import { Registry } from 'prom-client';
import { createAuditSinkMetrics } from '../../src/audit/sink-metrics';
import { createReadAudit, listSecretReads, SECRET_READS_FILE, type ReadSecret } from '../../src/audit/read-audit';
import { removeDir, tempDir } from '../support/temp';

const OPENAI: ReadSecret = { id: '00000000-0000-4000-8000-000000000001', key: 'OPENAI_API_KEY', version: 1, value_version: 1 };
const DB: ReadSecret = { id: '00000000-0000-4000-8000-000000000002', key: 'DB_PASSWORD', version: 3, value_version: 2 };

function auditIn(t: Test, dir: string, maxRecords = 1_000_000) {
  let ms = Date.parse('2026-11-24T10:00:00.000Z');
  const audit = createReadAudit({
    dir, settings: { failClosed: false, maxRecords },
    metrics: createAuditSinkMetrics(new Registry(), () => undefined),
    now: () => (ms += 1000),
  });
  t.teardown(() => audit.close());
  return audit;
}

function folder(t: Test): string {
  const dir = tempDir();
  t.teardown(() => removeDir(dir));
  return dir;
}

function count(dir: string, table: string): number {
  const db = new Database(path.join(dir, SECRET_READS_FILE), { readonly: true });
  try {
    return (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
  } finally {
    db.close();
  }
}

t.test('one row per read; reads of the same secrets share one answer set', async (t) => {
  const dir = folder(t);
  const audit = auditIn(t, dir);
  const both = [OPENAI, DB];
  for (let i = 0; i < 10; i++) audit.recordRead('key-a', both, `req-${i}`);
  audit.recordRead('key-b', [DB], undefined);
  audit.recordRead('key-b', [], 'req-empty');
  audit.flush();
  t.equal(count(dir, 'read_calls'), 12);
  t.equal(count(dir, 'answer_sets'), 3, 'both, DB alone, nothing');
  t.equal(count(dir, 'answer_set_members'), 3);

  const all = listSecretReads(dir, {}).reads;
  t.equal(all.length, 12);
  t.same(all[0], { read_id: all[0]!.read_id, at: '2026-11-24T10:00:01.000Z', key_id: 'key-a', request_id: 'req-0', outcome: 'ok', code: null, secrets: both });
  t.match(all[0]!.read_id, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/, 'a time-ordered id');
  t.same(all[10], { read_id: all[10]!.read_id, at: '2026-11-24T10:00:11.000Z', key_id: 'key-b', request_id: null, outcome: 'ok', code: null, secrets: [DB] });
  t.same(all[11]!.secrets, []);
  t.equal(listSecretReads(dir, { secret: 'DB_PASSWORD' }).reads.length, 11, 'by key');
  t.equal(listSecretReads(dir, { secret: OPENAI.id }).reads.length, 10, 'by id');
  t.equal(listSecretReads(dir, { secret: OPENAI.id, key_id: 'key-b' }).reads.length, 0);
  const page = listSecretReads(dir, { secret: DB.key, limit: '4' });
  const rest = listSecretReads(dir, { secret: DB.key, cursor: page.next_cursor! });
  t.same([...page.reads, ...rest.reads].map((r) => r.request_id), [...all.slice(0, 11)].map((r) => r.request_id));
});

/** A secret-reads.db as version 1 of the layout wrote it (its schema and rows, verbatim). */
function writeVersion1(dir: string): void {
  mkdirSync(dir, { recursive: true });
  const db = new Database(path.join(dir, SECRET_READS_FILE));
  db.exec(`
    CREATE TABLE reads (seq INTEGER PRIMARY KEY, id TEXT NOT NULL, at TEXT NOT NULL, key_id TEXT NOT NULL, request_id TEXT, record TEXT NOT NULL);
    CREATE INDEX reads_by_key ON reads (key_id, seq);
    CREATE INDEX reads_by_time ON reads (at, seq);
    CREATE TABLE read_secrets (seq INTEGER NOT NULL, secret_id TEXT NOT NULL, secret_key TEXT NOT NULL);
    CREATE INDEX read_secrets_by_id ON read_secrets (secret_id, seq);
    CREATE INDEX read_secrets_by_key ON read_secrets (secret_key, seq);
    CREATE INDEX read_secrets_by_seq ON read_secrets (seq);`);
  const read = db.prepare('INSERT INTO reads (id, at, key_id, request_id, record) VALUES (?, ?, ?, ?, ?)');
  const secret = db.prepare('INSERT INTO read_secrets (seq, secret_id, secret_key) VALUES (?, ?, ?)');
  const rows: [string, string | null, ReadSecret[]][] = [['key-a', 'old-1', [OPENAI, DB]], ['key-b', null, [DB]], ['key-a', 'old-3', [OPENAI, DB]], ['key-b', 'old-4', []]];
  rows.forEach(([keyId, requestId, secrets], i) => {
    const record = { read_id: `0193a5c2-7f10-7c3e-9d2a-00000000000${i}`, at: `2026-11-01T00:00:0${i}.000Z`, key_id: keyId, request_id: requestId, secrets };
    const { lastInsertRowid } = read.run(record.read_id, record.at, keyId, requestId, JSON.stringify(record));
    for (const s of secrets) secret.run(lastInsertRowid, s.id, s.key);
  });
  db.close();
}

function tables(dir: string): unknown[] {
  const db = new Database(path.join(dir, SECRET_READS_FILE), { readonly: true });
  try {
    return db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all();
  } finally {
    db.close();
  }
}

t.test('a version 1 file is listed as it is, then migrated when the audit starts, with its records and cursors', async (t) => {
  const dir = folder(t);
  writeVersion1(dir);
  const before = listSecretReads(dir, {}).reads;
  t.same(before.map((r) => r.request_id), ['old-1', null, 'old-3', 'old-4'], 'read in the old layout');
  t.same(listSecretReads(dir, { secret: OPENAI.id }).reads.map((r) => r.request_id), ['old-1', 'old-3']);
  const cursor = listSecretReads(dir, { limit: '2' }).next_cursor!;

  const audit = auditIn(t, dir);
  t.same(tables(dir), ['answer_set_members', 'answer_sets', 'read_calls'], 'migrated at start, before any write; the old tables gone');
  t.same(listSecretReads(dir, {}).reads, before, 'every old record as it was');
  audit.recordRead('key-c', [OPENAI, DB], 'new-1');
  audit.flush();
  const after = listSecretReads(dir, {}).reads;
  t.same(after.slice(0, 4), before);
  t.same(after[4]!.request_id, 'new-1');
  t.same(listSecretReads(dir, { cursor }).reads.map((r) => r.request_id), ['old-3', 'old-4', 'new-1'], 'an old cursor pages on');
  t.same(listSecretReads(dir, { secret: 'OPENAI_API_KEY' }).reads.map((r) => r.request_id), ['old-1', 'old-3', 'new-1']);
  t.same(listSecretReads(dir, { secret: DB.key, key_id: 'key-b' }).reads.map((r) => r.request_id), [null]);
  t.equal(count(dir, 'answer_sets'), 3, 'the new read shares the old reads\' set');
});

t.test('a refused call is a record with its code, and no key id when it named none that exists', async (t) => {
  const dir = folder(t);
  const audit = auditIn(t, dir);
  audit.recordFailure(undefined, 'unauthorized', 'probe-1');
  audit.recordFailure('key-e', 'forbidden', undefined);
  audit.recordRead('key-a', [OPENAI], 'read-1');
  audit.flush();
  const all = listSecretReads(dir, {}).reads;
  t.same(all.map(({ key_id, request_id, outcome, code, secrets }) => ({ key_id, request_id, outcome, code, secrets })), [
    { key_id: null, request_id: 'probe-1', outcome: 'error', code: 'unauthorized', secrets: [] },
    { key_id: 'key-e', request_id: null, outcome: 'error', code: 'forbidden', secrets: [] },
    { key_id: 'key-a', request_id: 'read-1', outcome: 'ok', code: null, secrets: [OPENAI] },
  ]);
  t.same(listSecretReads(dir, { outcome: 'error' }).reads.map((r) => r.request_id), ['probe-1', null]);
  t.same(listSecretReads(dir, { outcome: 'ok', secret: OPENAI.key }).reads.map((r) => r.request_id), ['read-1']);
  t.same(listSecretReads(dir, { key_id: 'key-e' }).reads.map((r) => r.code), ['forbidden']);
});

/** A secret-reads.db as version 2 of the layout wrote it: read_calls without `code`. */
function writeVersion2(dir: string): void {
  mkdirSync(dir, { recursive: true });
  const db = new Database(path.join(dir, SECRET_READS_FILE));
  db.exec(`
    CREATE TABLE read_calls (seq INTEGER PRIMARY KEY, id TEXT NOT NULL, at TEXT NOT NULL, key_id TEXT NOT NULL, request_id TEXT, answer_set INTEGER NOT NULL);
    CREATE TABLE answer_sets (set_id INTEGER PRIMARY KEY, secrets TEXT NOT NULL UNIQUE);
    CREATE TABLE answer_set_members (set_id INTEGER NOT NULL, secret_id TEXT NOT NULL, secret_key TEXT NOT NULL);`);
  db.prepare('INSERT INTO answer_sets (set_id, secrets) VALUES (1, ?)').run(JSON.stringify([OPENAI]));
  db.prepare('INSERT INTO answer_set_members VALUES (1, ?, ?)').run(OPENAI.id, OPENAI.key);
  db.prepare("INSERT INTO read_calls (id, at, key_id, request_id, answer_set) VALUES ('0193a5c2-7f10-7c3e-9d2a-000000000001', '2026-11-01T00:00:01.000Z', 'key-a', 'v2-1', 1)").run();
  db.close();
}

t.test('a version 2 file is listed as it is, then gains its code column when the audit starts', async (t) => {
  const dir = folder(t);
  writeVersion2(dir);
  const before = listSecretReads(dir, {}).reads;
  t.same(before.map((r) => [r.request_id, r.outcome, r.code]), [['v2-1', 'ok', null]], 'read in the old layout: every record answered');
  t.same(listSecretReads(dir, { outcome: 'error' }).reads, []);
  const audit = auditIn(t, dir);
  audit.recordFailure(undefined, 'unauthorized', 'probe-1');
  audit.flush();
  t.same(listSecretReads(dir, {}).reads.map((r) => [r.request_id, r.outcome, r.code]), [['v2-1', 'ok', null], ['probe-1', 'error', 'unauthorized']]);
  t.same(listSecretReads(dir, {}).reads[0], before[0], 'the old record as it was');
});

t.test('retention drops the answer sets no read names, and a dropped set is recorded afresh', async (t) => {
  const dir = folder(t);
  const audit = auditIn(t, dir, 10);
  audit.recordRead('key-a', [OPENAI], 'first');
  // Retention runs every 1,000 writes (sink.ts): this many pushes the OPENAI read out.
  for (let i = 0; i < 1000; i++) audit.recordRead('key-a', [DB], `db-${i}`);
  audit.flush();
  t.equal(count(dir, 'read_calls'), 10);
  t.equal(count(dir, 'answer_sets'), 1, 'the OPENAI set is gone with its last read');
  t.equal(count(dir, 'answer_set_members'), 1);
  t.same(listSecretReads(dir, { secret: OPENAI.key }).reads, []);
  audit.recordRead('key-a', [OPENAI], 'again');
  audit.flush();
  const again = listSecretReads(dir, { secret: OPENAI.key }).reads;
  t.same(again.map((r) => [r.request_id, r.secrets]), [['again', [OPENAI]]], 'recorded with its secrets, not a stale set id');
});

t.test('workers sharing the file: a set another process trimmed is never named again by a stale id', async (t) => {
  const dir = folder(t);
  const open = (shared: boolean) => {
    const audit = createReadAudit({
      dir, settings: { failClosed: false, maxRecords: 10, shared },
      metrics: createAuditSinkMetrics(new Registry(), () => undefined),
    });
    t.teardown(() => audit.close());
    return audit;
  };
  // Two worker processes' audits on one file (docs/operations.md#workers).
  const a = open(true);
  const b = open(true);
  for (let i = 0; i < 995; i++) b.recordRead('key-b', [DB], undefined);
  b.flush();
  a.recordRead('key-a', [OPENAI], 'a-1');
  a.flush();
  // b's retention (every 1,000 of its writes) keeps the newest 10 reads: a's read goes, and with it its set, the newest.
  for (let i = 0; i < 10; i++) b.recordRead('key-b', [DB], undefined);
  b.flush();
  t.equal(count(dir, 'answer_sets'), 1, 'only the set still named is kept');
  // The next new set may take the freed id; a must not name it for OPENAI.
  b.recordRead('key-b', [DB, OPENAI], 'b-both');
  b.flush();
  a.recordRead('key-a', [OPENAI], 'a-2');
  a.flush();
  const reads = listSecretReads(dir, { key_id: 'key-a' }).reads;
  t.same(reads.map((r) => [r.request_id, r.secrets]), [['a-2', [OPENAI]]], 'a\'s read names what it answered');
  const both = listSecretReads(dir, { key_id: 'key-b', limit: '100' }).reads.find((r) => r.request_id === 'b-both');
  t.same(both?.secrets, [DB, OPENAI], 'and b\'s read names its own set');
});
