import t from 'tap';
import { ConfigError, DEFAULTS, loadConfig } from '../../src/base/config';
import { checkPromptTemplate, compilePromptTemplate, type PromptTemplate, type RenderLimits } from '../../src/prompts/template';
import { scanTemplate, type TemplateLimits } from '../../src/prompts/template-scan';

const WIDE: TemplateLimits = { templateMaxBytes: 1 << 24, templateMaxExpressions: 1 << 24, templateMaxDepth: 1 << 16 };

function size(source: string) {
  const scan = scanTemplate(source, WIDE);
  if (!scan.ok) throw new Error(scan.error);
  return scan.size;
}

t.test('pre-scan: expressions as the parser sees them', async (t) => {
  const table: ReadonlyArray<readonly [string, number]> = [
    ['no tags', 0],
    ['{{a}}', 2],
    ['{{{a}}} {{&a}} {{~a~}}', 6],
    ['{{user.name}}', 4],
    ['{{#each user.items}}{{/each}}', 7],
    ['{{#if a}}x{{else}}y{{/if}}', 7],
    ['{{lookup labels "a b}} c"}}', 4],
    ['{{lookup a (lookup b c)}}', 8],
    ['{{a.[b c]}}', 4],
    // A short comment ends at the first }}: here `{{! {{a}}`, and `{{#b}}` is a tag.
    ['{{! {{a}} {{#b}} }}', 3],
    ['{{!-- {{a}} }} {{/b}} --}}', 1],
    ['\\{{a}} text', 0],
    ['\\\\{{a}}', 2],
    ['{{#each a as |x i|}}{{x}}{{/each}}', 12],
  ];
  for (const [source, expressions] of table) t.equal(size(source).expressions, expressions, source);
});

t.test('pre-scan: nesting depth cannot be hidden', async (t) => {
  const table: ReadonlyArray<readonly [string, number]> = [
    ['{{a}}', 0],
    ['{{#if a}}{{/if}}{{#if b}}{{/if}}', 1],
    ['{{#if a}}{{#each b}}{{#with c}}{{/with}}{{/each}}{{/if}}', 3],
    ['{{^items}}none{{/items}}', 1],
    ['{{#if a}}x{{^}}y{{/if}}', 1],
    ['{{#if a}}{{else if b}}{{else if c}}{{else}}{{/if}}', 3],
    ['{{lookup a (lookup b (lookup c d))}}', 2],
    ['{{#if (lookup a (lookup b c))}}{{/if}}', 3],
    // A closer that is not a tag does not lower the count.
    ['{{#if a}}{{! {{/if}} }}{{#if b}}{{/if}}{{/if}}', 2],
    ['{{#if a}}{{!-- {{/if}} --}}{{#if b}}{{/if}}{{/if}}', 2],
    ['{{#if a}}\\{{/if}}{{#if b}}{{/if}}{{/if}}', 2],
    ['{{#if a}}{{x "{{/if}}"}}{{#if b}}{{/if}}{{/if}}', 2],
    ['{{#if a}}{{x.[{{/if}}]}}{{#if b}}{{/if}}{{/if}}', 2],
  ];
  for (const [source, depth] of table) t.equal(size(source).depth, depth, source);
});

t.test('pre-scan: each limit is refused by name, at its boundary', async (t) => {
  const limits: TemplateLimits = { templateMaxBytes: 100, templateMaxExpressions: 10, templateMaxDepth: 2 };
  t.ok(scanTemplate('x'.repeat(100), limits).ok);
  t.match(scanTemplate('x'.repeat(101), limits), { ok: false, error: 'prompt is 101 bytes; the limit is RULEVAULT_TEMPLATE_MAX_BYTES=100' });
  t.match(scanTemplate('é'.repeat(51), limits), { ok: false, error: /102 bytes/ }, 'bytes, not characters');
  t.ok(scanTemplate('{{a}}'.repeat(5), limits).ok);
  t.match(scanTemplate('{{a}}'.repeat(6), limits), { ok: false, error: 'prompt has more than 10 expressions; the limit is RULEVAULT_TEMPLATE_MAX_EXPRESSIONS=10' });
  const wide = { ...limits, templateMaxExpressions: 100 };
  t.ok(scanTemplate('{{#a}}{{#b}}{{/b}}{{/a}}', wide).ok);
  t.match(scanTemplate('{{#a}}{{#b}}{{#c}}{{/c}}{{/b}}{{/a}}', wide), {
    ok: false, error: 'prompt nests blocks and sub-expressions 3 deep; the limit is RULEVAULT_TEMPLATE_MAX_DEPTH=2',
  });
  t.match(scanTemplate('{{#a}}{{x (y (z))}}{{/a}}', wide), { ok: false, error: /3 deep/ });
  t.match(scanTemplate('{{{{raw}}}}{{/if}}{{{{/raw}}}}', wide), { ok: false, error: /raw blocks/ });
});

t.test('pre-scan: the write check refuses past a limit before parsing, and says it is a limit', async (t) => {
  const limits = { ...DEFAULTS.limits, templateMaxExpressions: 10 };
  t.same(checkPromptTemplate('{{a}}'.repeat(6), limits), {
    ok: false, limit: true, error: 'prompt has more than 10 expressions; the limit is RULEVAULT_TEMPLATE_MAX_EXPRESSIONS=10',
  });
  t.match(checkPromptTemplate('{{#if}}{{/if}}', limits), { ok: false, limit: false });
  t.match(checkPromptTemplate('{{a', limits), { ok: false, limit: false, error: /Parse error|Expecting/ });
});

function template(source: string): PromptTemplate {
  const checked = checkPromptTemplate(source, DEFAULTS.limits);
  if (!checked.ok) throw new Error(checked.error);
  const result = compilePromptTemplate(source);
  if (!result.ok) throw new Error(result.error);
  return result.template;
}

const limits = (overrides: Partial<RenderLimits>): RenderLimits => ({ ...DEFAULTS.limits, ...overrides });

t.test('render budget: each loop iteration costs 1 plus the statements of its body', async (t) => {
  const list = template('{{#each items}}- {{name}}\n{{/each}}');
  const items = Array.from({ length: 10 }, (_, i) => ({ name: `n${i}` }));
  // The body holds 3 statements ("- ", {{name}}, "\n"): 4 steps an iteration.
  t.notOk(list.render({ items }, limits({ renderMaxSteps: 40 })).error, '10 iterations fit in 40 steps');
  t.match(list.render({ items }, limits({ renderMaxSteps: 39 })), {
    text: '{{#each items}}- {{name}}\n{{/each}}',
    error: 'template could not be rendered: rendering took more than 39 steps; the limit is RULEVAULT_RENDER_MAX_STEPS=39',
  });
  const nested = template('{{#each a}}{{#each ../a}}{{this}}{{/each}}{{/each}}');
  const a = [1, 2, 3];
  // Inner iterations cost 2 each (9 of them); outer ones cost 1 + 1 + 2 = 4 (3 of them): 30 steps.
  t.notOk(nested.render({ a }, limits({ renderMaxSteps: 30 })).error);
  t.match(nested.render({ a }, limits({ renderMaxSteps: 29 })), { error: /RULEVAULT_RENDER_MAX_STEPS=29/ });
});

t.test('render budget: sections and else-each chains are loops too', async (t) => {
  const items = Array.from({ length: 50 }, (_, i) => i);
  t.match(template('{{#items}}{{this}}{{/items}}').render({ items }, limits({ renderMaxSteps: 20 })), { error: /RULEVAULT_RENDER_MAX_STEPS=20/ });
  t.equal(template('{{#items}}{{this}}{{/items}}').render({ items: [1, 2] }, limits({ renderMaxSteps: 20 })).text, '12');
  t.match(template('{{#if no}}x{{else each items}}{{this}}{{/if}}').render({ items }, limits({ renderMaxSteps: 20 })), { error: /RULEVAULT_RENDER_MAX_STEPS=20/ });
  t.match(template('{{#each obj}}{{@key}}{{/each}}').render({ obj: Object.fromEntries(items.map((i) => [`k${i}`, i])) }, limits({ renderMaxSteps: 20 })), {
    error: /RULEVAULT_RENDER_MAX_STEPS=20/,
  }, 'objects iterate like arrays');
});

t.test('render budget: output bytes, inside and outside loops', async (t) => {
  t.equal(template('{{a}}').render({ a: 'x'.repeat(100) }, limits({ renderMaxBytes: 100 })).text, 'x'.repeat(100), 'exactly at the limit');
  const cases: ReadonlyArray<readonly [string, Record<string, unknown>]> = [
    ['{{a}}', { a: 'x'.repeat(101) }],
    ['{{a}}', { a: 'é'.repeat(51) }],
    ['{{a}}{{a}}{{a}}', { a: 'x'.repeat(40) }],
    ['{{#each items}}{{../a}}{{/each}}', { items: [1, 2, 3], a: 'x'.repeat(40) }],
    ['{{#each items}}{{#each ../items}}x{{/each}}{{/each}}', { items: Array.from({ length: 11 }, () => 0) }],
  ];
  for (const [source, variables] of cases) {
    t.match(template(source).render(variables, limits({ renderMaxBytes: 100 })), {
      error: 'template could not be rendered: the rendered prompt is longer than 100 bytes; the limit is RULEVAULT_RENDER_MAX_BYTES=100',
    }, source);
  }
  const bound = { bytes: 10, reason: 'the answer is full' };
  t.match(template('{{a}}').render({ a: 'x'.repeat(11) }, limits({}), bound), { error: /the answer is full/ }, 'a tighter bound from the caller');
  t.notOk(template('{{a}}').render({ a: 'x'.repeat(10) }, limits({}), bound).error);
});

t.test('accepted templates render without error under the default limits', async (t) => {
  const sources = [
    '{{#each a}}{{@index}}{{@key}}{{@first}}{{@last}}{{this}}{{/each}}',
    '{{#each a as |x i|}}{{x}}{{i}}{{else}}none{{/each}}',
    '{{#with u as |v|}}{{v.n}}{{/with}}{{#unless u}}x{{/unless}}',
    '{{lookup a 0}}{{#each (lookup m "k")}}{{this}}{{/each}}',
    '{{#a}}{{this}}{{/a}}{{^a}}none{{/a}}{{#u}}{{n}}{{/u}}',
    '{{#if a}}{{else if u}}{{else each a}}{{/if}}',
    '{{log}} {{helperMissing.x}} {{@root.a}} {{../a}}',
    '  {{#if a}}\n  x\n  {{/if}}\n{{~u~}}',
  ];
  const inputs = [{}, { a: [1, 2], u: { n: 'N' }, m: { k: ['z'] }, log: 'L' }, { a: 'text', u: null }];
  for (const source of sources) {
    for (const variables of inputs) t.notOk(template(source).render(variables, DEFAULTS.limits).error, `${source} with ${JSON.stringify(variables)}`);
  }
  t.equal(template('  {{#if a}}\n  x\n  {{/if}}\n').render({ a: true }, DEFAULTS.limits).text, '  x\n', 'standalone lines are removed, once');
});

t.test('the template and render limits are settings, validated at start-up', async (t) => {
  const settings = {
    RULEVAULT_TEMPLATE_MAX_BYTES: ['templateMaxBytes', '4096'],
    RULEVAULT_TEMPLATE_MAX_EXPRESSIONS: ['templateMaxExpressions', '50'],
    RULEVAULT_TEMPLATE_MAX_DEPTH: ['templateMaxDepth', '4'],
    RULEVAULT_RENDER_MAX_BYTES: ['renderMaxBytes', '2048'],
    RULEVAULT_RESPONSE_MAX_RENDER_BYTES: ['responseMaxRenderBytes', '8192'],
    RULEVAULT_RENDER_MAX_STEPS: ['renderMaxSteps', '500'],
  } as const;
  const env = Object.fromEntries(Object.entries(settings).map(([name, [, value]]) => [name, value]));
  const { limits } = loadConfig(env);
  for (const [name, [member, value]] of Object.entries(settings)) {
    t.equal(limits[member], Number(value), name);
    t.throws(() => loadConfig({ [name]: '0' }), ConfigError, `${name}=0 refused`);
    t.throws(() => loadConfig({ [name]: 'many' }), new RegExp(`^${name}: must be a whole number`));
  }
});
