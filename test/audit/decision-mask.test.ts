/** Pure: masking decision records by path (src/audit/decision-mask.ts). */
import t from 'tap';
import { compileMasks, MASKED, maskValues } from '../../src/audit/decision-mask';

function mask(paths: string[], values: object): { values: unknown; masked: string[] } {
  const masked: string[] = [];
  return { values: maskValues(values, compileMasks(paths), 'v', masked), masked };
}

t.test('a path from the root, a name with dots read as its segments', async (t) => {
  t.same(mask(['a.b'], { a: { b: 1, c: 2 }, b: 3 }), { values: { a: { b: MASKED, c: 2 }, b: 3 }, masked: ['v.a.b'] });
  t.same(mask(['a.b'], { 'a.b': 1 }), { values: { 'a.b': MASKED }, masked: ['v.a.b'] });
  t.same(mask(['a.b.c'], { 'a.b': { c: 1 }, a: { 'b.c': 2 } }), { values: { 'a.b': { c: MASKED }, a: { 'b.c': MASKED } }, masked: ['v.a.b.c', 'v.a.b.c'] });
  t.same(mask(['a'], { a: { deep: [1, 2] } }), { values: { a: MASKED }, masked: ['v.a'] }, 'a matched member is masked whole');
  t.same(mask(['a.b'], { a: 'text' }), { values: { a: 'text' }, masked: [] }, 'a path through a scalar masks nothing');
  t.same(mask(['ssn'], { customer: { ssn: 1 } }), { values: { customer: { ssn: 1 } }, masked: [] }, 'a bare name is a root path');
});

t.test('* is any one segment, ** any number, none included', async (t) => {
  t.same(mask(['list.*.k'], { list: [{ k: 1, j: 2 }, { k: 3 }] }), { values: { list: [{ k: MASKED, j: 2 }, { k: MASKED }] }, masked: ['v.list.0.k', 'v.list.1.k'] });
  t.same(mask(['*.k'], { a: { k: 1 }, k: 2 }), { values: { a: { k: MASKED }, k: 2 }, masked: ['v.a.k'] });
  t.same(mask(['**.k'], { k: 1, a: { k: 2, b: [{ k: 3 }] } }), { values: { k: MASKED, a: { k: MASKED, b: [{ k: MASKED }] } }, masked: ['v.k', 'v.a.k', 'v.a.b.0.k'] });
  t.same(mask(['a.**'], { a: { x: 1 }, b: 2 }), { values: { a: MASKED, b: 2 }, masked: ['v.a'] });
  t.same(mask(['a.**.z'], { a: { z: 1, y: { x: { z: 2 } } } }), { values: { a: { z: MASKED, y: { x: { z: MASKED } } } }, masked: ['v.a.z', 'v.a.y.x.z'] });
});

t.test('the input is never changed; nothing matched gives the same object; __proto__ stays a member', async (t) => {
  const input = { a: { b: 1 }, c: [{ d: 2 }] };
  const frozen = JSON.stringify(input);
  const { values } = mask(['a.b', 'c.*.d'], input);
  t.equal(JSON.stringify(input), frozen);
  t.not(values, input);
  t.equal((values as typeof input).a !== input.a, true, 'copied along the path');
  const untouched = { x: { y: 1 } };
  t.equal(mask(['a.b'], untouched).values, untouched);
  t.equal(mask([], untouched).values, untouched);
  const proto = JSON.parse('{"__proto__": {"polluted": 1}, "k": 1}') as object;
  const masked = mask(['__proto__.polluted'], proto).values as Record<string, unknown>;
  t.same(Object.getOwnPropertyDescriptor(masked, '__proto__')?.value, { polluted: MASKED });
  t.equal(({} as Record<string, unknown>).polluted, undefined);
});
