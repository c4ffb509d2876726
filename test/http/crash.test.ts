/**
 * Durability: the service is killed with SIGKILL in the middle of a stream
 * of writes; every write that was answered 201 is there after restart.
 */
import t from 'tap';
import { client } from '../support/http';
import { removeDir, startTestNode, tempDir, testEnv } from '../support/node';
import { exited, freePort, spawnService } from '../support/process';

t.test('kill -9 during writes loses no acknowledged write', async (t) => {
  const dir = tempDir();
  t.teardown(() => removeDir(dir));
  const env = testEnv(dir);
  const service = await spawnService(env, await freePort());
  const admin = client(service.url, env.RULEVAULT_ADMIN_KEY);

  const acknowledged: string[] = [];
  let killed = false;
  async function writer(worker: number): Promise<void> {
    for (let i = 0; !killed; i++) {
      try {
        const answer = await admin.post('/api/rule-engine/rules', {
          name: `w${worker}-${i}`,
          condition_groups: [{ conditions: [{ field: 'worker', operator: 'equals', value: String(worker) }] }],
        });
        if (answer.status === 201) acknowledged.push(answer.json.id);
      } catch {
        return; // the connection died with the process
      }
      if (acknowledged.length >= 60 && !killed) {
        killed = true;
        service.child.kill('SIGKILL');
      }
    }
  }
  await Promise.all([0, 1, 2, 3].map(writer));
  await exited(service.child);
  t.ok(acknowledged.length >= 60, `${acknowledged.length} writes acknowledged before the kill`);

  const restarted = await startTestNode(env);
  t.teardown(() => restarted.stop());
  const rules = await client(restarted.url, restarted.adminKey).get('/api/rule-engine/rules');
  const present = new Set(rules.json.rules.map((r: { id: string }) => r.id));
  const lost = acknowledged.filter((id) => !present.has(id));
  t.same(lost, [], 'every acknowledged rule survived');
});
