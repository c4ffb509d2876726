/**
 * Decision records that cannot be poisoned (issue 62, items 4 and 7), on a
 * real node over loopback with the real sink files. A request nested past the
 * bound is refused where it is parsed; a record that cannot be serialized all
 * the same (the writer driven in process, with what the bound now keeps out)
 * is written as a stand-in and the rest of its batch goes on; and an id
 * planted inside a record's variables is never taken for a record.
 */
import { Registry } from 'prom-client';
import t from 'tap';
import { createDecisionLog, readDecision, type DecisionStandIn } from '../../src/audit/decision-log';
import { createAuditSinkMetrics } from '../../src/audit/sink-metrics';
import { loadConfig } from '../../src/base/config';
import type { EvaluateRequest, EvaluateResponse } from '../../src/service/evaluate';
import { client } from '../support/http';
import { removeDir, tempDir, type TestNode } from '../support/node';
import { runAudit } from './support/run-audit';
import { nodeWith } from './support/sink';

const HEADER = 'rulevault-decision-id';

async function evaluateKey(node: TestNode): Promise<string> {
  const created = await client(node.url, node.adminKey).post('/api/api-keys', { name: 'app', scopes: ['evaluate'] });
  return created.json.key;
}

async function metric(node: TestNode, name: string): Promise<number> {
  const text = (await client(node.url, node.adminKey).get('/metrics')).text;
  const line = text.split('\n').find((l) => l.startsWith(`${name}{sink="decisions"}`));
  return line === undefined ? NaN : Number(line.split(' ').pop());
}

/** An evaluate body whose variables nest `levels` objects (the variables object itself is the first), as raw JSON text. */
function nestedBody(levels: number): string {
  const variables = '{"a":'.repeat(levels) + '1' + '}'.repeat(levels);
  return `{"entity_type":"context","fields":{"tier":"gold"},"entity_inputs":{"variables":${variables}}}`;
}

t.test('variables nested past 32 levels are a 400 naming the limit; the records that follow are written', async (t) => {
  const node = await nodeWith(t, { RULEVAULT_DECISION_LOG: '1' });
  const admin = client(node.url, node.adminKey);
  const app = client(node.url, await evaluateKey(node));
  const headers = { 'content-type': 'application/json' };

  // What the review sent: ~176 KiB of nesting, well within the body limit, that JSON.stringify cannot serialize.
  const deep = nestedBody(36_000);
  t.ok(deep.length > 176 * 1024 && deep.length < 1024 * 1024, `the body is ${deep.length} bytes, within RULEVAULT_MAX_BODY_BYTES`);
  const refused = await app.post('/api/rule-engine/evaluate', undefined, { raw: deep, headers });
  t.equal(refused.status, 400, refused.text.slice(0, 300));
  t.equal(refused.json.code, 'bad_request');
  t.match(refused.json.err, /^entity_inputs\.variables is nested deeper than 32 levels/);
  t.equal(refused.headers.get(HEADER), null, 'a refused request has no decision');

  // The bound is inclusive: 32 levels are answered and recorded, 33 are not.
  const atBound = await app.post('/api/rule-engine/evaluate', undefined, { raw: nestedBody(32), headers });
  t.equal(atBound.status, 200, atBound.text);
  t.equal((await app.post('/api/rule-engine/evaluate', undefined, { raw: nestedBody(33), headers })).status, 400);

  // Every answer after the refused one is recorded: the writer was never handed what it cannot write.
  const later: string[] = [atBound.headers.get(HEADER)!];
  for (let i = 0; i < 3; i++) {
    const answer = await app.post('/api/rule-engine/evaluate', { entity_type: 'context', fields: { i } });
    t.equal(answer.status, 200);
    later.push(answer.headers.get(HEADER)!);
  }
  for (const id of later) {
    const record = await admin.get(`/api/audit/decisions/${id}`);
    t.equal(record.status, 200, `record ${id} written`);
    t.equal(record.json.decision_id, id);
  }
  t.equal(await metric(node, 'rulevault_audit_sink_write_errors_total'), 0, 'no write failed');
});

t.test('a decision id planted in another record\'s variables is not taken for a record', async (t) => {
  const node = await nodeWith(t, { RULEVAULT_DECISION_LOG: '1' });
  const admin = client(node.url, node.adminKey);
  const app = client(node.url, await evaluateKey(node));
  const first = await app.post('/api/rule-engine/evaluate', { entity_type: 'context', fields: { n: 1 } });
  const firstId = first.headers.get(HEADER)!;
  const never = '01900000-0000-7000-8000-0000000000aa';
  // Objects shaped like a record's first member, the way a line starts: one with an id never issued, one with a real one.
  for (const planted of [never, firstId]) {
    const answer = await app.post('/api/rule-engine/evaluate', {
      entity_type: 'context', fields: { n: 2 },
      entity_inputs: { variables: { note: { decision_id: planted, at: 'x' }, list: [{ decision_id: planted, answer: {} }] } },
    });
    t.equal(answer.status, 200);
  }

  const missing = await admin.get(`/api/audit/decisions/${never}`);
  t.equal(missing.status, 404, missing.text);
  t.equal(missing.json.code, 'not_found');
  t.equal((await admin.get(`/api/audit/decisions/${never}/replay`)).status, 404);

  const real = await admin.get(`/api/audit/decisions/${firstId}`);
  t.equal(real.status, 200, real.text);
  t.equal(real.json.decision_id, firstId);
  t.same(real.json.request.fields, { n: 1 }, 'the record itself, not the planted copy');
});

t.test('a record that cannot be serialized is written as a stand-in, counted, and the rest of its batch goes on', async (t) => {
  const dir = tempDir();
  t.teardown(() => removeDir(dir));
  const registry = new Registry();
  const logged: string[] = [];
  const metrics = createAuditSinkMetrics(registry, (_sink, error) => logged.push(error.message));
  const log = createDecisionLog({ dir, settings: loadConfig({ RULEVAULT_DECISION_LOG: '1' }).auditSink.decisions, metrics });
  // What the review's request was before the bound: nesting JSON.stringify overflows the stack on.
  let deep: Record<string, unknown> = { a: 1 };
  for (let i = 0; i < 100_000; i++) deep = { a: deep };
  const request = (variables: Record<string, unknown>): EvaluateRequest => ({
    entityType: 'context', fields: { tier: 'gold' }, includeEntityData: false, variables, version: undefined, label: undefined, shouldCompile: true, strict: false, atMs: Date.now(),
  });
  const answer: EvaluateResponse = { matchingRuleIds: ['r1'], entities: [{ rule_id: 'r1', entity_type: 'context', entity_id: 'c1', variant: null, reason: 'TARGETING_MATCH' }] };
  const ids = [
    log.decide('k1', request({ n: 1 }), answer, 5n),
    log.decide('k1', request(deep), answer, 6n),
    log.decide('k1', request({ n: 3 }), answer, 7n),
  ];
  t.equal(log.queued, 3);
  log.flush();
  t.equal(log.queued, 0, 'the batch was written: nothing is left to retry');
  log.close();

  const [before, standIn, after] = ids.map((id) => readDecision(dir, id));
  t.same(before && 'request' in before && before.request.entity_inputs.variables, { n: 1 }, 'the record before it, whole');
  t.same(after && 'request' in after && after.request.entity_inputs.variables, { n: 3 }, 'the record after it, whole');
  t.same(standIn, {
    decision_id: ids[1], at: standIn?.at, key_id: 'k1', position: '6',
    incomplete: 'the record could not be serialized (RangeError: Maximum call stack size exceeded): its request, masked paths and entity_data digest are not kept',
    answer: { matchingRuleIds: ['r1'], entities: [{ rule_id: 'r1', entity_type: 'context', entity_id: 'c1', variant: null, reason: 'TARGETING_MATCH' }] },
  }, 'the stand-in: id, time, key, position, answer, and why');
  t.ok(Math.abs(Date.parse(standIn!.at) - Date.now()) < 60_000);
  t.match(await registry.getSingleMetricAsString('rulevault_audit_records_replaced_total'), /rulevault_audit_records_replaced_total\{sink="decisions"\} 1\b/);
  t.match(await registry.getSingleMetricAsString('rulevault_audit_sink_write_errors_total'), /\{sink="decisions"\} 0\b/, 'not a failed write');
  t.same(logged, [`decision record ${ids[1]} could not be serialized (RangeError: Maximum call stack size exceeded); a stand-in was written instead`]);

  // A node reading that folder: the stand-in is looked up as it is, and a replay says why there is none.
  const node = await nodeWith(t, { RULEVAULT_DECISION_LOG: '1', RULEVAULT_AUDIT_DIR: dir });
  const admin = client(node.url, node.adminKey);
  const looked = await admin.get(`/api/audit/decisions/${ids[1]}`);
  t.equal(looked.status, 200, looked.text);
  t.same(looked.json, standIn);
  const replay = await admin.get(`/api/audit/decisions/${ids[1]}/replay`);
  t.equal(replay.status, 409, replay.text);
  t.equal(replay.json.code, 'conflict');
  t.equal(replay.json.err, `decision ${ids[1]} cannot be replayed: ${(standIn as DecisionStandIn).incomplete}`);
  t.equal((await admin.get(`/api/audit/decisions/${ids[2]}`)).status, 200);
  const cli = await runAudit(['decision', ids[1]!], node.env);
  t.equal(cli.code, 1, 'the CLI fails: nothing to replay');
  t.match(cli.stdout, /answer +\{"matchingRuleIds":\["r1"\]/, 'after showing what the stand-in keeps');
  t.match(cli.stderr, /cannot be replayed: the record could not be serialized/);
});
