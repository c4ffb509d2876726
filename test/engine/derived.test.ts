/**
 * evaluateDerived (src/engine/types.ts): the rules evaluate lists, each as the
 * value the caller derived from its id on its first match, kept by rule
 * number until the rule changes or goes (the evaluate answer's per-rule
 * pieces, src/service/evaluate.ts). The differential test checks the kept
 * values against the current versions over random changes; these pin the
 * cases one by one, a restored engine's included.
 */
import t from 'tap';
import { createEngine, engineFromImage, engineImage, type Engine, type RuleDefinition } from '../../src/engine';
import { rule as caseRule } from './cases';

/** Rule `id`: x equals `value`. */
const rule = (id: string, value: string, status: 'ACTIVE' | 'INACTIVE' = 'ACTIVE'): RuleDefinition =>
  caseRule(id, 'AND', [['AND', ['x', 'equals', value]]], status);

/** A derive that counts its calls per id and tags each value with the call's number. */
function counting() {
  const calls = new Map<string, number>();
  let made = 0;
  const derive = (id: string) => {
    calls.set(id, (calls.get(id) ?? 0) + 1);
    return { id, made: ++made };
  };
  return { derive, calls };
}

t.test('values come in evaluate order, derived once per rule across calls', async (t) => {
  const engine = createEngine();
  for (const id of ['c', 'a', 'b']) engine.upsert(rule(id, 'y'));
  engine.upsert(rule('other', 'n'));
  const { derive, calls } = counting();
  const first = engine.evaluateDerived({ x: 'y' }, derive);
  t.same(first.map((v) => v.id), engine.evaluate({ x: 'y' }));
  const second = engine.evaluateDerived({ x: 'y' }, derive);
  t.same(second, first, 'the same values the second time');
  t.same([...calls.values()], [1, 1, 1], 'each derived once');
  t.same(engine.evaluateDerived({ x: 'nothing' }, derive), []);
});

t.test('a changed, deactivated or removed rule is derived again; a freed number never hands over a value', async (t) => {
  const engine = createEngine();
  engine.upsert(rule('a', 'y'));
  engine.upsert(rule('b', 'y'));
  const { derive, calls } = counting();
  const before = engine.evaluateDerived({ x: 'y' }, derive);
  // The same conditions: the engine entry is replaced all the same, and so is the value.
  engine.upsert(rule('a', 'y'));
  const after = engine.evaluateDerived({ x: 'y' }, derive);
  t.equal(calls.get('a'), 2, 'a re-upserted rule is derived again');
  t.not(after[0], before[0]);
  t.equal(after[1], before[1], 'the other rule keeps its value');
  // b's number goes free and is taken by c: c must not answer with b's value.
  engine.remove('b');
  engine.upsert(rule('c', 'y'));
  t.same(engine.evaluateDerived({ x: 'y' }, derive).map((v) => v.id), ['a', 'c']);
  engine.upsert(rule('a', 'y', 'INACTIVE'));
  engine.upsert(rule('a', 'y'));
  t.same(engine.evaluateDerived({ x: 'y' }, derive).map((v) => v.id), ['a', 'c']);
  t.equal(calls.get('a'), 3, 'reactivated: derived again');
});

t.test('another derive starts over', async (t) => {
  const engine = createEngine();
  engine.upsert(rule('a', 'y'));
  const one = counting();
  const two = counting();
  t.same(engine.evaluateDerived({ x: 'y' }, one.derive).map((v) => v.made), [1]);
  t.same(engine.evaluateDerived({ x: 'y' }, two.derive).map((v) => v.made), [1]);
  t.same(engine.evaluateDerived({ x: 'y' }, one.derive).map((v) => v.made), [2], 'the first derive is asked again');
});

t.test('a restored engine derives from its restored rule numbers', async (t) => {
  const original = createEngine();
  for (let i = 0; i < 50; i++) original.upsert(rule(`r${String(i).padStart(2, '0')}`, i % 2 === 0 ? 'even' : 'odd'));
  original.remove('r10');
  const ids = Array.from({ length: 50 }, (_, i) => `r${String(i).padStart(2, '0')}`).filter((id) => id !== 'r10');
  const sections = new Map(engineImage(original, ids).map(({ name, bytes }) => [name, bytes] as const));
  const restored: Engine = engineFromImage(sections, ids);
  const { derive } = counting();
  const values = restored.evaluateDerived({ x: 'even' }, derive);
  t.same(values.map((v) => v.id), original.evaluate({ x: 'even' }));
  t.equal(values.length, 24);
  restored.upsert(rule('r12', 'odd'));
  t.same(restored.evaluateDerived({ x: 'even' }, derive).map((v) => v.id), original.evaluate({ x: 'even' }).filter((id) => id !== 'r12'));
  t.ok(restored.evaluateDerived({ x: 'odd' }, derive).some((v) => v.id === 'r12'), 'the changed rule answers under its new conditions');
});
