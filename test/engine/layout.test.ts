/**
 * The worked example in src/engine/layout.ts is what the engine really
 * writes: the test compiles the documented rule and compares `dumpRule`
 * with the words between BEGIN EXAMPLE and END EXAMPLE, so the doc cannot drift.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { createEngine, dumpRule } from '../../src/engine';

const LAYOUT = path.resolve(__dirname, '../../../src/engine/layout.ts');

function documentedExample(): string {
  const source = readFileSync(LAYOUT, 'utf8');
  const begin = source.indexOf(' * BEGIN EXAMPLE\n');
  const end = source.indexOf(' * END EXAMPLE\n');
  if (begin < 0 || end < begin) throw new Error('layout.ts lost its BEGIN EXAMPLE / END EXAMPLE markers');
  return source
    .slice(begin, end)
    .split('\n')
    .slice(1, -1)
    .map((line) => line.replace(/^ \* ?/, ''))
    .join('\n');
}

t.test("layout.ts's worked example is the dump of the rule it names", async (t) => {
  const engine = createEngine();
  engine.upsert({
    id: 'r1',
    status: 'ACTIVE',
    group_operator: 'AND',
    condition_groups: [{
      condition_operator: 'AND',
      conditions: [
        { field: 'user.tier', operator: 'in', value: 'gold,platinum', data_type: 'string' },
        { field: 'tokens', operator: 'gt', value: '1000', data_type: 'number' },
      ],
    }],
  });
  const documented = documentedExample();
  t.match(documented, /^rule "r1" number 0\n/, 'the example is found in layout.ts');
  t.equal(dumpRule(engine, 'r1'), documented);
  t.same(engine.evaluate({ 'user.tier': 'gold', tokens: 5000 }), ['r1'], 'and the rule it documents behaves as described');
});
