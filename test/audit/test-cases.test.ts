/** The test-case runner (src/audit/test-cases.ts): the file format's errors by line, and per-case diffs. Pure. */
import t from 'tap';
import { CaseFileError, CaseRefused, describeCases, parseCases, runCases, type CaseAnswer } from '../../src/audit/test-cases';

const line = (value: unknown) => JSON.stringify(value);
const gold = { name: 'gold', entity_type: 'context', fields: { tier: 'gold' }, expect: { rules: ['r1'], entities: ['c1'] } };

t.test('a file of cases, blank lines skipped', async (t) => {
  const cases = parseCases(`${line(gold)}\n\n${line({ ...gold, name: 'split', expect: { variants: { r2: 'b', r3: null } } })}\n`);
  t.same(cases.map((c) => [c.name, c.line]), [['gold', 1], ['split', 3]]);
  t.same(cases[1]!.expect, { variants: { r2: 'b', r3: null } });
});

t.test('a malformed file is named by line', async (t) => {
  const fails = (text: string, at: number, message: RegExp) => {
    const error = (() => {
      try {
        parseCases(text);
        return undefined;
      } catch (e) {
        return e;
      }
    })();
    t.ok(error instanceof CaseFileError, message.source);
    t.match(error, { line: at, message }, message.source);
  };
  fails(`${line(gold)}\n{"name": `, 2, /^line 2: not JSON/);
  fails(`${line(gold)}\n${line(gold)}`, 2, /^line 2: name "gold" repeats line 1's/);
  fails(line({ ...gold, expect: { rule: [] } }), 1, /^line 1: expect has an unknown member "rule"/);
  fails(line({ ...gold, extra: 1 }), 1, /^line 1: unknown member "extra"/);
  fails(line({ ...gold, entity_type: 'flag' }), 1, /^line 1: entity_type must be one of context, prompt, evaluation/);
  fails(line({ ...gold, expect: {} }), 1, /^line 1: expect checks nothing/);
  fails(line({ ...gold, expect: { rules: [1] } }), 1, /^line 1: expect.rules must be an array of rule ids/);
  fails(line({ ...gold, expect: { variants: { r: 2 } } }), 1, /^line 1: expect.variants must be an object/);
  fails(line({ ...gold, name: '' }), 1, /^line 1: name is required/);
  fails('\n\n', 1, /^line 1: the file holds no case/);
  fails('[1]', 1, /^line 1: a case must be a JSON object/);
});

t.test('pass, and a failing case with its diff; a refused request fails its case only', async (t) => {
  const cases = parseCases([
    line(gold),
    line({ ...gold, name: 'silver', fields: { tier: 'silver' } }),
    line({ ...gold, name: 'split', fields: { tier: 'split' }, expect: { variants: { r2: 'a' } } }),
    line({ ...gold, name: 'refused', fields: { tier: 'x' } }),
  ].join('\n'));
  const answers: Record<string, CaseAnswer> = {
    gold: { matchingRuleIds: ['r1'], entities: [{ rule_id: 'r1', entity_id: 'c1', variant: null }] },
    silver: { matchingRuleIds: ['r9'], entities: [{ rule_id: 'r9', entity_id: 'c9', variant: null }, { rule_id: 'r9', entity_id: 'c1', variant: null }] },
  };
  const report = await runCases(cases, ({ fields }) => {
    if (fields.tier === 'x') throw new CaseRefused('evaluate refused the case: fields.tier is bad');
    return answers[fields.tier as string] ?? { matchingRuleIds: ['r2'], entities: [{ rule_id: 'r2', entity_id: 'p', variant: 'b' }] };
  });
  t.same([report.passed, report.failed], [1, 3]);
  t.same(report.cases[0], { name: 'gold', line: 1, pass: true });
  t.same(report.cases[1]!.diff, { rules: { missing: ['r1'], unexpected: ['r9'] }, entities: { missing: [], unexpected: ['c9'] } });
  t.same(report.cases[2]!.diff, { variants: [{ rule_id: 'r2', expected: 'a', actual: 'b' }] });
  t.same(report.cases[3], { name: 'refused', line: 4, pass: false, error: 'evaluate refused the case: fields.tier is bad' });
  const text = describeCases(report).join('\n');
  t.match(text, /^ok {4}gold {2}\(line 1\)$/m);
  t.match(text, /^FAIL {2}silver {2}\(line 2\)\n {6}- rules: r1 expected, not answered\n {6}\+ rules: r9 answered, not expected\n {6}\+ entities: c9 answered, not expected$/m);
  t.match(text, /~ variant of rule r2: expected "a", answered "b"/);
  t.match(text, /1 passed, 3 failed$/);
  await t.rejects(runCases(cases, () => {
    throw new Error('unreachable');
  }), /unreachable/, 'any other error stops the run');
});
