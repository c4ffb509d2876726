/**
 * The engine's predicates by key (state.ts SharedPredicate): one object per
 * distinct condition, shared by the rules that use it, counted by use. Only
 * writes (build.ts) and images (image.ts) read it; evaluate never does. So a
 * restored engine's predicates are indexed by key in steps once the service
 * is caught up (prepareWrites), not at its start: the Map of ~670k keys at 1M
 * rules took ~0.37 s of a start from snapshot (bench: start-from-snapshot, a
 * `--cpu-prof` of one start). A read before the steps end indexes the rest at once.
 */
import type { Steps } from '../steps';
import type { SharedPredicate } from './state';

/** Keys indexed per step: about a millisecond. */
const INDEX_STEP = 2048;

const NONE: readonly SharedPredicate[] = [];

export class SharedPredicates implements Iterable<[string, SharedPredicate]> {
  readonly #byKey = new Map<string, SharedPredicate>();
  /** Predicates not yet indexed, from #next on; a later one with the same key replaces an earlier, as Map.set does. */
  #pending: readonly SharedPredicate[];
  #next = 0;

  constructor(pending: readonly SharedPredicate[] = NONE) {
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

  /** Indexes what is pending, INDEX_STEP keys per step. */
  *prepare(): Steps<void> {
    while (this.#next < this.#pending.length) {
      this.#index(INDEX_STEP);
      if (this.#next < this.#pending.length) yield;
    }
  }

  #finish(): void {
    if (this.#next < this.#pending.length) this.#index(Infinity);
  }

  #index(count: number): void {
    const pending = this.#pending;
    const end = Math.min(pending.length, this.#next + count);
    for (let i = this.#next; i < end; i++) this.#byKey.set(pending[i]!.predicate.key, pending[i]!);
    this.#next = end;
    if (end === pending.length) {
      this.#pending = NONE;
      this.#next = 0;
    }
  }
}
