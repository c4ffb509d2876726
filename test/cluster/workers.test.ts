/**
 * The service with two HTTP workers (RULEVAULT_WORKERS=2), as `npm start`
 * runs it: real processes, the real SQLite file, requests on loopback. Each
 * request here opens its own connection, and node:cluster hands connections
 * to the workers in turn, so consecutive requests reach both workers.
 */
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import t, { type Test } from 'tap';
import { client } from '../support/http';
import { removeDir, tempDir, testEnv } from '../support/node';
import { childPids, exited, freePort, spawnService, type ServiceProcess } from '../support/process';

interface Answer {
  readonly status: number;
  readonly json: any;
}

/** One request on a connection of its own (no keep-alive): the primary picks the next worker for it. */
function fresh(base: string, method: string, path: string, key: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(base + path, { method, agent: false, headers: { authorization: `Bearer ${key}`, ...headers } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, json: text === '' ? undefined : JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

async function until<T>(what: string, probe: () => T | undefined | Promise<T | undefined>, limitMs = 60_000): Promise<T> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The service with two workers, once both listen. */
async function startWithWorkers(t: Test, dir: string, env = testEnv(dir, { RULEVAULT_WORKERS: '2' })): Promise<ServiceProcess & { env: Record<string, string> }> {
  const service = await spawnService(env, await freePort());
  t.teardown(async () => {
    service.child.kill('SIGKILL');
    for (const pid of childPids(service.child.pid!)) process.kill(pid, 'SIGKILL');
  });
  await until('both workers listening', () => (service.output().match(/"msg":"worker listening"/g)?.length ?? 0) >= 2 || undefined);
  return { ...service, env };
}

const ruleOn = (value: string, extra: Record<string, unknown> = {}) => ({
  name: `rule ${value}`,
  condition_groups: [{ conditions: [{ field: 'tenant', operator: 'equals', value }] }],
  ...extra,
});

t.test('two workers: a write is visible on every worker when it is answered', async (t) => {
  const dir = tempDir();
  t.teardown(() => removeDir(dir));
  const service = await startWithWorkers(t, dir);
  const admin = service.env.RULEVAULT_ADMIN_KEY!;
  t.equal(childPids(service.child.pid!).length, 2, 'the writer runs two worker processes');

  const key = (await fresh(service.url, 'POST', '/api/api-keys', admin, { name: 'caller', scopes: ['evaluate'] })).json.key as string;
  const evaluate = (tenant: string) => fresh(service.url, 'POST', '/api/rule-engine/evaluate', key, { entity_type: 'context', fields: { tenant } });

  for (let i = 0; i < 12; i++) {
    const tenant = `t${i}`;
    const created = await fresh(service.url, 'POST', '/api/rule-engine/rules', admin, ruleOn(tenant));
    t.equal(created.status, 201);
    // Four connections in a row: two reach each worker.
    const answers = await Promise.all([evaluate(tenant), evaluate(tenant), evaluate(tenant), evaluate(tenant)]);
    t.same(answers.map((a) => a.json.matchingRuleIds), Array(4).fill([created.json.id]), `rule ${i} matches on every worker at once`);

    const paused = await fresh(service.url, 'PATCH', `/api/rule-engine/rules/${created.json.id}`, admin, { status: 'INACTIVE' });
    t.equal(paused.status, 200);
    const after = await Promise.all([evaluate(tenant), evaluate(tenant), evaluate(tenant), evaluate(tenant)]);
    t.same(after.map((a) => a.json.matchingRuleIds), Array(4).fill([]), `rule ${i} stops matching on every worker at once`);
  }

  // Revocation is a write too: no worker accepts the key once the DELETE is answered.
  const keys = (await fresh(service.url, 'GET', '/api/api-keys', admin)).json.api_keys as { id: string; name: string }[];
  const caller = keys.find((k) => k.name === 'caller')!;
  t.equal((await fresh(service.url, 'DELETE', `/api/api-keys/${caller.id}`, admin)).status, 204);
  const refused = await Promise.all([evaluate('t0'), evaluate('t0'), evaluate('t0'), evaluate('t0')]);
  t.same(refused.map((a) => a.status), [401, 401, 401, 401], 'the revoked key is refused by every worker');
});

t.test('two workers decide through one writer: unique names, If-Match, secrets', async (t) => {
  const dir = tempDir();
  t.teardown(() => removeDir(dir));
  const service = await startWithWorkers(t, dir);
  const admin = service.env.RULEVAULT_ADMIN_KEY!;

  const creates = await Promise.all(Array.from({ length: 6 }, () => fresh(service.url, 'POST', '/api/prompts', admin, { name: 'greeting', prompt: 'Hi {{name}}' })));
  t.same(creates.map((a) => a.status).sort(), [201, 409, 409, 409, 409, 409], 'one prompt name, one winner, whichever workers took the requests');

  const secrets = await Promise.all(Array.from({ length: 4 }, (_, i) => fresh(service.url, 'POST', '/api/vault/secrets', admin, { key: 'API_TOKEN', value: `value-${i}` })));
  t.same(secrets.map((a) => a.status).sort(), [201, 409, 409, 409], 'one secret key, one winner');

  const rule = await fresh(service.url, 'POST', '/api/rule-engine/rules', admin, ruleOn('x'));
  const first = await fresh(service.url, 'PATCH', `/api/rule-engine/rules/${rule.json.id}`, admin, { name: 'renamed' }, { 'if-match': String(rule.json.revision) });
  t.equal(first.status, 200);
  const stale = await fresh(service.url, 'PATCH', `/api/rule-engine/rules/${rule.json.id}`, admin, { name: 'again' }, { 'if-match': String(rule.json.revision) });
  t.equal(stale.status, 409, 'a stale If-Match is a conflict on any worker');
  t.equal(stale.json.code, 'conflict');

  const reader = (await fresh(service.url, 'POST', '/api/api-keys', admin, { name: 'reader', scopes: ['secrets:read'] })).json.key as string;
  const reads = await Promise.all([0, 1, 2, 3].map(() => fresh(service.url, 'POST', '/api/vault/get-secrets', reader, { key: 'API_TOKEN' })));
  const winner = reads[0]!.json.res.API_TOKEN as string;
  t.match(winner, /^value-\d$/);
  t.same(reads.map((a) => a.json), Array(4).fill({ err: null, res: { API_TOKEN: winner } }), 'every worker opens the secret the writer sealed');
});

t.test('two workers: /metrics counts the requests of every process', async (t) => {
  const dir = tempDir();
  t.teardown(() => removeDir(dir));
  const service = await startWithWorkers(t, dir);
  const admin = service.env.RULEVAULT_ADMIN_KEY!;
  const key = (await fresh(service.url, 'POST', '/api/api-keys', admin, { name: 'caller', scopes: ['evaluate'] })).json.key as string;
  for (let i = 0; i < 3; i++) await fresh(service.url, 'POST', '/api/rule-engine/rules', admin, ruleOn(`m${i}`));
  for (let i = 0; i < 10; i++) await fresh(service.url, 'POST', '/api/rule-engine/evaluate', key, { entity_type: 'context', fields: { tenant: 'm1' } });
  const text = (await client(service.url, admin).get('/metrics')).text;
  t.match(text, /^rulevault_http_requests_total\{method="POST",route="\/api\/rule-engine\/evaluate",status="200"\} 10$/m, 'the ten evaluates, five on each worker, are counted once each');
  t.match(text, /^rulevault_http_requests_total\{method="POST",route="\/api\/rule-engine\/rules",status="201"\} 3$/m);
  t.match(text, /^rulevault_rules_loaded 3$/m, 'gauges of the read models are not multiplied by the workers');
});

t.test('a worker that dies is replaced, catches up, and writes go on meanwhile', async (t) => {
  const dir = tempDir();
  t.teardown(() => removeDir(dir));
  const service = await startWithWorkers(t, dir);
  const admin = service.env.RULEVAULT_ADMIN_KEY!;
  const key = (await fresh(service.url, 'POST', '/api/api-keys', admin, { name: 'caller', scopes: ['evaluate'] })).json.key as string;
  const before = childPids(service.child.pid!);
  process.kill(before[0]!, 'SIGKILL');
  await until('the writer to notice', () => /"msg":"worker exited; starting another"/.test(service.output()) || undefined);

  // While the replacement starts, the surviving worker takes every connection, and writes are answered.
  const ids: string[] = [];
  for (let i = 0; i < 5; i++) {
    const created = await fresh(service.url, 'POST', '/api/rule-engine/rules', admin, ruleOn('after-crash'));
    t.equal(created.status, 201, `write ${i} answered with one worker down`);
    ids.push(created.json.id as string);
  }
  const replaced = await until('a replacement worker', () => {
    const now = childPids(service.child.pid!);
    return now.length === 2 && !now.includes(before[0]!) ? now : undefined;
  });
  t.not(replaced, before, 'a new worker process');
  await until('the replacement listening', () => (service.output().match(/"msg":"worker listening"/g)?.length ?? 0) >= 3 || undefined);
  const answers = await Promise.all([0, 1, 2, 3].map(() => fresh(service.url, 'POST', '/api/rule-engine/evaluate', key, { entity_type: 'context', fields: { tenant: 'after-crash' } })));
  t.same(answers.map((a) => a.json.matchingRuleIds), Array(4).fill([...ids].sort()), 'the replacement answers with every write made while it was down');
});

t.test('a connection handed to a worker that dies before taking it is answered by another worker', async (t) => {
  const dir = tempDir();
  t.teardown(() => removeDir(dir));
  const service = await startWithWorkers(t, dir);
  const admin = service.env.RULEVAULT_ADMIN_KEY!;
  const [stuck] = childPids(service.child.pid!);
  // A stopped worker takes no connection it is handed: the writer hands it the next one and waits for its answer.
  process.kill(stuck!, 'SIGSTOP');
  // Three connections: the round-robin hands at least one to the stopped worker (it was free), the others to the live one.
  let answered = 0;
  const answers = [0, 1, 2].map(() => guarded(fresh(service.url, 'GET', '/api/whoami', admin).then((a) => ((answered += 1), a))));
  await until('the live worker to answer its share', () => (answered >= 1 ? true : undefined));
  process.kill(stuck!, 'SIGKILL');
  const settled = await Promise.all(answers);
  t.same(settled.map((a) => a.status), [200, 200, 200], 'every connection is answered, the one handed to the dead worker by the other');
  t.same(settled.map((a) => a.json.id), Array(3).fill('env-admin'));
  await until('the writer to log the exit', () => /"msg":"worker exited; starting another"/.test(service.output()) || undefined);
});

/** The answer; a guard, not a measure: one not answered within GIVE_UP_MS fails the test as hung. */
const GIVE_UP_MS = 60_000;
function guarded(answer: Promise<Answer>): Promise<Answer> {
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`a connection hung for ${GIVE_UP_MS} ms`)), GIVE_UP_MS);
  });
  return Promise.race([answer, hung]).finally(() => clearTimeout(timer));
}

t.test('SIGTERM: in-flight writes are answered, workers and writer exit 0, the folder is free again', async (t) => {
  const dir = tempDir();
  t.teardown(() => removeDir(dir));
  const service = await startWithWorkers(t, dir);
  const admin = service.env.RULEVAULT_ADMIN_KEY!;
  const workers = childPids(service.child.pid!);
  const inFlight = fresh(service.url, 'POST', '/api/contexts', admin, { name: 'late', content: 'x'.repeat(200_000) });
  await new Promise((resolve) => setTimeout(resolve, 5));
  service.child.kill('SIGTERM');
  t.equal((await inFlight).status, 201, 'the in-flight write was answered');
  t.equal(await exited(service.child), 0, 'the writer exits 0');
  t.same(workers.filter(alive), [], 'no worker outlives the writer');

  const again = await spawnService(service.env, await freePort());
  t.teardown(() => void again.child.kill('SIGKILL'));
  const contexts = await client(again.url, admin).get('/api/contexts');
  t.same(contexts.json.contexts.map((c: { name: string }) => c.name), ['late'], 'the acknowledged write is in the log');
  again.child.kill('SIGTERM');
  await exited(again.child);
});

t.test('the data-folder lock holds with workers; a killed writer takes its workers with it', async (t) => {
  const dir = tempDir();
  t.teardown(() => removeDir(dir));
  const service = await startWithWorkers(t, dir);
  const admin = service.env.RULEVAULT_ADMIN_KEY!;
  t.equal((await fresh(service.url, 'POST', '/api/rule-engine/rules', admin, ruleOn('kept'))).status, 201);

  const second = await spawnService(service.env, await freePort()).then(
    () => undefined,
    (error: Error) => error.message,
  );
  t.match(second, /in use by a RuleVault service/, 'a second service on the same folder is refused');

  const workers = childPids(service.child.pid!);
  service.child.kill('SIGKILL');
  await exited(service.child);
  await until('the workers to exit', () => (workers.every((pid) => !alive(pid)) ? true : undefined));
  t.pass('every worker exited once its writer was gone');

  const again = await spawnService(service.env, await freePort());
  t.teardown(() => void again.child.kill('SIGKILL'));
  const rules = await client(again.url, admin).get('/api/rule-engine/rules');
  t.same(rules.json.rules.map((r: { name: string }) => r.name), ['rule kept'], 'the acknowledged write survived the kill');
  again.child.kill('SIGTERM');
  await exited(again.child);
});

/** True while `pid` runs (a zombie, exited but not yet reaped, does not). */
function alive(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '')[0] !== 'Z';
  } catch {
    return false;
  }
}

t.test('a failed sync stops the workers too: the write is not acknowledged, the service exits 1', async (t) => {
  const dir = tempDir();
  t.teardown(() => removeDir(dir));
  const env = testEnv(dir, { RULEVAULT_WORKERS: '2' });
  // A first start enrols the master key (a write), with syncs that work.
  const first = await spawnService({ ...env, RULEVAULT_WORKERS: '1' }, await freePort());
  first.child.kill('SIGTERM');
  await exited(first.child);

  const service = await startWithWorkers(t, dir, { ...env, RULEVAULT_TEST_CRASH_AT: 'store:sync-fails' });
  const workers = childPids(service.child.pid!);
  const answer = await fresh(service.url, 'POST', '/api/rule-engine/rules', env.RULEVAULT_ADMIN_KEY!, ruleOn('never-acknowledged'));
  t.equal(answer.status, 503, 'the forwarded write is not acknowledged');
  t.equal(await exited(service.child), 1, 'the writer exits with code 1');
  t.same(workers.filter(alive), [], 'its workers are gone');
  t.match(service.output(), /"level":"fatal".*could not make writes durable/, 'a fatal line names the failure');
});
