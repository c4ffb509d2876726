/**
 * Compiled engine vs the json-rules-engine reference on random rule sets and
 * inputs on the seeds of test/support/seeds.ts, including
 * incremental upsert/remove/status flips vs a rebuild from scratch, with
 * the engine's invariant checker (src/engine/inspect.ts) run after every change,
 * and evaluateDerived's kept values checked against the rules' current versions.
 */
import fc from 'fast-check';
import t, { type Test } from 'tap';
import { checkInvariants, createEngine } from '../../src/engine';
import { createReferenceEngine } from '../support/reference';
import type { Engine, RuleDefinition } from '../../src/engine/types';
import { perSeed, propertyOptions, replayHint, testSeeds } from '../support/seeds';
import { randomFields, randomRule, seededRandom, type Random } from './random-rules';

function build(rules: Iterable<RuleDefinition>): Engine {
  const engine = createEngine();
  for (const rule of rules) engine.upsert(rule);
  return engine;
}

t.test('random rule sets: engine agrees with the reference', async (t) => {
  let cases = 0;
  let matches = 0;
  for (const seed of testSeeds()) {
    const random = seededRandom(seed);
    for (let set = 0; set < perSeed(30); set++) {
      const rules = Array.from({ length: 30 }, (_, i) => randomRule(random, `r${String(i).padStart(2, '0')}`));
      const engine = build(rules);
      const reference = createReferenceEngine(rules);
      for (let i = 0; i < 40; i++) {
        const fields = randomFields(random);
        const got = engine.evaluate(fields);
        const want = await reference.evaluate(fields);
        cases += 1;
        matches += want.length;
        if (JSON.stringify(got) !== JSON.stringify(want)) {
          t.same(got, want, `${replayHint(seed)}, set ${set} input ${i}: ${JSON.stringify(fields)}\nrules: ${JSON.stringify(rules)}`);
          return;
        }
      }
    }
  }
  t.pass(`${cases} cases agree`);
  // Guards the generator itself: a test where nothing ever matches proves little.
  t.ok(matches / cases > 1, `mean ${(matches / cases).toFixed(2)} matches per case`);
});

t.test('incremental updates agree with a rebuild and the reference', async (t) => {
  let checks = 0;
  for (const seed of testSeeds()) {
    const agreed = await incrementalUpdates(t, seed);
    if (agreed === null) return;
    checks += agreed;
  }
  t.pass(`${checks} incremental checks agree`);
});

/** One seed's run of random changes, compared with a rebuild and the reference as it goes: the checks that agreed, or null after a failure (reported). */
async function incrementalUpdates(t: Test, seed: number): Promise<number | null> {
  const random = seededRandom(seed ^ 0x5bd1e995);
  const engine = createEngine();
  const current = new Map<string, RuleDefinition>();
  // Every change puts a new definition object in `current`: a value kept past its rule's change is the old object.
  const derive = (id: string): RuleDefinition => current.get(id)!;
  let checks = 0;
  for (let step = 0; step < perSeed(200); step++) {
    applyRandomChange(random, engine, current);
    const problems = checkInvariants(engine);
    if (problems.length > 0) {
      t.same(problems, [], `${replayHint(seed)}, step ${step}: the engine's records, postings and free lists are consistent`);
      return null;
    }
    if (step % 4 !== 0) continue;
    const rebuilt = build(current.values());
    const reference = createReferenceEngine(current.values());
    if (engine.size !== [...current.values()].filter((r) => r.status === 'ACTIVE').length) {
      t.fail(`${replayHint(seed)}, step ${step}: size ${engine.size} does not count the active rules`);
      return null;
    }
    for (let i = 0; i < 40; i++) {
      const fields = randomFields(random);
      const got = engine.evaluate(fields);
      const fresh = rebuilt.evaluate(fields);
      // json-rules-engine costs ~3 ms a call here; the rebuild is compared on every input, it on every fourth.
      const want = i % 4 === 0 ? await reference.evaluate(fields) : fresh;
      checks += 1;
      if (JSON.stringify(got) !== JSON.stringify(fresh) || JSON.stringify(got) !== JSON.stringify(want)) {
        t.same({ got, fresh }, { got: want, fresh: want }, `${replayHint(seed)}, step ${step}: ${JSON.stringify(fields)}`);
        return null;
      }
      const derived = engine.evaluateDerived(fields, derive);
      if (derived.length !== got.length || derived.some((rule, j) => rule.id !== got[j] || rule !== current.get(rule.id))) {
        t.same(derived.map((rule) => [rule.id, rule === current.get(rule.id)]), got.map((id) => [id, true]), `${replayHint(seed)}, step ${step}: derived values are the current versions, in evaluate's order`);
        return null;
      }
    }
  }
  // Removing everything leaves no trace: an empty engine matches nothing.
  for (const id of [...current.keys()]) engine.remove(id);
  t.equal(engine.size, 0, `${replayHint(seed)}: empty after removing every rule`);
  t.same(checkInvariants(engine), [], `${replayHint(seed)}: consistent after removing every rule`);
  t.same(engine.evaluate(randomFields(random)), [], `${replayHint(seed)}: an empty engine matches nothing`);
  return checks;
}

/** One of: add a rule, replace one's conditions, flip its status, remove it. */
function applyRandomChange(random: Random, engine: Engine, current: Map<string, RuleDefinition>): void {
  const ids = [...current.keys()];
  const roll = random();
  if (ids.length < 5 || roll < 0.35) {
    const rule = randomRule(random, `r${Math.floor(random() * 1e6)}`);
    current.set(rule.id, rule);
    engine.upsert(rule);
  } else if (roll < 0.6) {
    const rule = randomRule(random, ids[Math.floor(random() * ids.length)]);
    current.set(rule.id, rule);
    engine.upsert(rule);
  } else if (roll < 0.8) {
    const old = current.get(ids[Math.floor(random() * ids.length)])!;
    const rule: RuleDefinition = { ...old, status: old.status === 'ACTIVE' ? 'INACTIVE' : 'ACTIVE' };
    current.set(rule.id, rule);
    engine.upsert(rule);
  } else {
    const id = ids[Math.floor(random() * ids.length)];
    current.delete(id);
    engine.remove(id);
  }
}

t.test('properties (fast-check)', async (t) => {
  const anyValue = fc.oneof(
    fc.string(), fc.string({ unit: "binary" }), fc.double(), fc.integer(), fc.boolean(),
    fc.constantFrom('1e400', '-0', '4.2e1', 'true', 'TRUE', ''), fc.anything(),
  );
  const keys = fc.oneof(fc.constantFrom('a', 'b', 'c', 'n', 'm', 'flag', 'constructor', '__proto__', 'toString'), fc.string());
  let engine = createEngine();
  // Each seed draws its own 200 rules and, from the same seed, its fast-check runs.
  for (const options of propertyOptions(2000)) {
    const random = seededRandom(options.seed ^ 0x1234567);
    const rules = Array.from({ length: 200 }, (_, i) => randomRule(random, `id-${i}`));
    const seeded = build(rules);
    engine = seeded;
    const ids = new Set(rules.map((r) => r.id));
    fc.assert(fc.property(fc.dictionary(keys, anyValue), (fields) => {
      const result = seeded.evaluate(fields as never);
      if (!Array.isArray(result)) return false;
      for (let i = 1; i < result.length; i++) if (!(result[i - 1] < result[i])) return false;
      return result.every((id) => ids.has(id));
    }), options);

    const reference = createReferenceEngine(rules);
    await fc.assert(fc.asyncProperty(fc.dictionary(keys, fc.oneof(fc.string(), fc.double(), fc.boolean())), async (fields) => {
      return JSON.stringify(seeded.evaluate(fields)) === JSON.stringify(await reference.evaluate(fields));
    }), { seed: options.seed, numRuns: perSeed(150) });
  }
  t.pass('evaluate never throws; result sorted, unique, known ids');
  t.pass('engine agrees with the reference on arbitrary fields');

  for (const [label, odd] of [['null', null], ['undefined', undefined], ['42', 42], ['"x"', 'x'], ['[]', []]] as const) {
    t.same(engine.evaluate(odd as never), [], `evaluate(${label}) is []`);
  }
  const bare: Record<string, unknown> = Object.create(null);
  bare.a = 'a';
  t.same(engine.evaluate(bare as never), engine.evaluate({ a: 'a' }), 'a null-prototype object is read like any other');
  const throwing = Object.defineProperty({}, 'a', { enumerable: true, get: () => { throw new Error('boom'); } });
  t.same(engine.evaluate(throwing), [], 'a throwing getter fails closed');
});

t.test('upsert is total on odd rules', async (t) => {
  const engine = createEngine();
  const odd = [
    null, {}, { id: 1 }, { id: 'x', status: 'ACTIVE' },
    { id: 'y', status: 'ACTIVE', group_operator: 'XOR', condition_groups: [] },
    { id: 'z', status: 'ACTIVE', group_operator: 'AND', condition_groups: [null, { conditions: 'no' }] },
    { id: 'w', status: 'ACTIVE', group_operator: 'OR', condition_groups: [{ condition_operator: 'AND', conditions: [null, { field: 'a' }] }] },
    { id: 'v', status: 'ACTIVE', group_operator: 'OR', condition_groups: [{ condition_operator: 'OR', conditions: [{ field: 'a', operator: 'equals', value: 'x' }] }] },
  ];
  for (const rule of odd) engine.upsert(rule as never);
  t.same(engine.evaluate({ a: 'x' }), ['v'], 'missing data_type means string; everything else never matches');
});

t.test('the epoch wrap-around clears every stamp (epochLimit 5 vs the default)', async (t) => {
  let evaluations = 0;
  for (const seed of testSeeds()) {
    const random = seededRandom(seed ^ 0x2545f491);
    const wrapping = createEngine({ epochLimit: 5 });
    const plain = createEngine();
    for (let step = 0; step < perSeed(300); step++) {
      const rule = randomRule(random, `w${Math.floor(random() * 40)}`);
      wrapping.upsert(rule);
      plain.upsert(rule);
      for (let i = 0; i < 3; i++) {
        const fields = randomFields(random);
        const got = wrapping.evaluate(fields);
        evaluations += 1;
        if (JSON.stringify(got) !== JSON.stringify(plain.evaluate(fields))) {
          t.same(got, plain.evaluate(fields), `${replayHint(seed)}, step ${step}: ${JSON.stringify(fields)}`);
          return;
        }
      }
    }
  }
  t.pass(`${evaluations} evaluations across ${Math.floor(evaluations / 5)} wrap-arounds agree`);
});
