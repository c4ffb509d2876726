/**
 * A restored engine's predicates are indexed by key in steps
 * (src/engine/shared-predicates.ts): whether the steps ran wholly, in part or
 * not at all, every read and write sees what a Map built at once holds, in
 * the same order (an engine image written after it is the same).
 */
import t from 'tap';
import { compileCondition } from '../../src/engine/operators';
import { SharedPredicates } from '../../src/engine/shared-predicates';
import type { SharedPredicate } from '../../src/engine/state';
import { Deferred, type Steps } from '../../src/base/steps';
import { runCountingSteps } from '../support/turns';

/** The predicates as a restored engine gets them: made in steps (here: one) when first needed. */
function made(list: SharedPredicate[]): Deferred<readonly SharedPredicate[]> {
  return new Deferred((function* (): Steps<SharedPredicate[]> {
    yield;
    return list;
  })());
}

/** 5,000 predicates over 4,000 keys: every fifth key comes twice, the later one with its own count. */
function predicates(): SharedPredicate[] {
  return Array.from({ length: 5000 }, (_, i) => {
    const n = i % 5 === 4 ? i - 4 : i;
    const predicate = compileCondition({ field: `f${n % 7}`, operator: 'equals', value: `v${n}`, data_type: 'string' })!;
    return { predicate, refs: i + 1 };
  });
}

const entries = (table: Iterable<[string, SharedPredicate]>): [string, number][] => [...table].map(([key, { refs }]) => [key, refs]);

t.test('indexed in steps: given way, then the same entries in the same order as a Map built at once', async (t) => {
  const shared = predicates();
  const atOnce = new Map(shared.map((s) => [s.predicate.key, s]));
  const table = new SharedPredicates(made(shared));
  const { yields } = runCountingSteps(table.prepare());
  t.equal(yields, 3, 'made in one step, then 5,000 keys indexed 2,048 a step: given way three times');
  t.same(entries(table), entries(atOnce), `${atOnce.size} keys, a repeated key holding its later predicate`);
  t.equal(runCountingSteps(table.prepare()).yields, 0, 'nothing left to prepare');
});

t.test('a read or write before the steps end indexes the rest at once, and changes it as a Map would', async (t) => {
  for (const stepsRun of [0, 1, 2, 3]) {
    const shared = predicates();
    const atOnce = new Map(shared.map((s) => [s.predicate.key, s]));
    const table = new SharedPredicates(made(shared));
    const steps = table.prepare();
    for (let i = 0; i < stepsRun; i++) steps.next();
    const last = shared[4999]!.predicate.key;
    t.equal(table.get(last)?.refs, atOnce.get(last)?.refs, `after ${stepsRun} steps: the last key found`);
    const added = compileCondition({ field: 'g', operator: 'equals', value: 'new', data_type: 'string' })!;
    table.set(added.key, { predicate: added, refs: 1 });
    atOnce.set(added.key, { predicate: added, refs: 1 });
    table.delete(shared[0]!.predicate.key);
    atOnce.delete(shared[0]!.predicate.key);
    t.same(entries(table), entries(atOnce), `after ${stepsRun} steps: the same entries and order as the Map`);
    t.equal(runCountingSteps(steps).yields, 0, `after ${stepsRun} steps: the steps left have nothing to do`);
    t.same(entries(table), entries(atOnce), `after ${stepsRun} steps: and running them changes nothing`);
  }
});

t.test('predicates whose making failed: every read says why, every time', async (t) => {
  const table = new SharedPredicates(new Deferred((function* (): Steps<SharedPredicate[]> {
    yield;
    throw new Error('row 7 is not JSON');
  })()));
  t.throws(() => runCountingSteps(table.prepare()), /row 7 is not JSON/, 'the steps');
  t.throws(() => table.get('k'), /row 7 is not JSON/, 'a read after them');
  t.throws(() => [...table], /row 7 is not JSON/, 'and another');
});

t.test('an engine built here has nothing pending', async (t) => {
  const table = new SharedPredicates();
  t.equal(runCountingSteps(table.prepare()).yields, 0);
  t.same(entries(table), []);
});
