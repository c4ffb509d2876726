/**
 * The import's reading and decision in steps (src/domain/import.ts
 * readImportSteps, decideImportSteps): reading gives way every 1,024 NDJSON
 * lines or array items, deciding every 256 items; the items are the same however it is
 * run, and a bad line or item still stops it, named, before anything is planned.
 */
import t from 'tap';
import { initialState } from '../../projections';
import { DEFAULTS } from '../../src/base/config';
import { decideImportSteps, readImportSteps, type ImportContext } from '../../src/domain/import';
import { runSteps } from '../../src/base/steps';
import { runCountingSteps } from '../support/turns';

const rule = (i: number) => ({ kind: 'rule', name: `rule ${i}`, condition_groups: [{ conditions: [{ field: 'tier', operator: 'equals', value: `v${i}` }] }] });

function context(): ImportContext {
  let n = 0;
  return { state: initialState(), maxRegexLength: DEFAULTS.limits.maxRegexLength, templateLimits: DEFAULTS.limits, newId: () => `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}` };
}

const readImportText = (text: string, maxItems: number) => runSteps(readImportSteps(text, maxItems));

t.test('2,500 NDJSON lines read in steps: given way twice, the same items as at once; a bad line past the first step is named', async (t) => {
  const text = Array.from({ length: 2500 }, (_, i) => JSON.stringify(rule(i))).join('\n');
  const { value: lines, yields } = runCountingSteps(readImportSteps(text, 5000));
  t.equal(yields, 2, 'a step\'s end after lines 1,024 and 2,048');
  t.same(lines, readImportText(text, 5000));
  t.same(lines.map((l) => l.where).slice(-1), ['line 2500']);
  const bad = text.split('\n').map((line, i) => (i === 1999 ? '{"kind":' : line)).join('\n');
  t.throws(() => readImportText(bad, 5000), /^line 2000: not valid JSON/, 'the 400 names the line');
  const array = `[${text.split('\n').join(',')}]`;
  const { value: items, yields: arrayYields } = runCountingSteps(readImportSteps(array, 5000));
  t.equal(arrayYields, 2, 'the same items as an array: read in steps too (test/domain/import-array.test.ts)');
  t.same(items.map((l) => l.value), lines.map((l) => l.value));
});

t.test('600 items decided in steps: given way twice, the same plan as at once', async (t) => {
  const lines = readImportText(Array.from({ length: 600 }, (_, i) => JSON.stringify(rule(i))).join('\n'), 1000);
  const { value: planned, yields } = runCountingSteps(decideImportSteps(lines, context()));
  t.equal(yields, 2, 'a step\'s end after items 256 and 512');
  t.equal(planned.length, 600);
  t.same(planned, runSteps(decideImportSteps(lines, context())), 'the same items, ids and events');
});

t.test('a bad item past the first step still stops the decision, named by its line', async (t) => {
  const items = Array.from({ length: 400 }, (_, i) => JSON.stringify(i === 300 ? { ...rule(i), condition_groups: 'none' } : rule(i)));
  const steps = decideImportSteps(readImportText(items.join('\n'), 1000), context());
  t.throws(() => runSteps(steps), /^line 301: condition_groups/, 'the 400 names the line');
});
