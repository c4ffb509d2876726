/**
 * Black-box: a node that can no longer open its vault says so (issue 14.6).
 * Several nodes share one EventStoreDB log, each on its own data folder, so a
 * folder lock cannot stop a master-key rotation run against another node's
 * folder. A node left holding the retired key answers /readyz 503 naming the
 * reason, and logs it, instead of staying "ready" while every secret fails.
 */
import t from 'tap';
import { loadConfig } from '../src/base/config';
import { createLogger } from '../src/base/log';
import { startNode } from '../src/main';
import { client } from './support/http';
import { createEsdbStandin } from './support/esdb-standin';
import { removeDir, tempDir, testEnv } from './support/node';
import { runCli } from './support/process';

const OLD_KEY = Buffer.alloc(32, 4).toString('base64');
const NEW_KEY = Buffer.alloc(32, 5).toString('base64');

t.test('a rotation made elsewhere turns /readyz to 503 with the reason, and is logged', async (t) => {
  const standin = createEsdbStandin({ batchAppend: true });
  await standin.start();
  t.teardown(() => standin.stop());
  const dirs = [tempDir(), tempDir()];
  t.teardown(() => dirs.forEach(removeDir));
  const shared = { RULEVAULT_EVENTSTORE: standin.connectionString, RULEVAULT_MASTER_KEY: OLD_KEY };

  const logLines: string[] = [];
  const env = testEnv(dirs[0]!, shared);
  const node = await startNode(loadConfig(env), { logger: createLogger((line) => logLines.push(line)), announce: () => undefined });
  t.teardown(() => node.stop());
  await node.ready;
  const admin = client(node.url, env.RULEVAULT_ADMIN_KEY);
  await admin.post('/api/vault/secrets', { key: 'OPENAI_API_KEY', value: 'sk-readiness' });
  const reader = client(node.url, (await admin.post('/api/api-keys', { name: 'r', scopes: ['secrets:read'] })).json.key);
  t.same((await reader.post('/api/vault/get-secrets', {})).json, { err: null, res: { OPENAI_API_KEY: 'sk-readiness' } });
  t.equal((await fetch(`${node.url}/readyz`)).status, 200);

  // The documented rotation, run from another data folder on the same log while this node still runs.
  const rotated = await runCli(['rotate-master-key'], { ...testEnv(dirs[1]!, shared), RULEVAULT_NEW_MASTER_KEY: NEW_KEY });
  t.equal(rotated.code, 0, rotated.stderr);

  let readyz = await fetch(`${node.url}/readyz`);
  for (let attempt = 0; attempt < 400 && readyz.status === 200; attempt++) {
    await new Promise((resolve) => setTimeout(resolve, 25));
    readyz = await fetch(`${node.url}/readyz`);
  }
  t.equal(readyz.status, 503, 'no longer ready');
  const body = (await readyz.json()) as { err: string; code: string };
  t.equal(body.code, 'unavailable', 'the 503 carries its code (issue 17 item 6)');
  t.match(body.err, /^not ready: the vault cannot be opened: the master key was rotated to id [0-9a-f]+ and this process holds id [0-9a-f]+; restart it with the new master key$/);
  t.match((await reader.post('/api/vault/get-secrets', {})).json.err, /could not be opened/, 'the symptom the probe now reports');

  const logged = logLines.map((line) => JSON.parse(line)).filter((line) => line.msg === 'vault unavailable');
  t.equal(logged.length, 1, 'logged once');
  t.match(logged[0], { level: 'error', reason: /master key was rotated to id/ });
  t.notOk(logLines.join('\n').includes(NEW_KEY) || logLines.join('\n').includes(OLD_KEY), 'no key material in the log');
});
