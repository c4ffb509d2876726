/**
 * POST /api/import and `rulevault import` on a real node (SQLite file,
 * loopback HTTP): mixed kinds linked by name and id, evaluable when the
 * import answers; the first bad item named by line or index with nothing
 * written; the size limits; the CLI with --json.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import t, { type Test } from 'tap';
import { client, type Client } from '../support/http';
import { removeDir, startTestNode, tempDir, testEnv, type TestNode } from '../support/node';
import { runCli } from '../support/process';

const condition = (field: string, value: string) => ({ condition_groups: [{ conditions: [{ field, operator: 'equals', value }] }] });
const ndjson = (items: readonly unknown[]) => items.map((item) => JSON.stringify(item)).join('\n') + '\n';
const CONTEXT_ID = '3f2b8c9e-1d4a-4b6c-9e8f-0a1b2c3d4e5f';

async function logLength(node: TestNode): Promise<number> {
  let count = 0;
  let after: bigint | undefined;
  for (;;) {
    const page = await node.node.store.readAll({ after, limit: 10_000 });
    if (page.length === 0) return count;
    count += page.length;
    after = page[page.length - 1]!.position;
  }
}

async function withNode(t: Test, overrides: Record<string, string> = {}): Promise<{ node: TestNode; admin: Client }> {
  const dir = tempDir();
  const node = await startTestNode(testEnv(dir, overrides));
  t.teardown(async () => {
    await node.stop();
    removeDir(dir);
  });
  return { node, admin: client(node.url, node.adminKey) };
}

const importBody = (text: string) => ({ raw: text, headers: { 'content-type': 'application/x-ndjson' } });

t.test('NDJSON of mixed kinds, linked by name and by id, is evaluable when the import answers', async (t) => {
  const { node, admin } = await withNode(t);
  const text = [
    JSON.stringify({ kind: 'context', name: 'tone', content: 'Be brief.' }),
    '',
    JSON.stringify({ kind: 'context', id: CONTEXT_ID, name: 'style', content: 'Be kind.' }),
    JSON.stringify({ kind: 'prompt', name: 'greeter', prompt: 'Hello {{name}}' }),
    JSON.stringify({
      kind: 'rule', name: 'gold', ...condition('tier', 'gold'),
      entities: [{ entity_type: 'context', entity_id: 'tone' }, { entity_type: 'context', entity_id: CONTEXT_ID }, { entity_type: 'prompt', entity_id: 'greeter' }],
    }),
    JSON.stringify({ kind: 'rule', name: 'silver', ...condition('tier', 'silver'), status: 'INACTIVE' }),
  ].join('\r\n');
  const answer = await admin.post('/api/import', undefined, importBody(text));
  t.equal(answer.status, 201, answer.text);
  t.match(answer.json, { imported: 5, rules: 2, contexts: 2, prompts: 1 });
  t.same(answer.json.items.map((i: { kind: string; name: string }) => `${i.kind}:${i.name}`),
    ['context:tone', 'context:style', 'prompt:greeter', 'rule:gold', 'rule:silver'], 'one item per line, in order');
  t.equal(answer.json.items[1].id, CONTEXT_ID, 'a given id is kept');
  t.equal(answer.headers.get('rulevault-position'), answer.json.position, 'the node had applied the batch when it answered');
  const [tone, , greeter, gold] = answer.json.items.map((i: { id: string }) => i.id);

  // At once, no polling: the import answered after the read model applied it.
  const evaluateKey = (await admin.post('/api/api-keys', { name: 'e', scopes: ['evaluate'] })).json.key;
  const evaluated = await client(node.url, evaluateKey).post('/api/rule-engine/evaluate', { entity_type: 'context', fields: { tier: 'gold' }, include_entity_data: true });
  t.same(evaluated.json.matchingRuleIds, [gold]);
  t.same(evaluated.json.entities.map((e: { entity_id: string }) => e.entity_id).sort(), [tone, CONTEXT_ID].sort(), 'links by name and by id resolved');
  t.equal(evaluated.json.entity_data[`context:${tone}`].content, 'Be brief.');
  const rule = await admin.get(`/api/rule-engine/rules/${gold}`);
  t.same(rule.json.entities.find((e: { entity_type: string }) => e.entity_type === 'prompt'), { entity_type: 'prompt', entity_id: greeter });
  const silver = await admin.get(`/api/rule-engine/rules/${answer.json.items[4].id}`);
  t.equal(silver.json.status, 'INACTIVE', 'the create body is taken whole');
  t.equal(rule.json.created_by, (await admin.get('/api/whoami')).json.id, 'the importer is the actor');
});

t.test('a JSON array, whatever the Content-Type; a prompt link by an existing prompt\'s name', async (t) => {
  const { admin } = await withNode(t);
  t.equal((await admin.post('/api/prompts', { name: 'existing', prompt: 'Hi' })).status, 201);
  const answer = await admin.post('/api/import', undefined, {
    raw: ' \n' + JSON.stringify([
      { kind: 'rule', name: 'r1', ...condition('a', '1'), entities: [{ entity_type: 'prompt', entity_id: 'existing' }, { entity_type: 'evaluation', entity_id: 'ev-1' }] },
      { kind: 'context', name: 'c', content: 'x' },
    ]),
    headers: { 'content-type': 'text/plain' },
  });
  t.equal(answer.status, 201, answer.text);
  t.match(answer.json, { imported: 2, rules: 1, contexts: 1, prompts: 0 });
  const rule = await admin.get(`/api/rule-engine/rules/${answer.json.items[0].id}`);
  t.same(rule.json.entities.map((e: { entity_type: string }) => e.entity_type), ['prompt', 'evaluation']);
});

t.test('the first bad item is named by its line or index, and nothing is written', async (t) => {
  const { node, admin } = await withNode(t);
  const before = await logLength(node);
  const good = { kind: 'rule', name: 'ok', ...condition('a', '1') };
  const cases: [string, string, number, RegExp][] = [
    ['bad operator on line 4 (blank lines count)', ndjson([good, good]).replace(/\n$/, '\n\n') + ndjson([{ ...good, condition_groups: [{ conditions: [{ field: 'a', operator: 'nope', value: '1' }] }] }, good]),
      400, /^line 4: condition_groups\[0\]\.conditions\[0\]\.operator must be one of /],
    ['not JSON on line 2', `${JSON.stringify(good)}\n{"kind": "rule",\n`, 400, /^line 2: not valid JSON/],
    ['a kind missing', ndjson([{ name: 'x' }]), 400, /^line 1: kind is required: one of rule, context, prompt/],
    ['an unknown kind', ndjson([{ kind: 'secret', key: 'K' }]), 400, /^line 1: kind must be one of rule, context, prompt/],
    ['an unknown member, as the single route says', ndjson([good, { kind: 'context', name: 'c', content: 'x', colour: 'red' }]), 400, /^line 2: body has an unknown member "colour"/],
    ['an invalid regex', JSON.stringify([good, good, { kind: 'rule', name: 'r', condition_groups: [{ conditions: [{ field: 'a', operator: 'regex', value: '(' }] }] }]), 400, /^item \[2\]: /],
    ['a link to a later item', ndjson([{ ...good, entities: [{ entity_type: 'context', entity_id: 'later' }] }, { kind: 'context', name: 'later', content: 'x' }]),
      400, /^line 1: entities\[0\]: no context with the id or name "later" exists or comes earlier in this import/],
    ['a link to a name two contexts share', ndjson([{ kind: 'context', name: 'twin', content: '1' }, { kind: 'context', name: 'twin', content: '2' }, { ...good, entities: [{ entity_type: 'context', entity_id: 'twin' }] }]),
      400, /^line 3: entities\[0\]: 2 contexts of this import are named "twin"/],
    ['a prompt name used twice', ndjson([{ kind: 'prompt', name: 'p', prompt: 'a' }, { kind: 'prompt', name: 'p', prompt: 'b' }]), 409, /^line 2: prompt name "p" is taken by prompt /],
    ['an id that is not a UUID', ndjson([{ ...good, id: 'r-1' }]), 400, /^line 1: id must be a UUID/],
    ['an id in upper case', ndjson([{ ...good, id: CONTEXT_ID.toUpperCase() }]), 400, new RegExp(`^line 1: id must be in lower case, as RuleVault writes ids: ${CONTEXT_ID}$`)],
    ['an id used twice', ndjson([{ ...good, id: CONTEXT_ID }, { kind: 'context', id: CONTEXT_ID, name: 'c', content: 'x' }]), 400, /^line 2: id .* is already used by the rule "ok" of this import/],
    ['an item that is not an object', JSON.stringify([good, 7]), 400, /^item \[1\]: the item must be a JSON object/],
    ['a JSON body that is not an array', '[1, 2', 400, /^the import is not valid JSON/],
    ['nothing', '  \n\n', 400, /^the import is empty/],
    ['an empty array', '[]', 400, /^the import holds no items/],
  ];
  for (const [name, text, status, message] of cases) {
    const answer = await admin.post('/api/import', undefined, importBody(text));
    t.equal(answer.status, status, `${name}: status`);
    t.equal(answer.json?.code, status === 409 ? 'conflict' : 'bad_request', `${name}: code`);
    t.match(answer.json?.err, message, `${name}: message`);
  }
  t.equal(await logLength(node), before, 'no bad batch wrote anything to the log');
  t.same((await admin.get('/api/rule-engine/rules')).json.rules, [], 'and no rule exists');
});

t.test('all or nothing in the store: an item the store refuses takes the items before it with it', async (t) => {
  const { node, admin } = await withNode(t);
  // A rule created and deleted: the read model forgets it, the store keeps its stream as deleted for good.
  const id = '0b0b0b0b-1d4a-4b6c-9e8f-0a1b2c3d4e5f';
  const first = await admin.post('/api/import', undefined, importBody(ndjson([{ kind: 'rule', id, name: 'gone', ...condition('a', '1') }])));
  t.equal(first.status, 201, first.text);
  t.equal((await admin.delete(`/api/rule-engine/rules/${id}`)).status, 204);
  const before = await logLength(node);
  const answer = await admin.post('/api/import', undefined, importBody(ndjson([
    { kind: 'context', name: 'c', content: 'x' },
    { kind: 'rule', name: 'r', ...condition('a', '1') },
    { kind: 'rule', id, name: 'again', ...condition('a', '2') },
  ])));
  t.equal(answer.status, 409, answer.text);
  t.equal(answer.json.code, 'conflict');
  t.equal(answer.json.err, `line 3: rule ${id} was deleted, and the id of a deleted resource is never used again; leave id out for a new one`,
    'the line, and why: not "changed concurrently"');
  t.equal(await logLength(node), before, 'the two items before it were rolled back with it');
  t.same((await admin.get('/api/contexts')).json.contexts, []);
});

t.test('ids are lower case: an id in upper case is no second resource, and a lookup by it says so', async (t) => {
  const { admin } = await withNode(t);
  const upper = CONTEXT_ID.toUpperCase();
  const first = await admin.post('/api/import', undefined, importBody(ndjson([{ kind: 'context', id: CONTEXT_ID, name: 'lower', content: 'x' }])));
  t.equal(first.status, 201, first.text);
  const second = await admin.post('/api/import', undefined, importBody(ndjson([{ kind: 'context', id: upper, name: 'upper', content: 'y' }])));
  t.equal(second.status, 400, second.text);
  t.equal(second.json.err, `line 1: id must be in lower case, as RuleVault writes ids: ${CONTEXT_ID}`);
  t.same((await admin.get('/api/contexts')).json.contexts.map((c: { name: string }) => c.name), ['lower'], 'one context');

  const byUpper = await admin.get(`/api/contexts/${upper}`);
  t.equal(byUpper.status, 404);
  t.equal(byUpper.json.err, `context ${upper} not found (ids are lower case: ${CONTEXT_ID})`);
  const deleted = await admin.delete(`/api/rule-engine/rules/${upper}`);
  t.equal(deleted.status, 404);
  t.match(deleted.json.err, `(ids are lower case: ${CONTEXT_ID})`);
  const linked = await admin.post('/api/rule-engine/rules', { name: 'r', ...condition('a', '1'), entities: [{ entity_type: 'context', entity_id: upper }] });
  t.equal(linked.status, 400);
  t.equal(linked.json.err, `entities[0]: context ${upper} does not exist (ids are lower case: ${CONTEXT_ID})`);
  const imported = await admin.post('/api/import', undefined, importBody(ndjson([{ kind: 'rule', name: 'r', ...condition('a', '1'), entities: [{ entity_type: 'context', entity_id: upper }] }])));
  t.equal(imported.status, 400);
  t.match(imported.json.err, `(ids are lower case: ${CONTEXT_ID})`);
});

t.test('an import of 2,500 items (written on the store\'s worker thread): refused whole when the store refuses its last item, else evaluable when it answers', async (t) => {
  // No signed checkpoint events of the chain between the counts below.
  const { node, admin } = await withNode(t, { RULEVAULT_CHAIN_CHECKPOINT_EVERY: '0' });
  const id = '0c0c0c0c-1d4a-4b6c-9e8f-0a1b2c3d4e5f';
  t.equal((await admin.post('/api/import', undefined, importBody(ndjson([{ kind: 'rule', id, name: 'gone', ...condition('a', '1') }])))).status, 201);
  t.equal((await admin.delete(`/api/rule-engine/rules/${id}`)).status, 204);
  const before = await logLength(node);
  const rules = Array.from({ length: 2499 }, (_, i) => ({ kind: 'rule', name: `r${i}`, ...condition('n', String(i)) }));
  const refused = await admin.post('/api/import', undefined, importBody(ndjson([...rules, { kind: 'rule', id, name: 'again', ...condition('a', '2') }])));
  t.ok(refused.status >= 400 && refused.status < 500, `refused (${refused.status} ${refused.text})`);
  t.equal(await logLength(node), before, 'none of the 2,499 items before it was written');
  const answer = await admin.post('/api/import', undefined, importBody(ndjson([...rules, { kind: 'rule', name: 'last', ...condition('n', 'last') }])));
  t.equal(answer.status, 201, answer.text);
  t.equal(answer.json.imported, 2500);
  t.equal(await logLength(node), before + 2500);
  const evaluateKey = (await admin.post('/api/api-keys', { name: 'e', scopes: ['evaluate'] })).json.key;
  const evaluated = await client(node.url, evaluateKey).post('/api/rule-engine/evaluate', { entity_type: 'context', fields: { n: 'last' } });
  t.same(evaluated.json.matchingRuleIds, [answer.json.items[2499].id], 'the last item is evaluable at once');
});

t.test('the limits: items and bytes (413), the admin scope', async (t) => {
  const { admin, node } = await withNode(t, { RULEVAULT_IMPORT_MAX_ITEMS: '3', RULEVAULT_IMPORT_MAX_BYTES: '2048', RULEVAULT_MAX_BODY_BYTES: '1024' });
  const item = (i: number) => ({ kind: 'context', name: `c${i}`, content: 'x' });
  const four = await admin.post('/api/import', undefined, importBody(ndjson([0, 1, 2, 3].map(item))));
  t.equal(four.status, 413);
  t.equal(four.json.code, 'payload_too_large');
  t.match(four.json.err, 'more than 3 items (RULEVAULT_IMPORT_MAX_ITEMS)');
  const fourArray = await admin.post('/api/import', undefined, importBody(JSON.stringify([0, 1, 2, 3].map(item))));
  t.equal(fourArray.status, 413, 'an array too');
  const big = await admin.post('/api/import', undefined, importBody(ndjson([{ kind: 'context', name: 'big', content: 'x'.repeat(3000) }])));
  t.equal(big.status, 413);
  t.match(big.json.err, 'larger than the limit of 2048 bytes');
  // Over RULEVAULT_MAX_BODY_BYTES but within the import's own limit: accepted.
  const three = await admin.post('/api/import', undefined, importBody(ndjson([0, 1, 2].map((i) => ({ ...item(i), content: 'y'.repeat(400) })))));
  t.equal(three.status, 201, three.text);
  t.equal((await admin.post('/api/import', undefined, { ...importBody(ndjson([item(9)])), headers: { 'content-encoding': 'gzip' } })).status, 400, 'compressed: refused');
  const evaluateKey = (await admin.post('/api/api-keys', { name: 'e', scopes: ['evaluate'] })).json.key;
  const forbidden = await client(node.url, evaluateKey).post('/api/import', undefined, importBody(ndjson([item(5)])));
  t.equal(forbidden.status, 403);
  t.equal((await client(node.url).post('/api/import', undefined, importBody(ndjson([item(5)])))).status, 401);
});

t.test('rulevault import <file|-> with --json', async (t) => {
  const { node, admin } = await withNode(t);
  const dir = tempDir();
  t.teardown(() => removeDir(dir));
  const env = { RULEVAULT_URL: node.url, RULEVAULT_API_KEY: node.adminKey };
  const file = path.join(dir, 'batch.ndjson');
  writeFileSync(file, ndjson([{ kind: 'context', name: 'tone', content: 'x' }, { kind: 'rule', name: 'r', ...condition('a', '1'), entities: [{ entity_type: 'context', entity_id: 'tone' }] }]));
  const run = await runCli(['import', file, '--json'], env);
  t.equal(run.code, 0, run.stderr);
  const document = JSON.parse(run.stdout);
  t.match(document, { imported: 2, rules: 1, contexts: 1, prompts: 0 });
  t.equal((await admin.get(`/api/rule-engine/rules/${document.items[1].id}`)).json.entities[0].entity_id, document.items[0].id);

  const fromStdin = await runCli(['import', '-'], env, JSON.stringify([{ kind: 'prompt', name: 'p', prompt: 'hi' }]));
  t.equal(fromStdin.code, 0, fromStdin.stderr);
  t.match(fromStdin.stdout, /^imported 1 items \(0 rules, 0 contexts, 1 prompts\); log position \d+\n$/);

  const bad = await runCli(['import', '-', '--json'], env, ndjson([{ kind: 'context', name: 'c', content: 'x' }, { kind: 'rule', name: 'r' }]));
  t.equal(bad.code, 1);
  t.same(JSON.parse(bad.stderr), { error: { kind: 'failed', message: 'line 2: condition_groups is required', status: 400, code: 'bad_request' } });
  t.equal((await admin.get('/api/contexts')).json.contexts.length, 1, 'the bad batch wrote nothing');

  const missing = await runCli(['import', path.join(dir, 'nope.ndjson')], env);
  t.equal(missing.code, 1);
  t.match(missing.stderr, /cannot read .*nope\.ndjson: ENOENT/);
  const help = await runCli(['import', '--help'], {});
  t.equal(help.code, 0);
  t.match(help.stdout, /^usage: rulevault import <file\|-> \[options\]/);
});

t.test('on EventStoreDB (stand-in): one append per item, in order, under the request id; evaluable when answered', async (t) => {
  const dir = tempDir();
  const node = await startTestNode(testEnv(dir), undefined, 'esdb');
  t.teardown(async () => {
    await node.stop();
    removeDir(dir);
  });
  const admin = client(node.url, node.adminKey);
  const answer = await admin.post('/api/import', undefined, {
    ...importBody(ndjson([{ kind: 'context', name: 'tone', content: 'x' }, { kind: 'rule', name: 'r', ...condition('tier', 'gold'), entities: [{ entity_type: 'context', entity_id: 'tone' }] }])),
    headers: { 'x-request-id': 'import-esdb-1' },
  });
  t.equal(answer.status, 201, answer.text);
  const evaluateKey = (await admin.post('/api/api-keys', { name: 'e', scopes: ['evaluate'] })).json.key;
  const evaluated = await client(node.url, evaluateKey).post('/api/rule-engine/evaluate', { entity_type: 'context', fields: { tier: 'gold' } });
  t.same(evaluated.json.matchingRuleIds, [answer.json.items[1].id]);
  const events = (await node.node.store.readAll({ limit: 1000 })).filter((e) => e.metadata.request_id === 'import-esdb-1');
  t.same(events.map((e) => e.type), ['ContextCreated', 'RuleCreated'], 'the batch, in order, under the request id');
  const bad = await admin.post('/api/import', undefined, importBody(ndjson([{ kind: 'context', name: 'c', content: 'x' }, { kind: 'rule', name: 'r' }])));
  t.equal(bad.status, 400);
  t.same((await admin.get('/api/contexts')).json.contexts.length, 1, 'a bad batch writes nothing there either');

  const gone = (await admin.get('/api/contexts')).json.contexts[0].id as string;
  t.equal((await admin.delete(`/api/contexts/${gone}`)).status, 204);
  const again = await admin.post('/api/import', undefined, importBody(ndjson([{ kind: 'context', id: gone, name: 'again', content: 'x' }])));
  t.equal(again.status, 409);
  t.match(again.json.err, `line 1: context ${gone} was deleted`, 'a deleted id is named there too');
});
