/**
 * Several service nodes on one EventStoreDB log (the in-process stand-in):
 * a write on one node reaches the other, conflicts across nodes are 409, a
 * restarted node catches up, and a node outlives a restart of the log server.
 */
import t from 'tap';
import { client, type Client } from '../support/http';
import { createEsdbStandin } from '../support/esdb-standin';
import { removeDir, tempDir, testEnv } from '../support/node';
import { exited, freePort, spawnService, type ServiceProcess } from '../support/process';

const MASTER_KEY = Buffer.alloc(32, 7).toString('base64');

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function until<T>(probe: () => Promise<T | undefined>, what: string): Promise<T> {
  for (let attempt = 0; attempt < 600; attempt++) {
    const value = await probe();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error(`gave up waiting for ${what}`);
}

t.test('two nodes on one log', async (t) => {
  const standin = createEsdbStandin({ batchAppend: true });
  await standin.start();
  t.teardown(() => standin.stop());
  const dirs = [tempDir(), tempDir()];
  t.teardown(() => dirs.forEach(removeDir));
  const shared = { RULEVAULT_EVENTSTORE: standin.connectionString, RULEVAULT_MASTER_KEY: MASTER_KEY };
  const envA = testEnv(dirs[0]!, shared);
  const envB = { ...testEnv(dirs[1]!, shared), RULEVAULT_ADMIN_KEY: envA.RULEVAULT_ADMIN_KEY! };
  const nodes: ServiceProcess[] = [];
  t.teardown(() => nodes.forEach((n) => n.child.kill('SIGKILL')));
  const a = await spawnService(envA, await freePort());
  nodes.push(a);
  let b = await spawnService(envB, await freePort());
  nodes.push(b);
  const adminA = client(a.url, envA.RULEVAULT_ADMIN_KEY);
  let adminB = client(b.url, envA.RULEVAULT_ADMIN_KEY);

  const key = (await adminA.post('/api/api-keys', { name: 'both', scopes: ['evaluate'] })).json.key as string;
  const evalOn = (url: string, tag: string) =>
    client(url, key).post('/api/rule-engine/evaluate', { entity_type: 'context', fields: { tag } });
  const ruleFor = (tag: string) => ({ name: tag, condition_groups: [{ conditions: [{ field: 'tag', operator: 'equals', value: tag }] }] });

  await t.test('a write on node A becomes visible on node B', async (t) => {
    await until(async () => ((await evalOn(b.url, 'x')).status === 200 ? true : undefined), 'the key to reach B');
    const delays: number[] = [];
    for (let i = 0; i < 40; i++) {
      const tag = `vis-${i}`;
      const created = await adminA.post('/api/rule-engine/rules', ruleFor(tag));
      const acknowledged = performance.now();
      t.same((await evalOn(a.url, tag)).json.matchingRuleIds, [created.json.id], 'read-your-writes on the writing node');
      await until(async () => ((await evalOn(b.url, tag)).json.matchingRuleIds.length === 1 ? true : undefined), `rule ${i} on B`);
      delays.push(performance.now() - acknowledged);
    }
    delays.sort((x, y) => x - y);
    t.comment(`A->B visibility after the 201 (stand-in, loopback, 40 writes): p50 ${percentile(delays, 50).toFixed(1)} ms, p99 ${percentile(delays, 99).toFixed(1)} ms`);
    t.equal(delays.length, 40);
  });

  await t.test('a rule conflict between nodes is a 409', async (t) => {
    const created = await adminA.post('/api/rule-engine/rules', ruleFor('conflict'));
    const id = created.json.id as string;
    await until(async () => ((await adminB.get(`/api/rule-engine/rules/${id}`)).status === 200 ? true : undefined), 'the rule on B');
    const [onA, onB] = await Promise.all([
      adminA.patch(`/api/rule-engine/rules/${id}`, { name: 'from A' }, { headers: { 'if-match': '0' } }),
      adminB.patch(`/api/rule-engine/rules/${id}`, { name: 'from B' }, { headers: { 'if-match': '0' } }),
    ]);
    t.same([onA.status, onB.status].sort(), [200, 409], 'exactly one wins revision 0');
    const stale = await adminB.patch(`/api/rule-engine/rules/${id}`, { name: 'late' }, { headers: { 'if-match': '0' } });
    t.equal(stale.status, 409);
    const unconditional = await adminB.patch(`/api/rule-engine/rules/${id}`, { description: 'no If-Match' });
    t.equal(unconditional.status, 200, 'without If-Match the write is decided again on fresh state');
  });

  await t.test('a restarted node catches up', async (t) => {
    b.child.kill('SIGTERM');
    t.equal(await exited(b.child), 0);
    const whileDown = await adminA.post('/api/rule-engine/rules', ruleFor('while-b-was-down'));
    b = await spawnService(envB, await freePort());
    nodes.push(b);
    adminB = client(b.url, envA.RULEVAULT_ADMIN_KEY);
    t.same((await evalOn(b.url, 'while-b-was-down')).json.matchingRuleIds, [whileDown.json.id], 'ready means caught up');
  });

  await t.test('the log server restarts under live nodes: they resubscribe, no gaps, no duplicates', async (t) => {
    await standin.restart();
    const afterRestart = await until(async () => {
      const answer = await adminA.post('/api/rule-engine/rules', ruleFor('after-log-restart')).catch(() => undefined);
      return answer?.status === 201 ? answer : undefined;
    }, 'a write after the log server restarted');
    await until(async () => ((await evalOn(b.url, 'after-log-restart')).json.matchingRuleIds.length === 1 ? true : undefined), 'B after the restart');
    t.same((await evalOn(b.url, 'after-log-restart')).json.matchingRuleIds, [afterRestart.json.id]);
    const [rulesA, rulesB] = await Promise.all([adminA.get('/api/rule-engine/rules'), adminB.get('/api/rule-engine/rules')]);
    t.same(rulesB.json, rulesA.json, 'both nodes hold the same rules, revisions and positions');
    const metrics = async (admin: Client) => /rulevault_log_position (\d+)/.exec((await admin.get('/metrics')).text)?.[1];
    t.equal(await metrics(adminB), await metrics(adminA), 'and have applied the log to the same position');
    t.match(a.output() + b.output(), /resubscribing/, 'the lost subscription was logged');
  });
});
