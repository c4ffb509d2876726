/**
 * A snapshot belongs to its log (issue 62, item 3). events.db is put back
 * from an older copy, or its WAL loses its tail: the log's head is then
 * behind the snapshot, which a start ignores. New writes carry the log past
 * the snapshot's position again, with other events; then the node crashes,
 * so no newer snapshot replaces the old one. The next start must not take
 * that snapshot: an API key or a secret the log never had (now) must not
 * work, and every write acknowledged since the restore must be there.
 */
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import t, { type Test } from 'tap';
import { createLogger } from '../../src/base/log';
import { SNAPSHOT_FILE, SNAPSHOT_FORMAT } from '../../src/snapshots';
import { client, type Client } from '../support/http';
import { removeDir, startTestNode, tempDir, testEnv } from '../support/node';
import type { Store } from '../support/matrix';
import { exited, spawnServiceFor } from '../support/process';

interface Folder {
  readonly dir: string;
  readonly env: Record<string, string>;
  readonly db: string;
}

function folderFor(t: Test): Folder {
  const dir = tempDir();
  t.teardown(() => removeDir(dir));
  const db = path.join(dir, 'events.db');
  return { dir, db, env: testEnv(dir, { RULEVAULT_EVENTSTORE: `sqlite:${db}` }) };
}

/** What one timeline of the log wrote: ids of contexts, an API key, and the key of a secret (if it wrote one). */
interface Written {
  readonly contexts: string[];
  readonly apiKey: string;
  readonly secretKey?: string;
}

/**
 * Writes `count` contexts, an API key and (`withSecret`) a secret, each
 * acknowledged (201), tagged `tag`. The lost timeline writes no secret: a
 * start already refuses a snapshot holding a secret its log does not confirm,
 * and this is about what nothing else checks.
 */
async function write(t: Test, admin: Client, tag: string, count: number, withSecret = true): Promise<Written> {
  const contexts: string[] = [];
  const statuses: number[] = [];
  for (let i = 0; i < count; i++) {
    const created = await admin.post('/api/contexts', { name: `${tag}-${i}`, content: `${tag} ${i}` });
    statuses.push(created.status);
    contexts.push(created.json.id as string);
  }
  t.same(statuses, contexts.map(() => 201), `the ${count} ${tag} contexts acknowledged`);
  const key = await admin.post('/api/api-keys', { name: `${tag}-key`, scopes: ['evaluate'] });
  t.equal(key.status, 201, `${tag} API key acknowledged`);
  if (!withSecret) return { contexts, apiKey: key.json.key as string };
  const secretKey = `${tag.toUpperCase()}_SECRET`;
  t.equal((await admin.post('/api/vault/secrets', { key: secretKey, value: `${tag}-value` })).status, 201, `${tag} secret acknowledged`);
  return { contexts, apiKey: key.json.key as string, secretKey };
}

/** The snapshot file's position (its envelope, line 2). */
function snapshotPosition(dir: string): string | undefined {
  const file = path.join(dir, SNAPSHOT_FILE);
  if (!existsSync(file)) return undefined;
  return (JSON.parse(readFileSync(file, 'utf8').split('\n')[1]!) as { position: string }).position;
}

/**
 * From a log put back behind its snapshot: a service writes the new timeline
 * (more events than the lost one, so the log passes the snapshot's position)
 * and is killed; a node started then must answer from the log as it is.
 */
async function newTimelineThenCrash(t: Test, folder: Folder, lost: Written, kept: Written & { readonly readerKey: string }): Promise<void> {
  const lostAt = snapshotPosition(folder.dir);
  t.ok(lostAt !== undefined, 'the snapshot of the lost timeline is on disk');
  const service = await spawnServiceFor(t, folder.env);
  const fresh = await write(t, client(service.url, folder.env.RULEVAULT_ADMIN_KEY), 'fresh', 2 * lost.contexts.length + 4);
  const head = ((await (await fetch(`${service.url}/readyz`)).json()) as { position: string }).position;
  t.ok(BigInt(head) > BigInt(lostAt!), `the new writes carried the log (${head}) past the snapshot's position (${lostAt})`);
  service.child.kill('SIGKILL');
  await exited(service.child);
  t.equal(snapshotPosition(folder.dir), lostAt, 'the crash left the old snapshot in place');

  const lines: string[] = [];
  const node = await startTestNode(folder.env, createLogger((line) => lines.push(line)));
  t.teardown(() => node.stop());
  const admin = client(node.url, node.adminKey);
  const missing: string[] = [];
  for (const id of [...kept.contexts, ...fresh.contexts]) if ((await admin.get(`/api/contexts/${id}`)).status !== 200) missing.push(id);
  t.same(missing, [], 'every acknowledged context of the log is there');
  const lostAnswers: number[] = [];
  for (const id of lost.contexts) lostAnswers.push((await admin.get(`/api/contexts/${id}`)).status);
  t.same(lostAnswers, lost.contexts.map(() => 404), 'the lost contexts are not');
  t.equal((await client(node.url, lost.apiKey).get('/api/whoami')).status, 401, 'the API key the log does not have does not answer 200');
  t.equal((await client(node.url, fresh.apiKey).get('/api/whoami')).status, 200, 'the new timeline\'s API key works');
  const secrets = (await client(node.url, kept.readerKey).post('/api/vault/get-secrets', {})).json;
  t.same(Object.keys(secrets.res ?? {}).sort(), [fresh.secretKey, kept.secretKey].sort(), 'get-secrets serves the secrets of the log');
  const ignored = lines.map((line) => JSON.parse(line) as { msg: string; reason?: string }).filter((line) => line.msg === 'snapshot ignored; replaying the whole log');
  t.match(ignored, [{ reason: /another event at its position/ }], 'the start said why it did not take the snapshot');
}

/** The log as first written, with a reader key: what every timeline keeps. */
async function keptTimeline(t: Test, admin: Client): Promise<Written & { readonly readerKey: string }> {
  const kept = await write(t, admin, 'kept', 3);
  const reader = await admin.post('/api/api-keys', { name: 'reader', scopes: ['secrets:read'] });
  return { ...kept, readerKey: reader.json.key as string };
}

t.test('events.db restored from an older copy: the snapshot of the lost writes is not taken after the next crash', async (t) => {
  const folder = folderFor(t);
  const first = await startTestNode(folder.env);
  const kept = await keptTimeline(t, client(first.url, first.adminKey));
  await first.stop();
  // A backup: the file as a clean stop leaves it (its WAL folded in).
  copyFileSync(folder.db, `${folder.db}.backup`);

  const second = await startTestNode(folder.env);
  const lost = await write(t, client(second.url, second.adminKey), 'lost', 5, false);
  await second.stop();

  copyFileSync(`${folder.db}.backup`, folder.db);
  for (const suffix of ['-wal', '-shm']) rmSync(`${folder.db}${suffix}`, { force: true });
  await newTimelineThenCrash(t, folder, lost, kept);
});

t.test('a WAL that lost its tail: the snapshot of the lost writes is not taken after the next crash', async (t) => {
  const folder = folderFor(t);
  // Snapshots every 200 ms on this run, so one holds the writes the WAL then loses.
  const service = await spawnServiceFor(t, { ...folder.env, RULEVAULT_SNAPSHOT_INTERVAL_MS: '200' });
  const admin = client(service.url, folder.env.RULEVAULT_ADMIN_KEY);
  const kept = await keptTimeline(t, admin);
  const wal = `${folder.db}-wal`;
  const keptBytes = statSync(wal).size;
  const lost = await write(t, admin, 'lost', 5, false);
  const head = ((await (await fetch(`${service.url}/readyz`)).json()) as { position: string }).position;
  while (snapshotPosition(folder.dir) !== head) await new Promise((resolve) => setTimeout(resolve, 50));
  service.child.kill('SIGKILL');
  await exited(service.child);
  t.ok(statSync(wal).size > keptBytes, 'the WAL holds the lost writes after the kept ones');
  // The tail lost (as a power loss loses what was never synced, or a damaged disk): the WAL ends after the kept writes.
  truncateSync(wal, keptBytes);
  rmSync(`${folder.db}-shm`, { force: true });
  await newTimelineThenCrash(t, folder, lost, kept);
});

/** Rewrites the snapshot so that it names another event at its position, with a checksum that matches again. */
function nameAnotherEvent(dir: string): void {
  const file = path.join(dir, SNAPSHOT_FILE);
  const text = readFileSync(file, 'utf8');
  const [, envelopeLine, ...rest] = text.split('\n');
  const envelope = JSON.parse(envelopeLine!) as { last_event: { id: string } };
  envelope.last_event.id = '00000000-0000-4000-8000-000000000000';
  const body = [JSON.stringify(envelope), ...rest].join('\n');
  const sha256 = createHash('sha256').update(body, 'utf8').digest('hex');
  writeFileSync(file, `${JSON.stringify({ format: SNAPSHOT_FORMAT, sha256 })}\n${body}`);
}

/** A start's `ready` line and its warnings. */
async function startLogged(env: Record<string, string>, store: Store) {
  const lines: string[] = [];
  const node = await startTestNode(env, createLogger((line) => lines.push(line)), store);
  const parsed = lines.map((line) => JSON.parse(line) as { msg: string; level: string; from_snapshot?: string | null; reason?: string });
  return { node, ready: parsed.find((line) => line.msg === 'ready')!, warnings: parsed.filter((line) => line.level === 'warn') };
}

// What identifies the log at a position on each store: the event there, read at exactly that position (EventStoreDB: in $all).
for (const store of ['sqlite', 'esdb'] as const) {
  t.test(`${store}: a snapshot is taken where the log holds its event at its position, and ignored where it names another`, async (t) => {
    const dir = tempDir();
    t.teardown(() => removeDir(dir));
    const env = testEnv(dir);
    const first = await startTestNode(env, undefined, store);
    const kept = await keptTimeline(t, client(first.url, first.adminKey));
    await first.stop();

    const same = await startLogged(env, store);
    t.ok(same.ready.from_snapshot, 'the snapshot of this log is taken');
    t.same(same.warnings, [], 'with no warning');
    await same.node.stop();

    nameAnotherEvent(dir);
    const other = await startLogged(env, store);
    t.teardown(() => other.node.stop());
    t.equal(other.ready.from_snapshot, null, 'one naming another event at its position is not');
    t.match(other.warnings, [{ msg: 'snapshot ignored; replaying the whole log', reason: /another event at its position/ }]);
    const admin = client(other.node.url, other.node.adminKey);
    const answers: number[] = [];
    for (const id of kept.contexts) answers.push((await admin.get(`/api/contexts/${id}`)).status);
    t.same(answers, kept.contexts.map(() => 200), 'the replayed log answers');
  });
}
