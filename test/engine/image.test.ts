/**
 * The engine image (src/engine/image.ts: what a format-4 snapshot holds):
 * on random rule sets on the seeds of test/support/seeds.ts, with removals
 * and inactive versions (so free lists, free rule numbers, free handles and
 * released pool entries are in the image), an engine restored from its
 * image answers as the original, dumps every rule word for word, keeps its
 * invariants, and stays live: more upserts and removes on both keep them
 * alike. Sections are copied to unaligned offsets on the way, as a read
 * from a file may leave them.
 */
import t from 'tap';
import { checkInvariants, createEngine, dumpRule, engineFromImage, engineImage, markRoom, prepareWrites, sectionRoom } from '../../src/engine';
import { stateOf } from '../../src/engine/state';
import type { Engine, ImageSection, RuleDefinition } from '../../src/engine';
import { perSeed, replayHint, testSeeds } from '../support/seeds';
import { randomFields, randomRule, seededRandom, shuffled, type Random } from './random-rules';


/** A dump without the records' evaluation stamps (EPOCH, COUNT: the restored engine starts its own epochs, as at a wrap). */
const unstamped = (dump: string): string => dump.replace(/(record @\d+ \[)-?\d+, -?\d+,/g, '$1_, _,');

function differences(random: Random, restored: Engine, original: Engine, ids: Iterable<string>): string[] {
  const found: string[] = [];
  if (restored.size !== original.size) found.push(`size ${restored.size} != ${original.size}`);
  for (const id of ids) {
    const [a, b] = [unstamped(dumpRule(restored, id)), unstamped(dumpRule(original, id))];
    if (a !== b) found.push(`records differ:\n${a}\n---\n${b}`);
  }
  for (let i = 0; i < 40; i++) {
    const fields = randomFields(random);
    const [a, b] = [restored.evaluate(fields), original.evaluate(fields)];
    if (JSON.stringify(a) !== JSON.stringify(b)) found.push(`${JSON.stringify(fields)}: ${JSON.stringify(a)} != ${JSON.stringify(b)}`);
  }
  found.push(...checkInvariants(restored).map((p) => `restored: ${p}`));
  return found;
}

/** The sections as a file read may hand them over: each copied one byte into a fresh buffer. */
function unaligned(sections: readonly ImageSection[]): Map<string, Uint8Array> {
  return new Map(sections.map(({ name, bytes }) => {
    const buffer = new Uint8Array(bytes.byteLength + 1);
    buffer.set(bytes, 1);
    return [name, buffer.subarray(1)];
  }));
}

/** Random changes applied alike to every engine given: upserts (some inactive) and removes, over ids `r000`..`r079`. */
function churn(random: Random, engines: readonly Engine[], count: number, ids: Set<string>): void {
  for (let i = 0; i < count; i++) {
    const id = `r${String(Math.floor(random() * 80)).padStart(3, '0')}`;
    ids.add(id);
    if (random() < 0.25) {
      for (const engine of engines) engine.remove(id);
    } else {
      const rule: RuleDefinition = randomRule(random, id);
      for (const engine of engines) engine.upsert(rule);
    }
  }
}

t.test('an engine restored from its image is the engine imaged, and stays live', async (t) => {
  let sets = 0;
  for (const seed of testSeeds()) {
    const random = seededRandom(seed ^ 0x1d872b41);
    for (let set = 0; set < perSeed(16); set++) {
      const original = createEngine();
      const ids = new Set<string>();
      churn(random, [original], 120, ids);
      // Evaluations stamp records: the restored engine must not read the original's stamps as its own.
      for (let i = 0; i < 5; i++) original.evaluate(randomFields(random));
      // In an order of their own, with ids the engine does not hold (removed, inactive): written and read as absent.
      const order = shuffled(random, [...ids]);
      const restored = engineFromImage(unaligned(engineImage(original, order)), order);
      let found = differences(random, restored, original, ids);
      if (found.length === 0) {
        churn(random, [original, restored], 60, ids);
        found = differences(random, restored, original, ids).map((f) => `after more changes: ${f}`);
      }
      if (found.length > 0) {
        t.same(found, [], `${replayHint(seed)}, set ${set}`);
        return;
      }
      for (const id of ids) restored.remove(id);
      if (restored.size !== 0 || checkInvariants(restored).length > 0) {
        t.fail(`${replayHint(seed)}, set ${set}: not empty after removing every rule: ${checkInvariants(restored).join('; ')}`);
        return;
      }
      sets += 1;
    }
  }
  t.ok(sets > 0, `${sets} rule sets imaged and restored`);
});

/** An active rule no input can satisfy (its one AND group has a condition that does not compile): it has no rule number. */
const neverMatching = (id: string): RuleDefinition => ({
  id, status: 'ACTIVE', group_operator: 'AND',
  condition_groups: [{ condition_operator: 'AND', conditions: [{ field: 'a', operator: 'no such operator', value: 'x', data_type: 'string' } as never] }],
});

t.test('restored rules change like any other: upserted, removed, re-added; a never-matching one; epoch wraps; an image of an image', async (t) => {
  let sets = 0;
  for (const seed of testSeeds()) {
    const random = seededRandom(seed ^ 0x5bd1e995);
    for (let set = 0; set < perSeed(12); set++) {
      const original = createEngine();
      const ids = new Set<string>(['never']);
      churn(random, [original], 120, ids);
      original.upsert(neverMatching('never'));
      // Past the restored engines' epochLimit: their first evaluation wraps, with every entry still in the image.
      for (let i = 0; i < 7; i++) original.evaluate(randomFields(random));
      const order = shuffled(random, [...ids]);
      const restored = engineFromImage(unaligned(engineImage(original, order)), order, { epochLimit: 3 });
      // An image of the restored engine before any change: every entry copied from its image words.
      const again = engineFromImage(unaligned(engineImage(restored, order)), order, { epochLimit: 3 });
      const found: string[] = [];
      const compare = (when: string): void => {
        for (const [name, engine] of [['restored', restored], ['re-imaged', again]] as const) {
          found.push(...differences(random, engine, original, ids).map((f) => `${when}, ${name}: ${f}`));
        }
      };
      compare('as restored');
      if (dumpRule(restored, 'never') !== dumpRule(original, 'never') || !/never matches/.test(dumpRule(restored, 'never'))) {
        found.push(`the never-matching rule: ${dumpRule(restored, 'never')}`);
      }
      // Restored rules, each changed one way: upserted anew, removed, removed and re-added as it was.
      const held = order.filter((id) => id !== 'never' && dumpRule(original, id) !== `rule "${id}": not active`);
      const [changed, removed, readded] = held;
      const engines = [original, restored, again];
      if (changed !== undefined) {
        const rule = randomRule(random, changed);
        for (const engine of engines) engine.upsert(rule);
      }
      if (removed !== undefined) for (const engine of engines) engine.remove(removed);
      if (readded !== undefined) {
        const rule = randomRule(random, readded);
        for (const engine of engines) engine.upsert(rule);
        for (const engine of engines) engine.remove(readded);
        for (const engine of engines) engine.upsert(rule);
      }
      for (const engine of engines) engine.upsert(neverMatching('never'));
      compare('after changing restored rules');
      // An image of an engine holding both restored (image words) and changed (object) entries.
      const third = engineFromImage(unaligned(engineImage(restored, order)), order, { epochLimit: 3 });
      found.push(...differences(random, third, original, ids).map((f) => `an image of the changed restored engine: ${f}`));
      churn(random, [original, restored, third], 60, ids);
      found.push(...differences(random, third, original, ids).map((f) => `after more changes, the third: ${f}`));
      found.push(...differences(random, restored, original, ids).map((f) => `after more changes, restored: ${f}`));
      if (found.length > 0) {
        t.same(found, [], `${replayHint(seed)}, set ${set}`);
        return;
      }
      sets += 1;
    }
  }
  t.ok(sets > 0, `${sets} rule sets`);
});

t.test('a restored engine goes on from the epoch imaged: stamps of the original\'s evaluations are not read as its own', async (t) => {
  // The equality drives and the group record verifies n > 5: evaluation 1 stamps the record with a count of
  // 1, and a restored engine that read that stamp at its own epoch 1 would count a second hit and miss the match.
  const rule: RuleDefinition = {
    id: 'two', status: 'ACTIVE', group_operator: 'AND',
    condition_groups: [{
      condition_operator: 'AND',
      conditions: [{ field: 'a', operator: 'equals', value: 'x', data_type: 'string' }, { field: 'n', operator: 'gt', value: '5', data_type: 'number' }],
    }],
  };
  const original = createEngine();
  original.upsert(rule);
  t.same(original.evaluate({ a: 'x', n: 1 }), [], 'the record is stamped, its verify fails');
  const restored = engineFromImage(unaligned(engineImage(original, ['two'])), ['two']);
  t.same(restored.evaluate({ a: 'x', n: 10 }), ['two'], 'the first evaluation of the restored engine matches');
  t.same(restored.evaluate({ a: 'x', n: 1 }), []);
});

t.test('an image of an empty engine restores an empty engine that builds', async (t) => {
  const restored = engineFromImage(unaligned(engineImage(createEngine(), [])), []);
  t.equal(restored.size, 0);
  const random = seededRandom(7);
  const original = createEngine();
  const ids = new Set<string>();
  churn(random, [original, restored], 50, ids);
  t.same(differences(random, restored, original, ids), []);
});

t.test('a missing or malformed section is refused, naming it', async (t) => {
  const random = seededRandom(11);
  const engine = createEngine();
  const ids = new Set<string>();
  churn(random, [engine], 40, ids);
  engine.upsert({
    id: 'held', status: 'ACTIVE', group_operator: 'AND',
    condition_groups: [{ condition_operator: 'AND', conditions: [{ field: 'x', operator: 'equals', value: '1', data_type: 'string' }] }],
  });
  const order = [...ids, 'held'];
  t.throws(() => engineImage(engine, order.slice(0, -1)), /names \d+ of the engine's \d+ rules/, 'an order that misses a rule held');
  const sections = unaligned(engineImage(engine, order));
  t.ok(engineFromImage(sections, order).size > 0, 'restores from the order imaged');
  const without = new Map(sections);
  without.delete('engine.arena');
  t.throws(() => engineFromImage(without, order), /no engine\.arena section/);
  const short = new Map(sections);
  short.set('engine.rules', sections.get('engine.rules')!.subarray(0, sections.get('engine.rules')!.byteLength - 4));
  t.throws(() => engineFromImage(short, order), /rules end early/);
  t.throws(() => engineFromImage(sections, [...order, 'extra']), /rules end early/, 'more ids than imaged');
  t.throws(() => engineFromImage(sections, order.slice(0, -1)), /more rules than the ids given/, 'fewer ids than imaged');
  const odd = new Map(sections);
  odd.set('engine.keys', sections.get('engine.keys')!.subarray(1));
  t.throws(() => engineFromImage(odd, order), /not whole 8-byte words/);
});

t.test('a restored engine prepared for writes in steps, wholly, in part or not at all, changes like the engine imaged', async (t) => {
  // More imaged rules than one step of the id table (rule-table.ts INDEX_STEP, 4096): its build gives way.
  const random = seededRandom(0x2c1b3c6d);
  const original = createEngine();
  const ids = new Set<string>();
  for (let i = 0; i < 9000; i++) {
    const id = `p${String(i).padStart(5, '0')}`;
    ids.add(id);
    original.upsert(randomRule(random, id));
  }
  const order = [...ids];
  const sections = engineImage(original, order);
  const restoredWith = (steps: number): { engine: Engine; yields: number } => {
    const engine = engineFromImage(unaligned(sections), order);
    const preparing = prepareWrites(engine);
    let yields = 0;
    while (yields < steps && preparing.next().done !== true) yields += 1;
    return { engine, yields };
  };
  const whole = restoredWith(Infinity);
  t.ok(whole.yields >= 1, `preparing 9,000 imaged rules gave way ${whole.yields} times`);
  const engines = [original, whole.engine, restoredWith(1).engine, restoredWith(0).engine];
  // The same writes on all: restored rules changed and removed, new ones added (a write mid-preparation finishes it).
  for (let i = 0; i < 200; i++) {
    const id = i % 3 === 2 ? `new-${i}` : order[Math.floor(random() * order.length)]!;
    const rule = randomRule(random, id);
    for (const engine of engines) {
      if (i % 5 === 4) engine.remove(id);
      else engine.upsert(rule);
    }
    ids.add(id);
  }
  const found = engines.slice(1).flatMap((engine, k) => differences(random, engine, original, ids).map((f) => `restored #${k}: ${f}`));
  t.same(found.slice(0, 3), [], 'every restored engine answers and holds what the original does');
});

t.test('an arena read with room grows into it in place; bytes past a section not marked as room are never used', async (t) => {
  const random = seededRandom(0x7f4a7c15);
  const original = createEngine();
  const ids = new Set<string>();
  churn(random, [original], 120, ids);
  const order = [...ids];
  const sections = engineImage(original, order);
  // As src/snapshots/engine-image-file.ts reads the arena: a buffer of its own, zeroed room past the section, marked.
  const withRoom = new Map(sections.map(({ name, bytes }) => {
    const room = sectionRoom(name, bytes.byteLength);
    const body = new Uint8Array(bytes.byteLength + ((8 - (bytes.byteLength % 8)) % 8) + room);
    body.set(bytes);
    const section = body.subarray(0, bytes.byteLength);
    if (room > 0) markRoom(section);
    return [name, section];
  }));
  const roomy = engineFromImage(withRoom, order);
  const arena = stateOf(roomy).arena;
  const words = arena.i32;
  const imaged = arena.used;
  t.ok(words.length > imaged, `room past the image's ${imaged} words: ${words.length}`);
  // A buffer whose bytes past the section are another's (as a pooled one's are), not marked: never taken as room.
  const foreign = new Map(sections.map(({ name, bytes }) => {
    const body = new Uint8Array(bytes.byteLength + 64).fill(0xab);
    body.set(bytes);
    return [name, body.subarray(0, bytes.byteLength)];
  }));
  const plain = engineFromImage(foreign, order);
  t.equal(stateOf(plain).arena.i32.length, stateOf(plain).arena.used, 'no room taken from an unmarked buffer');
  const engines = [original, roomy, plain];
  const added = new Set<string>();
  // A few changes, well within a quarter of the arena's words.
  churn(random, engines, 4, added);
  t.ok(arena.used > imaged, `the changes took words past the image's: ${arena.used} in use`);
  t.equal(arena.i32, words, 'the roomy arena took them in place (the same words)');
  churn(random, engines, 60, added);
  t.same(differences(random, roomy, original, new Set([...ids, ...added])), [], 'and answers as the original');
  t.same(differences(random, plain, original, new Set([...ids, ...added])), [], 'so does the one without room');
});
