/**
 * Black-box: one writer per data folder (issue 14.6). A second service on a
 * folder in use refuses to start and names the holder, in this process and as
 * a separate one; the lock dies with its holder (kill -9) and is let go on a
 * graceful stop; EventStoreDB-backed nodes lock their data folder too.
 */
import t from 'tap';
import { loadConfig } from '../../src/base/config';
import { DataFolderLockedError } from '../../src/base/data-lock';
import { silentLogger } from '../../src/base/log';
import { startNode } from '../../src/main';
import { client } from '../support/http';
import { createEsdbStandin } from '../support/esdb-standin';
import { removeDir, startTestNode, tempDir, testEnv } from '../support/node';
import { exited, freePort, runService, spawnService } from '../support/process';

t.test('a second node on the same data folder refuses to start, naming the holder', async (t) => {
  const dir = tempDir();
  t.teardown(() => removeDir(dir));
  const env = testEnv(dir);
  const first = await startTestNode(env);
  t.teardown(() => first.stop());
  const admin = client(first.url, first.adminKey);
  t.equal((await admin.post('/api/vault/secrets', { key: 'ONLY_ONCE', value: 'a' })).status, 201);

  const holder = new RegExp(`in use by a RuleVault service \\(pid ${process.pid} on host [^,]+, since [^,]+, answering on ${first.url.replace(/\./g, '\\.')}\\)`);
  await t.rejects(startNode(loadConfig(env), { logger: silentLogger, announce: () => undefined }), holder, 'in this process');
  await t.rejects(startNode(loadConfig(env), { logger: silentLogger }), DataFolderLockedError);

  const child = await runService({ ...env, PORT: '0' }, /"msg":"ready"/);
  t.equal(child.code, 1, 'a separate process exits 1');
  t.match(child.stderr, /RuleVault cannot start: the data folder .* is in use by a RuleVault service/);
  t.match(child.stderr, holder, 'and names the holder: pid, host, start time, URL');
  t.match(child.stderr, /stop that one first, or give this one its own RULEVAULT_DATA_DIR/);

  // Only one writer: the key stays unique (two services on one folder each accepted it before).
  t.equal((await admin.post('/api/vault/secrets', { key: 'ONLY_ONCE', value: 'b' })).status, 409);
  t.equal((await admin.get('/api/vault/secrets')).json.secrets.length, 1);

  await first.stop();
  const again = await startTestNode(env);
  t.teardown(() => again.stop());
  t.equal((await client(again.url, again.adminKey).get('/api/vault/secrets')).status, 200, 'a graceful stop lets the folder go');
});

t.test('kill -9 of the holder releases the lock', async (t) => {
  const dir = tempDir();
  t.teardown(() => removeDir(dir));
  const env = testEnv(dir);
  const service = await spawnService(env, await freePort());
  t.teardown(() => service.child.kill('SIGKILL'));

  const refused = new RegExp(`in use by a RuleVault service \\(pid ${service.child.pid} on host [^,]+, since [^,]+, answering on ${service.url.replace(/\./g, '\\.')}\\)`);
  await t.rejects(startTestNode(env), refused, 'refused while the other process runs, naming it');

  service.child.kill('SIGKILL');
  await exited(service.child);
  const after = await startTestNode(env);
  t.teardown(() => after.stop());
  t.equal((await fetch(`${after.url}/readyz`)).status, 200, 'the dead holder left no stale lock');
});

t.test('a node on EventStoreDB locks its data folder too (snapshots and master.key live there)', async (t) => {
  const standin = createEsdbStandin({ batchAppend: true });
  await standin.start();
  t.teardown(() => standin.stop());
  const dir = tempDir();
  t.teardown(() => removeDir(dir));
  const env = testEnv(dir, { RULEVAULT_EVENTSTORE: standin.connectionString, RULEVAULT_MASTER_KEY: Buffer.alloc(32, 3).toString('base64') });
  const first = await startTestNode(env);
  t.teardown(() => first.stop());
  await t.rejects(startTestNode(env), /in use by a RuleVault service/);
  const other = tempDir();
  t.teardown(() => removeDir(other));
  const second = await startTestNode({ ...env, RULEVAULT_DATA_DIR: other });
  t.teardown(() => second.stop());
  t.equal((await fetch(`${second.url}/readyz`)).status, 200, 'another data folder on the same log is fine');
});
