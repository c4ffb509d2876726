/**
 * Value ids (src/engine/field-index.ts): a value rules name is kept under
 * V8's internalized copy of its text, made through a property name. Texts a
 * property name treats specially (array indexes, `__proto__`, the names of
 * Object.prototype's members, the empty string) must still be themselves.
 */
import t from 'tap';
import { checkInvariants, createEngine } from '../../src/engine';
import { stateOf } from '../../src/engine/state';
import { rule } from './cases';

const SPECIAL = ['', '0', '123', '-0', '01', '4294967295', '4294967296', '1e3', '__proto__', 'constructor', 'toString', 'hasOwnProperty', 'é', '\u{1F600}'];

/** The id of the rule naming SPECIAL[i]. */
const idOf = (i: number): string => `r${String(i).padStart(2, '0')}`;

t.test('a value whose text a property name treats specially gets an id under that very text, and matches', async (t) => {
  const engine = createEngine();
  SPECIAL.forEach((value, i) => engine.upsert(rule(idOf(i), 'AND', [['AND', ['x', 'equals', value]]])));
  const slot = stateOf(engine).operands.slots.get('x')!;
  t.same([...slot.valueIds.keys()].sort(), [...SPECIAL].sort(), 'the ids\' texts are the values, each once');
  SPECIAL.forEach((value, i) => {
    t.same(engine.evaluate({ x: value }), [idOf(i)], `${JSON.stringify(value)} matches its own rule only`);
    // As the service gets it: parsed from the request's JSON.
    t.same(engine.evaluate(JSON.parse(JSON.stringify({ x: value })) as { x: string }), [idOf(i)]);
  });
  t.same(engine.evaluate({ x: 'proto' }), [], 'a text no rule names matches none');
  t.same(checkInvariants(engine), []);
});
