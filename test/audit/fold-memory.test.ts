/**
 * Black-box: the first audit query folds the whole log, holding every rule
 * again. On a node whose old space cannot hold that, the fold is stopped
 * (503, naming the figures and the fix) and the node goes on answering
 * evaluate (src/base/memory-room.ts foldRoomRefusal); before, it died of
 * "JavaScript heap out of memory". The same log under a 256 MB old space is
 * answered.
 */
import t from 'tap';
import { client } from '../support/http';
import { removeDir, tempDir, testEnv } from '../support/node';
import { exited, spawnServiceFor } from '../support/process';

/** 40k rules of ~350 bytes: a 128 MB old space died folding them (bench/HISTORY.md, 2026-11-28 sixth round). */
const RULES = 40_000;

const dir = tempDir();
t.teardown(() => removeDir(dir));
const env = testEnv(dir);
let evaluateKey = '';

t.before(async () => {
  const service = await spawnServiceFor(t, env);
  const admin = client(service.url, env.RULEVAULT_ADMIN_KEY);
  evaluateKey = (await admin.post('/api/api-keys', { name: 'evaluator', scopes: ['evaluate'] })).json.key;
  const lines = Array.from({ length: RULES }, (_, n) => JSON.stringify({
    kind: 'rule', name: `r${n}`, description: 'x'.repeat(200), condition_groups: [{ conditions: [{ field: 'tier', operator: 'equals', value: `v${n}` }] }],
  }));
  const imported = await admin.post('/api/import', undefined, { raw: lines.join('\n'), headers: { 'content-type': 'application/x-ndjson' } });
  if (imported.status !== 201) throw new Error(`import: ${imported.status} ${imported.text.slice(0, 300)}`);
  service.child.kill('SIGTERM');
  await exited(service.child);
});

const auditHead = { entity_type: 'context', fields: { tier: 'v5' }, as_of: 1_000_000 };

t.test('under a 128 MB old space the first audit query is stopped with a 503; evaluate answers', async (t) => {
  const service = await spawnServiceFor(t, { ...env, NODE_OPTIONS: '--max-old-space-size=128' });
  const audit = await client(service.url, env.RULEVAULT_ADMIN_KEY).post('/api/audit/evaluate', auditHead);
  t.equal(audit.status, 503, audit.text.slice(0, 300));
  t.equal(audit.json.code, 'unavailable');
  t.match(audit.json.err, /^the audit query was stopped: folding the log to its point took the heap to \d+ MB, into the last 32 MB of its old space's 128 MB limit kept for serving; give the node more memory and a larger NODE_OPTIONS=--max-old-space-size=<MB>, or audit beside it with npm run audit \(docs\/operations\.md#memory\)$/);
  const evaluated = await client(service.url, evaluateKey).post('/api/rule-engine/evaluate', { entity_type: 'context', fields: { tier: 'v5' } });
  t.equal(evaluated.status, 200, 'evaluate goes on answering');
  t.equal(evaluated.json.matchingRuleIds.length, 1);
  t.equal(service.child.exitCode, null, 'the node is alive');
  t.notMatch(service.output(), /heap out of memory/);
});

t.test('under a 256 MB old space the same query is answered', async (t) => {
  const service = await spawnServiceFor(t, { ...env, NODE_OPTIONS: '--max-old-space-size=256' });
  const audit = await client(service.url, env.RULEVAULT_ADMIN_KEY).post('/api/audit/evaluate', auditHead);
  t.equal(audit.status, 200, audit.text.slice(0, 300));
  t.equal(audit.json.matchingRuleIds.length, 1, 'the rule that matched then');
});
