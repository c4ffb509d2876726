/**
 * An import body that is a JSON array is read item by item, in steps
 * (src/domain/import.ts readArray), instead of one `JSON.parse` of the
 * whole body: it must accept exactly the bodies that `JSON.parse` accepts,
 * with the same values, and name a bad item by its index.
 */
import fc from 'fast-check';
import t from 'tap';
import { readImportSteps, type ImportLine } from '../../src/domain/import';
import { runSteps } from '../../src/base/steps';
import { propertyOptions, seedShare } from '../support/seeds';
import { runCountingSteps } from '../support/turns';

const read = (text: string, maxItems = 1_000_000): ImportLine[] => runSteps(readImportSteps(text, maxItems));

/** What reading `text` gives: the values, or the error's message. */
function outcome(text: string): { values: unknown[] } | { error: string } {
  try {
    return { values: read(text).map((line) => line.value) };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

/** What one JSON.parse of the whole body says of it, in the reader's terms (an empty array holds no items). */
function expected(text: string): 'values' | 'error' {
  try {
    const value: unknown = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
    return Array.isArray(value) && value.length > 0 ? 'values' : 'error';
  } catch {
    return 'error';
  }
}

// Text that trips a naive splitter: separators and brackets inside strings, escaped quotes and backslashes.
const tricky = fc.constantFrom(',', ']', '[', '{', '}', '"', '\\', '\\"', '\\\\', '\u2028', '😀', 'é', '\n');
const text = fc.array(fc.oneof(tricky, fc.string({ maxLength: 4 })), { maxLength: 6 }).map((parts) => parts.join(''));
const value: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, text, fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean(), fc.constant(null),
    fc.array(tie('value'), { maxLength: 3 }), fc.dictionary(text, tie('value'), { maxKeys: 3 })),
})).value;
const space = fc.constantFrom('', ' ', '\n', '\t', '\r\n', '  ');

/** The array's JSON text with white space of JSON's kinds between every item and separator. */
const arrayText = fc.tuple(fc.array(value, { minLength: 1, maxLength: 6 }), fc.array(space, { minLength: 20, maxLength: 20 })).map(([items, gaps]) => {
  const gap = (i: number): string => gaps[i % gaps.length];
  return { items, body: `${gap(0)}[${items.map((item, i) => `${gap(i + 1)}${JSON.stringify(item)}${gap(i + 7)}`).join(',')}]${gap(3)}` };
});

t.test('a valid array: the same values as one JSON.parse, each named by its index (fast-check)', async (t) => {
  const same = fc.property(arrayText, ({ items, body }) => {
    const lines = read(body);
    if (JSON.stringify(lines.map((l) => l.value)) !== JSON.stringify(JSON.parse(body))) throw new Error(`values differ for ${body}`);
    if (lines.length !== items.length || lines.some((l, i) => l.where !== `item [${i}]`)) throw new Error(`names differ for ${body}`);
  });
  for (const options of propertyOptions(1500)) fc.assert(same, options);
  t.pass('1500 random arrays read as JSON.parse reads them');
});

t.test('an edited array is accepted exactly when JSON.parse accepts it, with its values (fast-check)', async (t) => {
  const edits = { accepted: 0, refused: 0 };
  const edit = fc.tuple(arrayText, fc.nat(), fc.constantFrom('delete', ',', ']', '[', '{', '}', '"', '\\', ' ', '1', 'x', '\u00a0', ':'));
  const agrees = fc.property(edit, ([{ body }, at, change]) => {
    const where = at % (body.length + 1);
    const edited = change === 'delete' ? body.slice(0, where) + body.slice(where + 1) : body.slice(0, where) + change + body.slice(where);
    // Only bodies the reader takes for an array (a first character other than [ is NDJSON).
    if (edited.trimStart()[0] !== '[') return;
    const got = outcome(edited);
    const want = expected(edited);
    if (want === 'error') {
      if (!('error' in got)) throw new Error(`accepted what JSON.parse refuses: ${JSON.stringify(edited)}`);
      edits.refused += 1;
      return;
    }
    if (!('values' in got)) throw new Error(`refused what JSON.parse accepts: ${JSON.stringify(edited)}: ${got.error}`);
    if (JSON.stringify(got.values) !== JSON.stringify(JSON.parse(edited))) throw new Error(`values differ for ${JSON.stringify(edited)}`);
    edits.accepted += 1;
  });
  for (const options of propertyOptions(3000)) fc.assert(agrees, options);
  // Guards: the edits made both kinds of bodies, so both halves of the property were asserted.
  t.ok(edits.accepted >= 300 * seedShare(), `${edits.accepted} edited bodies still valid, read as JSON.parse reads them`);
  t.ok(edits.refused >= 300 * seedShare(), `${edits.refused} edited bodies invalid, refused`);
});

t.test('errors name what is wrong and where', async (t) => {
  const cases: [string, string, RegExp][] = [
    ['an item that is not JSON', '[{"kind":"rule"}, {"kind": rule}]', /^item \[1\]: not valid JSON \(/],
    ['an empty item', '[1,,2]', /^item \[1\]: not valid JSON/],
    ['a trailing comma', '[1,2,]', /^item \[2\]: not valid JSON/],
    ['an array never closed', '[1, 2', /^the import is not valid JSON: the array is not closed: no \] after item \[1\]/],
    ['a string never closed', '[1, "a]', /^the import is not valid JSON: the array is not closed/],
    ['text after the array', '[1, 2] 3', /^the import is not valid JSON: unexpected "3" at character 7 after the array/],
    ['a brace closing the array', '[1, 2}', /^the import is not valid JSON: unexpected "}" at character 5 after item \[1\]/],
    ['white space JSON does not know before it', '\u00a0[1]', /^the import is not valid JSON: unexpected "\u00a0\[1\]" at character 0 before the array/],
    ['an empty array', ' [ \n ] ', /^the import holds no items/],
  ];
  for (const [name, body, message] of cases) t.throws(() => read(body), message, name);
  t.same(read('\ufeff [ {"a": "],[{"} ]').map((l) => l.value), [{ a: '],[{' }], 'a byte-order mark is skipped; brackets in a string are text');
});

t.test('2,500 items read in steps: given way twice; an item past the limit refused before it is parsed', async (t) => {
  const body = JSON.stringify(Array.from({ length: 2500 }, (_, i) => ({ kind: 'rule', name: `rule ${i}` })));
  const { value: lines, yields } = runCountingSteps(readImportSteps(body, 5000));
  t.equal(yields, 2, 'a step\'s end after items 1,024 and 2,048');
  t.equal(lines.length, 2500);
  t.same(lines[2499], { value: { kind: 'rule', name: 'rule 2499' }, where: 'item [2499]' });
  // The item past the limit is not JSON: refused as too many, so it was never parsed.
  t.throws(() => read(`${body.slice(0, -1)},{not json}]`, 2500), /^the import holds more than 2500 items/);
});
