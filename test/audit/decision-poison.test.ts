/**
 * Black-box: decision records that cannot be poisoned (issue 62, items 4 and
 * 7) on a real node over loopback with the real sink files. A request nested
 * past the bound is refused where it is parsed, so no record of it can stall
 * the writer; and an id planted inside a record's variables is never taken
 * for that record's own id.
 */
import t from 'tap';
import { client } from '../support/http';
import type { TestNode } from '../support/node';
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
