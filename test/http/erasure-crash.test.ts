/**
 * Erasure that stays erased (issue 14, item 1). The service is killed with
 * SIGKILL at every step of a secret's erasure (RULEVAULT_TEST_CRASH_AT, see
 * src/base/crash-points.ts), and after a few delays into a DELETE; snapshots are
 * turned off, or their rewrite fails. After every restart the secret is gone
 * for good: get-secrets does not serve it, listings do not show it, a second
 * DELETE answers 404, the audit log shows its deletion, and no byte of its
 * plaintext, ciphertext or wrapped key is left in the database, its WAL or a
 * snapshot file. A crash before the erasure's commit leaves the secret whole
 * (the DELETE was never answered); the client's retry then erases it.
 */
import { existsSync, mkdirSync, readFileSync, rmdirSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { CRASH_POINTS, type CrashPoint } from '../../src/base/crash-points';
import { SNAPSHOT_FILE } from '../../src/snapshots';
import { assertNoTraces, DOOMED_PLAINTEXT as PLAINTEXT, doomedFolder, KEPT, type DoomedFolder as Prepared } from '../support/erasure';
import { client } from '../support/http';
import { startTestNode } from '../support/node';
import { exited, freePort, spawnService } from '../support/process';

/** What a key lookup of the erased secret answers: nothing under that key (a key lookup that finds nothing is an error). */
const NOT_SERVED = { err: 'no secret "DOOMED" that this API key may read', code: 'not_found', res: null };

/** Steps at which the erasure is already committed: the DELETE happened, though it was never answered. */
const COMMITTED: ReadonlySet<CrashPoint> = new Set(['erasure:after-commit', 'erasure:before-snapshot', 'erasure:after-snapshot']);

/**
 * A data folder on the embedded store holding the doomed secret and a kept
 * one, written by a node that then stopped, so its snapshot holds the doomed
 * secret's sealed value too.
 */
async function prepared(t: tap.Test): Promise<Prepared> {
  const folder = await doomedFolder(t);
  t.ok(readFileSync(path.join(folder.dir, SNAPSHOT_FILE), 'utf8').includes(folder.sealed.ciphertext), 'before the delete, the snapshot holds the sealed value');
  return folder;
}

/** What a node on the folder answers about the doomed secret once it is erased. */
async function assertErased(t: tap.Test, url: string, adminKey: string, prepared: Prepared, when: string): Promise<void> {
  const admin = client(url, adminKey);
  const reader = client(url, prepared.readerKey);
  t.same((await reader.post('/api/vault/get-secrets', { key: 'DOOMED' })).json, NOT_SERVED, `${when}: get-secrets does not serve it`);
  t.same((await reader.post('/api/vault/get-secrets', {})).json, { err: null, res: { [KEPT.key]: KEPT.value } }, `${when}: only the kept secret is served`);
  const listed = (await admin.get('/api/vault/secrets')).json.secrets.map((s: { id: string }) => s.id);
  t.notOk(listed.includes(prepared.id), `${when}: the listing does not show it`);
  t.equal((await admin.delete(`/api/vault/secrets/${prepared.id}`)).status, 204, `${when}: a second DELETE answers 204 (the erasure holds; docs/decisions/0045-erased-secret-delete.md)`);
  const log = (await admin.get('/api/audit/events?limit=1000')).json.events.filter((e: { stream: string }) => e.stream === `secret-${prepared.id}`);
  t.same(log.map((e: { type: string; data: unknown }) => [e.type, e.data]), [['SecretCreated', { erased: true }], ['SecretDeleted', { id: prepared.id }]],
    `${when}: the audit log shows the deletion once, and the sealed event erased`);
}

/** Restarts on the folder, checks, stops, checks the files, then checks a start from the snapshot written at that stop. */
async function restartAndCheck(t: tap.Test, prepared: Prepared, deleteHappened: boolean): Promise<void> {
  const restarted = await startTestNode(prepared.env);
  const admin = client(restarted.url, restarted.adminKey);
  // One assertion on either branch, so a delay-based kill that lands before or after the commit runs the same count.
  const served = await client(restarted.url, prepared.readerKey).post('/api/vault/get-secrets', { key: 'DOOMED' });
  if (deleteHappened) {
    t.same(served.json, NOT_SERVED, 'the committed erasure holds at once');
  } else {
    const retried = (await admin.delete(`/api/vault/secrets/${prepared.id}`)).status;
    t.same(
      { served: served.json, retried },
      { served: { err: null, res: { DOOMED: PLAINTEXT } }, retried: 204 },
      'the unanswered DELETE did not happen (the secret is whole, not half erased); the client retries it',
    );
  }
  await assertErased(t, restarted.url, restarted.adminKey, prepared, 'after restart');
  assertNoTraces(t, prepared, 'after restart, while serving');
  await restarted.stop();
  assertNoTraces(t, prepared, 'after a clean stop');
  const again = await startTestNode(prepared.env);
  t.teardown(() => again.stop());
  await assertErased(t, again.url, again.adminKey, prepared, 'after a start from the new snapshot');
}

/** Starts the service as a child process, sends the DELETE and lets `kill` end the process. */
async function deleteInChild(t: tap.Test, prepared: Prepared, env: Record<string, string>, kill: (child: import('node:child_process').ChildProcess) => void) {
  const service = await spawnService({ ...prepared.env, ...env }, await freePort());
  t.teardown(() => void service.child.kill('SIGKILL'));
  const answered = client(service.url, prepared.env.RULEVAULT_ADMIN_KEY).delete(`/api/vault/secrets/${prepared.id}`).then(
    (answer) => answer.status,
    () => undefined,
  );
  kill(service.child);
  await exited(service.child);
  return { status: await answered, signal: service.child.signalCode };
}

// The erasure's own steps: the other points are a change request's apply (test/http/change-request-crash.test.ts).
const ERASURE_STEPS = CRASH_POINTS.filter((point) => point.startsWith('erasure:'));

for (const step of ERASURE_STEPS) {
  t.test(`kill -9 at ${step}: after restart the secret is erased for good`, async (t) => {
    const folder = await prepared(t);
    const crashed = await deleteInChild(t, folder, { RULEVAULT_TEST_CRASH_AT: step }, (child) => {
      // The crash point kills the process; should it not fire, the test fails below instead of hanging.
      setTimeout(() => child.kill('SIGKILL'), 30_000).unref();
    });
    t.equal(crashed.status, undefined, 'the DELETE was never answered');
    t.equal(crashed.signal, 'SIGKILL', 'the process killed itself at the step');
    await restartAndCheck(t, folder, COMMITTED.has(step));
  });
}

// Kills from outside, a few milliseconds into a DELETE: whichever step they hit, the secret is whole or gone, never back.
for (const delayMs of [10, 40, 120]) {
  t.test(`kill -9 ${delayMs} ms into a DELETE: after restart the secret is erased for good`, async (t) => {
    const folder = await prepared(t);
    const crashed = await deleteInChild(t, folder, {}, (child) => void setTimeout(() => child.kill('SIGKILL'), delayMs));
    const restarted = await startTestNode(folder.env);
    const served = (await client(restarted.url, folder.readerKey).post('/api/vault/get-secrets', { key: 'DOOMED' })).json;
    await restarted.stop();
    t.ok(crashed.status !== 204 || served.code === 'not_found', `an answered DELETE stays done (answered: ${crashed.status})`);
    await restartAndCheck(t, folder, served.res?.DOOMED === undefined);
  });
}

t.test('snapshots off (RULEVAULT_SNAPSHOT_INTERVAL_MS=0): the older snapshot never brings the secret back', async (t) => {
  const folder = await prepared(t);
  const off = { ...folder, env: { ...folder.env, RULEVAULT_SNAPSHOT_INTERVAL_MS: '0' } };
  const node = await startTestNode(off.env);
  t.equal((await client(node.url, node.adminKey).delete(`/api/vault/secrets/${folder.id}`)).status, 204);
  t.notOk(existsSync(path.join(folder.dir, SNAPSHOT_FILE)), 'with snapshots off, the older snapshot is removed at the erasure');
  await node.stop();
  await restartAndCheck(t, off, true);
});

t.test('a failed snapshot rewrite: the older snapshot never brings the secret back', async (t) => {
  const folder = await prepared(t);
  // A folder where the snapshot's temp file goes: every snapshot write fails.
  const blocker = path.join(folder.dir, `${SNAPSHOT_FILE}.tmp`);
  mkdirSync(blocker);
  const node = await startTestNode(folder.env);
  t.equal((await client(node.url, node.adminKey).delete(`/api/vault/secrets/${folder.id}`)).status, 204, 'the erasure is answered; the snapshot is not the record of it');
  t.notOk(existsSync(path.join(folder.dir, SNAPSHOT_FILE)), 'the rewrite failed, so the older snapshot is removed');
  await node.stop();
  rmdirSync(blocker);
  await restartAndCheck(t, folder, true);
});
