/**
 * Black-box: masking that masks (issue 62, item 5), on a real node over
 * loopback with the real sink files. A mask is a path at any depth of the
 * fields and the variables, and no masked value reaches the sink.
 */
import t, { type Test } from 'tap';
import { client, createRule, type Client } from '../support/http';
import { nodeWith, sinkBytes } from './support/sink';

const HEADER = 'rulevault-decision-id';
const MASKS = 'user.email, customer.ssn, accounts.*.iban, **.pin';
const SSN = '078-05-1120';
const EMAIL = 'ada.unique-5521@example.com';
const IBANS = ['DE89370400440532013000', 'GB29NWBK60161331926819'];
const PIN = 'pin-93517';

/** A node with MASKS, an evaluate client, and one rule (`condition` on it) linking `entity`. */
async function masked(t: Test, condition: Record<string, string>, entity: (admin: Client) => Promise<{ entity_type: string; entity_id: string }>) {
  const node = await nodeWith(t, { RULEVAULT_DECISION_LOG: '1', RULEVAULT_DECISION_LOG_MASK_FIELDS: MASKS });
  const admin = client(node.url, node.adminKey);
  const app = client(node.url, (await admin.post('/api/api-keys', { name: 'app', scopes: ['evaluate'] })).json.key);
  const linked = await entity(admin);
  const ruleId = await createRule(admin, { condition_groups: [{ conditions: [condition] }], entities: [linked] });
  return { node, admin, app, ruleId, entityId: linked.entity_id };
}

t.test('masks by path at any depth, fields and variables', async (t) => {
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
  t.same(record.json.answer.matchingRuleIds, [ruleId]);

  const bytes = sinkBytes(node);
  for (const secret of [SSN, EMAIL, ...IBANS, PIN]) t.notOk(bytes.includes(secret), `${secret} is in no sink file`);

  // A variable whose own name holds the dots is the same path.
  const flat = await app.post('/api/rule-engine/evaluate', { entity_type: 'context', fields: {}, entity_inputs: { variables: { 'customer.ssn': SSN, other: 1 } } });
  const flatRecord = await admin.get(`/api/audit/decisions/${flat.headers.get(HEADER)}`);
  t.same(flatRecord.json.request.entity_inputs.variables, { 'customer.ssn': '[masked]', other: 1 });
  t.same(flatRecord.json.masked, ['entity_inputs.variables.customer.ssn']);
  t.notOk(sinkBytes(node).includes(SSN));
});
