/**
 * Black-box: the hash chain of the live store on the admin API (docs/auditors.md#the-hash-chain;
 * src/audit/chain-audit.ts) on a real node over
 * loopback with its real SQLite file: a verification run names the first
 * changed position of a tampered copy; incremental runs read only what was
 * appended (`checked_events`); concurrent requests read the log once; a
 * checkpoint signed on demand verifies offline with the public key.
 */
import { copyFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import t from 'tap';
import { createChainAudit } from '../../src/audit/chain-audit';
import { checkpointMessage } from '../../src/audit/chain-checkpoint';
import { openStore } from '../../src/store/open-store';
import { silentLogger } from '../../src/base/log';
import { createSignatureCheck } from '../../src/vault/signing-key';
import { client, type Client } from '../support/http';
import { removeDir, startTestNode, tempDir, testEnv } from '../support/node';
import { runAudit } from './support/run-audit';

/** Starts a run and polls the status until it is over. */
async function verifyNow(admin: Client, body?: unknown) {
  const started = await admin.post('/api/audit/chain/verify', body);
  if (started.status !== 202) throw new Error(`verify not started: ${started.status} ${started.text}`);
  for (;;) {
    const status = await admin.get('/api/audit/chain');
    if (!status.json.running) return { started: started.json, status: status.json };
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const rule = (i: number) => ({ name: `rule ${i}`, condition_groups: [{ conditions: [{ field: 'tier', operator: 'equals', value: `v${i}` }] }] });

async function addRules(admin: Client, from: number, count: number): Promise<void> {
  for (let i = from; i < from + count; i++) {
    const answer = await admin.post('/api/rule-engine/rules', rule(i));
    if (answer.status !== 201) throw new Error(answer.text);
  }
}

const headOf = (file: string): number => {
  const db = new Database(file, { readonly: true });
  try {
    return (db.prepare('SELECT max(position) AS head FROM events').get() as { head: number }).head;
  } finally {
    db.close();
  }
};

t.test('full, then incremental runs read only what is new; a checkpoint on demand verifies with the public key', async (t) => {
  const dir = tempDir();
  t.teardown(() => removeDir(dir));
  const env = testEnv(dir, { RULEVAULT_CHAIN_CHECKPOINT_EVERY: '0' });
  const node = await startTestNode(env);
  let stopped = false;
  t.teardown(() => (stopped ? undefined : node.stop()));
  const admin = client(node.url, node.adminKey);
  await addRules(admin, 0, 5);
  const file = path.join(dir, 'events.db');

  const before = (await admin.get('/api/audit/chain')).json;
  t.same([before.running, before.run, before.report, before.events_read], [false, null, null, 0], 'nothing verified before the first run');
  t.match(before.signing_key, { algorithm: 'ed25519', public_key: /^[A-Za-z0-9+/]{43}=$/ });

  const first = await verifyNow(admin);
  t.equal(first.started.running, true, 'the run is started and answered at once');
  t.match(first.started.run, { id: 1, mode: 'incremental', finished_at: null });
  const head = headOf(file);
  t.match(first.status.report, { verified: true, events: head, break: null, verified_through: { position: String(head) } }, 'verified up to the head');
  t.equal(first.status.run.checked_events, head, 'the first run reads the whole log');

  const again = await verifyNow(admin);
  t.equal(again.status.run.checked_events, 0, 'nothing appended: nothing read');
  t.equal(again.status.report.events, head, 'the report still covers the whole log');

  await addRules(admin, 5, 3);
  const more = await verifyNow(admin);
  t.equal(more.status.run.checked_events, 3, 'only the three new events are read');
  t.match(more.status.report, { verified: true, events: head + 3, verified_through: { position: String(head + 3) } });
  t.equal(more.status.events_read, head + 3, 'every event read once so far');

  const full = await verifyNow(admin, { full: true });
  t.equal(full.status.run.mode, 'full');
  t.equal(full.status.run.checked_events, head + 3, 'a full run reads the whole log again');

  const signed = await admin.post('/api/audit/chain/checkpoints');
  t.equal(signed.status, 201, signed.text);
  const checkpoint = signed.json;
  t.match(checkpoint, { seq: head + 3, position: String(head + 4), key_id: before.signing_key.key_id, public_key: before.signing_key.public_key });
  const check = await createSignatureCheck();
  t.ok(check(checkpoint.public_key, checkpointMessage(checkpoint.seq, checkpoint.hash, undefined), checkpoint.signature), 'the signature verifies with the public key');
  t.equal(checkpoint.hash, full.status.report.verified_through.hash, 'it signs the verified head');

  const after = await verifyNow(admin);
  t.equal(after.status.run.checked_events, 1, 'the checkpoint event is read by the next run');
  t.match(after.status.report, { signed_through: { seq: checkpoint.seq, hash: checkpoint.hash }, checkpoints: 1, keys_given: false });
  t.match(after.status.checkpoints, [{ position: checkpoint.position, seq: checkpoint.seq, signature: checkpoint.signature }]);
  t.match(after.status.keys, [{ key_id: checkpoint.key_id, endorsed_by: null, checkpoints: 1, current: true }]);

  // Offline, with only the public key: the auditor's check agrees.
  await node.stop();
  stopped = true;
  const offline = await runAudit(['verify', '--public-key', checkpoint.public_key, '--json'], env);
  t.equal(offline.code, 0, offline.stderr);
  t.match(JSON.parse(offline.stdout).signed_through, { seq: checkpoint.seq, hash: checkpoint.hash });
});

t.test('a tampered copy is named; a change to verified events needs a full run; a broken chain is not signed', async (t) => {
  const dir = tempDir();
  t.teardown(() => removeDir(dir));
  const node = await startTestNode(testEnv(dir, { RULEVAULT_CHAIN_CHECKPOINT_EVERY: '0' }));
  const admin = client(node.url, node.adminKey);
  await addRules(admin, 0, 6);
  t.equal((await admin.post('/api/audit/chain/checkpoints')).status, 201);
  await addRules(admin, 6, 2);
  await node.stop();
  const file = path.join(dir, 'events.db');
  const at = headOf(file) - 5;

  /** A node on a copy of the data folder (keys included), its log changed by `tamper`. */
  const nodeOnCopy = async (name: string, tamper: (db: Database.Database) => void) => {
    const folder = path.join(dir, name);
    mkdirSync(folder);
    for (const kept of ['events.db', 'master.key', 'signing.key']) copyFileSync(path.join(dir, kept), path.join(folder, kept));
    const db = new Database(path.join(folder, 'events.db'));
    try {
      tamper(db);
    } finally {
      db.close();
    }
    const copy = await startTestNode(testEnv(folder, { RULEVAULT_CHAIN_CHECKPOINT_EVERY: '0' }));
    t.teardown(() => copy.stop());
    return { copy, admin: client(copy.url, copy.adminKey), file: path.join(folder, 'events.db') };
  };

  const modified = await nodeOnCopy('modified', (db) => {
    db.prepare("UPDATE events SET data = json_set(data, '$.name', 'forged') WHERE position = ?").run(at);
  });
  const m = (await verifyNow(modified.admin)).status;
  t.match(m.report, { verified: false, break: { position: String(at), kind: 'modified' }, verified_through: { position: String(at - 1) } }, 'a modified event is named');
  const refused = await modified.admin.post('/api/audit/chain/checkpoints');
  t.equal(refused.status, 409, 'a broken chain is not signed');
  t.match(refused.json, { code: 'conflict', err: new RegExp(`breaks at position ${at} \\(modified\\)`) });

  const removed = await nodeOnCopy('removed', (db) => {
    db.prepare('DELETE FROM events WHERE position = ?').run(at);
  });
  t.match((await verifyNow(removed.admin)).status.report.break, { position: String(at + 1), kind: 'removed' }, 'a removal is named at the event after the gap');

  // A live log changed under the service: an incremental run does not read verified events again, a full run does.
  const live = await nodeOnCopy('live', () => undefined);
  t.equal((await verifyNow(live.admin)).status.report.verified, true);
  const tamperLive = (position: number) => {
    const db = new Database(live.file);
    try {
      db.prepare("UPDATE events SET data = json_set(data, '$.name', 'forged') WHERE position = ?").run(position);
    } finally {
      db.close();
    }
  };
  tamperLive(at);
  await addRules(live.admin, 100, 2);
  const incremental = (await verifyNow(live.admin)).status;
  t.equal(incremental.run.checked_events, 2, 'the incremental run reads the two new events only');
  t.equal(incremental.report.verified, true, 'and does not see the change to an event it verified before');
  const fullRun = (await verifyNow(live.admin, { full: true })).status;
  t.match(fullRun.report.break, { position: String(at), kind: 'modified' }, 'a full run names it');

  // A change to an event appended after the last run is found by the next incremental run.
  const fresh = await nodeOnCopy('fresh', () => undefined);
  t.equal((await verifyNow(fresh.admin)).status.report.verified, true);
  await addRules(fresh.admin, 200, 3);
  const newest = headOf(fresh.file);
  const db = new Database(fresh.file);
  db.prepare("UPDATE events SET data = json_set(data, '$.name', 'forged') WHERE position = ?").run(newest - 1);
  db.close();
  const caught = (await verifyNow(fresh.admin)).status;
  t.match(caught.report.break, { position: String(newest - 1), kind: 'modified' }, 'a change among the new events is named');
  t.equal(caught.run.checked_events, 2, 'the run stopped at it');

  // A removal among the new events: the verifier decides it only further on, so the run lets it finish.
  const gap = await nodeOnCopy('gap', () => undefined);
  t.equal((await verifyNow(gap.admin)).status.report.verified, true);
  await addRules(gap.admin, 300, 3);
  const last = headOf(gap.file);
  const gapDb = new Database(gap.file);
  gapDb.prepare('DELETE FROM events WHERE position = ?').run(last - 1);
  gapDb.close();
  const gapRun = (await verifyNow(gap.admin)).status;
  t.match(gapRun.report, { verified: false, break: { position: String(last), kind: 'removed' } }, 'a removal among the new events is named');
  t.equal((await verifyNow(gap.admin)).status.run.checked_events, last - 1, 'after a break the next run starts again from the first event');
});

t.test('concurrent verify requests read the log once; scopes and bad bodies', async (t) => {
  const dir = tempDir();
  t.teardown(() => removeDir(dir));
  const node = await startTestNode(testEnv(dir));
  t.teardown(() => node.stop());
  const admin = client(node.url, node.adminKey);
  await addRules(admin, 0, 20);
  const answers = await Promise.all(Array.from({ length: 6 }, () => admin.post('/api/audit/chain/verify')));
  t.same(answers.map((a) => a.status), [202, 202, 202, 202, 202, 202]);
  const settled = (await verifyNow(admin)).status;
  const head = headOf(path.join(dir, 'events.db'));
  t.equal(settled.events_read, head, 'however the requests fell, each event was read once');
  t.equal(settled.report.events, head);

  const evaluator = (await admin.post('/api/api-keys', { name: 'evaluate only', scopes: ['evaluate'] })).json;
  const asEvaluator = client(node.url, evaluator.key);
  const anonymous = client(node.url);
  for (const [method, route] of [['get', '/api/audit/chain'], ['post', '/api/audit/chain/verify'], ['post', '/api/audit/chain/checkpoints']] as const) {
    t.equal((await anonymous[method](route)).status, 401, `${method} ${route} without a key`);
    t.equal((await asEvaluator[method](route)).status, 403, `${method} ${route} without admin`);
  }
  const bad = await admin.post('/api/audit/chain/verify', { full: 'yes' });
  t.match([bad.status, bad.json.err], [400, /^full must be a boolean/]);
  const misspelt = await admin.post('/api/audit/chain/verify', { ful: true });
  t.match([misspelt.status, misspelt.json.err], [400, /unknown member "ful" \(did you mean full\?\)/]);
  const extra = await admin.post('/api/audit/chain/checkpoints', { seq: 1 });
  t.match([extra.status, extra.json.err], [400, /unknown member "seq"/]);
  t.equal((await admin.get('/api/audit/chain?full=1')).status, 400);
});

t.test('with two HTTP workers the writer runs the verification: one state, read once, a checkpoint signed', async (t) => {
  const dir = tempDir();
  t.teardown(() => removeDir(dir));
  const node = await startTestNode(testEnv(dir, { RULEVAULT_WORKERS: '2', RULEVAULT_CHAIN_CHECKPOINT_EVERY: '0' }));
  t.teardown(() => node.stop());
  const admin = client(node.url, node.adminKey);
  await addRules(admin, 0, 10);
  // New connections each: the requests spread over both workers.
  const answers = await Promise.all(Array.from({ length: 6 }, () => admin.post('/api/audit/chain/verify', undefined, { headers: { connection: 'close' } })));
  t.same(answers.map((a) => a.status), [202, 202, 202, 202, 202, 202]);
  const settled = (await verifyNow(admin)).status;
  const head = headOf(path.join(dir, 'events.db'));
  t.match(settled, { events_read: head, report: { verified: true, events: head } }, 'each event read once, whichever worker was asked');
  const views = await Promise.all(Array.from({ length: 4 }, () => admin.get('/api/audit/chain', { headers: { connection: 'close' } })));
  t.same(new Set(views.map((v) => `${v.json.run.id} ${v.json.events_read}`)).size, 1, 'every worker answers the one state of the writer');
  const signed = await admin.post('/api/audit/chain/checkpoints', undefined, { headers: { connection: 'close' } });
  t.equal(signed.status, 201, signed.text);
  t.equal(signed.json.seq, head);
});

t.test('runs started in the same tick are one run', async (t) => {
  const dir = tempDir();
  t.teardown(() => removeDir(dir));
  const node = await startTestNode(testEnv(dir));
  const admin = client(node.url, node.adminKey);
  await addRules(admin, 0, 3);
  await node.stop();
  const store = await openStore(`sqlite:${path.join(dir, 'events.db')}`, silentLogger);
  let clock = 0;
  const audit = createChainAudit({ store, signingKey: { envValue: undefined, dataDir: dir }, now: () => new Date(Date.UTC(2026, 0, 1, 0, 0, clock++)) });
  const statuses = await Promise.all([audit.verify('full'), audit.verify('incremental'), audit.verify('full')]);
  t.same(statuses.map((s) => [s.running, s.run?.id]), [[true, 1], [true, 1], [true, 1]], 'the second and third join the first');
  const signed = await audit.checkpoint(undefined, 'test', 'req-1');
  const done = await audit.status();
  t.equal(done.events_read, headOf(path.join(dir, 'events.db')) - 1, 'the log was read once (the checkpoint came after)');
  t.equal(signed.seq, done.report?.verified_through?.seq);

  // The store fails under a run: the status says so without the driver's words, and nothing is signed.
  await store.close();
  await audit.verify('full');
  let failed = await audit.status();
  while (failed.running) failed = await new Promise((resolve) => setTimeout(() => resolve(audit.status()), 5));
  t.equal(failed.run?.error, 'the log could not be read to its end (the event store failed)');
  await t.rejects(audit.checkpoint(undefined, 'test', 'req-2'), { code: 'conflict', message: /could not be verified/ });
});
