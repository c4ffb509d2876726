/**
 * `rulevault test <file>` (docs/cli.md#rulevault-test): a test-case file run
 * by the CLI as a process against a live node over HTTP, and offline
 * against the same node's data folder, with the same results; a failing
 * case exits 3 with its diff, a malformed file exits 1 naming the line.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import t, { type Test } from 'tap';
import { runCli } from '../support/process';
import { tempDir } from '../support/temp';
import { withNode } from '../support/with-node';

t.test('rulevault test: pass, fail with a diff, a malformed file; live and offline agree', async (t) => {
  const live = withNode(t);
  const dir = tempDir();
  const file = (name: string, cases: unknown[] | string) => {
    const at = path.join(dir, name);
    writeFileSync(at, typeof cases === 'string' ? cases : cases.map((c) => JSON.stringify(c)).join('\n') + '\n');
    return at;
  };
  let env: Record<string, string> = {};
  let ids: Record<string, string> = {};
  t.before(async () => {
    const context = async (name: string) => (await live.admin.post('/api/contexts', { name, content: name })).json.id as string;
    const [gold, a, b] = [await context('gold'), await context('a'), await context('b')];
    const rule = async (body: Record<string, unknown>) => {
      const created = await live.admin.post('/api/rule-engine/rules', body);
      if (created.status !== 201) throw new Error(created.text);
      return created.json.id as string;
    };
    const goldRule = await rule({
      name: 'gold', condition_groups: [{ conditions: [{ field: 'tier', operator: 'equals', value: 'gold' }] }],
      entities: [{ entity_type: 'context', entity_id: gold }],
    });
    const splitRule = await rule({
      name: 'tone', key: 'tone', condition_groups: [{ conditions: [{ field: 'tier', operator: 'in', value: 'gold,silver' }] }],
      entities: [{ entity_type: 'context', entity_id: a }, { entity_type: 'context', entity_id: b }],
      splits: [{ entity_type: 'context', variants: [{ name: 'a', entity_id: a, weight: 100 }, { name: 'b', entity_id: b, weight: 0 }] }],
    });
    ids = { gold, a, goldRule, splitRule };
    const key = (await live.admin.post('/api/api-keys', { name: 'ci', scopes: ['evaluate'] })).json.key as string;
    env = { RULEVAULT_URL: live.url, RULEVAULT_API_KEY: key };
  });
  const both = async (t: Test, at: string) => {
    const online = await runCli(['test', at, '--json'], env);
    const offline = await runCli(['test', at, '--data-dir', live.node.dataDir, '--json'], { RULEVAULT_API_KEY: '' });
    t.same(offline.code, online.code, 'the same exit code offline');
    t.same(JSON.parse(offline.stdout), JSON.parse(online.stdout), 'the same report offline');
    return online;
  };

  t.test('every case passes: exit 0, live and offline', async (t) => {
    const at = file('pass.ndjson', [
      { name: 'gold gets the gold tone', entity_type: 'context', fields: { tier: 'gold', targetingKey: 'u1' }, expect: { rules: [ids.goldRule, ids.splitRule].sort(), entities: [ids.gold, ids.a], variants: { [ids.splitRule]: 'a' } } },
      { name: 'bronze gets nothing', entity_type: 'context', fields: { tier: 'bronze' }, expect: { rules: [], entities: [], variants: { [ids.splitRule]: null } } },
    ]);
    const run = await both(t, at);
    t.equal(run.code, 0, run.stderr);
    t.same(JSON.parse(run.stdout), {
      passed: 2, failed: 0,
      cases: [{ name: 'gold gets the gold tone', line: 1, pass: true }, { name: 'bronze gets nothing', line: 2, pass: true }],
    });
    const text = await runCli(['test', at], env);
    t.equal(text.code, 0);
    t.match(text.stdout, /^ok {4}gold gets the gold tone {2}\(line 1\)$/m);
    t.match(text.stdout, /^2 passed, 0 failed$/m);
  });

  t.test('a failing case: exit 3 and a clear diff, live and offline', async (t) => {
    const at = file('fail.ndjson', [
      { name: 'silver wrongly expected gold', entity_type: 'context', fields: { tier: 'silver' }, expect: { rules: [ids.goldRule], variants: { [ids.splitRule]: 'b' } } },
      { name: 'a bad field fails its case only', entity_type: 'context', fields: { tier: { nested: true } }, expect: { rules: [] } },
      { name: 'still runs', entity_type: 'context', fields: { tier: 'gold' }, expect: { entities: [ids.gold, ids.a] } },
    ]);
    const run = await both(t, at);
    t.equal(run.code, 3, run.stderr);
    const report = JSON.parse(run.stdout);
    t.same([report.passed, report.failed], [1, 2]);
    t.same(report.cases[0].diff, {
      rules: { missing: [ids.goldRule], unexpected: [ids.splitRule] },
      variants: [{ rule_id: ids.splitRule, expected: 'b', actual: 'a' }],
    });
    t.match(report.cases[1], { pass: false, error: /^evaluate refused the case: fields\.tier must be a string, number, boolean or null/ });
    const text = await runCli(['test', at], env);
    t.equal(text.code, 3);
    t.match(text.stdout, new RegExp(`^FAIL {2}silver wrongly expected gold {2}\\(line 1\\)\\n {6}- rules: ${ids.goldRule} expected, not answered\\n {6}\\+ rules: ${ids.splitRule} answered, not expected\\n {6}~ variant of rule ${ids.splitRule}: expected "b", answered "a"$`, 'm'));
    t.match(text.stdout, /^1 passed, 2 failed$/m);
  });

  t.test('a malformed file is named by line (exit 1); so are a missing key and data folder', async (t) => {
    const at = file('bad.ndjson', `${JSON.stringify({ name: 'ok', entity_type: 'context', fields: {}, expect: { rules: [] } })}\n{"name": "broken"\n`);
    for (const args of [['test', at], ['test', at, '--data-dir', live.node.dataDir]]) {
      const run = await runCli([...args, '--json'], env);
      t.equal(run.code, 1);
      t.equal(run.stdout, '', 'no report');
      t.match(JSON.parse(run.stderr.trim().split('\n').pop()!), { error: { kind: 'failed', message: `${at} line 2: not JSON`, line: 2 } });
    }
    const noKey = await runCli(['test', at.replace('bad', 'pass')], { RULEVAULT_URL: live.url, RULEVAULT_API_KEY: '' });
    t.equal(noKey.code, 1);
    t.match(noKey.stderr, /no API key: set RULEVAULT_API_KEY/);
    const empty = tempDir();
    const noLog = await runCli(['test', at.replace('bad', 'pass'), '--data-dir', empty], {});
    t.equal(noLog.code, 1);
    t.match(noLog.stderr, /holds no log: .*events\.db does not exist/);
  });
});
