/**
 * Erasure on an EventStoreDB log (the in-process stand-in, or
 * RULEVAULT_TEST_ESDB): the deletion stays readable in the secret's stream
 * while its sealed events leave the stream's reads ($tb), and a snapshot
 * taken before the deletion never brings the secret back.
 */
import { copyFileSync, readFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { SNAPSHOT_FILE } from '../../src/snapshots';
import { client } from '../support/http';
import { removeDir, startTestNode, tempDir, testEnv } from '../support/node';

t.test('a deleted secret stays deleted, also when an older snapshot is put back', async (t) => {
  const dir = tempDir();
  t.teardown(() => removeDir(dir));
  const env = testEnv(dir);
  const first = await startTestNode(env, undefined, 'esdb');
  const admin = client(first.url, first.adminKey);
  const readerKey = (await admin.post('/api/api-keys', { name: 'reader', scopes: ['secrets:read'] })).json.key as string;
  const id = (await admin.post('/api/vault/secrets', { key: 'DOOMED', value: 'esdb-doomed-plaintext' })).json.id as string;
  await admin.post('/api/vault/secrets', { key: 'KEPT', value: 'kept' });
  const log = await admin.get('/api/audit/events?limit=1000');
  const sealed = log.json.events.find((e: { type: string; data: { id?: string } }) => e.type === 'SecretCreated' && e.data.id === id).data.sealed;
  await first.stop();
  const snapshot = path.join(dir, SNAPSHOT_FILE);
  copyFileSync(snapshot, `${snapshot}.before-delete`);

  const second = await startTestNode(env, undefined, 'esdb');
  t.equal((await client(second.url, second.adminKey).delete(`/api/vault/secrets/${id}`)).status, 204);
  const stream = await second.node.store.readStream(`secret-${id}`);
  t.same(stream.map((e) => [e.type, e.data]), [['SecretDeleted', { id }]], 'the stream reads only its deletion ($tb hides the sealed events)');
  await second.stop();
  // As if the rewrite after the erasure had never happened.
  copyFileSync(`${snapshot}.before-delete`, snapshot);

  const third = await startTestNode(env, undefined, 'esdb');
  t.teardown(() => third.stop());
  const reader = client(third.url, readerKey);
  t.same((await reader.post('/api/vault/get-secrets', {})).json, { err: null, res: { KEPT: 'kept' } }, 'only the kept secret is served');
  t.equal((await client(third.url, third.adminKey).delete(`/api/vault/secrets/${id}`)).status, 204, 'a second DELETE answers 204: the log holds the erasure, past $tb');
  t.notOk(readFileSync(snapshot, 'utf8').includes(sealed.ciphertext), 'start-up rewrote the older snapshot without the erased value');
});
