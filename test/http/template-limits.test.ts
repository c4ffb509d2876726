/**
 * Black-box: prompt templates cannot freeze the service (issue 14, items 2
 * and 3). Writes past a template limit are refused with a 400 naming the
 * limit before Handlebars parses them; templates that could only fail when
 * rendered are refused when written; a render past its bounds answers a
 * small record naming the limit while the rest of the answer stands; and a
 * start parses no stored template.
 */
import t from 'tap';
import { templateWork } from '../../src/prompts/template';
import { client, type Client } from '../support/http';
import { removeDir, startTestNode, tempDir, testEnv } from '../support/node';
import { withNode } from '../support/with-node';

let evaluator: Client;

const live = withNode(t);
const admin = live.admin;
t.before(async () => {
  evaluator = live.clientFor((await admin.post('/api/api-keys', { name: 'evaluator', scopes: ['evaluate'] })).json.key);
});

/** Links the prompts to a rule matching `suite`, and evaluates it with these variables. */
async function linkPrompts(on: Client, suite: string, promptIds: readonly string[]): Promise<void> {
  const rule = await on.post('/api/rule-engine/rules', {
    name: suite,
    condition_groups: [{ conditions: [{ field: 'suite', operator: 'equals', value: suite }] }],
    entities: promptIds.map((id) => ({ entity_type: 'prompt', entity_id: id })),
  });
  if (rule.status !== 201) throw new Error(`rule not created: ${rule.text}`);
}

function evaluatePrompts(on: Client, suite: string, variables: unknown) {
  return on.post('/api/rule-engine/evaluate', {
    entity_type: 'prompt', fields: { suite }, include_entity_data: true, entity_inputs: { variables },
  });
}

// Prompt names are unique: each prompt of this file gets its own.
let prompts = 0;

async function createPrompt(on: Client, prompt: string): Promise<string> {
  const answer = await on.post('/api/prompts', { name: `p${++prompts}`, prompt });
  if (answer.status !== 201) throw new Error(`prompt not created: ${answer.text}`);
  return answer.json.id as string;
}

t.test('templates past a limit are refused with a 400 naming it, before they are parsed', async (t) => {
  // The shapes: a 420 KiB nested template (minutes of parsing before its
  // 400) and a flat 512 KiB one of ~100k tags (accepted after ~20 s).
  const nested = '{{#if a}}'.repeat(24_000) + 'x' + '{{/if}}'.repeat(24_000);
  const flat = '{{a}}'.repeat(100_000);
  const parens = '{{lookup a ' + '(lookup a '.repeat(30) + 'b' + ')'.repeat(30) + '}}';
  const chain = '{{#if a}}' + '{{else if b}}x'.repeat(10_000) + '{{/if}}';
  const cases: [string, string, RegExp][] = [
    ['nested blocks', nested, /nests blocks and sub-expressions 21 deep; the limit is RULEVAULT_TEMPLATE_MAX_DEPTH=20/],
    ['flat tags', flat, /more than 1000 expressions; the limit is RULEVAULT_TEMPLATE_MAX_EXPRESSIONS=1000/],
    ['nested sub-expressions', parens, /the limit is RULEVAULT_TEMPLATE_MAX_DEPTH=20/],
    ['an else-if chain', chain, /the limit is RULEVAULT_TEMPLATE_MAX_DEPTH=20/],
    ['too many bytes', 'x'.repeat(600 * 1024), /prompt is 614400 bytes; the limit is RULEVAULT_TEMPLATE_MAX_BYTES=524288/],
  ];
  const prompt = await createPrompt(admin, 'v1');
  const before = templateWork().parsed;
  for (const [name, template, error] of cases) {
    const created = await admin.post('/api/prompts', { name, prompt: template });
    t.equal(created.status, 400, `${name}: create`);
    t.match(created.json.err, error, `${name}: create names the limit`);
    const added = await admin.post(`/api/prompts/${prompt}/versions`, { prompt: template });
    t.equal(added.status, 400, `${name}: new version`);
    t.match(added.json.err, error, `${name}: new version names the limit`);
  }
  t.equal(templateWork().parsed, before, 'none of them reached the parser');
  t.equal((await client(live.url).get('/healthz')).status, 200, 'the service still serves');
});

t.test('the largest templates the limits allow are accepted and render', async (t) => {
  const padding = ' '.repeat(500 * 1024);
  const templates = [
    '{{a}}'.repeat(500) + padding,
    ('{{#if a}}'.repeat(20) + '{{a}}' + '{{/if}}'.repeat(20)).repeat(9),
  ];
  for (const template of templates) {
    const id = await createPrompt(admin, template);
    const suite = `largest-${id}`;
    await linkPrompts(admin, suite, [id]);
    const answer = await evaluatePrompts(evaluator, suite, { a: 'y' });
    t.equal(answer.status, 200);
    const record = answer.json.entity_data[`prompt:${id}`];
    t.equal(typeof record.compiled_prompt, 'string', 'rendered');
    t.same(record.variables, ['a']);
  }
});

t.test('templates that could only fail when rendered are refused when written', async (t) => {
  const cases: [string, RegExp][] = [
    ['{{helperMissing}}', /helperMissing is reserved by Handlebars/],
    ['{{blockHelperMissing}}', /blockHelperMissing is reserved by Handlebars/],
    ['{{#helperMissing}}x{{/helperMissing}}', /helperMissing is reserved by Handlebars/],
    ['{{#each items}}{{helperMissing}}{{/each}}', /helperMissing is reserved by Handlebars/],
    ['{{[helperMissing]}}', /helperMissing is reserved by Handlebars/],
    ['{{shout name}}', /unknown helper shout/],
    ['{{> partial}}', /partials/],
    ['{{{{raw}}}}x{{{{/raw}}}}', /raw blocks/],
  ];
  for (const [template, error] of cases) {
    const answer = await admin.post('/api/prompts', { name: 'bad', prompt: template });
    t.equal(answer.status, 400, template);
    t.match(answer.json.err, error, template);
  }
  t.equal((await admin.post('/api/prompts', { name: 'fine', prompt: '{{helperMissing.x}} {{this.helperMissing}}' })).status, 201, 'as a path, the name is a plain read');
});

t.test('a render past its bounds answers a small record naming the limit; the rest stands', async (t) => {
  const loops = await createPrompt(admin, '{{#each items}}{{#each ../items}}{{#each ../../items}}{{this}} {{/each}}{{/each}}{{/each}}');
  const copies = await createPrompt(admin, '{{#each items}}{{#each ../items}}{{../../text}}{{/each}}{{/each}}');
  const tags = await createPrompt(admin, '{{text}}'.repeat(50));
  const fine = await createPrompt(admin, 'Hello {{name}}');
  const suite = 'render-bounds';
  await linkPrompts(admin, suite, [loops, copies, tags, fine]);

  // The 1.2 KB request that produced 27 MB, and a 104 KB one that produced 200 MB.
  const items = Array.from({ length: 300 }, (_, i) => i);
  const small = await evaluatePrompts(evaluator, suite, { items, name: 'Ada' });
  t.equal(small.status, 200);
  t.ok(small.text.length < 64 * 1024, `the answer stays small (${small.text.length} bytes)`);
  const data = small.json.entity_data;
  t.match(data[`prompt:${loops}`], { compiled_prompt: null, error: /rendering took more than 20000 steps; the limit is RULEVAULT_RENDER_MAX_STEPS=20000/ });
  t.equal(data[`prompt:${fine}`].compiled_prompt, 'Hello Ada', 'the other prompts still render');
  t.equal(small.json.matchingRuleIds.length, 1);

  const big = await evaluatePrompts(evaluator, suite, { items: items.slice(0, 100), text: 'x'.repeat(100_000), name: 'Ada' });
  t.equal(big.status, 200);
  t.ok(big.text.length < 64 * 1024, `the answer stays small (${big.text.length} bytes)`);
  const bigData = big.json.entity_data;
  t.match(bigData[`prompt:${copies}`], { compiled_prompt: null, error: /longer than 1048576 bytes; the limit is RULEVAULT_RENDER_MAX_BYTES=1048576/ });
  t.match(bigData[`prompt:${tags}`], { compiled_prompt: null, error: /the limit is RULEVAULT_RENDER_MAX_BYTES=1048576/ }, 'tags outside loops are bounded too');
  t.equal(bigData[`prompt:${fine}`].compiled_prompt, 'Hello Ada');
  t.same(bigData[`prompt:${tags}`].variables, ['text'], 'the record is otherwise whole');
});

t.test('the rendered prompts of one answer share RULEVAULT_RESPONSE_MAX_RENDER_BYTES', async (t) => {
  const dir = tempDir();
  t.teardown(() => removeDir(dir));
  const small = await startTestNode(testEnv(dir, { RULEVAULT_RENDER_MAX_BYTES: '1000', RULEVAULT_RESPONSE_MAX_RENDER_BYTES: '1500' }));
  t.teardown(() => small.stop());
  const smallAdmin = client(small.url, small.adminKey);
  const smallEvaluator = client(small.url, (await smallAdmin.post('/api/api-keys', { name: 'e', scopes: ['evaluate'] })).json.key);
  const first = await createPrompt(smallAdmin, 'one {{text}}');
  const second = await createPrompt(smallAdmin, 'two {{text}}');
  await linkPrompts(smallAdmin, 'shared', [first, second]);

  const answer = await evaluatePrompts(smallEvaluator, 'shared', { text: 'x'.repeat(800) });
  t.equal(answer.status, 200);
  const records = [answer.json.entity_data[`prompt:${first}`], answer.json.entity_data[`prompt:${second}`]];
  t.equal(records.filter((record) => typeof record.compiled_prompt === 'string').length, 1, 'the first in answer order renders');
  t.match(records.find((record) => record.compiled_prompt === null), {
    error: /the prompts rendered for this answer would pass 1500 bytes; the limit is RULEVAULT_RESPONSE_MAX_RENDER_BYTES=1500/,
  }, 'the next one gets what is left, and is told which limit it passed');
  const alone = await evaluatePrompts(smallEvaluator, 'shared', { text: 'x'.repeat(1200) });
  t.match(alone.json.entity_data[`prompt:${first}`], { compiled_prompt: null, error: /the limit is RULEVAULT_RENDER_MAX_BYTES=1000/ });
});

t.test('a start parses no stored template; each is parsed and compiled on first use', async (t) => {
  const dir = tempDir();
  t.teardown(() => removeDir(dir));
  // Written under generous limits, as before limits existed: 100k tags.
  const env = testEnv(dir, { RULEVAULT_TEMPLATE_MAX_EXPRESSIONS: '1000000' });
  const first = await startTestNode(env);
  const firstAdmin = client(first.url, first.adminKey);
  const huge = await createPrompt(firstAdmin, '{{a}}'.repeat(100_000));
  const ids = [huge];
  for (let i = 0; i < 5; i++) ids.push(await createPrompt(firstAdmin, `prompt ${i} for {{name}}`));
  await linkPrompts(firstAdmin, 'start', ids);
  const evaluatorKey = (await firstAdmin.post('/api/api-keys', { name: 'e', scopes: ['evaluate'] })).json.key as string;
  await first.stop(); // writes a snapshot

  const before = templateWork();
  const second = await startTestNode({ ...env, RULEVAULT_TEMPLATE_MAX_EXPRESSIONS: '2000' });
  t.teardown(() => second.stop());
  t.same(templateWork(), before, 'a start from snapshot parsed and compiled nothing');

  const answer = await evaluatePrompts(client(second.url, evaluatorKey), 'start', { name: 'Ada', a: 1 });
  t.equal(answer.status, 200);
  t.equal(answer.json.entity_data[`prompt:${ids[1]}`].compiled_prompt, 'prompt 0 for Ada');
  t.match(answer.json.entity_data[`prompt:${huge}`], {
    compiled_prompt: null,
    error: /template cannot be used: prompt has more than 2000 expressions; the limit is RULEVAULT_TEMPLATE_MAX_EXPRESSIONS=2000/,
  }, 'a stored template past today\'s limits is refused unparsed');
  t.same(templateWork(), { parsed: before.parsed + 5, compiled: before.compiled + 5 }, 'the first evaluate parsed and compiled each usable template once');
  await evaluatePrompts(client(second.url, evaluatorKey), 'start', { name: 'Bob' });
  t.same(templateWork(), { parsed: before.parsed + 5, compiled: before.compiled + 5 }, 'and kept them');
});
