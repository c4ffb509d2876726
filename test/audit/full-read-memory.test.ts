/**
 * Black-box: a node started from its snapshot keeps the rule records as
 * lines; the digest and the change stream's first view decode them all. When
 * that cannot fit in the heap the node says so at start, refuses them (503,
 * naming the memory needed and the fix) and goes on answering evaluate,
 * rather than dying of "JavaScript heap out of memory" (src/base/memory-room.ts
 * fullReadRefusal). Its first audit query, folding the same 80 MB from
 * the log, is stopped too: its pages are held to ~8 MB of data by the
 * store (ReadAllOptions.maxDataBytes), so the fold's memory check sees the
 * heap fill (src/audit/time-travel.ts). The large rules follow 1,100 small
 * contexts, so the fold's pages have grown to 1,000 events when it meets
 * them: a page of 1,000 there is ~80 MB decoded at once, which kills a
 * 64 MB old space before a check can run. The same folder under a 256 MB
 * old space answers the digest.
 */
import t, { type Test } from 'tap';
import { STREAM_PATH } from '../../src/http/stream-endpoint';
import { client, type Client } from '../support/http';
import { removeDir, tempDir, testEnv } from '../support/node';
import { exited, spawnServiceFor, type ServiceProcess } from '../support/process';

/** 200 inactive rules with ~400 KB descriptions: ~80 MB of lines, more than a 64 MB old space can decode. */
const BIG_RULES = 200;
/** Small events before them: the fold's pages grow 16, 64, 256, then 1,000 events. */
const SMALL_CONTEXTS = 1100;
const DESCRIPTION = 'd'.repeat(400 * 1024);
const condition_groups = [{ conditions: [{ field: 'tier', operator: 'equals', value: 'gold' }] }];

async function start(t: Test, env: Record<string, string>): Promise<{ service: ServiceProcess; admin: Client }> {
  const service = await spawnServiceFor(t, env);
  return { service, admin: client(service.url, env.RULEVAULT_ADMIN_KEY) };
}

async function stop(service: ServiceProcess): Promise<void> {
  service.child.kill('SIGTERM');
  await exited(service.child);
}

const dir = tempDir();
t.teardown(() => removeDir(dir));
const env = testEnv(dir);
let goldId = '';
let evaluateKey = '';

t.before(async () => {
  const { service, admin } = await start(t, env);
  evaluateKey = (await admin.post('/api/api-keys', { name: 'evaluator', scopes: ['evaluate'] })).json.key;
  const contexts = Array.from({ length: SMALL_CONTEXTS }, (_, n) => ({ kind: 'context', name: `small ${n}`, content: 'Be brief.' }));
  const small = await admin.post('/api/import', contexts);
  if (small.status !== 201) throw new Error(`import: ${small.status} ${small.text.slice(0, 300)}`);
  const items = Array.from({ length: BIG_RULES }, (_, n) => ({ kind: 'rule', name: `big ${n}`, description: DESCRIPTION, status: 'INACTIVE', condition_groups }));
  items.push({ kind: 'rule', name: 'gold', description: 'matched', status: 'ACTIVE', condition_groups });
  const imported = await admin.post('/api/import', items);
  if (imported.status !== 201) throw new Error(`import: ${imported.status} ${imported.text.slice(0, 300)}`);
  goldId = imported.json.items[BIG_RULES].id;
  // Stopped, it writes the snapshot the next starts restore from.
  await stop(service);
});

const evaluateGold = (url: string) => client(url, evaluateKey).post('/api/rule-engine/evaluate', { entity_type: 'context', fields: { tier: 'gold' } });

t.test('under a 64 MB old space: the digest and the stream are refused with the figures and the fix; evaluate answers', async (t) => {
  const { service, admin } = await start(t, { ...env, NODE_OPTIONS: '--max-old-space-size=64' });
  const digest = await admin.get('/api/audit/digest');
  t.equal(digest.status, 503);
  t.equal(digest.json.code, 'unavailable');
  const refusal = new RegExp(`^reading the ${BIG_RULES + 1} rule records a snapshot start left unread needs about (\\d+) MB of heap, and (\\d+) MB of its \\d+ MB limit is free: raise it with NODE_OPTIONS=--max-old-space-size=<MB> \\(docs/operations\\.md#memory\\)$`);
  const [, need, free] = refusal.exec(digest.json.err) ?? [];
  t.ok(Number(need) > 80 && Number(need) > Number(free), `the message names what it needs and what is free: ${digest.json.err}`);
  const stream = await client(service.url, evaluateKey).get(STREAM_PATH);
  t.equal(stream.status, 503, 'the change stream\'s first view is refused too');
  t.match(stream.json.err, refusal, 'with the same message');
  const evaluated = await evaluateGold(service.url);
  t.equal(evaluated.status, 200, 'evaluate goes on answering');
  t.same(evaluated.json.matchingRuleIds, [goldId], 'and matches the active rule, the inactive ones not');
  const audit = await admin.post('/api/audit/evaluate', { entity_type: 'context', fields: { tier: 'gold' }, as_of: 1_000_000 });
  t.equal(audit.status, 503, 'the first audit query, folding 80 MB of rules after 1,100 small events, is stopped too (its pages held to ~8 MB)');
  t.match(audit.json.err, /^the audit query was stopped: folding the log to its point took the heap to \d+ MB/);
  t.same((await evaluateGold(service.url)).json.matchingRuleIds, [goldId], 'evaluate still answers after it');
  t.equal(service.child.exitCode, null, 'the node is alive');
  t.match(service.output(), /"level":"warn".*"msg":"reading the 201 rule records a snapshot start left unread needs about \d+ MB of heap, .*; so the digest and the change stream's first view, which read them all, will be refused \(503\)"/, 'the start warned of it');
  t.notMatch(service.output(), /heap out of memory/);
});

t.test('the same folder under a 256 MB old space: the digest reads every record', async (t) => {
  const { service, admin } = await start(t, { ...env, NODE_OPTIONS: '--max-old-space-size=256' });
  t.notMatch(service.output(), /will be refused/, 'no warning at start');
  const digest = await admin.get('/api/audit/digest');
  t.equal(digest.status, 200, digest.text.slice(0, 300));
  t.equal(digest.json.counts.rules, BIG_RULES + 1);
  t.equal(digest.json.counts.contexts, SMALL_CONTEXTS);
  const audit = await admin.post('/api/audit/evaluate', { entity_type: 'context', fields: { tier: 'gold' }, as_of: 1_000_000 });
  t.equal(audit.status, 200, `and the audit query folds the whole log: ${audit.text.slice(0, 300)}`);
  t.same(audit.json.matchingRuleIds, [goldId], 'matching the active rule as of the head');
});
