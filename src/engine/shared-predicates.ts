/**
 * The engine's predicates by key (state.ts SharedPredicate): one object per
 * distinct condition, shared by the rules that use it, counted by use. Only
 * writes (build.ts) and images (image.ts) read it; evaluate never does. So a
 * restored engine's predicates are made from the image's rows and indexed by
 * key in steps once the service is caught up (prepareWrites), not at its
 * start: at 1M rules the rows' parse and objects took ~0.8 s of the start's
 * CPU and the Map of ~670k keys ~0.37 s more (bench: start-from-snapshot, a
 * `--cpu-prof` of one start). A read before the steps end does the rest at once.
 */
import type { Deferred, Steps } from '../base/steps';
import type { SharedPredicate } from './state';

/** Keys indexed per step: about a millisecond. */
const INDEX_STEP = 2048;

export class SharedPredicates implements Iterable<[string, SharedPredicate]> {
  readonly #byKey = new Map<string, SharedPredicate>();
  /** The predicates not yet indexed (from #next on), made when first needed; a later one with an earlier's key replaces it, as Map.set does. */
  #pending: Deferred<readonly SharedPredicate[]> | undefined;
  #next = 0;

  constructor(pending?: Deferred<readonly SharedPredicate[]>) {
    this.#pending = pending;
  }

  get(key: string): SharedPredicate | undefined {
    this.#finish();
    return this.#byKey.get(key);
  }

  set(key: string, shared: SharedPredicate): void {
    this.#finish();
    this.#byKey.set(key, shared);
  }

  delete(key: string): void {
    this.#finish();
    this.#byKey.delete(key);
  }

  /** In the order they were indexed or set, as a Map's (an image written before or after the steps is the same). */
  [Symbol.iterator](): IterableIterator<[string, SharedPredicate]> {
    this.#finish();
    return this.#byKey[Symbol.iterator]();
  }

  /** Makes the pending predicates (in the steps their maker takes), then indexes them, INDEX_STEP keys per step. */
  *prepare(): Steps<void> {
    if (this.#pending === undefined) return;
    const list = yield* this.#pending.steps();
    while (this.#pending !== undefined) {
      this.#index(list, INDEX_STEP);
      if (this.#pending !== undefined) yield;
    }
  }

  #finish(): void {
    if (this.#pending !== undefined) this.#index(this.#pending.value(), Infinity);
  }

  #index(list: readonly SharedPredicate[], count: number): void {
    const end = Math.min(list.length, this.#next + count);
    for (let i = this.#next; i < end; i++) this.#byKey.set(list[i]!.predicate.key, list[i]!);
    this.#next = end;
    if (end === list.length) {
      this.#pending = undefined;
      this.#next = 0;
    }
  }
}
