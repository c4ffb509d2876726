/**
 * Work in steps: a generator that yields between steps and returns its
 * result, so a caller may run it at once (runSteps) or give the event loop
 * a turn between steps (src/service/read-ahead.ts stepsInSlices). Used for
 * the work a large catalog makes long: time travel's copies of the read
 * models (projections/copy-steps.ts), the scan engines it derives
 * (src/audit/rule-check.ts), a restored engine's id table
 * (src/engine/rule-table.ts).
 */

/** Work that yields between steps and returns `T` when done. */
export type Steps<T> = Generator<void, T, void>;

/** The result of `steps`, run at once (or the rest of it, when some steps have run). */
export function runSteps<T>(steps: Steps<T>): T {
  for (;;) {
    const next = steps.next();
    if (next.done === true) return next.value;
  }
}
