/** The operator CLI against the data folder: readers beside the service, writers only while no service holds the folder. */
import t from 'tap';
import { acquireDataLock } from '../src/base/data-lock';
import { client } from './support/http';
import { removeDir, startTestNode, tempDir, testEnv } from './support/node';
import { runCli } from './support/process';

t.test('api-keys create / list / revoke; writers wait for the service to stop, readers do not', async (t) => {
  const dir = tempDir();
  t.teardown(() => removeDir(dir));
  const env = testEnv(dir);
  let node = await startTestNode(env);
  t.teardown(() => node.stop());

  // Issue 14.6: a writing command is refused while the service holds the data folder, and says what to do.
  const args = ['api-keys', 'create', '--name', 'from-cli', '--scopes', 'evaluate,secrets:read', '--secret-tags', 'prod'];
  const refused = await runCli(args, env);
  t.equal(refused.code, 1);
  t.match(refused.stderr, new RegExp(`in use by a RuleVault service \\(pid ${process.pid} .*answering on ${node.url.replace(/\./g, '\\.')}\\)`), 'names the holder');
  t.match(refused.stderr, /stop the service first, or make the same change through its admin API/);
  t.match(refused.stderr, `curl -X POST ${node.url}/api/api-keys -d '{"name":"from-cli","scopes":["evaluate","secrets:read"],"secret_tags":["prod"]}' -H "Authorization: Bearer $ADMIN_KEY"`, 'the admin API call that does it');
  t.equal(refused.stdout, '', 'nothing was created');
  const revokeRefused = await runCli(['api-keys', 'revoke', 'some-id'], env);
  t.equal(revokeRefused.code, 1);
  t.match(revokeRefused.stderr, `curl -X DELETE ${node.url}/api/api-keys/some-id`);
  const rotateRefused = await runCli(['rotate-master-key'], env);
  t.equal(rotateRefused.code, 1);
  t.match(rotateRefused.stderr, /in use by a RuleVault service.*\n.*stop the service first \(every node that uses this store\)/);

  await node.stop();
  const created = await runCli([...args, '--json'], env);
  t.equal(created.code, 0, created.stderr);
  const key = JSON.parse(created.stdout);
  t.match(key, { name: 'from-cli', scopes: ['evaluate', 'secrets:read'], secret_tags: ['prod'], key: /^rv_/ });

  node = await startTestNode(env);
  const asCli = client(node.url, key.key);
  t.equal((await asCli.post('/api/rule-engine/evaluate', { entity_type: 'context', fields: {} })).status, 200, 'the service accepts a key the CLI created');

  const listed = await runCli(['api-keys', 'list'], env);
  t.equal(listed.code, 0, 'a reading command runs beside the service');
  t.ok(listed.stdout.includes(key.id));
  t.notOk(listed.stdout.includes(key.key), 'list never prints a key');

  await node.stop();
  const revoked = await runCli(['api-keys', 'revoke', key.id], env);
  t.equal(revoked.code, 0, revoked.stderr);
  node = await startTestNode(env);
  t.equal((await client(node.url, key.key).post('/api/rule-engine/evaluate', { entity_type: 'context', fields: {} })).status, 401, 'revocation by the CLI reaches the service');

  await node.stop();
  const badScopes = await runCli(['api-keys', 'create', '--name', 'x', '--scopes', 'root'], env);
  t.equal(badScopes.code, 1);
  t.match(badScopes.stderr, /scopes\[0\] must be one of/);
  const usage = await runCli(['frobnicate'], env);
  t.equal(usage.code, 2, 'a usage mistake exits 2 (issue 16.5; was 64)');
  t.match(usage.stderr, /usage:/);
});

t.test('a service cannot start while a CLI writer holds the data folder', async (t) => {
  const dir = tempDir();
  t.teardown(() => removeDir(dir));
  const env = testEnv(dir);
  const lock = acquireDataLock(dir, 'cli rotate-master-key');
  t.teardown(() => lock.release());
  await t.rejects(startTestNode(env), new RegExp(`in use by \`cli rotate-master-key\` \\(pid ${process.pid} `));
  const other = await runCli(['api-keys', 'create', '--name', 'x', '--scopes', 'evaluate'], env);
  t.equal(other.code, 1);
  t.match(other.stderr, /wait for that command to finish/);
});

t.test('log prints the events as NDJSON with sealed secrets only', async (t) => {
  const dir = tempDir();
  t.teardown(() => removeDir(dir));
  const env = testEnv(dir);
  const node = await startTestNode(env);
  await client(node.url, node.adminKey).post('/api/vault/secrets', { key: 'DB_PASSWORD', value: 'hunter2-plaintext' });
  await node.stop();
  const log = await runCli(['log', '--json'], env);
  t.equal(log.code, 0, log.stderr);
  const events: { type: string; position: unknown }[] = JSON.parse(log.stdout).events;
  t.ok(events.some((e) => e.type === 'SecretCreated'));
  t.ok(events.every((e) => typeof e.position === 'string'));
  t.notOk(log.stdout.includes('hunter2-plaintext'));
  const limited = await runCli(['log', '--limit', '1'], env);
  t.equal(limited.stdout.trim().split('\n').length, 1);
});
