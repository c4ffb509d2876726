/**
 * Black-box (issue 14, item 11): links from rules to contexts and prompts.
 * Deleting a linked context or prompt unlinks it from the rules first (an
 * event each); a rule that already links a deleted one (from an older log,
 * here appended through the store port as an old version would have) can
 * still be PATCHed, and the PATCH drops the dead link.
 */
import t from 'tap';
import { SCHEMA_VERSION } from '../../src/events';
import { withNode } from '../support/with-node';
import { forCells } from '../support/matrix';

forCells(t, 'dead-links', (t, cell) => {
  const conditionGroups = [{ conditions: [{ field: 'tier', operator: 'equals', value: 'gold' }] }];

  const live = withNode(t, { cell });
  const admin = live.admin;

  async function create(path: string, body: unknown): Promise<{ id: string; revision: string }> {
    const answer = await admin.post(path, body);
    if (answer.status !== 201) throw new Error(`${path}: ${answer.status} ${answer.text}`);
    return answer.json;
  }

  /** Deletes a context behind the API's back (no unlinking), as a log written by an older version holds it. */
  async function deleteInTheLog(context: { id: string; revision: string }): Promise<void> {
    const metadata = { actor: 'env-admin', at: new Date().toISOString(), request_id: 'old-version', schema: SCHEMA_VERSION };
    const result = await live.node.node.store.append(`context-${context.id}`, [{ type: 'ContextDeleted', data: { id: context.id }, metadata }], BigInt(context.revision));
    await live.node.node.readModel.waitFor(result.position);
  }

  t.test('deleting a context or prompt that rules link to unlinks it from them first, with an event each', async (t) => {
    const context = await create('/api/contexts', { name: 'c', content: 'x' });
    const prompt = await create('/api/prompts', { name: 'p', prompt: 'Hi' });
    const links = [
      { entity_type: 'context', entity_id: context.id },
      { entity_type: 'prompt', entity_id: prompt.id },
      { entity_type: 'evaluation', entity_id: 'eval-1' },
    ];
    const active = await create('/api/rule-engine/rules', { name: 'a', condition_groups: conditionGroups, entities: links });
    const inactive = await create('/api/rule-engine/rules', { name: 'i', status: 'INACTIVE', condition_groups: conditionGroups, entities: links });
    const untouched = await create('/api/rule-engine/rules', { name: 'u', condition_groups: conditionGroups, entities: [links[2]] });

    const deleted = await admin.delete(`/api/contexts/${context.id}`);
    t.equal(deleted.status, 204);
    t.equal((await admin.get(`/api/contexts/${context.id}`)).status, 404, 'the context is gone');
    for (const rule of [active, inactive]) {
      const now = (await admin.get(`/api/rule-engine/rules/${rule.id}`)).json;
      t.same(now.entities, links.slice(1), 'the rule no longer links it, and keeps its other links');
      t.equal(now.revision, '1');
      const last = (await admin.get(`/api/rule-engine/rules/${rule.id}/history`)).json.events.at(-1);
      t.equal(last.type, 'RuleUpdated');
      t.same(last.changes, { entities: { before: links, after: links.slice(1) } }, 'the history records the unlink');
      t.equal(last.request_id, deleted.headers.get('x-request-id'), 'written by the delete request');
    }
    t.equal((await admin.get(`/api/rule-engine/rules/${untouched.id}`)).json.revision, '0', 'a rule not linking it is not touched');

    t.equal((await admin.delete(`/api/prompts/${prompt.id}`, { headers: { 'if-match': '"0"' } })).status, 204);
    t.same((await admin.get(`/api/rule-engine/rules/${active.id}`)).json.entities, [links[2]]);

    // A stale If-Match refuses the whole delete: no rule is unlinked.
    const kept = await create('/api/contexts', { name: 'k', content: 'x' });
    await admin.patch(`/api/contexts/${kept.id}`, { content: 'y' });
    const rule = await create('/api/rule-engine/rules', { name: 'k', condition_groups: conditionGroups, entities: [{ entity_type: 'context', entity_id: kept.id }] });
    t.equal((await admin.delete(`/api/contexts/${kept.id}`, { headers: { 'if-match': '"0"' } })).status, 409);
    t.equal((await admin.get(`/api/rule-engine/rules/${rule.id}`)).json.revision, '0', 'the rule kept its link');
  });

  t.test('a rule linking a context deleted by an older version can still be PATCHed; the dead link is dropped', async (t) => {
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
});
