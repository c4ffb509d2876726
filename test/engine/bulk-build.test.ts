/**
 * upsertMany (the bulk build: a start, a catch-up, the bench) against upsert
 * one rule at a time, on random rule sets on the seeds of
 * test/support/seeds.ts: the same answers, the same records word for word
 * (dumpRule) and a consistent arena (checkInvariants), including batches
 * that repeat an id, flip a rule inactive, or land on an engine that already
 * holds rules. The random vocabulary is small, so conditions repeat across
 * rules (they share one predicate) and the same field and value recur under
 * other data types and operators, which must stay apart.
 */
import t from 'tap';
import { checkInvariants, createEngine, dumpRule } from '../../src/engine';
import type { Condition, Engine, RuleDefinition } from '../../src/engine';
import { perSeed, replayHint, testSeeds } from '../support/seeds';
import { rule as caseRule } from './cases';
import { randomFields, randomRule, seededRandom, type Random } from './random-rules';

/** What must agree between two engines: answers on random inputs, every rule's records, invariants. */
function differences(random: Random, bulk: Engine, oneByOne: Engine, ids: Iterable<string>): string[] {
  const found: string[] = [];
  if (bulk.size !== oneByOne.size) found.push(`size ${bulk.size} != ${oneByOne.size}`);
  for (const id of ids) {
    const [a, b] = [dumpRule(bulk, id), dumpRule(oneByOne, id)];
    if (a !== b) found.push(`records differ:\n${a}\n---\n${b}`);
  }
  for (let i = 0; i < 40; i++) {
    const fields = randomFields(random);
    const [a, b] = [bulk.evaluate(fields), oneByOne.evaluate(fields)];
    if (JSON.stringify(a) !== JSON.stringify(b)) found.push(`${JSON.stringify(fields)}: ${JSON.stringify(a)} != ${JSON.stringify(b)}`);
  }
  found.push(...checkInvariants(bulk).map((p) => `bulk: ${p}`));
  return found;
}

/** A batch of random rules, some ids repeated (a later version, sometimes inactive). */
function randomBatch(random: Random, size: number, prefix: string): RuleDefinition[] {
  const batch: RuleDefinition[] = [];
  for (let i = 0; i < size; i++) {
    const again = batch.length > 0 && random() < 0.15;
    const id = again ? batch[Math.floor(random() * batch.length)]!.id : `${prefix}${String(i).padStart(3, '0')}`;
    batch.push(randomRule(random, id));
  }
  return batch;
}

t.test('upsertMany builds what upserts one by one build', async (t) => {
  let sets = 0;
  for (const seed of testSeeds()) {
    const random = seededRandom(seed ^ 0x2545f491);
    for (let set = 0; set < perSeed(24); set++) {
      const bulk = createEngine();
      const oneByOne = createEngine();
      // Every third set lands on an engine that already holds rules, partly under the batch's ids.
      const earlier = set % 3 === 0 ? randomBatch(random, 20, 'r') : [];
      for (const rule of earlier) {
        bulk.upsert(rule);
        oneByOne.upsert(rule);
      }
      const batch = randomBatch(random, 60, 'r');
      bulk.upsertMany(batch);
      for (const rule of batch) oneByOne.upsert(rule);
      const ids = new Set([...earlier, ...batch].map((r) => r.id));
      const found = differences(random, bulk, oneByOne, ids);
      if (found.length > 0) {
        t.same(found, [], `${replayHint(seed)}, set ${set}: ${JSON.stringify(batch)}`);
        return;
      }
      // Removing every rule after a bulk build leaves the engine empty and consistent (the shared predicates released).
      for (const id of ids) bulk.remove(id);
      if (bulk.size !== 0 || checkInvariants(bulk).length > 0 || bulk.evaluate(randomFields(random)).length > 0) {
        t.fail(`${replayHint(seed)}, set ${set}: not empty after removing every rule: ${checkInvariants(bulk).join('; ')}`);
        return;
      }
      sets += 1;
    }
  }
  t.ok(sets > 0, `${sets} rule sets built alike both ways`);
});

t.test('a batch tells apart conditions written with the same field and value', async (t) => {
  // Rule `id`: n compared with '5' by `operator` as `dataType`.
  const nRule = (id: string, dataType: Condition['data_type'], operator: Condition['operator']): RuleDefinition =>
    caseRule(id, 'AND', [['AND', ['n', operator, '5', dataType]]]);
  const engine = createEngine();
  engine.upsertMany([
    nRule('text', 'string', 'equals'),
    nRule('number', 'number', 'equals'),
    nRule('above', 'number', 'gt'),
    nRule('text again', 'string', 'equals'),
    nRule('invalid', 'boolean', 'equals'),
  ]);
  t.same(engine.evaluate({ n: '5' }), ['number', 'text', 'text again']);
  t.same(engine.evaluate({ n: 5 }), ['number', 'text', 'text again']);
  t.same(engine.evaluate({ n: 6 }), ['above']);
  t.same(engine.evaluate({ n: '5.0' }), ['number']);
  t.same(checkInvariants(engine), []);
});

t.test('upsertMany takes any iterable and skips what is not a rule, as upsert does', async (t) => {
  const engine = createEngine();
  const rules = function* (): Generator<RuleDefinition> {
    yield null as unknown as RuleDefinition;
    yield { id: 7 } as unknown as RuleDefinition;
    yield { id: 'a', status: 'ACTIVE', group_operator: 'AND', condition_groups: [{ condition_operator: 'AND', conditions: [{ field: 'x', value: 'y', data_type: 'string', operator: 'equals' }] }] };
  };
  engine.upsertMany(rules());
  t.equal(engine.size, 1);
  t.same(engine.evaluate({ x: 'y' }), ['a']);
  t.same(checkInvariants(engine), []);
});

t.test('a batch large enough to reserve the arena, then hand back what it left over, builds alike; later changes still fit', async (t) => {
  const random = seededRandom(testSeeds()[0]!);
  // 400 rules reserve 14,400 words, past the arena's first 4,096; random rules take fewer, so the fit after it runs too.
  const batch = randomBatch(random, 400, 'big');
  const bulk = createEngine();
  const oneByOne = createEngine();
  bulk.upsertMany(batch);
  for (const rule of batch) oneByOne.upsert(rule);
  const ids = new Set(batch.map((r) => r.id));
  t.same(differences(random, bulk, oneByOne, ids), [], 'after the batch');
  // Incremental changes after the fit grow the arena again from its fitted size.
  const more = randomBatch(random, 300, 'more');
  for (const rule of more) {
    bulk.upsert(rule);
    oneByOne.upsert(rule);
    ids.add(rule.id);
  }
  t.same(differences(random, bulk, oneByOne, ids), [], 'after 300 upserts on top');
});
