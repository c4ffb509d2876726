/**
 * Counts the event loop's turns (one setImmediate callback each) until
 * stopped: how often other work, such as an evaluate, could have run while
 * a sliced operation went on.
 */
export function countTurns(): { stop(): number } {
  let turns = 0;
  let going = true;
  const tick = (): void => {
    turns += 1;
    if (going) setImmediate(tick);
  };
  setImmediate(tick);
  return {
    stop() {
      going = false;
      return turns;
    },
  };
}

/** Runs work made of steps (projections/copy-steps.ts) to its end: its result, and how often it gave way on the way. */
export function runCountingSteps<T>(steps: Generator<void, T, void>): { readonly value: T; readonly yields: number } {
  let yields = 0;
  for (;;) {
    const next = steps.next();
    if (next.done === true) return { value: next.value, yields };
    yields += 1;
  }
}
