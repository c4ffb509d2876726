/**
 * The worked example in src/engine/layout.ts is what the engine really
 * writes: the test compiles the documented rule and compares `dumpRule`
 * with the words between BEGIN EXAMPLE and END EXAMPLE, so the doc cannot drift.
 * And the invariant checker (inspect.ts) the differential tests rely on
 * does report a corrupted arena.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { checkInvariants, createEngine, dumpRule } from '../../src/engine';
import { Layout } from '../../src/engine/layout';
import { stateOf } from '../../src/engine/state';
import type { Engine, RuleDefinition } from '../../src/engine/types';

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

/** The rule of layout.ts's worked example. */
const EXAMPLE: RuleDefinition = {
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
};

function exampleEngine(): Engine {
  const engine = createEngine();
  engine.upsert(EXAMPLE);
  return engine;
}

t.test("layout.ts's worked example is the dump of the rule it names", async (t) => {
  const engine = exampleEngine();
  const documented = documentedExample();
  t.match(documented, /^rule "r1" number 0\n/, 'the example is found in layout.ts');
  t.equal(dumpRule(engine, 'r1'), documented);
  t.same(engine.evaluate({ 'user.tier': 'gold', tokens: 5000 }), ['r1'], 'and the rule it documents behaves as described');
});

t.test('checkInvariants reports a corrupted engine', async (t) => {
  t.same(checkInvariants(exampleEngine()), [], 'the example engine is consistent');

  const wrongNumber = exampleEngine();
  const { arena, rules } = stateOf(wrongNumber);
  const group = rules.get('r1')!.groups[0];
  arena.i32[group.offset + Layout.G_INDEX] = 7;
  t.match(checkInvariants(wrongNumber), [/G_INDEX 7 != 0/], 'a record naming another rule number');

  const stale = exampleEngine();
  const s = stateOf(stale);
  const list = s.drivers.lists(s.rules.get('r1')!.groups[0].drivers[0])[0];
  s.arena.i32[s.postings.at[list] + Layout.P_HEAD + Layout.E_TARGET] = 100;
  const problems = checkInvariants(stale);
  t.ok(problems.some((p) => /names 100, no active rule's group/.test(p)), 'a posting entry naming no live group');
  t.ok(problems.some((p) => /does not list target/.test(p)), 'and the group it lost is unreachable');

  const doubleFree = exampleEngine();
  const d = stateOf(doubleFree);
  d.arena.free(d.rules.get('r1')!.groups[0].offset, Layout.G_HEAD);
  t.ok(checkInvariants(doubleFree).some((p) => /overlaps/.test(p)), 'a live block also on a free list');
});
