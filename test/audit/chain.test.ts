/**
 * Black-box: the hash chain through the real CLI (`rulevault audit verify |
 * checkpoint | chain-upgrade | signing-key`) on real SQLite files written by
 * a real node. Copies of the log are tampered with in each of the four ways
 * (modify, remove, insert, reorder) and verify must name the position.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import t from 'tap';
import { client } from '../support/http';
import { removeDir, startTestNode, tempDir, testEnv } from '../support/node';
import { linkHash, sha256Hex, splitMetadataText } from '../../src/store/chain';
import { runCli } from '../support/process';
import { runAudit } from './support/run-audit';
import { tamperedLog } from './support/tamper';

interface Row {
  position: number;
  stream: string;
  revision: number;
  id: string;
  type: string;
  data: string;
  metadata: string;
}

const rowsOf = (file: string): Row[] => {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare('SELECT position, stream, revision, id, type, data, metadata FROM events ORDER BY position').all() as Row[];
  } finally {
    db.close();
  }
};

/** A copy of the log, changed by `tamper`, as its own store. */
function tamperedCopy(source: string, dir: string, name: string, tamper: (db: Database.Database) => void): Record<string, string> {
  const file = tamperedLog(source, dir, name, tamper);
  return { RULEVAULT_DATA_DIR: path.dirname(file), RULEVAULT_EVENTSTORE: `sqlite:${file}` };
}

const verifyJson = async (args: string[], env: Record<string, string>) => {
  const run = await runAudit(['verify', ...args, '--json'], env);
  return { code: run.code, report: run.stdout.trim() === '' ? undefined : JSON.parse(run.stdout), stderr: run.stderr };
};

t.test('a node\'s log verifies, with erasure and signed checkpoints; each tampering is named', async (t) => {
  const dir = tempDir();
  t.teardown(() => removeDir(dir));
  const env = testEnv(dir, { RULEVAULT_CHAIN_CHECKPOINT_EVERY: '4' });
  const node = await startTestNode(env);
  let stopped = false;
  t.teardown(() => (stopped ? undefined : node.stop()));
  const admin = client(node.url, node.adminKey);
  for (let i = 0; i < 6; i++) {
    await admin.post('/api/rule-engine/rules', { name: `rule ${i}`, condition_groups: [{ conditions: [{ field: 'tier', operator: 'equals', value: `v${i}` }] }] });
  }
  const secret = (await admin.post('/api/vault/secrets', { key: 'CHAIN_SECRET', value: 'chain-plaintext-value' })).json;
  await admin.patch(`/api/vault/secrets/${secret.id}`, { value: 'chain-plaintext-value-2' });
  const deleted = await admin.delete(`/api/vault/secrets/${secret.id}`);
  t.equal(deleted.status, 204, 'the secret is erased');
  await admin.post('/api/contexts', { name: 'after the erasure', content: 'x' });
  const shown = await runAudit(['signing-key', 'show', '--json'], env);
  t.equal(shown.code, 0, shown.stderr);
  const publicKey: string = JSON.parse(shown.stdout).public_key;
  t.match(publicKey, /^[A-Za-z0-9+/]{43}=$/, 'the CLI prints the public half');
  t.notOk(shown.stdout.includes(readFileSync(path.join(dir, 'signing.key'), 'utf8').trim()), 'and never the private seed');
  await node.stop();
  stopped = true;

  const log = path.join(dir, 'events.db');
  const rows = rowsOf(log);
  t.ok(rows.every((row) => splitMetadataText(row.metadata).link !== undefined), 'every event carries a link');
  const erasedRows = rows.filter((row) => row.data === '{"erased":true}');
  t.equal(erasedRows.length, 2, 'the secret\'s earlier events are erased');
  t.notOk(readFileSync(log).includes('chain-plaintext'), 'no plaintext in the file');
  t.ok(rows.some((row) => row.type === 'ChainCheckpointSigned'), 'the node signed checkpoints');

  const good = await verifyJson(['--public-key', publicKey], env);
  t.equal(good.code, 0, good.stderr);
  t.equal(good.report.verified, true);
  t.equal(good.report.erased_events, 2, 'verification after erasure passes');
  t.equal(good.report.verified_through.position, String(rows[rows.length - 1]!.position), 'verified up to the last position');
  t.ok(good.report.signed_through !== null && good.report.checkpoints >= 2, 'checkpoints signed parts of it');
  const human = await runAudit(['verify', '--public-key', publicKey], env);
  t.match(human.stdout, new RegExp(`verified up to position ${rows[rows.length - 1]!.position} `), 'says "verified up to position P"');

  const wrongDir = tempDir();
  t.teardown(() => removeDir(wrongDir));
  const otherKey = JSON.parse((await runAudit(['signing-key', 'show', '--json'], { RULEVAULT_DATA_DIR: wrongDir })).stdout).public_key;
  const wrong = await verifyJson(['--public-key', otherKey], env);
  t.equal(wrong.code, 3, 'a wrong public key fails');
  t.equal(wrong.report.break.kind, 'signature');
  t.match(wrong.report.break.message, /none of the public keys given/);
  const malformed = await runAudit(['verify', '--public-key', 'not-a-key'], env);
  t.equal(malformed.code, 1);
  t.match(malformed.stderr, /public key 1 is not standard base64 of 32 bytes/);

  const rule = rows.find((row) => row.type === 'RuleCreated' && row.position > 2)!;
  const at = rule.position;

  const modified = tamperedCopy(log, dir, 'modified', (db) => {
    db.prepare("UPDATE events SET data = json_set(data, '$.name', 'forged') WHERE position = ?").run(at);
  });
  const m = await verifyJson(['--public-key', publicKey], modified);
  t.equal(m.code, 3);
  t.match(m.report.break, { position: String(at), kind: 'modified' }, 'a modified event is named');
  t.equal(m.report.verified_through.position, String(at - 1));

  const removed = tamperedCopy(log, dir, 'removed', (db) => {
    db.prepare('DELETE FROM events WHERE position = ?').run(at);
  });
  const r = await verifyJson(['--public-key', publicKey], removed);
  t.equal(r.code, 3);
  t.match(r.report.break, { position: String(at + 1), kind: 'removed' }, 'a removal is named at the event after the gap');

  // The attacker links the inserted event properly (the chain needs no secret): it is caught by the event after it.
  const inserted = tamperedCopy(log, dir, 'inserted', (db) => {
    const before = rows.find((row) => row.position === at)!;
    const prev = splitMetadataText(before.metadata).link!;
    const data = JSON.stringify({ forged: true });
    const metaText = JSON.stringify({ actor: 'cli', at: '2026-01-01T00:00:00.000Z', request_id: 'forged', schema: 1 });
    const fields = { stream: 'rule-forged', revision: 0n, id: 'forged-id', type: 'RuleCreated', metaText };
    const digest = sha256Hex(data);
    const hash = linkHash(prev.hash, prev.seq + 1, fields, digest, undefined);
    const link = { v: 1, seq: prev.seq + 1, prev: prev.hash, digest, hash };
    const later = db.prepare('SELECT position FROM events WHERE position > ? ORDER BY position DESC').all(at) as { position: number }[];
    for (const { position } of later) db.prepare('UPDATE events SET position = ? WHERE position = ?').run(position + 1, position);
    db.prepare('INSERT INTO events (position, stream, revision, id, type, data, metadata) VALUES (?, ?, 0, ?, ?, ?, ?)')
      .run(at + 1, 'rule-forged', 'forged-id', 'RuleCreated', data, `${metaText.slice(0, -1)},"chain":${JSON.stringify(link)}}`);
  });
  const i = await verifyJson(['--public-key', publicKey], inserted);
  t.equal(i.code, 3);
  t.match(i.report.break, { position: String(at + 1), kind: 'inserted' }, 'an inserted event is named');
  t.equal(i.report.verified_through.position, String(at));

  const reordered = tamperedCopy(log, dir, 'reordered', (db) => {
    const [a, b] = [rows.find((row) => row.position === at)!, rows.find((row) => row.position === at + 1)!];
    db.prepare('DELETE FROM events WHERE position IN (?, ?)').run(at, at + 1);
    const put = db.prepare('INSERT INTO events (position, stream, revision, id, type, data, metadata) VALUES (?, ?, ?, ?, ?, ?, ?)');
    put.run(at, b.stream, b.revision, b.id, b.type, b.data, b.metadata);
    put.run(at + 1, a.stream, a.revision, a.id, a.type, a.data, a.metadata);
  });
  const o = await verifyJson(['--public-key', publicKey], reordered);
  t.equal(o.code, 3);
  t.match(o.report.break, { position: String(at), kind: 'reordered' }, 'two swapped events are named');

  // Erased content without an erasure record: someone blanked an event that was never erased.
  const blanked = tamperedCopy(log, dir, 'blanked', (db) => {
    db.prepare('UPDATE events SET data = ? WHERE position = ?').run('{"erased":true}', at);
  });
  const bl = await verifyJson(['--public-key', publicKey], blanked);
  t.match(bl.report?.break, { position: String(at), kind: 'modified' }, 'an erasure no record covers is a modification');

  // A forged checkpoint signature.
  const checkpointRow = rows.find((row) => row.type === 'ChainCheckpointSigned')!;
  const forgedSignature = tamperedCopy(log, dir, 'signature', (db) => {
    db.prepare("UPDATE events SET data = json_set(data, '$.hash', ?) WHERE position = ?").run('f'.repeat(64), checkpointRow.position);
  });
  const fs = await verifyJson(['--public-key', publicKey], forgedSignature);
  t.equal(fs.code, 3);
  t.equal(fs.report.break.position, String(checkpointRow.position), 'a changed checkpoint is named');

  // The export, and a line removed from it.
  const file = path.join(dir, 'log.ndjson');
  t.equal((await runAudit(['export', '--out', file], env)).code, 0);
  const fromExport = await verifyJson(['--in', file, '--public-key', publicKey], {});
  t.equal(fromExport.code, 0, fromExport.stderr);
  t.equal(fromExport.report.events, rows.length);
  const lines = readFileSync(file, 'utf8').trim().split('\n');
  const cut = path.join(dir, 'cut.ndjson');
  writeFileSync(cut, [...lines.slice(0, 3), ...lines.slice(4)].join('\n') + '\n');
  const cutReport = await verifyJson(['--in', cut, '--public-key', publicKey], {});
  t.equal(cutReport.code, 3);
  t.match(cutReport.report.break, { position: JSON.parse(lines[4]!).position, kind: 'removed' }, 'a line removed from an export is named');
});

t.test('checkpoint on demand and key rotation: the old key endorses the new one', async (t) => {
  const dir = tempDir();
  t.teardown(() => removeDir(dir));
  const env = testEnv(dir, { RULEVAULT_CHAIN_CHECKPOINT_EVERY: '0' });
  const node = await startTestNode(env);
  const admin = client(node.url, node.adminKey);
  await admin.post('/api/contexts', { name: 'c', content: 'x' });
  await node.stop();
  const first = JSON.parse((await runAudit(['signing-key', 'show', '--json'], env)).stdout).public_key;
  const unsigned = await verifyJson(['--public-key', first], env);
  t.equal(unsigned.code, 0);
  t.equal(unsigned.report.signed_through, null, 'with checkpoints off nothing is signed yet');

  const signed = await runAudit(['checkpoint', '--json'], env);
  t.equal(signed.code, 0, signed.stderr);
  t.equal(JSON.parse(signed.stdout).public_key, first);
  const afterSign = await verifyJson(['--public-key', first], env);
  t.equal(afterSign.report.signed_through.seq, JSON.parse(signed.stdout).seq, 'the checkpoint signs the head');

  const rotated = await runAudit(['signing-key', 'rotate', '--json'], env);
  t.equal(rotated.code, 0, rotated.stderr);
  const second = JSON.parse(rotated.stdout).public_key;
  t.not(second, first, 'a new key');
  t.equal(JSON.parse((await runAudit(['signing-key', 'show', '--json'], env)).stdout).public_key, second, 'the new key replaced the old');
  t.notOk(existsSync(path.join(dir, 'signing.key.next')), 'no key file left behind');
  t.equal((await runAudit(['checkpoint'], env)).code, 0);
  const withFirst = await verifyJson(['--public-key', first], env);
  t.equal(withFirst.code, 0, 'the first key alone vouches for checkpoints by the key it endorsed');
  t.equal(withFirst.report.checkpoints, 3);
  const withSecond = await verifyJson(['--public-key', second], env);
  t.equal(withSecond.code, 3, 'the second key alone cannot vouch for checkpoints signed before it');
});

t.test('chain-upgrade links a log written before the chain, once, without changing content', async (t) => {
  const dir = tempDir();
  t.teardown(() => removeDir(dir));
  const env = testEnv(dir, { RULEVAULT_CHAIN_CHECKPOINT_EVERY: '0' });
  const node = await startTestNode(env);
  const admin = client(node.url, node.adminKey);
  await admin.post('/api/contexts', { name: 'old', content: 'x' });
  const secret = (await admin.post('/api/vault/secrets', { key: 'OLD_SECRET', value: 'old-value' })).json;
  await admin.delete(`/api/vault/secrets/${secret.id}`);
  await node.stop();
  const log = path.join(dir, 'events.db');
  // The log as the previous release wrote it: no chain member.
  const db = new Database(log);
  db.prepare("UPDATE events SET metadata = json_remove(metadata, '$.chain')").run();
  db.close();
  const legacy = await verifyJson([], env);
  t.equal(legacy.code, 3);
  t.match(legacy.report.break, { position: '1', kind: 'unlinked' });
  t.match(legacy.report.break.message, /chain-upgrade/, 'verify says what to run');

  // The new release on the old log: new events stay unlinked until the upgrade.
  const created = await runCli(['api-keys', 'create', '--name', 'ci', '--scopes', 'evaluate'], env);
  t.equal(created.code, 0, created.stderr);
  const before = rowsOf(log);
  t.ok(before.every((row) => splitMetadataText(row.metadata).link === undefined), 'appends to an unlinked log stay unlinked');

  const upgraded = await runAudit(['chain-upgrade', '--json'], env);
  t.equal(upgraded.code, 0, upgraded.stderr);
  t.same(JSON.parse(upgraded.stdout), { linked: before.length, already_linked: 0, seq: before.length });
  const after = rowsOf(log);
  t.same(after.map(({ position, stream, revision, id, type, data }) => ({ position, stream, revision, id, type, data })),
    before.map(({ position, stream, revision, id, type, data }) => ({ position, stream, revision, id, type, data })), 'content is unchanged');
  t.same(after.map((row) => splitMetadataText(row.metadata).metaText), before.map((row) => row.metadata), 'metadata gained only the chain');
  const verified = await verifyJson([], env);
  t.equal(verified.code, 0, verified.stderr);
  t.equal(verified.report.verified_through.seq, before.length);
  const again = await runAudit(['chain-upgrade', '--json'], env);
  t.same(JSON.parse(again.stdout), { linked: 0, already_linked: before.length, seq: before.length }, 'a second run changes nothing');
  const appended = await runCli(['api-keys', 'create', '--name', 'ci2', '--scopes', 'evaluate'], env);
  t.equal(appended.code, 0);
  t.equal((await verifyJson([], env)).code, 0, 'appends after the upgrade continue the chain');
});

t.test('the chain covers a member named __proto__: changing its value is named as a modification', async (t) => {
  const dir = tempDir();
  t.teardown(() => removeDir(dir));
  const env = testEnv(dir);
  const node = await startTestNode(env);
  const admin = client(node.url, node.adminKey);
  const created = await admin.post('/api/contexts', { name: 'proto', content: 'x', meta_properties: JSON.parse('{"__proto__":{"tier":"gold"}}') });
  t.equal(created.status, 201, created.text);
  const publicKey: string = JSON.parse((await runAudit(['signing-key', 'show', '--json'], env)).stdout).public_key;
  await node.stop();
  const log = path.join(dir, 'events.db');
  const row = rowsOf(log).find((r) => r.type === 'ContextCreated')!;
  t.ok(row.data.includes('"__proto__":{"tier":"gold"}'), 'stored as a member');
  t.equal((await verifyJson(['--public-key', publicKey], env)).code, 0, 'the log verifies');
  const edited = tamperedCopy(log, dir, 'proto', (db) => {
    db.prepare('UPDATE events SET data = ? WHERE position = ?').run(row.data.replace('"gold"', '"free"'), row.position);
  });
  const verdict = await verifyJson(['--public-key', publicKey], edited);
  t.equal(verdict.code, 3);
  t.match(verdict.report.break, { position: String(row.position), kind: 'modified' }, 'the edit is named');
});
