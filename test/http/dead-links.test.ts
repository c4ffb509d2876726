/**
 * Black-box (issue 14, item 11): links from rules to contexts and prompts.
 * Deleting a linked context or prompt is refused (409 naming the rules); a
 * rule that already links a deleted one (written before this rule existed,
 * here appended to the log through the store port as an old version would
 * have) can still be PATCHed, and the PATCH drops the dead link.
 */
import t from 'tap';
import { SCHEMA_VERSION } from '../../src/events';
import { client, type Client } from '../support/http';
import { removeDir, startTestNode, type TestNode } from '../support/node';

let node: TestNode;
let admin: Client;

const conditionGroups = [{ conditions: [{ field: 'tier', operator: 'equals', value: 'gold' }] }];

t.before(async () => {
  node = await startTestNode();
  admin = client(node.url, node.adminKey);
});
t.teardown(async () => {
  await node.stop();
  removeDir(node.dataDir);
});

async function create(path: string, body: unknown): Promise<{ id: string; revision: string }> {
  const answer = await admin.post(path, body);
  if (answer.status !== 201) throw new Error(`${path}: ${answer.status} ${answer.text}`);
  return answer.json;
}

/** Deletes a context behind the API's back, as a log written before the 409 holds it. */
async function deleteInTheLog(context: { id: string; revision: string }): Promise<void> {
  const metadata = { actor: 'env-admin', at: new Date().toISOString(), request_id: 'old-version', schema: SCHEMA_VERSION };
  const result = await node.node.store.append(`context-${context.id}`, [{ type: 'ContextDeleted', data: { id: context.id }, metadata }], BigInt(context.revision));
  await node.node.readModel.waitFor(result.position);
}

t.test('deleting a context or prompt that rules link to is a 409 naming the rules', async (t) => {
  const context = await create('/api/contexts', { name: 'c', content: 'x' });
  const prompt = await create('/api/prompts', { name: 'p', prompt: 'Hi' });
  const links = [{ entity_type: 'context', entity_id: context.id }, { entity_type: 'prompt', entity_id: prompt.id }];
  const active = await create('/api/rule-engine/rules', { name: 'a', condition_groups: conditionGroups, entities: links });
  const inactive = await create('/api/rule-engine/rules', { name: 'i', status: 'INACTIVE', condition_groups: conditionGroups, entities: links });
  const both = [active.id, inactive.id].sort().join(', ');

  const refused = await admin.delete(`/api/contexts/${context.id}`);
  t.equal(refused.status, 409);
  t.equal(refused.json.err, `context ${context.id} is linked by 2 rules ${both}: remove the link from their entities (PATCH) or delete them first`);
  t.equal((await admin.get(`/api/contexts/${context.id}`)).status, 200, 'the context is still there');
  const refusedPrompt = await admin.delete(`/api/prompts/${prompt.id}`);
  t.equal(refusedPrompt.status, 409);
  t.match(refusedPrompt.json.err, `prompt ${prompt.id} is linked by 2 rules ${both}`);

  // Unlinked from one rule, deleted with the other: then the delete goes through.
  t.equal((await admin.patch(`/api/rule-engine/rules/${active.id}`, { entities: [links[1]] })).status, 200);
  t.equal((await admin.delete(`/api/rule-engine/rules/${inactive.id}`)).status, 204);
  t.equal((await admin.delete(`/api/contexts/${context.id}`)).status, 204);
  t.match((await admin.delete(`/api/prompts/${prompt.id}`)).json.err, `is linked by rule ${active.id}:`);
});

t.test('a rule linking a context deleted before the 409 existed can still be PATCHed; the dead link is dropped', async (t) => {
  const context = await create('/api/contexts', { name: 'doomed', content: 'x' });
  const kept = await create('/api/contexts', { name: 'kept', content: 'y' });
  const links = [
    { entity_type: 'context', entity_id: context.id },
    { entity_type: 'context', entity_id: kept.id },
    { entity_type: 'evaluation', entity_id: 'eval-1' },
  ];
  const rule = await create('/api/rule-engine/rules', { name: 'r', condition_groups: conditionGroups, entities: links });
  await deleteInTheLog(context);
  t.equal((await admin.get(`/api/contexts/${context.id}`)).status, 404, 'the context is gone');
  t.same((await admin.get(`/api/rule-engine/rules/${rule.id}`)).json.entities, links, 'the rule still names it');

  const inactive = await admin.patch(`/api/rule-engine/rules/${rule.id}`, { status: 'INACTIVE' });
  t.equal(inactive.status, 200, `PATCH to INACTIVE works (${inactive.text})`);
  t.equal(inactive.json.status, 'INACTIVE');
  t.same(inactive.json.entities, links.slice(1), 'the dead link is dropped, the live ones kept');
  const history = (await admin.get(`/api/rule-engine/rules/${rule.id}/history`)).json.events;
  t.same(history.at(-1).changes, {
    status: { before: 'ACTIVE', after: 'INACTIVE' },
    entities: { before: links, after: links.slice(1) },
  }, 'the event records the drop');

  const readded = await admin.patch(`/api/rule-engine/rules/${rule.id}`, { entities: links });
  t.equal(readded.status, 400, 'linking the deleted context again is refused');
  t.match(readded.json.err, `entities[0]: context ${context.id} does not exist`);
});

t.test('an empty PATCH repairs a rule with a dead link (and only then is it a write)', async (t) => {
  const context = await create('/api/contexts', { name: 'doomed', content: 'x' });
  const rule = await create('/api/rule-engine/rules', {
    name: 'r', condition_groups: conditionGroups, entities: [{ entity_type: 'context', entity_id: context.id }],
  });
  await deleteInTheLog(context);
  const repaired = await admin.patch(`/api/rule-engine/rules/${rule.id}`, {}, { headers: { 'if-match': '"0"' } });
  t.equal(repaired.status, 200);
  t.same(repaired.json.entities, []);
  t.equal(repaired.json.revision, '1');
  t.equal((await admin.patch(`/api/rule-engine/rules/${rule.id}`, {})).json.revision, '1', 'once repaired, an empty PATCH is no change');
});
