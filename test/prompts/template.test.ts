import t from 'tap';
import { DEFAULTS } from '../../src/base/config';
import { checkPromptTemplate, compilePromptTemplate, type PromptTemplate, type RenderResult } from '../../src/prompts/template';

const LIMITS = DEFAULTS.limits;

interface Compiled {
  readonly source: string;
  readonly variables: readonly string[];
  render(variables: Readonly<Record<string, unknown>>): RenderResult;
}

/** The read model's template, checked as a write would be, used under the default limits. */
function handle(source: string): PromptTemplate {
  const checked = checkPromptTemplate(source, LIMITS);
  if (!checked.ok) throw new Error(`expected ${JSON.stringify(source)} to compile: ${checked.error}`);
  const result = compilePromptTemplate(source);
  if (!result.ok) throw new Error('not a string');
  return result.template;
}

function compile(source: string): Compiled {
  const template = handle(source);
  return { source: template.source, variables: template.variables(LIMITS), render: (variables) => template.render(variables, LIMITS) };
}

t.test('variables: the top-level names a template reads', async (t) => {
  const table: ReadonlyArray<readonly [string, string, readonly string[]]> = [
    ['plain text', 'no placeholders at all', []],
    ['simple', 'Hello {{name}}!', ['name']],
    ['sorted and deduplicated', '{{b}} {{a}} {{b}} {{{a}}} {{&c}}', ['a', 'b', 'c']],
    ['nested path keeps its root', '{{user.name}} {{user.address.city}} {{org/id}}', ['org', 'user']],
    ['this-prefixed path at the root', '{{this.tone}} {{./style}}', ['style', 'tone']],
    ['bare this reads nothing', '{{this}}{{.}}', []],
    ['#if condition and both branches', '{{#if vip}}{{greeting}}{{else}}{{fallback}}{{/if}}', ['fallback', 'greeting', 'vip']],
    ['else if chain', '{{#if a}}x{{else if b}}{{c}}{{else}}{{d}}{{/if}}', ['a', 'b', 'c', 'd']],
    ['#unless', '{{#unless quiet}}{{banner}}{{/unless}}', ['banner', 'quiet']],
    ['#each: item fields are not inputs', '{{#each items}}{{name}} {{this.price}} {{this}}{{/each}}', ['items']],
    ['#each: ../ reaches the root again', '{{#each items}}{{../currency}}{{/each}}', ['currency', 'items']],
    ['#each else runs in the outer context', '{{#each items}}{{name}}{{else}}{{empty_text}}{{/each}}', ['empty_text', 'items']],
    ['#each with block params', '{{#each rows as |row i|}}{{row.cell}}{{i}}{{/each}}', ['rows']],
    ['#each data variables', '{{#each items}}{{@index}}{{@key}}{{@first}}{{@last}}{{/each}}', ['items']],
    ['#with: fields of the value are not inputs', '{{#with user}}{{name}}{{/with}}', ['user']],
    ['#with else runs in the outer context', '{{#with user}}{{name}}{{else}}{{anonymous}}{{/with}}', ['anonymous', 'user']],
    ['#with this keeps the root context', '{{#with this}}{{title}}{{/with}}', ['title']],
    ['#with this as |root|', '{{#with this as |r|}}{{r.title}}{{body}}{{/with}}', ['body']],
    ['#if does not change context inside #each', '{{#each items}}{{#if ../show}}{{label}}{{/if}}{{/each}}', ['items', 'show']],
    ['two levels deep', '{{#each groups}}{{#each members}}{{name}}{{../title}}{{../../org}}{{/each}}{{/each}}', ['groups', 'org']],
    ['@root', '{{#each items}}{{@root.locale}}{{/each}}{{@root}}', ['items', 'locale']],
    ['lookup arguments are reads', '{{lookup labels lang}}', ['labels', 'lang']],
    ['subexpression arguments', '{{#each (lookup sections kind)}}{{title}}{{/each}}', ['kind', 'sections']],
    ['hash values', '{{#each items key=sort}}{{/each}}', ['items', 'sort']],
    ['literal in call position is a name', '{{"quoted"}}', ['quoted']],
    ['section block on a plain variable', '{{#profile}}{{bio}}{{/profile}}', ['profile']],
    ['inverted section runs in the outer context', '{{^items}}none for {{user}}{{/items}}', ['items', 'user']],
    ['helper names are not variables', '{{#if a}}{{/if}}{{#each b}}{{/each}}{{#with c}}{{/with}}{{lookup d e}}', ['a', 'b', 'c', 'd', 'e']],
    ['comments read nothing', '{{! {{hidden}} }}{{!-- {{also}} --}}{{shown}}', ['shown']],
    ['escaped mustache is text', '\\{{literal}} {{real}}', ['real']],
  ];
  for (const [name, source, expected] of table) t.same(compile(source).variables, expected, name);
});

t.test('renders without HTML escaping', async (t) => {
  const template = compile('A {{v}} B {{{v}}}');
  t.equal(template.render({ v: `<b>&"'\`=` }).text, `A <b>&"'\`= B <b>&"'\`=`);
  t.equal(compile(`literal <i>&amp;"'</i>`).render({}).text, `literal <i>&amp;"'</i>`);
});

t.test('renders blocks, loops and data variables', async (t) => {
  const template = compile('{{#if vip}}Dear {{user.name}}{{else}}Hi{{/if}}: {{#each items}}{{@index}}={{this}}{{#unless @last}}, {{/unless}}{{/each}}');
  t.equal(template.render({ vip: true, user: { name: 'Ada' }, items: ['x', 'y'] }).text, 'Dear Ada: 0=x, 1=y');
  t.equal(template.render({ vip: false, items: [] }).text, 'Hi: ');
  t.equal(compile('{{lookup labels lang}}').render({ labels: { fr: 'Bonjour' }, lang: 'fr' }).text, 'Bonjour');
});

t.test('the compiled template is reused across renders with different inputs', async (t) => {
  const template = compile('{{greeting}}, {{name}}');
  t.equal(template.source, '{{greeting}}, {{name}}');
  t.equal(template.render({ greeting: 'Hi', name: 'A' }).text, 'Hi, A');
  t.equal(template.render({ greeting: 'Yo', name: 'B' }).text, 'Yo, B');
  const kept = handle('{{greeting}}, {{name}}');
  t.ok(Object.isFrozen(kept) && Object.isFrozen(kept.variables(LIMITS)), 'cached in a read model, so immutable');
});

t.test('missing: used names the caller did not supply', async (t) => {
  const template = compile('{{a}}{{b}}{{c}}{{d}}{{e}}');
  const inherited = Object.create({ d: 'from the prototype' }) as Record<string, unknown>;
  Object.defineProperty(inherited, 'e', { value: 'hidden', enumerable: false });
  inherited['a'] = 'A';
  t.same(template.render(inherited).missing, ['b', 'c', 'd', 'e'], 'inherited and non-enumerable keys are not supplied');
  const result = template.render({ a: 1, b: undefined, c: null, d: false, e: '' });
  t.same(result.missing, ['b'], 'undefined is missing; null, false and empty string are supplied');
  t.equal(result.text, '1false', 'null and undefined render as nothing');
  t.same(template.render({}).missing, ['a', 'b', 'c', 'd', 'e']);
  t.same(template.render(undefined as unknown as Record<string, unknown>), { text: '', missing: ['a', 'b', 'c', 'd', 'e'] }, 'no variables object at all');
  t.same(template.render(['x'] as unknown as Record<string, unknown>).missing, ['a', 'b', 'c', 'd', 'e'], 'an array is not a variables object');
});

t.test('templates cannot reach prototypes', async (t) => {
  const probes = [
    '{{constructor}}',
    '{{constructor.constructor}}',
    '{{constructor.name}}',
    '{{__proto__}}',
    '{{__proto__.constructor}}',
    '{{#with this}}{{constructor}}{{/with}}',
    '{{#with __proto__}}{{constructor}}{{/with}}',
    '{{lookup this "constructor"}}',
    '{{lookup (lookup this "constructor") "constructor"}}',
    '{{toString}}{{valueOf}}{{hasOwnProperty}}{{__defineGetter__}}',
    '{{name.constructor}}{{name.length.constructor}}{{list.constructor}}{{list.map}}',
    '{{#each (lookup name "constructor")}}{{@key}}{{/each}}',
  ];
  for (const source of probes) {
    const result = compile(source).render({ name: 'text', list: [1] });
    t.same(result, { text: '', missing: result.missing }, source);
  }
  t.equal(compile('{{#each this}}{{@key}};{{/each}}').render({ a: 1, b: 2 }).text, 'a;b;', 'iteration sees own keys only');
});

t.test('templates cannot run code', async (t) => {
  // The published Handlebars RCE gadget: builds a Function from a string via
  // constructor lookups and calls it. It needs calls to unknown "helpers".
  const gadget = [
    '{{#with "s" as |string|}}{{#with "e"}}{{#with split as |conslist|}}',
    '{{this.pop}}{{this.push (lookup string.sub "constructor")}}{{this.pop}}',
    '{{#with string.split as |codelist|}}{{this.pop}}',
    '{{this.push "globalThis.__rulevaultPwned = true"}}{{this.pop}}',
    '{{#each conslist}}{{#with (string.sub.apply 0 codelist)}}{{this}}{{/with}}{{/each}}',
    '{{/with}}{{/with}}{{/with}}{{/with}}',
  ].join('');
  const result = checkPromptTemplate(gadget, LIMITS);
  t.equal(result.ok, false, 'unknown helper calls are compile errors');
  t.match(result, { error: /unknown helper/ });
  const harmless = compile('{{#with "s" as |string|}}{{string.sub.apply}}{{lookup string "constructor"}}{{/with}}').render({});
  t.equal(harmless.text, '');
  t.equal((globalThis as Record<string, unknown>)['__rulevaultPwned'], undefined, 'no code ran');
  t.equal(({} as Record<string, unknown>)['polluted'], undefined, 'Object.prototype untouched');
});

t.test('rejects what would fail or misbehave at render time', async (t) => {
  const cases: ReadonlyArray<readonly [string, RegExp]> = [
    ['{{> header}}', /partials .* not supported \(line 1, column 0\)/],
    ['{{#> layout}}x{{/layout}}', /partials .* not supported/],
    ['{{#*inline "p"}}x{{/inline}}', /decorators .* not supported/],
    ['{{log "hello"}}', /unknown helper log/],
    ['{{shout name}}', /unknown helper shout/],
    ['{{name.upper "x"}}', /unknown helper name/],
    ['{{#if}}x{{/if}}', /if needs exactly one argument, got 0/],
    ['{{#each a b}}x{{/each}}', /each needs exactly one argument, got 2/],
    ['{{#with}}x{{/with}}', /with needs exactly one argument/],
    ['{{lookup}}', /lookup needs exactly 2 arguments, got 0/],
    ['{{lookup a}}', /lookup needs exactly 2 arguments, got 1/],
    ['x\n  {{if a}}', /if can only be used as a block .* \(line 2, column 2\)/],
    ['{{#each (each a)}}{{/each}}', /each can only be used as a block/],
  ];
  for (const [source, error] of cases) t.match(checkPromptTemplate(source, LIMITS), { ok: false, error }, source);
});

t.test('syntax errors come back with the Handlebars message', async (t) => {
  for (const source of ['{{', '{{name', '{{#if a}}unclosed', '{{#if a}}{{/each}}', '{{}}', '{{a b=}}']) {
    const result = checkPromptTemplate(source, LIMITS);
    t.equal(result.ok, false, source);
    if (!result.ok) t.match(result.error, /Parse error|doesn't match|Expecting/, source);
  }
  t.match(checkPromptTemplate('{{#if a}}{{/each}}', LIMITS), { ok: false, error: /if doesn't match each/ });
  t.same(compilePromptTemplate(42 as unknown as string), { ok: false, error: 'a template must be a string' });
});

t.test('render never throws; a runtime failure returns the raw template', async (t) => {
  const source = 'Hello {{name}} from {{place}}';
  const template = compile(source);
  const hostile = Object.defineProperty({ place: 'here' }, 'name', {
    enumerable: true,
    get() {
      throw new Error('getter failed');
    },
  });
  const result = template.render(hostile as Record<string, unknown>);
  t.equal(result.text, source, 'text falls back to the raw template');
  t.match(result.error, /template could not be rendered: getter failed/);
  t.same(result.missing, ['name'], 'a name that cannot be read counts as missing');

  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  t.same(template.render(proxy as Record<string, unknown>), { text: 'Hello  from ', missing: ['name', 'place'] }, 'a revoked proxy');
});
