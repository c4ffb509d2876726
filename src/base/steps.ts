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

/**
 * Work in steps whose result more than one reader needs: one runs it in
 * steps (`steps`), any may take the result at once (`value`, which runs what
 * is left), and it runs once; if it threw, every reader gets its error.
 */
export class Deferred<T> {
  #work: Steps<T> | undefined;
  #value: T | undefined;
  #failure: { readonly error: unknown } | undefined;

  constructor(work: Steps<T>) {
    this.#work = work;
  }

  value(): T {
    while (this.#work !== undefined) this.#step();
    return this.#result();
  }

  *steps(): Steps<T> {
    while (this.#work !== undefined) if (!this.#step()) yield;
    return this.#result();
  }

  /** Runs one step; true when the work ended (done or thrown). */
  #step(): boolean {
    try {
      const next = this.#work!.next();
      if (next.done !== true) return false;
      this.#value = next.value;
    } catch (error) {
      this.#failure = { error };
    }
    this.#work = undefined;
    return true;
  }

  #result(): T {
    if (this.#failure !== undefined) throw this.#failure.error;
    return this.#value as T;
  }
}
