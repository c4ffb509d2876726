/**
 * The compiled, indexed rule engine, in two halves over one named state
 * (state.ts): build.ts writes a rule's records and posting entries on
 * upsert/remove, touching only that rule's; match.ts answers evaluate from
 * them. layout.ts draws the records and works one rule through.
 *
 * Memory layout (bench: engine, 10k and 100k mixed, where evaluate spent
 * half its time waiting on loads from a rule set spread over the heap):
 * group records live in one arena of int32 words (arena.ts), each holding
 * its hit counter and, inline, the conditions it verifies (code.ts) and its
 * rule's other groups; posting lists hold (group, presence mask) pairs
 * (postings.ts), or the rule's number itself for a group that one hit
 * decides. A hit on an equality driver reads the field's hash map, one
 * posting block and at most one record.
 */
import { createBuilder } from './build';
import { createEvaluator } from './match';
import { createState, registerState, stateOf, type EngineState } from './state';
import type { Steps } from '../base/steps';
import type { Engine } from './types';

export interface EngineOptions {
  /**
   * Evaluations after which the epoch counter wraps and every stamp is
   * cleared (default 2^30, so int32 stamps never overflow); tests set it low
   * to exercise the wrap.
   */
  readonly epochLimit?: number;
}

const DEFAULT_EPOCH_LIMIT = 2 ** 30;

/** A new, empty engine. */
export function createEngine(options: EngineOptions = {}): Engine {
  return engineOver(createState(), options);
}

/** The engine over `state`: a new one's, or one restored from an image (image.ts). */
export function engineOver(state: EngineState, options: EngineOptions = {}): Engine {
  const { upsert, upsertMany, remove } = createBuilder(state);
  const { evaluate, evaluateDerived } = createEvaluator(state, options.epochLimit ?? DEFAULT_EPOCH_LIMIT);
  const engine: Engine = {
    upsert,
    upsertMany,
    remove,
    evaluate,
    evaluateDerived,
    get size() {
      return state.rules.size;
    },
  };
  return registerState(engine, state);
}

/**
 * What a restored engine builds on its first write (the id table of its
 * imaged rules, rule-table.ts; its predicates by key, shared-predicates.ts),
 * in steps: the service runs them in slices once caught up, so that write
 * does not hold evaluate (~0.3 s and ~0.4 s at 1M rules), nor the start wait for them.
 * Nothing for an engine built here; a write before the end finishes it at once.
 */
export function* prepareWrites(engine: Engine): Steps<void> {
  const state = stateOf(engine);
  yield* state.rules.prepare();
  yield* state.predicates.prepare();
}
