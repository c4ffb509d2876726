/**
 * Copies of the read models in steps (src/base/steps.ts): a generator that
 * yields every few thousand entries and returns the copy. Time travel copies a state at
 * each checkpoint: at 1M rules one copy at once held the node 0.2-0.45 s
 * (bench: audit-stall, with long-tasks.ts on its profile). What is copied
 * must not change until its copy is done: time travel copies states only it
 * holds.
 */
import type { Steps } from '../src/base/steps';

/** Entries copied per step: about a millisecond (1M map entries copy in ~0.4 s). */
export const COPY_STEP = 4096;

/** Calls `visit` on each item, giving way every COPY_STEP items. */
export function* eachInSteps<T>(items: Iterable<T>, visit: (item: T) => void): Steps<void> {
  let n = 0;
  for (const item of items) {
    visit(item);
    if (++n % COPY_STEP === 0) yield;
  }
}

/** `new Map(entries)`, in steps; `into` receives the entries (a Map with more members, say). */
export function* copyMap<K, V, M extends Map<K, V> = Map<K, V>>(entries: Iterable<readonly [K, V]>, into: M = new Map<K, V>() as M): Steps<M> {
  yield* eachInSteps(entries, ([key, value]) => into.set(key, value));
  return into;
}

/** `new Set(set)`, in steps. */
export function* copySet<T>(set: ReadonlySet<T>): Steps<Set<T>> {
  const copy = new Set<T>();
  yield* eachInSteps(set, (item) => copy.add(item));
  return copy;
}
