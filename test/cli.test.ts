/** The operator CLI against the data folder, while the service runs on it. */
import t from 'tap';
import { client } from './support/http';
import { removeDir, startTestNode, tempDir, testEnv } from './support/node';
import { runCli } from './support/process';

t.test('api-keys create / list / revoke, picked up by a running service', async (t) => {
  const dir = tempDir();
  t.teardown(() => removeDir(dir));
  const env = testEnv(dir);
  const node = await startTestNode(env);
  t.teardown(() => node.stop());

  const created = await runCli(['api-keys', 'create', '--name', 'from-cli', '--scopes', 'evaluate,secrets:read', '--secret-tags', 'prod'], env);
  t.equal(created.code, 0, created.stderr);
  const key = JSON.parse(created.stdout);
  t.match(key, { name: 'from-cli', scopes: ['evaluate', 'secrets:read'], secret_tags: ['prod'], key: /^rv_/ });

  const asCli = client(node.url, key.key);
  let status = 0;
  for (let i = 0; i < 100 && status !== 200; i++) {
    status = (await asCli.post('/api/rule-engine/evaluate', { entity_type: 'context', fields: {} })).status;
    if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 50));
  }
  t.equal(status, 200, 'the running service accepts a key the CLI created');

  const listed = await runCli(['api-keys', 'list'], env);
  t.equal(listed.code, 0);
  t.ok(listed.stdout.includes(key.id));
  t.notOk(listed.stdout.includes(key.key), 'list never prints a key');

  const revoked = await runCli(['api-keys', 'revoke', key.id], env);
  t.equal(revoked.code, 0, revoked.stderr);
  for (let i = 0; i < 100 && status !== 401; i++) {
    status = (await asCli.post('/api/rule-engine/evaluate', { entity_type: 'context', fields: {} })).status;
    if (status !== 401) await new Promise((resolve) => setTimeout(resolve, 50));
  }
  t.equal(status, 401, 'revocation by the CLI reaches the running service');

  const bad = await runCli(['api-keys', 'create', '--name', 'x', '--scopes', 'root'], env);
  t.equal(bad.code, 1);
  t.match(bad.stderr, /scopes\[0\] must be one of/);
  const usage = await runCli(['frobnicate'], env);
  t.equal(usage.code, 64);
  t.match(usage.stderr, /usage:/);
});

t.test('log prints the events as NDJSON with sealed secrets only', async (t) => {
  const dir = tempDir();
  t.teardown(() => removeDir(dir));
  const env = testEnv(dir);
  const node = await startTestNode(env);
  await client(node.url, node.adminKey).post('/api/vault/secrets', { key: 'DB_PASSWORD', value: 'hunter2-plaintext' });
  await node.stop();
  const log = await runCli(['log'], env);
  t.equal(log.code, 0, log.stderr);
  const events = log.stdout.trim().split('\n').map((line) => JSON.parse(line));
  t.ok(events.some((e) => e.type === 'SecretCreated'));
  t.ok(events.every((e) => typeof e.position === 'string'));
  t.notOk(log.stdout.includes('hunter2-plaintext'));
  const limited = await runCli(['log', '--limit', '1'], env);
  t.equal(limited.stdout.trim().split('\n').length, 1);
});
