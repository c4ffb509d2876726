/**
 * The vault's promises end to end: no plaintext in the store file or the logs,
 * tampered or swapped ciphertexts fail closed, the wrong master key stops
 * start-up, deletion erases at once, rotation keeps every live secret.
 */
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import t from 'tap';
import { loadConfig } from '../../src/base/config';
import { createLogger } from '../../src/base/log';
import { startNode } from '../../src/main';
import { client } from '../support/http';
import { removeDir, startTestNode, tempDir, testEnv } from '../support/node';
import { runCli } from '../support/process';

const SECRETS = {
  OPENAI_API_KEY: 'sk-plaintext-openai-5f1c',
  DB_PASSWORD: 'pg-plaintext-password-77ab',
  UNICODE: 'pässwörd-🔑-plaintext',
};

async function nodeWithSecrets(t: tap.Test, env?: Record<string, string>) {
  const dir = env?.RULEVAULT_DATA_DIR ?? tempDir();
  const fullEnv = env ?? testEnv(dir);
  const logLines: string[] = [];
  const node = await startNode(loadConfig(fullEnv), { logger: createLogger((line) => logLines.push(line)), announce: () => undefined });
  await node.ready;
  const admin = client(node.url, fullEnv.RULEVAULT_ADMIN_KEY);
  const reader = client(node.url, (await admin.post('/api/api-keys', { name: 'r', scopes: ['secrets:read'] })).json.key);
  return { dir, env: fullEnv, node, admin, reader, logLines };
}

function filesIn(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.join(entry.parentPath ?? (entry as unknown as { path: string }).path, entry.name));
}

t.test('no secret plaintext in the store, its WAL, the data folder or the logs', async (t) => {
  const { dir, node, admin, reader, logLines } = await nodeWithSecrets(t);
  t.teardown(() => removeDir(dir));
  const ids: Record<string, string> = {};
  for (const [key, value] of Object.entries(SECRETS)) ids[key] = (await admin.post('/api/vault/secrets', { key, value, tags: ['t'] })).json.id;
  await admin.patch(`/api/vault/secrets/${ids.DB_PASSWORD}`, { value: 'pg-plaintext-rotated-99cd' });
  await admin.post('/api/vault/secrets', { key: 'BAD', value: 5 });
  const served = await reader.post('/api/vault/get-secrets', {});
  t.equal(served.json.res.UNICODE, SECRETS.UNICODE, 'the values are really there');
  const audit = await admin.get('/api/audit/events?limit=1000');
  await node.stop();

  const plaintexts = [...Object.values(SECRETS), 'pg-plaintext-rotated-99cd'];
  const encodings = (text: string) => [Buffer.from(text, 'utf8'), Buffer.from(Buffer.from(text).toString('base64'))];
  for (const file of filesIn(dir)) {
    const bytes = readFileSync(file);
    for (const plaintext of plaintexts) {
      for (const needle of encodings(plaintext)) t.equal(bytes.indexOf(needle), -1, `${path.basename(file)} does not contain ${plaintext}`);
    }
  }
  const logs = logLines.join('\n');
  for (const plaintext of plaintexts) {
    t.notOk(logs.includes(plaintext), `logs do not contain ${plaintext}`);
    t.notOk(audit.text.includes(plaintext), `the audit log answer does not contain ${plaintext}`);
  }
  t.ok(audit.text.includes('"ciphertext"'), 'the audit log shows sealed values');
});

t.test('a deleted secret is erased from the embedded store at once', async (t) => {
  const { dir, node, admin } = await nodeWithSecrets(t);
  t.teardown(() => removeDir(dir));
  const created = await admin.post('/api/vault/secrets', { key: 'ERASE_ME', value: 'erase-me-plaintext' });
  const before = await admin.get('/api/audit/events?limit=1000');
  const sealed = before.json.events.find((e: { type: string; data: { id: string } }) => e.type === 'SecretCreated' && e.data.id === created.json.id).data.sealed;
  t.equal((await admin.delete(`/api/vault/secrets/${created.json.id}`)).status, 204);
  const after = await admin.get('/api/audit/events?limit=1000');
  t.notOk(after.text.includes(sealed.ciphertext), 'the sealed value left the log');
  // Issue 14 changed this: the log remembers the erasure (the deletion event stays; the sealed events read erased).
  const stream = after.json.events.filter((e: { stream: string }) => e.stream === `secret-${created.json.id}`);
  t.same(stream.map((e: { type: string; data: unknown }) => [e.type, e.data]), [['SecretCreated', { erased: true }], ['SecretDeleted', { id: created.json.id }]],
    'the deletion event stays in the log; the sealed event before it is erased');
  await node.stop();
  for (const file of filesIn(dir)) {
    const bytes = readFileSync(file);
    t.equal(bytes.indexOf(Buffer.from(sealed.ciphertext)), -1, `${path.basename(file)} holds no copy of the ciphertext`);
    t.equal(bytes.indexOf(Buffer.from(sealed.wrapped_key)), -1, `${path.basename(file)} holds no copy of the wrapped key`);
  }
});

t.test('a tampered or swapped ciphertext fails closed with an err', async (t) => {
  // Snapshots off: the restarted node must read the tampered log, not a snapshot taken before.
  const snapshotless = tempDir();
  const { dir, env, node, admin } = await nodeWithSecrets(t, testEnv(snapshotless, { RULEVAULT_SNAPSHOT_INTERVAL_MS: '0' }));
  t.teardown(() => removeDir(dir));
  const a = (await admin.post('/api/vault/secrets', { key: 'A', value: 'value-a', tags: ['a'] })).json.id;
  const b = (await admin.post('/api/vault/secrets', { key: 'B', value: 'value-b', tags: ['b'] })).json.id;
  await node.stop();

  const db = new Database(path.join(dir, 'events.db'));
  const row = (id: string) => db.prepare('SELECT position, data FROM events WHERE stream = ?').get(`secret-${id}`) as { position: number; data: string };
  const dataA = JSON.parse(row(a).data);
  const dataB = JSON.parse(row(b).data);
  // Swap: secret B now carries A's sealed value.
  db.prepare('UPDATE events SET data = ? WHERE position = ?').run(JSON.stringify({ ...dataB, sealed: dataA.sealed }), row(b).position);
  db.close();

  const restarted = await startTestNode(env);
  t.teardown(() => restarted.stop());
  const reader = client(restarted.url, (await client(restarted.url, restarted.adminKey).post('/api/api-keys', { name: 'r', scopes: ['secrets:read'] })).json.key);
  const swapped = await reader.post('/api/vault/get-secrets', { key: 'B' });
  t.equal(swapped.status, 200);
  t.equal(swapped.json.res, null);
  t.match(swapped.json.err, /secret B could not be opened/);
  t.notOk(swapped.text.includes('value-a'), 'never the other secret\'s value');
  t.same((await reader.post('/api/vault/get-secrets', { key: 'A' })).json, { err: null, res: { A: 'value-a' } }, 'the untouched secret still opens');
  await restarted.stop();

  const db2 = new Database(path.join(dir, 'events.db'));
  const flipped = dataA.sealed.ciphertext.startsWith('A') ? 'B' + dataA.sealed.ciphertext.slice(1) : 'A' + dataA.sealed.ciphertext.slice(1);
  db2.prepare('UPDATE events SET data = ? WHERE position = ?').run(JSON.stringify({ ...dataA, sealed: { ...dataA.sealed, ciphertext: flipped } }), row2(db2, a).position);
  db2.close();
  const third = await startTestNode(env);
  t.teardown(() => third.stop());
  const reader3 = client(third.url, (await client(third.url, third.adminKey).post('/api/api-keys', { name: 'r', scopes: ['secrets:read'] })).json.key);
  const tampered = await reader3.post('/api/vault/get-secrets', { key: 'A' });
  t.equal(tampered.json.res, null);
  t.match(tampered.json.err, /secret A could not be opened/);
});

function row2(db: Database.Database, id: string) {
  return db.prepare('SELECT position FROM events WHERE stream = ?').get(`secret-${id}`) as { position: number };
}

t.test('the wrong master key stops start-up with a clear message', async (t) => {
  const dir = tempDir();
  t.teardown(() => removeDir(dir));
  const env = testEnv(dir, { RULEVAULT_MASTER_KEY: Buffer.alloc(32, 1).toString('base64') });
  const first = await startTestNode(env);
  await client(first.url, first.adminKey).post('/api/vault/secrets', { key: 'K', value: 'v' });
  await first.stop();
  const wrong = await startNode(loadConfig({ ...env, RULEVAULT_MASTER_KEY: Buffer.alloc(32, 2).toString('base64') }), { logger: createLogger(() => undefined) });
  await t.rejects(wrong.ready, /master key \(id [0-9a-f]+\) is not the key this store's secrets are sealed with/);
  await wrong.stop();
  const malformed = startNode(loadConfig({ ...env, RULEVAULT_MASTER_KEY: 'too-short' }), { logger: createLogger(() => undefined) });
  await t.rejects(malformed, /RULEVAULT_MASTER_KEY/);
});

t.test('rotation re-wraps every live secret; after restart all are served with the new key only', async (t) => {
  const { dir, env, node, admin } = await nodeWithSecrets(t);
  t.teardown(() => removeDir(dir));
  for (const [key, value] of Object.entries(SECRETS)) await admin.post('/api/vault/secrets', { key, value });
  const gone = await admin.post('/api/vault/secrets', { key: 'GONE', value: 'gone' });
  await admin.delete(`/api/vault/secrets/${gone.json.id}`);
  await node.stop();
  const oldKey = readFileSync(path.join(dir, 'master.key'), 'utf8');

  const rotated = await runCli(['rotate-master-key', '--json'], env);
  t.equal(rotated.code, 0, rotated.stderr);
  const summary = JSON.parse(rotated.stdout);
  t.equal(summary.rewrapped, 3);
  t.not(summary.from_master_key_id, summary.to_master_key_id);
  t.not(readFileSync(path.join(dir, 'master.key'), 'utf8'), oldKey, 'master.key now holds the new key');
  t.notOk(existsSync(path.join(dir, 'master.key.next')), 'no leftover key file');

  const restarted = await startTestNode(env);
  t.teardown(() => restarted.stop());
  const radmin = client(restarted.url, restarted.adminKey);
  const reader = client(restarted.url, (await radmin.post('/api/api-keys', { name: 'r', scopes: ['secrets:read'] })).json.key);
  t.same((await reader.post('/api/vault/get-secrets', {})).json, { err: null, res: SECRETS }, 'every live secret is served');
  const log = await radmin.get('/api/audit/events?limit=1000');
  const types = log.json.events.map((e: { type: string }) => e.type);
  t.equal(types.filter((type: string) => type === 'SecretRewrapped').length, 3);
  t.ok(types.includes('MasterKeyRotated'));
  await restarted.stop();

  const withOldKey = await startNode(loadConfig({ ...env, RULEVAULT_MASTER_KEY: oldKey.trim() }), { logger: createLogger(() => undefined) });
  await t.rejects(withOldKey.ready, /not the key this store's secrets are sealed with/, 'the retired key no longer starts the service');
  await withOldKey.stop();
});
