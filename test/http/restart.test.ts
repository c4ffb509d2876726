/**
 * Black-box: a node restarted on the same data folder rebuilds read models
 * equal to those built live, and the first start bootstraps an admin key once.
 */
import t from 'tap';
import { client } from '../support/http';
import { removeDir, startTestNode, tempDir, testEnv } from '../support/node';
import { cellEnv, forCells } from '../support/matrix';

forCells(t, 'restart', (t, cell) => {
  const LISTINGS = ['/api/rule-engine/rules', '/api/contexts', '/api/prompts', '/api/vault/secrets', '/api/api-keys'];

  t.test('read models after replay equal those built live', async (t) => {
    const dir = tempDir();
    t.teardown(() => removeDir(dir));
    const env = testEnv(dir, cellEnv(cell));
    const first = await startTestNode(env, undefined, cell.store);
    const admin = client(first.url, first.adminKey);
    const context = await admin.post('/api/contexts', { name: 'c', content: 'x' });
    const prompt = await admin.post('/api/prompts', { name: 'p', prompt: 'Hi {{who}}' });
    await admin.post(`/api/prompts/${prompt.json.id}/versions`, { prompt: 'Hello {{who}}' });
    for (let i = 0; i < 20; i++) {
      const rule = await admin.post('/api/rule-engine/rules', {
        name: `rule ${i}`,
        condition_groups: [{ conditions: [{ field: 'n', operator: 'gte', value: String(i), data_type: 'number' }] }],
        entities: [{ entity_type: 'context', entity_id: context.json.id }, { entity_type: 'prompt', entity_id: prompt.json.id }],
      });
      if (i % 3 === 0) await admin.patch(`/api/rule-engine/rules/${rule.json.id}`, { status: 'INACTIVE' });
      if (i % 5 === 0) await admin.delete(`/api/rule-engine/rules/${rule.json.id}`);
    }
    await admin.post('/api/vault/secrets', { key: 'OPENAI_API_KEY', value: 'sk-live', tags: ['llm'] });
    const doomed = await admin.post('/api/vault/secrets', { key: 'DOOMED', value: 'gone soon' });
    await admin.delete(`/api/vault/secrets/${doomed.json.id}`);
    await admin.post('/api/api-keys', { name: 'k', scopes: ['evaluate'] });
    const evaluator = (await admin.post('/api/api-keys', { name: 'eval', scopes: ['evaluate'] })).json.key as string;
    const probe = { entity_type: 'prompt', fields: { n: 7 }, include_entity_data: true, entity_inputs: { variables: { who: 'Ada' } } };

    const live = await Promise.all(LISTINGS.map((path) => admin.get(path)));
    const liveEvaluate = await client(first.url, evaluator).post('/api/rule-engine/evaluate', probe);
    await first.stop();

    const second = await startTestNode(env, undefined, cell.store);
    t.teardown(() => second.stop());
    const replayedAdmin = client(second.url, second.adminKey);
    const replayed = await Promise.all(LISTINGS.map((path) => replayedAdmin.get(path)));
    LISTINGS.forEach((path, i) => t.same(replayed[i]!.json, live[i]!.json, `${path} after replay`));
    const replayedEvaluate = await client(second.url, evaluator).post('/api/rule-engine/evaluate', probe);
    t.equal(replayedEvaluate.status, 200);
    t.same(replayedEvaluate.json, liveEvaluate.json, 'evaluate answers the same after replay');
  });

  t.test('first start without RULEVAULT_ADMIN_KEY prints an admin key once', async (t) => {
    const dir = tempDir();
    t.teardown(() => removeDir(dir));
    const env = testEnv(dir, cellEnv(cell));
    delete env.RULEVAULT_ADMIN_KEY;
    const first = await startTestNode(env, undefined, cell.store);
    t.equal(first.announced.length, 1);
    const key = /(rv_[A-Za-z0-9_-]{43})/.exec(first.announced[0]!)?.[1];
    t.ok(key, 'the announcement carries the key');
    const asBootstrap = client(first.url, key);
    t.equal((await asBootstrap.get('/api/rule-engine/rules')).status, 200, 'the printed key is an admin key');
    await first.stop();
    const second = await startTestNode(env, undefined, cell.store);
    t.teardown(() => second.stop());
    t.equal(second.announced.length, 0, 'not printed again when an admin key exists');
    t.equal((await client(second.url, key).get('/api/api-keys')).status, 200, 'and it still works after restart');
  });
});
