/**
 * An erasure that finishes (issue 62, item 1). A secret's DELETE commits the
 * erasure, then runs later steps: the WAL checkpoint that leaves no older
 * page image of the secret in events.db or its WAL, and the snapshot's
 * rewrite. Another process holding a read transaction on events.db (here the
 * `sqlite3` shell) or a full disk keeps the checkpoint from running. The
 * DELETE still answers 204 (the erasure happened), a retry of it answers 204
 * too, `/readyz` and the log say what is left until it is done, and once the
 * reader ends or the disk frees, the node finishes it by itself: no copy of
 * the value is left in the database, its WAL or a snapshot. A node started
 * meanwhile finishes it too.
 */
import { spawn, execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, ftruncateSync, openSync, rmSync, statSync, writeSync } from 'node:fs';
import path from 'node:path';
import t, { type Test } from 'tap';
import { createLogger } from '../../src/base/log';
import { assertNoTraces, doomedFolder, KEPT, tracesLeft, writeDoomed, type DoomedFolder } from '../support/erasure';
import { client, type Client } from '../support/http';
import { removeDir, startTestNode, tempDir, testEnv } from '../support/node';
import { exited, spawnServiceFor, type ServiceProcess } from '../support/process';

/** A `sqlite3` shell on the file with a read transaction open: it holds the WAL as it was until `end()`. */
async function openReader(t: Test, file: string): Promise<{ end(): Promise<void> }> {
  const shell = spawn('sqlite3', [file], { stdio: ['pipe', 'pipe', 'inherit'] });
  const answered = once(shell.stdout!, 'data');
  shell.stdin!.write('BEGIN; SELECT count(*) FROM events;\n');
  await answered;
  let ended: Promise<unknown> | undefined;
  const end = () => (ended ??= (async () => {
    shell.stdin!.end('COMMIT;\n');
    await exited(shell);
  })()) as Promise<void>;
  t.teardown(end);
  return { end };
}

interface Readiness {
  readonly status: number;
  readonly body: { status?: string; erasure?: { since: string; pending: string[]; reason: string } };
}

async function readiness(url: string): Promise<Readiness> {
  const response = await fetch(`${url}/readyz`);
  return { status: response.status, body: (await response.json()) as Readiness['body'] };
}

/** Polls /readyz until it reports no unfinished erasure (no time limit: the suite's own timeout bounds it). */
async function finished(url: string): Promise<Readiness> {
  for (;;) {
    const ready = await readiness(url);
    if (ready.body.erasure === undefined) return ready;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** What a node answers about the doomed secret right after its DELETE, whatever was left to finish. */
async function assertDeleted(t: Test, url: string, admin: Client, folder: DoomedFolder): Promise<void> {
  t.equal((await admin.delete(`/api/vault/secrets/${folder.id}`)).status, 204, 'the DELETE answers 204: the erasure is committed');
  t.equal((await admin.delete(`/api/vault/secrets/${folder.id}`)).status, 204, 'a retried DELETE of the erased secret answers 204 too');
  t.equal((await admin.delete('/api/vault/secrets/00000000-0000-4000-8000-000000000000')).status, 404, 'a DELETE of a secret that never was answers 404');
  const reader = client(url, folder.readerKey);
  t.same((await reader.post('/api/vault/get-secrets', {})).json, { err: null, res: { [KEPT.key]: KEPT.value } }, 'the secret is gone from the vault at once');
}

/** `/readyz` says what is left: still 200 (the node serves), with the erasure's pending steps and why. True when it did. */
async function assertReported(t: Test, url: string, pending: readonly string[], reason: RegExp): Promise<boolean> {
  const ready = await readiness(url);
  t.equal(ready.status, 200, '/readyz stays 200: the node serves, the erasure is committed');
  return t.match(ready.body, { status: 'ready', erasure: { since: /^\d{4}-\d\d-\d\dT/, pending: [...pending], reason } }, '/readyz reports the unfinished erasure');
}

/**
 * Waits until the service's output holds `text`, when the line is due (the
 * node reported what it logs with it): it is written before /readyz answers,
 * but reaches the pipe when the logger flushes.
 */
async function outputOnceDue(service: ServiceProcess, text: string, due: boolean): Promise<string> {
  while (due && !service.output().includes(text)) await new Promise((resolve) => setTimeout(resolve, 50));
  return service.output();
}

t.test('a DELETE while another process reads events.db answers 204; the erasure finishes once the reader ends', async (t) => {
  const folder = await doomedFolder(t);
  const lines: string[] = [];
  const node = await startTestNode(folder.env, createLogger((line) => lines.push(line)));
  t.teardown(() => node.stop());
  const reader = await openReader(t, path.join(folder.dir, 'events.db'));

  await assertDeleted(t, node.url, client(node.url, node.adminKey), folder);
  await assertReported(t, node.url, ['store'], /read transaction/);
  t.same(tracesLeft(folder, ['snapshot.json']), [], 'the snapshot is rewritten at once: the reader does not hold it');
  t.not(tracesLeft(folder).length, 0, 'while the reader holds its transaction, events.db keeps the old page (what this test is about)');
  const logged = lines.map((line) => JSON.parse(line) as { msg: string; level: string; reason?: string });
  t.match(logged.filter((line) => line.msg === 'erasure unfinished'), [{ level: 'warn', reason: /read transaction/ }], 'the log says so, with the reason');

  await reader.end();
  t.same((await finished(node.url)).body, { status: 'ready', position: String(node.node.readModel.position) }, 'once the reader ended, /readyz reports nothing left');
  assertNoTraces(t, folder, 'once finished');
  t.ok(lines.some((line) => JSON.parse(line).msg === 'erasure finished'), 'the log says it finished');
});

t.test('a node restarted while the reader still holds events.db reports the erasure and finishes it', async (t) => {
  const folder = await doomedFolder(t);
  const reader = await openReader(t, path.join(folder.dir, 'events.db'));
  const first = await startTestNode(folder.env);
  await assertDeleted(t, first.url, client(first.url, first.adminKey), folder);
  await first.stop();

  const again = await startTestNode(folder.env);
  t.teardown(() => again.stop());
  await assertReported(t, again.url, ['store'], /read transaction/);
  await reader.end();
  await finished(again.url);
  assertNoTraces(t, folder, 'once the restarted node finished it');
});

t.test('with two HTTP workers, every worker\'s /readyz reports the unfinished erasure until it is done', async (t) => {
  const folder = await doomedFolder(t);
  const service = await startTestNode({ ...folder.env, RULEVAULT_WORKERS: '2' });
  t.teardown(() => service.stop());
  const reader = await openReader(t, path.join(folder.dir, 'events.db'));
  await assertDeleted(t, service.url, client(service.url, service.adminKey), folder);
  // Several probes, so that both workers (the kernel spreads connections) answer one.
  for (let probe = 0; probe < 6; probe++) await assertReported(t, service.url, ['store'], /read transaction/);
  await reader.end();
  await finished(service.url);
  assertNoTraces(t, folder, 'once finished');
});

/**
 * What a full disk leaves: the DELETE answered, the erasure reported, an old
 * copy still on disk (the case this is about); then, once `free` gave the
 * disk back, the erasure finished and no copy left.
 */
async function deleteOnFullDisk(t: Test, folder: DoomedFolder, service: ServiceProcess, free: () => void): Promise<void> {
  await assertDeleted(t, service.url, client(service.url, folder.env.RULEVAULT_ADMIN_KEY), folder);
  const reported = await assertReported(t, service.url, ['store'], /disk is full|disk I\/O error/);
  t.match(await outputOnceDue(service, '"msg":"erasure unfinished"', reported), /"level":"warn".*"msg":"erasure unfinished"/, 'the log says so');
  t.not(tracesLeft(folder).length, 0, 'while the disk is full, events.db or its WAL keeps the old copy');
  free();
  await finished(service.url);
  assertNoTraces(t, folder, 'once the disk freed');
  t.match(await outputOnceDue(service, '"msg":"erasure finished"', reported), /"msg":"erasure finished"/, 'the log says it finished');
}

/** Snapshots off (one removed at the erasure would free room), the audit records elsewhere. */
function fullDiskEnv(t: Test, dir: string): Record<string, string> {
  const audit = tempDir();
  t.teardown(() => removeDir(audit));
  return testEnv(dir, { RULEVAULT_EVENTSTORE: `sqlite:${path.join(dir, 'events.db')}`, RULEVAULT_SNAPSHOT_INTERVAL_MS: '0', RULEVAULT_AUDIT_DIR: audit });
}

/** Writes `count` contexts of 100 kB: pages of the log. */
async function bulk(admin: Client, tag: string, count: number): Promise<void> {
  for (let i = 0; i < count; i++) await admin.post('/api/contexts', { name: `${tag}-${i}`, content: `${i}`.repeat(100_000) });
}

const LIMIT_BYTES = 1 << 20;

/**
 * The disk filled by a file-size limit (RLIMIT_FSIZE through `prlimit`): the
 * service's writes past 1 MiB into any file fail (EFBIG) as on a full disk.
 * Node ignores SIGXFSZ, so such a write fails instead of killing the
 * process; tap's process-info hook, which NODE_OPTIONS loads into child
 * processes, would catch that signal and die of it, so it is left out. events.db was
 * written larger before, the doomed secret near its end: the erasure's
 * commit fits in the WAL, its checkpoint cannot rewrite that page. Raising
 * the limit of the running process frees the disk.
 */
async function deleteUnderFileSizeLimit(t: Test, dir: string): Promise<void> {
  const folder = await doomedFolder(t, { dir, env: fullDiskEnv(t, dir), before: (admin) => bulk(admin, 'bulk', 20) });
  t.ok(statSync(path.join(dir, 'events.db')).size > 2 * LIMIT_BYTES, 'events.db is larger than the limit');
  const launcher = ['env', '-u', 'NODE_OPTIONS', 'prlimit', `--fsize=${LIMIT_BYTES}:unlimited`];
  const service = await spawnServiceFor(t, folder.env, launcher);
  await deleteOnFullDisk(t, folder, service, () => execFileSync('prlimit', ['--pid', String(service.child.pid), '--fsize=unlimited:unlimited']));
}

t.test('a DELETE on a full disk (a file-size limit) answers 204; the erasure finishes once the disk frees', async (t) => {
  const dir = tempDir();
  t.teardown(() => removeDir(dir));
  await deleteUnderFileSizeLimit(t, dir);
});

t.test('a DELETE on a full disk (a tmpfs filled up) answers 204; the erasure finishes once the disk frees', async (t) => {
  const dir = tempDir();
  t.teardown(() => removeDir(dir));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=32m', 'tmpfs', dir], { stdio: 'pipe' });
  } catch (error) {
    t.comment(`this machine refuses to mount a tmpfs (${String(error).split('\n')[0]}): the disk is filled by a file-size limit instead`);
    await deleteUnderFileSizeLimit(t, dir);
    return;
  }
  // Registered after the folder's removal, so it runs before it (teardowns run last registered first).
  t.teardown(() => execFileSync('umount', [dir]));
  const env = fullDiskEnv(t, dir);
  const service = await spawnServiceFor(t, env);
  const admin = client(service.url, env.RULEVAULT_ADMIN_KEY);
  // Pages the next checkpoint must add to events.db, so it needs more room than the erasure's commit; the
  // doomed secret after them, so its first copy is in the WAL, past the end of events.db, until that checkpoint.
  await bulk(admin, 'backlog', 10);
  const folder: DoomedFolder = { dir, env, ...(await writeDoomed(admin)) };
  const filler = path.join(dir, 'filler');
  const fd = openSync(filler, 'w');
  const chunk = Buffer.alloc(64 * 1024, 1);
  let written = 0;
  try {
    for (;;) written += writeSync(fd, chunk);
  } catch {
    // ENOSPC: the tmpfs is full.
  }
  // 128 KiB left: room for the erasure's commit in the WAL, not for the checkpoint.
  ftruncateSync(fd, Math.max(0, written - 128 * 1024));
  closeSync(fd);
  await deleteOnFullDisk(t, folder, service, () => rmSync(filler));
});
