/**
 * A kill -9 during a change request's apply leaves all its changes or none
 * (issue 67, ADR 0062). The service runs as its own process and kills itself
 * with SIGKILL at a crash point of the apply (RULEVAULT_TEST_CRASH_AT):
 * - SQLite, inside the apply's one transaction: after restart none of the
 *   changes is there, the request is still approved, and applying it again
 *   writes them all;
 * - EventStoreDB (the stand-in, which outlives the node), after the first
 *   stream of the plan: the restart finishes the plan forward, so every change
 *   is there and the request is applied.
 */
import t from 'tap';
import type { CrashPoint } from '../../src/base/crash-points';
import { client, type Client } from '../support/http';
import { createEsdbStandin } from '../support/esdb-standin';
import { removeDir, startTestNode, tempDir, testEnv } from '../support/node';
import { exited, freePort, spawnService } from '../support/process';

const CR = '/api/change-requests';
const RULES = '/api/rule-engine/rules';

/** Two rules and an approved request renaming both, on a running service; the request's id and the rules'. */
async function approvedRequest(admin: Client, approver: Client): Promise<{ id: string; rules: string[] }> {
  const rules: string[] = [];
  for (const name of ['first', 'second']) {
    const created = await admin.post(RULES, { name, condition_groups: [{ conditions: [{ field: 'f', operator: 'equals', value: name }] }] });
    rules.push(created.json.id);
  }
  const opened = await admin.post(CR, { title: 'rename both', changes: rules.map((id, i) => ({ op: 'update', resource: { type: 'rule', id }, body: { name: `renamed-${i}` } })) });
  const review = await admin.post(`${CR}/${opened.json.id}/submit`);
  const approved = await approver.post(`${CR}/${opened.json.id}/approve`, undefined, { headers: { 'If-Match': review.headers.get('etag')! } });
  if (approved.json.state !== 'approved') throw new Error(`not approved: ${approved.text}`);
  return { id: opened.json.id, rules };
}

/** Runs the service on `env`, approves a request, and applies it with the crash point armed: the process dies. */
async function applyAndDie(t: tap.Test, env: Record<string, string>, point: CrashPoint): Promise<{ id: string; rules: string[]; approverKey: string }> {
  const service = await spawnService({ ...env, RULEVAULT_TEST_CRASH_AT: point }, await freePort());
  const admin = client(service.url, env.RULEVAULT_ADMIN_KEY);
  const approverKey = (await admin.post('/api/api-keys', { name: 'approver', scopes: ['approve'] })).json.key as string;
  const request = await approvedRequest(admin, client(service.url, approverKey));
  const answer = await admin.post(`${CR}/${request.id}/apply`).then((a) => a.status, () => 'connection lost');
  t.equal(answer, 'connection lost', `the apply never answered: the process died at ${point}`);
  await exited(service.child);
  t.equal(service.child.signalCode, 'SIGKILL', 'killed by SIGKILL');
  return { ...request, approverKey };
}

const names = async (admin: Client, rules: string[]) => Promise.all(rules.map(async (id) => (await admin.get(`${RULES}/${id}`)).json.name));

t.test('sqlite: killed inside the apply\'s transaction, none of the changes is written', async (t) => {
  const dir = tempDir();
  t.teardown(() => removeDir(dir));
  const env = testEnv(dir);
  const { id, rules } = await applyAndDie(t, env, 'atomic:in-transaction');
  const restarted = await startTestNode(env);
  t.teardown(() => restarted.stop());
  const admin = client(restarted.url, restarted.adminKey);
  t.same(await names(admin, rules), ['first', 'second'], 'no change is there: the transaction never committed');
  t.equal((await admin.get(`${CR}/${id}`)).json.state, 'approved', 'the request is still approved');
  const again = await admin.post(`${CR}/${id}/apply`);
  t.equal(again.json.state, 'applied', 'applying it again applies it');
  t.same(await names(admin, rules), ['renamed-0', 'renamed-1'], 'with every change');
});

t.test('esdb: killed part way through the plan, the restart finishes it forward', async (t) => {
  const standin = createEsdbStandin({ batchAppend: true });
  await standin.start();
  t.teardown(() => standin.stop());
  const dir = tempDir();
  t.teardown(() => removeDir(dir));
  const env = testEnv(dir, { RULEVAULT_EVENTSTORE: standin.connectionString });
  const { id, rules } = await applyAndDie(t, env, 'apply:part-way');
  const restarted = await startTestNode(env, undefined, 'esdb');
  t.teardown(() => restarted.stop());
  const admin = client(restarted.url, restarted.adminKey);
  t.same(await names(admin, rules), ['renamed-0', 'renamed-1'], 'every change is there after the restart');
  const read = (await admin.get(`${CR}/${id}`)).json;
  t.same({ state: read.state, applying: read.applying }, { state: 'applied', applying: false }, 'and the request is applied');
  const history = (await admin.get(`${CR}/${id}/history`)).json.events.map((e: { type: string }) => e.type);
  t.same(history.slice(-2), ['ChangeRequestApplying', 'ChangeRequestApplied'], 'the plan, then its end, on the request\'s stream');
  for (const rule of rules) {
    const events = (await admin.get(`${RULES}/${rule}/history`)).json.events;
    t.equal(events.filter((e: { metadata: { change_request?: string } }) => e.metadata.change_request === id).length, 1, `rule ${rule} was renamed once, by the request`);
  }
});
