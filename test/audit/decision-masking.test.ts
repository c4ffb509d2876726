/**
 * Black-box: masking that masks (issue 62, item 5), on a real node over
 * loopback with the real sink files. A mask is a path at any depth of the
 * fields and the variables; no masked value reaches the sink, nor a digest a
 * guess of it could be checked against; and a replay says which parts of the
 * answer it cannot reproduce.
 */
import { createHash } from 'node:crypto';
import t, { type Test } from 'tap';
import { client, createRule, type Client } from '../support/http';
import { nodeWith, sinkBytes } from './support/sink';
import { runAudit } from './support/run-audit';

const HEADER = 'rulevault-decision-id';
const MASKS = 'user.email, customer.ssn, accounts.*.iban, **.pin';
const SSN = '078-05-1120';
const EMAIL = 'ada.unique-5521@example.com';
const IBANS = ['DE89370400440532013000', 'GB29NWBK60161331926819'];
const PIN = 'pin-93517';

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** A node with MASKS, an evaluate client, and one rule (`condition` on it) linking `entity`. */
async function masked(t: Test, condition: Record<string, string>, entity: (admin: Client) => Promise<{ entity_type: string; entity_id: string }>) {
  const node = await nodeWith(t, { RULEVAULT_DECISION_LOG: '1', RULEVAULT_DECISION_LOG_MASK_FIELDS: MASKS });
  const admin = client(node.url, node.adminKey);
  const app = client(node.url, (await admin.post('/api/api-keys', { name: 'app', scopes: ['evaluate'] })).json.key);
  const linked = await entity(admin);
  const ruleId = await createRule(admin, { condition_groups: [{ conditions: [condition] }], entities: [linked] });
  return { node, admin, app, ruleId, entityId: linked.entity_id };
}

t.test('masks by path at any depth; no digest of what a masked value rendered into; the replay says what it cannot reproduce', async (t) => {
  const { node, admin, app, ruleId, entityId: promptId } = await masked(t, { field: 'tier', operator: 'equals', value: 'gold' }, async (admin) => {
    const prompt = await admin.post('/api/prompts', { name: 'letter', prompt: 'Dear {{customer.name}}, your SSN {{customer.ssn}} is on file.' });
    return { entity_type: 'prompt', entity_id: prompt.json.id };
  });
  const body = (ssn: string) => ({
    entity_type: 'prompt', include_entity_data: true, fields: { tier: 'gold', 'user.email': EMAIL },
    entity_inputs: { variables: { customer: { name: 'Ada', ssn }, accounts: [{ iban: IBANS[0], bank: 'X' }, { iban: IBANS[1] }], deep: { x: { pin: PIN } } } },
  });

  const answer = await app.post('/api/rule-engine/evaluate', body(SSN));
  t.equal(answer.status, 200, answer.text);
  t.equal(answer.json.entity_data[`prompt:${promptId}`].compiled_prompt, `Dear Ada, your SSN ${SSN} is on file.`, 'the caller gets its answer');
  const id = answer.headers.get(HEADER)!;

  const record = await admin.get(`/api/audit/decisions/${id}`);
  t.equal(record.status, 200, record.text);
  t.same(record.json.request.fields, { tier: 'gold', 'user.email': '[masked]' });
  t.same(record.json.request.entity_inputs.variables, {
    customer: { name: 'Ada', ssn: '[masked]' },
    accounts: [{ iban: '[masked]', bank: 'X' }, { iban: '[masked]' }],
    deep: { x: { pin: '[masked]' } },
  }, 'a nested variable, every element of an array, and a name at any depth');
  t.same(record.json.masked, [
    'fields.user.email', 'entity_inputs.variables.customer.ssn', 'entity_inputs.variables.accounts.0.iban',
    'entity_inputs.variables.accounts.1.iban', 'entity_inputs.variables.deep.x.pin',
  ]);
  t.same(record.json.answer, { matchingRuleIds: [ruleId], entities: answer.json.entities }, 'the ids and entities as answered, and no digest');

  // What the review did: evaluate each guess with the same request and look for its digest in the sink.
  const bytes = sinkBytes(node);
  for (const secret of [SSN, EMAIL, ...IBANS, PIN]) t.notOk(bytes.includes(secret), `${secret} is in no sink file`);
  const found: string[] = [];
  for (let n = 0; n < 100; n++) {
    const guess = `078-05-11${String(n).padStart(2, '0')}`;
    const guessed = await app.post('/api/rule-engine/evaluate', body(guess));
    if (bytes.includes(sha256(JSON.stringify(guessed.json.entity_data)))) found.push(guess);
  }
  t.same(found, [], 'no guess of the masked SSN can be checked against the sink (before: the right one matched its entity_data_sha256)');

  // The replay leaves the masked values out and says which parts it cannot reproduce; no rule reads user.email.
  const replay = await admin.get(`/api/audit/decisions/${id}/replay`);
  t.equal(replay.status, 200, replay.text);
  t.same(replay.json.unreproducible, { entity_data: record.json.masked });
  t.same(replay.json.differences, {}, 'the entity data is not compared: there is nothing to compare it with');
  t.equal(replay.json.same, true);
  t.same(replay.json.replayed.matchingRuleIds, [ruleId]);
  const cli = await runAudit(['decision', id], node.env);
  t.equal(cli.code, 0, cli.stderr);
  t.match(cli.stdout, /the same answer in the parts it could reproduce/);
  t.match(cli.stdout, /\? entity_data: not reproducible, it depends on masked fields\.user\.email, entity_inputs\.variables\.customer\.ssn/);

  // A variable whose own name holds the dots is the same path.
  const flat = await app.post('/api/rule-engine/evaluate', { entity_type: 'context', fields: {}, entity_inputs: { variables: { 'customer.ssn': SSN, other: 1 } } });
  const flatRecord = await admin.get(`/api/audit/decisions/${flat.headers.get(HEADER)}`);
  t.same(flatRecord.json.request.entity_inputs.variables, { 'customer.ssn': '[masked]', other: 1 });
  t.same(flatRecord.json.masked, ['entity_inputs.variables.customer.ssn']);
  t.notOk(sinkBytes(node).includes(SSN));
});

t.test('a masked field a rule reads: the replay names the parts that depend on it', async (t) => {
  const { admin, app, ruleId: byEmail } = await masked(t, { field: 'user.email', operator: 'ends_with', value: '@example.com' }, async (admin) => {
    const context = await admin.post('/api/contexts', { name: 'c', content: 'x' });
    return { entity_type: 'context', entity_id: context.json.id };
  });
  const answer = await app.post('/api/rule-engine/evaluate', { entity_type: 'context', include_entity_data: true, fields: { 'user.email': EMAIL } });
  t.same(answer.json.matchingRuleIds, [byEmail]);
  const replay = await admin.get(`/api/audit/decisions/${answer.headers.get(HEADER)}/replay`);
  t.equal(replay.status, 200, replay.text);
  t.same(replay.json.unreproducible, { matchingRuleIds: ['fields.user.email'], entities: ['fields.user.email'], entity_data: ['fields.user.email'] });
  t.equal(replay.json.same, false, 'without the value the rule does not match');
  t.same(replay.json.differences.matchingRuleIds, { only_recorded: [byEmail], only_replayed: [] });
  t.notOk('entity_data' in replay.json.differences);

  // At a point where no rule reads it, the field no longer stands in the way of the ids and entities.
  const removed = await admin.delete(`/api/rule-engine/rules/${byEmail}`);
  t.ok(removed.status === 200 || removed.status === 204, removed.text);
  const atHead = await admin.get(`/api/audit/decisions/${answer.headers.get(HEADER)}/replay?as_of=head`);
  t.same(atHead.json.unreproducible, { entity_data: ['fields.user.email'] });
});
