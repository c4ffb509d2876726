/**
 * Affix and residual drivers (starts_with, ends_with, contains, regex,
 * negations) found to hold for a value rules name are kept by value id
 * (src/engine/field-index.ts, textHeld): each change that could make a kept
 * list wrong must forget it. The differential test meets these through random
 * changes; here each one on its own.
 */
import t from 'tap';
import { checkInvariants, createEngine, type Operator, type RuleDefinition } from '../../src/engine';
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

t.test('the invariant checker finds wrong kept block offsets', async (t) => {
  const engine = createEngine();
  engine.upsert(rule('named-alpha', 'equals', 'alpha'));
  engine.upsert(rule('has-lph', 'contains', 'lph'));
  engine.evaluate({ x: 'alpha' });
  const slot = stateOf(engine).operands.slots.get('x')!;
  const id = slot.valueIds.get('alpha')!;
  const blocks = slot.heldBlocks[id]!;
  t.equal(blocks.length, 2, 'alpha\'s two lists kept as blocks too');
  t.same(checkInvariants(engine), []);
  slot.heldBlocks[id] = [blocks[1], blocks[0]];
  t.match(checkInvariants(engine), [/value id \d+ keeps blocks \d+,\d+, its lists are at \d+,\d+, and no block has moved since/]);
  slot.textHeld[id] = undefined;
  t.match(checkInvariants(engine), [/value id \d+ keeps block offsets but no list/]);
});

t.test('kept block offsets are read again once any block has moved', async (t) => {
  const engine = createEngine();
  engine.upsert(rule('named-alpha', 'equals', 'alpha'));
  engine.upsert(rule('has-lph', 'contains', 'lph'));
  t.same(engine.evaluate({ x: 'alpha' }), ['has-lph', 'named-alpha']);
  const state = stateOf(engine);
  const slot = state.operands.slots.get('x')!;
  const id = slot.valueIds.get('alpha')!;
  const held = slot.textHeld[id];
  const moves = state.postings.moves;
  // Another field's list grows until its block moves: none of alpha's lists changed, so they are not forgotten.
  for (let i = 0; state.postings.moves === moves; i++) engine.upsert(rule(`y-${i}`, 'equals', 'v', 'y'));
  t.equal(slot.textHeld[id], held, 'alpha\'s lists are still kept');
  // Offsets read before the move are not trusted: wrong ones (y's list, whose groups need y) are read again, not walked.
  const y = state.operands.slots.get('y')!;
  const yBlock = state.postings.at[y.textPostings[y.valueIds.get('v')!]];
  slot.heldBlocks[id] = [yBlock, yBlock];
  t.same(engine.evaluate({ x: 'alpha' }), ['has-lph', 'named-alpha'], 'answered from the lists\' current blocks');
  t.equal(slot.heldMoves, state.postings.moves, 'read again at the current count');
  t.same(checkInvariants(engine), []);
});
