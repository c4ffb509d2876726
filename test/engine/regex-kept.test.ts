/**
 * A regex's answer for a value rules name on its field is kept on the regex's
 * entry (src/engine/code.ts RegexEntry.kept), up to the engine's limit, and
 * dropped with the entry. An answer depends on the pattern and the text
 * alone, so a kept one can only be wrong if it is filed under the wrong
 * entry; checkInvariants re-tests every kept answer and the count.
 */
import t from 'tap';
import { checkInvariants, createEngine, type Engine, type RuleDefinition } from '../../src/engine';
import { stateOf } from '../../src/engine/state';
import { rule } from './cases';

const named = (value: string): RuleDefinition => rule(`named-${value}`, 'AND', [['AND', ['x', 'equals', value]]]);
// The equals on y drives the group; the regex on x is verified against the request.
const gated = (id: string, pattern: string): RuleDefinition => rule(id, 'AND', [['AND', ['y', 'equals', 'go'], ['x', 'regex', pattern]]]);
const keptCount = (engine: Engine): number => stateOf(engine).operands.view.regexKept;

t.test('a regex answer is kept for a value rules name, not for any other value', async (t) => {
  const engine = createEngine();
  engine.upsertMany([named('alpha'), named('beta'), gated('starts-al', '^al')]);
  t.same(engine.evaluate({ x: 'alpha', y: 'go' }), ['named-alpha', 'starts-al']);
  t.equal(keptCount(engine), 1, 'alpha\'s answer kept');
  t.same(engine.evaluate({ x: 'alpha', y: 'go' }), ['named-alpha', 'starts-al'], 'the same from the kept answer');
  t.same(engine.evaluate({ x: 'beta', y: 'go' }), ['named-beta'], 'a kept "no"');
  t.equal(keptCount(engine), 2);
  t.same(engine.evaluate({ x: 'also', y: 'go' }), ['starts-al'], 'a value no rule names is tested');
  t.same(engine.evaluate({ x: 'anything', y: 'go' }), [], 'and tested again, never kept');
  t.equal(keptCount(engine), 2, 'values no rule names are not kept');
  t.same(checkInvariants(engine), []);
});

t.test('no more answers are kept than the engine\'s limit, and every answer stays right', async (t) => {
  const engine = createEngine({ regexKeptLimit: 2 });
  const values = ['ab', 'ac', 'bd', 'ae', 'bf'];
  engine.upsertMany([...values.map(named), gated('starts-a', '^a')]);
  for (let round = 0; round < 2; round++) {
    for (const value of values) {
      const expected = [`named-${value}`, ...(value.startsWith('a') ? ['starts-a'] : [])];
      t.same(engine.evaluate({ x: value, y: 'go' }), expected, `${value}, round ${round + 1}`);
    }
  }
  t.equal(keptCount(engine), 2, 'held at the limit');
  t.same(checkInvariants(engine), []);
});

t.test('a released regex takes its kept answers with it; a new pattern answers for itself', async (t) => {
  const engine = createEngine();
  engine.upsertMany([named('alpha'), named('beta'), gated('starts-al', '^al'), gated('ends-ta', 'ta$')]);
  t.same(engine.evaluate({ x: 'alpha', y: 'go' }), ['named-alpha', 'starts-al']);
  t.same(engine.evaluate({ x: 'beta', y: 'go' }), ['ends-ta', 'named-beta']);
  t.equal(keptCount(engine), 4, 'two values, two patterns');
  engine.remove('starts-al');
  t.equal(keptCount(engine), 2, 'the released pattern\'s two answers are gone from the count');
  t.same(checkInvariants(engine), [], 'and from the released entry');
  // The new pattern may take the freed entry's place: it must answer for itself.
  engine.upsert(gated('starts-be', '^be'));
  t.same(engine.evaluate({ x: 'alpha', y: 'go' }), ['named-alpha']);
  t.same(engine.evaluate({ x: 'beta', y: 'go' }), ['ends-ta', 'named-beta', 'starts-be']);
  t.same(checkInvariants(engine), []);
});

t.test('a pattern that drives a group keeps no answer: the value\'s kept driver list holds it', async (t) => {
  const engine = createEngine();
  // The regex alone drives its rule (a residual driver); the value has an id, as another rule names it.
  engine.upsertMany([named('alpha'), named('beta'), rule('only-al', 'AND', [['AND', ['x', 'regex', '^al']]])]);
  for (let round = 0; round < 2; round++) {
    t.same(engine.evaluate({ x: 'alpha' }), ['named-alpha', 'only-al'], `alpha, round ${round + 1}`);
    t.same(engine.evaluate({ x: 'beta' }), ['named-beta'], `beta, round ${round + 1}`);
  }
  t.equal(keptCount(engine), 0, 'nothing kept on the entry');
  t.ok(stateOf(engine).operands.slots.get('x')!.textHeld.length > 0, 'the values\' driver lists are kept instead');
  // The same pattern verified by another group: its answers are kept there.
  engine.upsert(gated('gated-al', '^al'));
  t.same(engine.evaluate({ x: 'alpha', y: 'go' }), ['gated-al', 'named-alpha', 'only-al']);
  t.equal(keptCount(engine), 1, 'kept when a group verifies it');
  t.same(checkInvariants(engine), []);
});

t.test('checkInvariants finds a kept answer the pattern does not give, and a miscount', async (t) => {
  const engine = createEngine();
  engine.upsertMany([named('alpha'), gated('starts-al', '^al')]);
  engine.evaluate({ x: 'alpha', y: 'go' });
  const view = stateOf(engine).operands.view;
  const entry = view.regexes.find((e) => e.kept !== undefined)!;
  entry.kept!.set('alpha', false);
  t.match(checkInvariants(engine), [/kept false for "alpha"/]);
  entry.kept!.set('alpha', true);
  view.regexKept += 1;
  t.match(checkInvariants(engine), [/1 on live entries != 2 counted/]);
  view.regexKept -= 1;
  view.keepRegexAnswers = false;
  t.match(checkInvariants(engine), [/regex answers are not being kept/]);
});
