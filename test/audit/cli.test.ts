/** Black-box: `rulevault audit <command>` (dist/src/cli/rulevault.js) on a node's store. */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import t, { type Test } from 'tap';
import { client } from '../support/http';
import { removeDir, startTestNode, tempDir, testEnv } from '../support/node';
import { childEnv, CLI_SCRIPT } from '../support/process';
import { runAudit } from './support/run-audit';

t.test('history, evaluate, replay, export and import', async (t) => {
  const dir = tempDir();
  t.teardown(() => removeDir(dir));
  const env = testEnv(dir);
  const node = await startTestNode(env);
  let stopped = false;
  t.teardown(() => (stopped ? undefined : node.stop()));
  const admin = client(node.url, node.adminKey);
  const rule = (await admin.post('/api/rule-engine/rules', {
    name: 'cli rule', condition_groups: [{ conditions: [{ field: 'tier', operator: 'equals', value: 'gold' }] }],
  })).json;
  const firstPosition = rule.position;
  await admin.patch(`/api/rule-engine/rules/${rule.id}`, { condition_groups: [{ conditions: [{ field: 'tier', operator: 'equals', value: 'silver' }] }] });
  await admin.post('/api/vault/secrets', { key: 'CLI_SECRET', value: 'cli-plaintext-value' });
  await admin.post('/api/prompts', { name: 'p', prompt: 'Hi {{name}}' });

  // The service is running: the CLI reads the same SQLite file beside it.
  const replay = await runAudit(['replay', '--json'], env);
  t.equal(replay.code, 0, replay.stderr);
  const digest = JSON.parse(replay.stdout);
  const live = (await admin.get('/api/audit/digest')).json;
  t.equal(digest.sha256, live.sha256, 'offline replay digest equals the live node digest');
  t.same(digest.counts, live.counts);
  t.equal(digest.position, live.position);
  t.ok(digest.events > 4);

  const history = await runAudit(['history', rule.id, '--json'], env);
  t.equal(history.code, 0, history.stderr);
  const revisions: { revision: string; changes: any }[] = JSON.parse(history.stdout).events;
  t.same(revisions.map((r) => r.revision), ['0', '1']);
  t.equal(revisions[1].changes.condition_groups.after[0].conditions[0].value, 'silver');
  const unknown = await runAudit(['history', 'no-such-rule'], env);
  t.equal(unknown.code, 1);
  t.match(unknown.stderr, /rule no-such-rule not found/);

  const body = JSON.stringify({ entity_type: 'context', fields: { tier: 'gold' } });
  const then = await runAudit(['evaluate', '--as-of', firstPosition, '--body', body, '--json'], env);
  t.equal(then.code, 0, then.stderr);
  t.same(JSON.parse(then.stdout), { matchingRuleIds: [rule.id], entities: [], as_of: { position: firstPosition, at: rule.created_at } });
  const bodyFile = path.join(dir, 'body.json');
  writeFileSync(bodyFile, body);
  const now = await runAudit(['evaluate', '--as-of', new Date(Date.now() + 60_000).toISOString(), '--body', `@${bodyFile}`, '--json'], env);
  t.equal(now.code, 0, now.stderr);
  t.same(JSON.parse(now.stdout).matchingRuleIds, [], 'as of now the rule wants silver');
  const badAsOf = await runAudit(['evaluate', '--as-of', 'soon', '--body', body], env);
  t.equal(badAsOf.code, 1);
  t.match(badAsOf.stderr, /as_of must be/);

  const file = path.join(dir, 'log.ndjson');
  const exported = await runAudit(['export', '--out', file, '--json'], env);
  t.equal(exported.code, 0, exported.stderr);
  const lines = readFileSync(file, 'utf8').trim().split('\n');
  t.equal(lines.length, digest.events);
  t.notOk(readFileSync(file, 'utf8').includes('cli-plaintext-value'), 'secrets stay sealed in the export');
  t.ok(lines.some((line) => JSON.parse(line).type === 'SecretCreated'));

  const refused = await runAudit(['import', '--in', file], env);
  t.equal(refused.code, 1);
  t.match(refused.stderr, /not empty/, 'import refuses a non-empty store');

  await node.stop();
  stopped = true;
  const other = tempDir();
  t.teardown(() => removeDir(other));
  const otherEnv = { ...env, RULEVAULT_DATA_DIR: other, RULEVAULT_EVENTSTORE: `sqlite:${other}/events.db` };
  const imported = await runAudit(['import', '--in', file, '--json'], otherEnv);
  t.equal(imported.code, 0, imported.stderr);
  t.equal(JSON.parse(imported.stdout).events, lines.length);
  const replayed = await runAudit(['replay', '--json'], otherEnv);
  t.equal(JSON.parse(replayed.stdout).sha256, digest.sha256, 'the imported log replays to the same digest');
  const reExported = await runAudit(['export', '--out', path.join(other, 'again.ndjson')], otherEnv);
  t.equal(reExported.code, 0);
  const again = readFileSync(path.join(other, 'again.ndjson'), 'utf8').trim().split('\n').map((line) => JSON.parse(line));
  const original = lines.map((line) => JSON.parse(line));
  const strip = ({ position: _, ...rest }: Record<string, unknown>) => rest;
  t.same(again.map(strip), original.map(strip), 'streams, ids, types, revisions, data and metadata survive; only positions may differ');

  const usage = await runAudit(['frobnicate'], env);
  t.equal(usage.code, 2, 'a usage mistake exits 2 (issue 16.5; was 64)');
  t.match(usage.stderr, /usage:/);
  const broken = path.join(dir, 'broken.ndjson');
  writeFileSync(broken, '{"stream":"rule-x","type":"RuleCreated","revision":"zero","data":{},"metadata":{}}\n');
  const empty = tempDir();
  t.teardown(() => removeDir(empty));
  const bad = await runAudit(['import', '--in', broken], { ...env, RULEVAULT_EVENTSTORE: `sqlite:${empty}/events.db` });
  t.equal(bad.code, 1);
  t.match(bad.stderr, /line 1: revision/);
});

/** A node on a data folder of its own, removed when `t` ends (the node is the test's to stop). */
async function nodeWithFolder(t: Test) {
  const dir = tempDir();
  t.teardown(() => removeDir(dir));
  const env = testEnv(dir);
  const node = await startTestNode(env);
  return { dir, env, node, admin: client(node.url, node.adminKey) };
}

t.test('replay: a log that differs only in a member named __proto__ digests differently', async (t) => {
  const { dir, env, node, admin } = await nodeWithFolder(t);
  const meta = JSON.parse('{"__proto__":{"tier":"gold"},"team":"core"}');
  const created = await admin.post('/api/contexts', { name: 'proto', content: 'x', meta_properties: meta });
  t.equal(created.status, 201, created.text);
  t.same(Object.keys((await admin.get(`/api/contexts/${created.json.id}`)).json.meta_properties), ['__proto__', 'team'], 'kept as a member');
  const live = (await admin.get('/api/audit/digest')).json;
  await node.stop();

  const file = path.join(dir, 'log.ndjson');
  t.equal((await runAudit(['export', '--out', file], env)).code, 0);
  const text = readFileSync(file, 'utf8');
  t.ok(text.includes('"__proto__":{"tier":"gold"}'), 'the export holds the member');
  const other = tempDir();
  t.teardown(() => removeDir(other));
  const edited = path.join(other, 'edited.ndjson');
  writeFileSync(edited, text.replace('"__proto__":{"tier":"gold"}', '"__proto__":{"tier":"free"}'));
  const otherEnv = { ...env, RULEVAULT_DATA_DIR: other, RULEVAULT_EVENTSTORE: `sqlite:${other}/events.db` };
  t.equal((await runAudit(['import', '--in', edited], otherEnv)).code, 0);

  const original = JSON.parse((await runAudit(['replay', '--json'], env)).stdout);
  const changed = JSON.parse((await runAudit(['replay', '--json'], otherEnv)).stdout);
  t.equal(original.sha256, live.sha256, 'the replay of the log is the live digest');
  t.not(changed.sha256, original.sha256, 'the edited __proto__ value changes the digest');
});

t.test('export --out - writes the log to stdout, and only the log', async (t) => {
  const { dir, env, node, admin } = await nodeWithFolder(t);
  await admin.post('/api/contexts', { name: 'to stdout', content: 'x' });
  await admin.post('/api/vault/secrets', { key: 'STDOUT_SECRET', value: 'stdout-plaintext-value' });
  await node.stop();

  const file = path.join(dir, 'log.ndjson');
  t.equal((await runAudit(['export', '--out', file], env)).code, 0);
  // Run in a folder of its own: a file named "-" would appear there.
  const cwd = tempDir();
  t.teardown(() => removeDir(cwd));
  const run = (args: string[]) => spawnSync(process.execPath, [CLI_SCRIPT, 'audit', ...args], {
    cwd, env: childEnv(env), encoding: 'utf8', maxBuffer: 64 * 2 ** 20,
  });
  const piped = run(['export', '--out', '-']);
  t.equal(piped.status, 0, piped.stderr);
  t.equal(piped.stdout, readFileSync(file, 'utf8'), 'stdout holds exactly the lines the file holds');
  t.notOk(piped.stdout.includes('stdout-plaintext-value'), 'secrets stay sealed');
  t.notOk(existsSync(path.join(cwd, '-')), 'no file named -');
  const json = run(['export', '--out', '-', '--json']);
  t.equal(json.status, 2);
  t.match(json.stderr, /--json cannot go with --out -: stdout carries the log itself/);
  t.equal(json.stdout, '', 'nothing on stdout');
  const nowhere = await runAudit(['export', '--out', path.join(dir, 'no-such-folder', 'log.ndjson')], env);
  t.equal(nowhere.code, 1);
  t.match(nowhere.stderr, /^error: cannot write the export: ENOENT: no such file or directory, open '.*no-such-folder.*'$/m, 'a file that cannot be written is a clear error');
});
