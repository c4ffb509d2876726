/**
 * The import's decision in steps (src/domain/import.ts decideImportSteps):
 * it gives way every 256 items, the items decided are the same however it
 * is run, and a bad item still stops it, named, before anything is planned.
 */
import t from 'tap';
import { initialState } from '../../projections';
import { DEFAULTS } from '../../src/config';
import { decideImportSteps, readImportText, type ImportContext } from '../../src/domain/import';
import { runSteps } from '../../src/steps';
import { runCountingSteps } from '../support/turns';

const rule = (i: number) => ({ kind: 'rule', name: `rule ${i}`, condition_groups: [{ conditions: [{ field: 'tier', operator: 'equals', value: `v${i}` }] }] });

function context(): ImportContext {
  let n = 0;
  return { state: initialState(), maxRegexLength: DEFAULTS.limits.maxRegexLength, templateLimits: DEFAULTS.limits, newId: () => `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}` };
}

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
