/**
 * Black-box: decision records (docs/auditors.md#decision-records) on a
 * real node over loopback, with the sink's real SQLite files: the
 * RuleVault-Decision-Id header, records at 100% sampling, replay at the
 * recorded position and at the head of the log (API and CLI), masking, and
 * a full queue that drops and counts.
 */
import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import t from 'tap';
import { ConfigError, loadConfig } from '../../src/base/config';
import { client, createRule } from '../support/http';
import type { TestNode } from '../support/node';
import { nodeWith, sinkBytes } from './support/sink';
import { runAudit } from './support/run-audit';

const HEADER = 'rulevault-decision-id';
const UUID7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

async function evaluateKey(node: TestNode): Promise<string> {
  const admin = client(node.url, node.adminKey);
  const created = await admin.post('/api/api-keys', { name: 'app', scopes: ['evaluate'] });
  return created.json.key;
}

async function metric(node: TestNode, line: RegExp): Promise<number> {
  const text = (await client(node.url, node.adminKey).get('/metrics')).text;
  const match = text.split('\n').find((l) => line.test(l));
  return match === undefined ? NaN : Number(match.split(' ').pop());
}

t.test('every evaluate answer carries a decision id; logging off writes nothing', async (t) => {
  const node = await nodeWith(t, {});
  const app = client(node.url, await evaluateKey(node));
  const ids = new Set<string>();
  for (let i = 0; i < 5; i++) {
    const answer = await app.post('/api/rule-engine/evaluate', { entity_type: 'context', fields: { tier: 'gold' } });
    t.equal(answer.status, 200);
    t.match(answer.headers.get(HEADER), UUID7);
    t.same(Object.keys(answer.json).sort(), ['entities', 'matchingRuleIds'], 'the body is the contract\'s: no decision_id in it');
    ids.add(answer.headers.get(HEADER)!);
  }
  t.equal(ids.size, 5, 'ids are distinct');
  const bad = await app.post('/api/rule-engine/evaluate', { entity_type: 'nope', fields: {} });
  t.equal(bad.status, 400);
  t.equal(bad.headers.get(HEADER), null, 'an error has no decision');
  t.notOk(existsSync(path.join(node.dataDir, 'audit')), 'logging is off by default: no sink file');
  const lookup = await client(node.url, node.adminKey).get(`/api/audit/decisions/${[...ids][0]}`);
  t.equal(lookup.status, 404);
  t.equal(lookup.json.code, 'not_found');
  t.match(lookup.json.err, /RULEVAULT_DECISION_LOG/);
});

t.test('at 100%: the record, its replay at its position and at the head, masking; API and CLI', async (t) => {
  const node = await nodeWith(t, { RULEVAULT_DECISION_LOG: '1', RULEVAULT_DECISION_LOG_MASK_FIELDS: 'user.email, ssn' });
  const admin = client(node.url, node.adminKey);
  const keyAnswer = await admin.post('/api/api-keys', { name: 'app', scopes: ['evaluate'] });
  const app = client(node.url, keyAnswer.json.key);
  const context = (await admin.post('/api/contexts', { name: 'gold tone', content: 'Answer in depth.' })).json;
  const ruleId = await createRule(admin, {
    condition_groups: [{ conditions: [{ field: 'tier', operator: 'equals', value: 'gold' }] }],
    entities: [{ entity_type: 'context', entity_id: context.id }],
  });
  const position = (await admin.get('/readyz')).json.position;

  const email = 'alice.unique-4711@example.com';
  const answer = await app.post('/api/rule-engine/evaluate', {
    entity_type: 'context', include_entity_data: true, fields: { tier: 'gold', 'user.email': email, n: 3 },
  });
  t.equal(answer.status, 200);
  t.same(answer.json.matchingRuleIds, [ruleId]);
  const id = answer.headers.get(HEADER)!;

  const record = await admin.get(`/api/audit/decisions/${id}`);
  t.equal(record.status, 200, record.text);
  t.equal(record.json.decision_id, id);
  t.equal(record.json.key_id, keyAnswer.json.id);
  t.equal(record.json.position, position, 'the position the answer was computed at');
  t.same(record.json.request, {
    entity_type: 'context', include_entity_data: true,
    fields: { tier: 'gold', 'user.email': '[masked]', n: 3 },
    entity_inputs: { variables: {}, shouldCompile: true, strict: false },
  });
  t.same(record.json.masked, ['fields.user.email']);
  t.same(record.json.answer.matchingRuleIds, answer.json.matchingRuleIds);
  t.same(record.json.answer.entities, answer.json.entities);
  t.notOk('entity_data_sha256' in record.json.answer, 'a masked value: no digest of entity_data (decision-masking.test.ts)');
  t.ok(Math.abs(Date.parse(record.json.at) - Date.now()) < 60_000);
  const bytes = sinkBytes(node);
  t.ok(bytes.includes(id), 'the grep below can see what the sink holds');
  t.notOk(bytes.includes(email), 'the masked value is in no sink file');

  const same = await admin.get(`/api/audit/decisions/${id}/replay`);
  t.equal(same.status, 200, same.text);
  t.equal(same.json.same, true);
  t.same(same.json.differences, {});
  t.equal(same.json.replayed_at.position, position);
  t.same(same.json.replayed.entities, same.json.recorded.entities);

  // Nothing masked: the record keeps the entity_data digest, and the replay compares it.
  const plain = await app.post('/api/rule-engine/evaluate', { entity_type: 'context', include_entity_data: true, fields: { tier: 'gold' } });
  const plainId = plain.headers.get(HEADER)!;
  const plainRecord = await admin.get(`/api/audit/decisions/${plainId}`);
  t.equal(plainRecord.json.answer.entity_data_sha256, createHash('sha256').update(JSON.stringify(plain.json.entity_data)).digest('hex'));
  const plainSame = await admin.get(`/api/audit/decisions/${plainId}/replay`);
  t.equal(plainSame.json.same, true);
  t.same(plainSame.json.replayed, plainSame.json.recorded);
  t.same(plainSame.json.unreproducible, {});

  // The rule changes after the decision: the answer at the head differs, the one at the recorded position does not.
  const patched = await admin.patch(`/api/rule-engine/rules/${ruleId}`, { condition_groups: [{ conditions: [{ field: 'tier', operator: 'equals', value: 'silver' }] }] });
  t.equal(patched.status, 200);
  const atRecorded = await admin.get(`/api/audit/decisions/${id}/replay`);
  t.equal(atRecorded.json.same, true, 'at its position the replay still matches');
  const atHead = await admin.get(`/api/audit/decisions/${id}/replay?as_of=head`);
  t.equal(atHead.status, 200, atHead.text);
  t.equal(atHead.json.same, false);
  t.equal(atHead.json.replayed_at.position, patched.json.position);
  t.same(atHead.json.differences.matchingRuleIds, { only_recorded: [ruleId], only_replayed: [] });
  t.same(atHead.json.differences.entities, { only_recorded: [`${ruleId} context:${context.id}`], only_replayed: [] });
  t.notOk('entity_data' in atHead.json.differences, 'a masked record keeps no digest to compare');
  const plainHead = await admin.get(`/api/audit/decisions/${plainId}/replay?as_of=head`);
  t.same(plainHead.json.differences.entity_data.replayed_sha256, createHash('sha256').update('{}').digest('hex'));
  t.equal((await admin.get(`/api/audit/decisions/${id}/replay?as_of=soon`)).status, 400);
  t.equal((await admin.get(`/api/audit/decisions/${id}/replay?at=1`)).status, 400, 'an unknown parameter is refused');
  t.equal((await app.get(`/api/audit/decisions/${id}`)).status, 403, 'scope admin');

  // The CLI reads the same sink beside the running service.
  const cli = await runAudit(['decision', id, '--json'], node.env);
  t.equal(cli.code, 0, cli.stderr);
  const printed = JSON.parse(cli.stdout);
  t.same(printed.record, record.json);
  t.equal(printed.replay.same, true);
  const cliHead = await runAudit(['decision', id, '--as-of', 'head'], node.env);
  t.equal(cliHead.code, 3, 'a difference exits 3');
  t.match(cliHead.stdout, /the answer differs/);
  t.match(cliHead.stdout, new RegExp(`- matchingRuleIds: ${ruleId} \\(answered then, not now\\)`));
  const cliPeople = await runAudit(['decision', id], node.env);
  t.equal(cliPeople.code, 0);
  t.match(cliPeople.stdout, /the same answer/);
  t.match(cliPeople.stdout, /masked +fields\.user\.email/);
  const missing = await runAudit(['decision', '00000000-0000-7000-8000-000000000000'], node.env);
  t.equal(missing.code, 1);
  t.match(missing.stderr, /decision 00000000-0000-7000-8000-000000000000 not found/);

  // A masked field a rule reads cannot be replayed: the report says which, and the answer differs.
  const byEmail = await createRule(admin, { condition_groups: [{ conditions: [{ field: 'user.email', operator: 'ends_with', value: '@example.com' }] }] });
  const masked = await app.post('/api/rule-engine/evaluate', { entity_type: 'context', fields: { 'user.email': email } });
  t.same(masked.json.matchingRuleIds, [byEmail]);
  const maskedReplay = await admin.get(`/api/audit/decisions/${masked.headers.get(HEADER)}/replay`);
  t.equal(maskedReplay.json.same, false);
  t.same(maskedReplay.json.masked, ['fields.user.email']);
  t.same(maskedReplay.json.differences.matchingRuleIds, { only_recorded: [byEmail], only_replayed: [] });
});

t.test('a full queue drops records and counts them on /metrics; a request never waits', async (t) => {
  const node = await nodeWith(t, { RULEVAULT_DECISION_LOG: '1', RULEVAULT_DECISION_LOG_QUEUE: '3' });
  const admin = client(node.url, node.adminKey);
  const app = client(node.url, await evaluateKey(node));
  const body = { entity_type: 'context', fields: { tier: 'gold' } };
  const first = (await app.post('/api/rule-engine/evaluate', body)).headers.get(HEADER)!;
  t.equal((await admin.get(`/api/audit/decisions/${first}`)).status, 200);
  t.equal(await metric(node, /^rulevault_audit_records_dropped_total\{sink="decisions"\}/), 0);

  // The sink's folder is removed: no batch can be written, so the queue fills.
  const auditDir = path.join(node.dataDir, 'audit');
  rmSync(auditDir, { recursive: true, force: true });
  const ids: string[] = [];
  for (let i = 0; i < 10; i++) {
    const answer = await app.post('/api/rule-engine/evaluate', body);
    t.equal(answer.status, 200, 'answered while the sink cannot be written');
    ids.push(answer.headers.get(HEADER)!);
  }
  t.equal(await metric(node, /^rulevault_audit_records_dropped_total\{sink="decisions"\}/), 7, '10 answers, 3 queued, 7 dropped');
  t.ok(await metric(node, /^rulevault_audit_sink_write_errors_total\{sink="decisions"\}/) >= 1, 'the failed writes are counted');
  mkdirSync(auditDir);

  // Once the folder is back the queued three are written; the dropped seven never are.
  for (const id of ids.slice(0, 3)) t.equal((await admin.get(`/api/audit/decisions/${id}`)).status, 200, `queued ${id} written`);
  for (const id of ids.slice(3)) t.equal((await admin.get(`/api/audit/decisions/${id}`)).status, 404, `dropped ${id}`);
});

t.test('the sink rotates by size and keeps the newest files; a lookup finds a record in any of them', async (t) => {
  const node = await nodeWith(t, { RULEVAULT_DECISION_LOG: '1', RULEVAULT_DECISION_LOG_MAX_FILE_BYTES: '4096', RULEVAULT_DECISION_LOG_MAX_FILES: '3' });
  const admin = client(node.url, node.adminKey);
  const app = client(node.url, await evaluateKey(node));
  const ids: string[] = [];
  for (let i = 0; i < 40; i++) {
    ids.push((await app.post('/api/rule-engine/evaluate', { entity_type: 'context', fields: { i, pad: 'x'.repeat(200) } })).headers.get(HEADER)!);
    // One record per batch, so the rotation is decided record by record.
    await admin.get(`/api/audit/decisions/${ids[i]}`);
  }
  const files = readdirSync(path.join(node.dataDir, 'audit')).filter((name) => name.endsWith('.ndjson')).sort();
  t.equal(files.length, 3, 'the oldest files were deleted');
  t.ok(files.every((name) => /^decisions-[0-9a-f-]{36}\.ndjson$/.test(name)));
  t.equal((await admin.get(`/api/audit/decisions/${ids[0]}`)).status, 404, 'the first record went with its file');
  const kept = await Promise.all(ids.map(async (id) => (await admin.get(`/api/audit/decisions/${id}`)).status));
  const firstKept = kept.indexOf(200);
  t.ok(firstKept > 0 && kept.slice(firstKept).every((status) => status === 200), 'the newest records are all found, in every kept file');
});

t.test('sampling is systematic: at 5%, every twentieth answer is recorded', async (t) => {
  const node = await nodeWith(t, { RULEVAULT_DECISION_LOG: '1', RULEVAULT_DECISION_LOG_SAMPLE_RATE: '0.05' });
  const admin = client(node.url, node.adminKey);
  const app = client(node.url, await evaluateKey(node));
  const recorded: number[] = [];
  for (let i = 1; i <= 60; i++) {
    const id = (await app.post('/api/rule-engine/evaluate', { entity_type: 'context', fields: { i } })).headers.get(HEADER)!;
    t.match(id, UUID7, 'every answer has an id, recorded or not');
    if ((await admin.get(`/api/audit/decisions/${id}`)).status === 200) recorded.push(i);
  }
  t.same(recorded, [20, 40, 60]);
});

t.test('settings are validated at start-up, naming the variable', async (t) => {
  for (const [name, value] of [
    ['RULEVAULT_DECISION_LOG_SAMPLE_RATE', '0'], ['RULEVAULT_DECISION_LOG_SAMPLE_RATE', '1.5'], ['RULEVAULT_DECISION_LOG_SAMPLE_RATE', 'half'],
    ['RULEVAULT_DECISION_LOG', 'maybe'], ['RULEVAULT_DECISION_LOG_QUEUE', '0'], ['RULEVAULT_READ_AUDIT_FAIL_CLOSED', 'yes'],
  ] as const) {
    let thrown: unknown;
    try {
      loadConfig({ [name]: value });
    } catch (error) {
      thrown = error;
    }
    t.ok(thrown instanceof ConfigError && thrown.variable === name, `${name}=${value} is refused naming it`);
  }
  const config = loadConfig({ RULEVAULT_DATA_DIR: '/srv/rv/', RULEVAULT_DECISION_LOG_MASK_FIELDS: ' a, b ,,a' });
  t.equal(config.auditSink.dir, '/srv/rv/audit');
  t.same(config.auditSink.decisions.maskFields, ['a', 'b']);
  t.equal(config.auditSink.decisions.enabled, false);
  t.equal(loadConfig({ RULEVAULT_AUDIT_DIR: '/var/audit' }).auditSink.dir, '/var/audit');
});
