/**
 * Work over every rule record in slices of a few milliseconds, with the
 * event loop free between them, so the node keeps answering evaluate
 * meanwhile: reading the records a snapshot start left unread
 * (projections/lazy-rules.ts; in one walk, 1M records blocked the node for
 * ~10 s, bench: million), and measuring their lines without reading them.
 * What needs every record (the change stream's first view, the live digest)
 * awaits `readAllRules` first; the rule listing walks its ids so; audit's
 * time travel folds the log so (sliceClock).
 */
import { readRulesAhead, unreadRules, type RulesState } from '../../projections';

export interface SliceOptions {
  /** Milliseconds of work before the event loop gets a turn. */
  readonly sliceMs?: number;
  /** Steps between two clock reads. */
  readonly batch?: number;
}

const SLICE_MS = 4;
const BATCH = 64;

/** Calls `visit` on each item, `batch` at a time, yielding to the event loop every `sliceMs`; resolves when done, or once `visit` answers false. */
export async function inSlices<T>(items: Iterable<T>, visit: (item: T) => boolean | void, options: SliceOptions = {}): Promise<void> {
  const sliceMs = options.sliceMs ?? SLICE_MS;
  const batch = options.batch ?? BATCH;
  const iterator = items[Symbol.iterator]();
  for (;;) {
    const until = performance.now() + sliceMs;
    do {
      for (let n = 0; n < batch; n++) {
        const next = iterator.next();
        if (next.done === true || visit(next.value) === false) return;
      }
    } while (performance.now() < until);
    await nextTurn();
  }
}

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

export interface SliceClock {
  /** True once the current slice has had its milliseconds of work. */
  due(): boolean;
  /** Gives the event loop a turn, then starts the next slice. */
  turn(): Promise<void>;
}

/** `inSlices` for a loop that awaits between its own steps (a fold reading pages from a store): it asks `due()` and awaits `turn()`. */
export function sliceClock(sliceMs = SLICE_MS): SliceClock {
  let until = performance.now() + sliceMs;
  return {
    due: () => performance.now() >= until,
    async turn() {
      await nextTurn();
      until = performance.now() + sliceMs;
    },
  };
}

/** One read per rule set at a time: a second caller waits on the first's. */
const reading = new WeakMap<RulesState, Promise<void>>();

/** Resolves once `rules` holds no unread record; at once when it holds none. */
export function readAllRules(rules: RulesState, options: SliceOptions = {}): Promise<void> {
  if (unreadRules(rules) === 0) return Promise.resolve();
  let read = reading.get(rules);
  if (read === undefined) {
    // Each step reads one record; the records read or changed meanwhile by others are skipped.
    const steps = function* () {
      while (readRulesAhead(rules, 1) > 0) yield;
    };
    read = inSlices(steps(), () => undefined, options).finally(() => reading.delete(rules));
    reading.set(rules, read);
  }
  return read;
}
