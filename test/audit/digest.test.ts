/**
 * The digest hashed in pieces (src/audit/digest.ts): the pieces join into
 * exactly the canonical JSON text, so the hash is the one of the whole text
 * (a digest taken before stays comparable), whether hashed at once or in
 * slices; in slices, the digest is of the state when it was asked for.
 */
import { createHash } from 'node:crypto';
import t from 'tap';
import { canonicalJson, canonicalPieces, canonicalState, digestState, digestStateInSlices } from '../../src/audit/digest';
import { pick, seededRandom, type Random } from '../engine/random-rules';
import { commandNodeFor, randomHistory } from './support/history';

/** A random JSON-like value with what canonical form must handle: undefined members and items, bigints, non-finite numbers, empty objects and arrays. */
function randomValue(random: Random, depth: number): unknown {
  const roll = random();
  if (depth === 0 || roll < 0.3) {
    return pick(random, [undefined, null, true, 0, -1.5, NaN, Infinity, 12n, '', 'é"\\\n', `s${Math.floor(random() * 9)}`]);
  }
  const size = Math.floor(random() * 4);
  if (roll < 0.6) return Array.from({ length: size }, () => randomValue(random, depth - 1));
  const object: Record<string, unknown> = {};
  for (let i = 0; i < size; i++) {
    // As JSON.parse makes it: `__proto__` an own member, not the prototype.
    Object.defineProperty(object, pick(random, ['b', 'a', 'z', 'é', '10', '2', 'a b', '__proto__']), {
      value: randomValue(random, depth - 1), enumerable: true, writable: true, configurable: true,
    });
  }
  return object;
}

t.test('the pieces join into exactly the canonical JSON text, at every depth', async (t) => {
  const random = seededRandom(2511);
  for (let i = 0; i < 500; i++) {
    const value = randomValue(random, 5);
    const whole = canonicalJson(value);
    for (const depth of [0, 1, 2, 3, 6]) {
      const joined = [...canonicalPieces(value, depth)].join('');
      if (joined !== whole) return t.fail(`value ${i} at depth ${depth}: ${joined} !== ${whole}`);
    }
  }
  t.pass('500 random values at five depths');
});

t.test('a member named __proto__ is written like any other, at once and in pieces', async (t) => {
  const value = JSON.parse('{"meta":{"__proto__":{"tier":"gold"},"a":1},"__proto__":[2]}');
  const expected = '{"__proto__":[2],"meta":{"__proto__":{"tier":"gold"},"a":1}}';
  t.equal(canonicalJson(value), expected);
  for (const depth of [1, 2, 3]) t.equal([...canonicalPieces(value, depth)].join(''), expected, `in pieces, depth ${depth}`);
  t.not(canonicalJson(JSON.parse('{"__proto__":{"tier":"free"}}')), canonicalJson(JSON.parse('{"__proto__":{"tier":"gold"}}')), 'its value counts');
});

t.test('the digest is the SHA-256 of the whole canonical text, at once or in slices, of the state when asked', async (t) => {
  const { node, clock } = await commandNodeFor(t);
  await randomHistory(node, clock, 77, 160, 1000);
  const state = node.readModel.state;
  t.ok(state.rules.size > 5 && state.contexts.size > 0 && state.prompts.size > 0, 'a varied state');

  const digest = digestState(state);
  t.equal(digest.sha256, createHash('sha256').update(canonicalState(state), 'utf8').digest('hex'), 'the hash of the whole text');
  // A turn after every piece, so the write below lands mid-hash.
  const asked = digestStateInSlices(state, { sliceMs: 0, batch: 1 });
  // A write lands while the digest is being hashed: the digest is still of the state it was asked about.
  await node.catalog.createRule({ name: 'after the digest was asked', condition_groups: [{ conditions: [{ field: 'n', operator: 'equals', value: 'x' }] }] }, { id: 'alice', requestId: 'r' });
  t.same(await asked, digest, 'in slices: the same digest, position and counts');
  const later = await digestStateInSlices(state);
  t.not(later.sha256, digest.sha256, 'the write is in the next digest');
  t.equal(later.counts.rules, digest.counts.rules + 1);
});
