/**
 * Group commit over the HTTP API (issue 18 item 4): concurrent admin writes
 * share syncs of the embedded store, every acknowledged write is in the file
 * after a kill -9 that follows the acknowledgments at once, and the one-at-a-
 * time decisions still give exactly one winner for a contended name or key.
 */
import t from 'tap';
import { client, type Client } from '../support/http';
import { removeDir, startTestNode, tempDir, testEnv } from '../support/node';
import { exited, spawnServiceFor } from '../support/process';
import { withNode } from '../support/with-node';

const WRITES = 64;
const range = (n: number) => Array.from({ length: n }, (_, i) => i);

/** The store's commit and sync counters from /metrics. */
async function durabilityCounts(admin: Client): Promise<{ commits: number; syncs: number }> {
  const text = (await admin.get('/metrics')).text;
  const read = (name: string): number => {
    const match = new RegExp(`^${name} (\\d+)$`, 'm').exec(text);
    if (match === null) throw new Error(`/metrics has no ${name}`);
    return Number(match[1]);
  };
  return { commits: read('rulevault_store_commits_total'), syncs: read('rulevault_store_syncs_total') };
}

/** `WRITES` rule creations at once; the ids of those answered 201. */
async function concurrentCreates(admin: Client, wave: string): Promise<{ ids: string[]; statuses: number[] }> {
  const answers = await Promise.all(range(WRITES).map((i) => admin.post('/api/rule-engine/rules', {
    name: `${wave}-${i}`,
    condition_groups: [{ conditions: [{ field: 'wave', operator: 'equals', value: wave }] }],
  })));
  return { ids: answers.filter((a) => a.status === 201).map((a) => a.json.id as string), statuses: answers.map((a) => a.status) };
}

t.test('concurrent writes share syncs, and every acknowledged one survives a kill -9 right after', async (t) => {
  const dir = tempDir();
  t.teardown(() => removeDir(dir));
  const env = testEnv(dir);
  const service = await spawnServiceFor(t, env);
  const admin = client(service.url, env.RULEVAULT_ADMIN_KEY);

  const before = await durabilityCounts(admin);
  const first = await concurrentCreates(admin, 'first');
  t.same(first.statuses, range(WRITES).map(() => 201), `all ${WRITES} concurrent creates answered 201`);
  const after = await durabilityCounts(admin);
  const commits = after.commits - before.commits;
  const syncs = after.syncs - before.syncs;
  t.equal(commits, WRITES, 'one commit per write');
  t.ok(syncs >= 1 && syncs < commits, `${WRITES} writes shared ${syncs} syncs`);

  // The second wave's acknowledgments are followed at once by the kill: nothing after them can have synced them.
  const second = await concurrentCreates(admin, 'second');
  service.child.kill('SIGKILL');
  await exited(service.child);
  t.equal(second.ids.length, WRITES, 'the second wave was acknowledged before the kill');

  const restarted = await startTestNode(env);
  t.teardown(() => restarted.stop());
  const rules = await client(restarted.url, restarted.adminKey).get('/api/rule-engine/rules?limit=1000');
  const present = new Set(rules.json.rules.map((r: { id: string }) => r.id));
  t.same([...first.ids, ...second.ids].filter((id) => !present.has(id)), [], 'every acknowledged rule is in the file');
});

t.test('a failed sync: the waiting write answers 503, the service logs a fatal line and exits non-zero', async (t) => {
  const dir = tempDir();
  t.teardown(() => removeDir(dir));
  const env = testEnv(dir);
  // A first start enrols the master key (a write), with syncs that work.
  const first = await startTestNode(env);
  await first.stop();

  const service = await spawnServiceFor(t, { ...env, RULEVAULT_TEST_CRASH_AT: 'store:sync-fails' });
  const answer = await client(service.url, env.RULEVAULT_ADMIN_KEY).post('/api/rule-engine/rules', {
    name: 'never-acknowledged', condition_groups: [{ conditions: [{ field: 'tier', operator: 'equals', value: 'gold' }] }],
  });
  t.equal(answer.status, 503, 'the write is not acknowledged');
  t.notMatch(answer.text, /EIO|fdatasync/, 'the answer does not leak the I/O error');
  t.equal(await exited(service.child), 1, 'the service exits with code 1');
  const fatal = service.output().split('\n').find((line) => line.includes('"level":"fatal"'));
  t.match(fatal, /could not make writes durable.*EIO/, 'a fatal line names the error');
});

t.test('decisions stay one at a time under group commit', async (t) => {
  const live = withNode(t);

  t.test('two concurrent creates of one prompt name: one 201, one 409', async (t) => {
    const answers = await Promise.all(range(2).map(() => live.admin.post('/api/prompts', { name: 'contended-prompt', prompt: 'Hi {{name}}' })));
    t.same(answers.map((a) => a.status).sort(), [201, 409]);
  });

  t.test('two concurrent creates of one secret key: one 201, one 409', async (t) => {
    const answers = await Promise.all(range(2).map((i) => live.admin.post('/api/vault/secrets', { key: 'CONTENDED_KEY', value: `v${i}` })));
    t.same(answers.map((a) => a.status).sort(), [201, 409]);
  });

  t.test('concurrent updates with one stale If-Match: one 200, the rest 409, each answer the record as written', async (t) => {
    const created = await live.admin.post('/api/rule-engine/rules', {
      name: 'contended-rule', condition_groups: [{ conditions: [{ field: 'tier', operator: 'equals', value: 'gold' }] }],
    });
    const answers = await Promise.all(range(8).map((i) => live.admin.patch(`/api/rule-engine/rules/${created.json.id}`,
      { description: `writer ${i}` }, { headers: { 'if-match': created.json.revision } })));
    t.same(answers.map((a) => a.status).sort(), [200, ...range(7).map(() => 409)]);
    const winner = answers.find((a) => a.status === 200)!;
    t.equal(winner.json.revision, String(Number(created.json.revision) + 1), 'the winner answers its own revision');
  });
});
