/**
 * Affix and residual drivers (starts_with, ends_with, contains, regex,
 * negations) found to hold for a value rules name are kept by value id
 * (src/engine/field-index.ts, textHeld), and their entries copied per value
 * (src/engine/held-entries.ts): each change that could make a kept list or
 * a copy wrong must forget it. The differential test meets these through random
 * changes; here each one on its own.
 */
import t from 'tap';
import { checkInvariants, createEngine, type Operator, type RuleDefinition } from '../../src/engine';
import { COPY_LIST_MAX, recordAt } from '../../src/engine/held-entries';
import { stateOf } from '../../src/engine/state';
import { rule as caseRule } from './cases';

/** A rule of one string condition on `field`. */
function rule(id: string, operator: Operator, value: string, field = 'x'): RuleDefinition {
  return caseRule(id, 'AND', [['AND', [field, operator, value]]]);
}

t.test('a residual driver added, changed or removed answers at once for a value already seen', async (t) => {
  const engine = createEngine();
  // `equals` names the values, so they have ids; the others drive from the residual list.
  engine.upsert(rule('named-alpha', 'equals', 'alpha'));
  engine.upsert(rule('has-lph', 'contains', 'lph'));
  engine.upsert(rule('not-beta', 'not_equals', 'beta'));
  const ask = () => engine.evaluate({ x: 'alpha' });
  t.same(ask(), ['has-lph', 'named-alpha', 'not-beta']);
  t.same(ask(), ['has-lph', 'named-alpha', 'not-beta'], 'the same from the kept list');
  engine.upsert(rule('starts-al', 'regex', '^al'));
  t.same(ask(), ['has-lph', 'named-alpha', 'not-beta', 'starts-al'], 'a driver added after the value was seen');
  engine.upsert(rule('has-lph', 'contains', 'zzz'));
  t.same(ask(), ['named-alpha', 'not-beta', 'starts-al'], 'a driver changed');
  engine.remove('not-beta');
  t.same(ask(), ['named-alpha', 'starts-al'], 'a driver removed');
  // Its posting list is gone and its handle free: a new list may take the handle, and must not answer for alpha.
  engine.upsert(rule('named-gamma', 'equals', 'gamma'));
  t.same(ask(), ['named-alpha', 'starts-al'], 'a new list on the freed handle');
});

t.test('an affix driver added or removed answers at once for a value already seen', async (t) => {
  const engine = createEngine();
  engine.upsert(rule('named-alpha', 'equals', 'alpha'));
  engine.upsert(rule('ends-ha', 'ends_with', 'ha'));
  const ask = () => engine.evaluate({ x: 'alpha' });
  t.same(ask(), ['ends-ha', 'named-alpha']);
  engine.upsert(rule('starts-al', 'starts_with', 'al'));
  t.same(ask(), ['ends-ha', 'named-alpha', 'starts-al'], 'a prefix added after the value was seen');
  engine.upsert(rule('ends-pha', 'ends_with', 'pha'));
  t.same(ask(), ['ends-ha', 'ends-pha', 'named-alpha', 'starts-al'], 'a suffix added');
  // Each removed alone, a new list then taking its freed handle: neither may answer for alpha.
  engine.remove('starts-al');
  t.same(ask(), ['ends-ha', 'ends-pha', 'named-alpha'], 'a prefix removed');
  engine.upsert(rule('named-gamma', 'equals', 'gamma'));
  t.same(ask(), ['ends-ha', 'ends-pha', 'named-alpha'], 'a new list on its handle');
  engine.remove('ends-ha');
  t.same(ask(), ['ends-pha', 'named-alpha'], 'a suffix removed');
  engine.upsert(rule('named-delta', 'equals', 'delta'));
  t.same(ask(), ['ends-pha', 'named-alpha'], 'a new list on its handle');
});

t.test('an equals list filed or unfiled for a value already seen answers at once', async (t) => {
  const engine = createEngine();
  // not_equals names alpha (so it has an id) without an equals list for it.
  engine.upsert(rule('not-alpha', 'not_equals', 'alpha'));
  const ask = () => engine.evaluate({ x: 'alpha' });
  t.same(ask(), []);
  engine.upsert(rule('is-alpha', 'equals', 'alpha'));
  t.same(ask(), ['is-alpha'], 'a list filed for the value');
  engine.remove('is-alpha');
  t.same(ask(), [], 'its list unfiled (the id lives on: not_equals still names it)');
  engine.upsert(rule('is-gamma', 'equals', 'gamma'));
  t.same(ask(), [], 'a new list on the freed handle');
});

t.test('a freed value id taken by another value does not answer with the old value\'s drivers', async (t) => {
  const engine = createEngine();
  engine.upsert(rule('named-alpha', 'equals', 'alpha'));
  engine.upsert(rule('starts-al', 'regex', '^al'));
  t.same(engine.evaluate({ x: 'alpha' }), ['named-alpha', 'starts-al']);
  // alpha's id goes free; beta takes the number.
  engine.remove('named-alpha');
  engine.upsert(rule('named-beta', 'equals', 'beta'));
  t.same(engine.evaluate({ x: 'beta' }), ['named-beta']);
  t.same(engine.evaluate({ x: 'alpha' }), ['starts-al'], 'alpha, now unnamed, is tested as any value');
});

t.test('a kept list still asks for the fields its groups need', async (t) => {
  const engine = createEngine();
  engine.upsert(rule('named-alpha', 'equals', 'alpha'));
  // The residual driver's group also needs y: its posting entry carries y's presence bit.
  engine.upsert({
    id: 'lph-and-y', status: 'ACTIVE', group_operator: 'AND',
    condition_groups: [{ condition_operator: 'AND', conditions: [
      { field: 'x', operator: 'contains', value: 'lph', data_type: 'string' },
      { field: 'y', operator: 'regex', value: '.', data_type: 'string' },
    ] }],
  } as RuleDefinition);
  t.same(engine.evaluate({ x: 'alpha' }), ['named-alpha'], 'without y: found and kept, not matched');
  t.same(engine.evaluate({ x: 'alpha', y: 'v' }), ['lph-and-y', 'named-alpha'], 'with y: matched from the kept list');
  t.same(engine.evaluate({ x: 'alpha' }), ['named-alpha']);
});

t.test('the invariant checker finds a stale kept list', async (t) => {
  const engine = createEngine();
  engine.upsert(rule('named-alpha', 'equals', 'alpha'));
  engine.upsert(rule('has-lph', 'contains', 'lph'));
  engine.evaluate({ x: 'alpha' });
  t.same(checkInvariants(engine), [], 'consistent once kept');
  const slot = stateOf(engine).operands.slots.get('x')!;
  const id = slot.valueIds.get('alpha')!;
  t.ok(slot.textHeld[id] !== undefined && slot.textHeld[id]!.length === 2, 'alpha keeps its equals list and the contains driver');
  // A list the field does not hold (as a missed forgetting would leave behind).
  slot.textHeld[id] = [...slot.textHeld[id]!, 9999];
  t.match(checkInvariants(engine), [/value id \d+ keeps list #9999, not one of its field's text lists/]);
});

t.test('entries added to or removed from a list a value holds answer at once', async (t) => {
  const engine = createEngine();
  // Two rules per driver: each change below adds to or takes from a list that stays filed.
  engine.upsert(rule('alpha-1', 'equals', 'alpha'));
  engine.upsert(rule('alpha-2', 'equals', 'alpha'));
  engine.upsert(rule('lph-1', 'contains', 'lph'));
  engine.upsert(rule('al-1', 'starts_with', 'al'));
  const ask = () => engine.evaluate({ x: 'alpha' });
  t.same(ask(), ['al-1', 'alpha-1', 'alpha-2', 'lph-1'], 'copied once asked');
  engine.upsert(rule('alpha-3', 'equals', 'alpha'));
  t.same(ask(), ['al-1', 'alpha-1', 'alpha-2', 'alpha-3', 'lph-1'], 'an entry added to the value\'s equals list');
  engine.upsert(rule('lph-2', 'contains', 'lph'));
  t.same(ask(), ['al-1', 'alpha-1', 'alpha-2', 'alpha-3', 'lph-1', 'lph-2'], 'an entry added to a residual list');
  engine.upsert(rule('al-2', 'starts_with', 'al'));
  t.same(ask(), ['al-1', 'al-2', 'alpha-1', 'alpha-2', 'alpha-3', 'lph-1', 'lph-2'], 'an entry added to an affix list');
  engine.remove('alpha-1');
  engine.remove('lph-1');
  engine.remove('al-1');
  t.same(ask(), ['al-2', 'alpha-2', 'alpha-3', 'lph-2'], 'an entry taken from each');
  t.same(checkInvariants(engine), []);
});

t.test('a list longer than the copy limit is walked in place', async (t) => {
  const engine = createEngine();
  const long = Array.from({ length: COPY_LIST_MAX + 1 }, (_, i) => `alpha-${String(i).padStart(3, '0')}`);
  for (const id of long) engine.upsert(rule(id, 'equals', 'alpha'));
  engine.upsert(rule('lph', 'contains', 'lph'));
  t.same(engine.evaluate({ x: 'alpha' }), [...long, 'lph']);
  const state = stateOf(engine);
  const slot = state.operands.slots.get('x')!;
  const id = slot.valueIds.get('alpha')!;
  const equalsList = slot.textPostings[id];
  // [N, the contains list's one entry (2 words), K = 1, the equals list's handle]
  const record = recordAt(slot.heldEntries, slot.heldEntries.byValue[id]);
  t.same([record[0], record.length, record[3], record[4]], [2, 5, 1, equalsList], 'the short list copied, the long one by handle');
  t.same(checkInvariants(engine), []);
});

t.test('the invariant checker finds stale copied entries', async (t) => {
  const engine = createEngine();
  engine.upsert(rule('named-alpha', 'equals', 'alpha'));
  engine.upsert(rule('has-lph', 'contains', 'lph'));
  engine.evaluate({ x: 'alpha' });
  const slot = stateOf(engine).operands.slots.get('x')!;
  const id = slot.valueIds.get('alpha')!;
  const offset = slot.heldEntries.byValue[id];
  t.same(recordAt(slot.heldEntries, offset)[0], 4, 'alpha keeps both lists\' entries, copied');
  t.same(checkInvariants(engine), []);
  // A mask copied wrong, as a missed forgetting would leave an entry behind.
  slot.heldEntries.words[offset + 2] ^= 1;
  t.match(checkInvariants(engine), [/value id \d+ keeps the record \[[-\d,]+\], its lists make \[[-\d,]+\]/]);
  slot.textHeld[id] = undefined;
  t.match(checkInvariants(engine), [/value id \d+ keeps copied entries but no list/]);
});

t.test('copied entries stay right when blocks move', async (t) => {
  const engine = createEngine();
  engine.upsert(rule('named-alpha', 'equals', 'alpha'));
  engine.upsert(rule('has-lph', 'contains', 'lph'));
  t.same(engine.evaluate({ x: 'alpha' }), ['has-lph', 'named-alpha']);
  const state = stateOf(engine);
  const slot = state.operands.slots.get('x')!;
  const id = slot.valueIds.get('alpha')!;
  const offset = slot.heldEntries.byValue[id];
  // Another field's list grows until its block moves: none of alpha's lists changed, so its copy is kept.
  engine.upsert(rule('y-0', 'equals', 'v', 'y'));
  const y = state.operands.slots.get('y')!;
  const yList = y.textPostings[y.valueIds.get('v')!];
  const yBlock = state.postings.at[yList];
  for (let i = 1; state.postings.at[yList] === yBlock; i++) engine.upsert(rule(`y-${i}`, 'equals', 'v', 'y'));
  t.equal(slot.heldEntries.byValue[id], offset, 'alpha\'s copy is still kept');
  t.same(engine.evaluate({ x: 'alpha' }), ['has-lph', 'named-alpha']);
  t.same(checkInvariants(engine), []);
});
