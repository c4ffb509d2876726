/**
 * Work over every rule record in slices of a few milliseconds, with the
 * event loop free between them, so the node keeps answering evaluate
 * meanwhile: reading the records a snapshot start left unread
 * (projections/lazy-rules.ts; in one walk, 1M records blocked the node for
 * ~10 s, bench: million), and measuring their lines without reading them.
 * What needs every record (the change stream's first view, the live digest)
 * awaits `readAllRules` first; the rule listing walks its ids so; audit's
 * time travel folds the log so (sliceClock); and the lines left unread are
 * re-packed so (repackInSlices).
 */
import { readRulesAhead, runRepacksWith, unreadRuleChars, unreadRules, type RepackStep, type RulesState } from '../../projections';
import { AppError } from '../base/errors';
import { fullReadRefusal, type MemoryReadings } from '../base/memory-room';
import type { Steps } from '../base/steps';

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
  const clock = sliceClock(options.sliceMs);
  const batch = options.batch ?? BATCH;
  const iterator = items[Symbol.iterator]();
  for (;;) {
    do {
      for (let n = 0; n < batch; n++) {
        const next = iterator.next();
        if (next.done === true || visit(next.value) === false) return;
      }
    } while (!clock.due());
    await clock.turn();
  }
}

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
      await new Promise((resolve) => setImmediate(resolve));
      until = performance.now() + sliceMs;
    },
  };
}

/** The result of `steps` (projections/copy-steps.ts), with a turn of the event loop between steps once the clock says so. */
export async function stepsInSlices<T>(steps: Steps<T>, clock: SliceClock): Promise<T> {
  for (;;) {
    const next = steps.next();
    if (next.done === true) return next.value;
    if (clock.due()) await clock.turn();
  }
}

const SORTED_RUN = 4096;

/**
 * `[...items].sort(compare)` (stable, as Array.prototype.sort), with the
 * event loop free between slices: runs of a few thousand sorted at once,
 * then merged pairwise. Sorting 1M ids at once held the node 0.6-0.8 s.
 */
export async function sortInSlices<T>(items: readonly T[], compare: (a: T, b: T) => number, options: SliceOptions = {}): Promise<T[]> {
  const clock = sliceClock(options.sliceMs);
  let runs: T[][] = [];
  for (let i = 0; i < items.length; i += SORTED_RUN) {
    runs.push(items.slice(i, i + SORTED_RUN).sort(compare));
    if (clock.due()) await clock.turn();
  }
  while (runs.length > 1) {
    const merged: T[][] = [];
    for (let i = 0; i + 1 < runs.length; i += 2) merged.push(await mergeRuns(runs[i]!, runs[i + 1]!, compare, clock));
    if (runs.length % 2 === 1) merged.push(runs[runs.length - 1]!);
    runs = merged;
  }
  return runs[0] ?? [];
}

/** Two sorted runs as one; on a tie the first run's item goes first (stable). */
async function mergeRuns<T>(a: readonly T[], b: readonly T[], compare: (a: T, b: T) => number, clock: SliceClock): Promise<T[]> {
  const out = new Array<T>(a.length + b.length);
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < a.length && j < b.length) {
    out[k++] = compare(b[j]!, a[i]!) < 0 ? b[j++]! : a[i++]!;
    if ((k & 1023) === 0 && clock.due()) await clock.turn();
  }
  while (i < a.length) out[k++] = a[i++]!;
  while (j < b.length) out[k++] = b[j++]!;
  return out;
}

/** Lines copied per step of a re-pack: about a millisecond of copying at ~650 bytes a line. */
const REPACK_LINES = 2048;

/**
 * From now on the re-packs of `rules`' unread lines (projections/lazy-rules.ts)
 * run in slices: at 1M rules one at once held the node 1.0-2.1 s once
 * evaluate answers had decoded half, then three quarters, of the records.
 */
export function repackInSlices(rules: RulesState, options: SliceOptions & { readonly lines?: number } = {}): void {
  const lines = options.lines ?? REPACK_LINES;
  runRepacksWith(rules, (step: RepackStep) => {
    const steps = function* () {
      while (!step(lines)) yield;
    };
    // A copy that throws (out of memory) has left the old lines serving; the next record read tries again.
    inSlices(steps(), () => undefined, { sliceMs: options.sliceMs, batch: 1 }).catch(() => undefined);
  });
}

/** Why decoding every record `rules` still holds as a line would not fit in memory now (memory-room.ts); undefined when it would, or none is unread. */
export function fullReadRefusalOf(rules: RulesState, readings?: MemoryReadings): string | undefined {
  const records = unreadRules(rules);
  return records === 0 ? undefined : fullReadRefusal({ records, chars: unreadRuleChars(rules) }, readings);
}

/** One read per rule set at a time: a second caller waits on the first's. */
const reading = new WeakMap<RulesState, Promise<void>>();

/**
 * Resolves once `rules` holds no unread record; at once when it holds none.
 * Rejects with a 503 naming the fix, before reading any, when decoding them
 * would not fit in the process's memory (memory-room.ts): an audit digest
 * refused beats a node killed with its evaluate traffic.
 */
export function readAllRules(rules: RulesState, options: SliceOptions & { readonly readings?: MemoryReadings } = {}): Promise<void> {
  if (unreadRules(rules) === 0) return Promise.resolve();
  let read = reading.get(rules);
  if (read === undefined) {
    const refusal = fullReadRefusalOf(rules, options.readings);
    if (refusal !== undefined) return Promise.reject(new AppError('unavailable', refusal));
    // Each step reads one record; the records read or changed meanwhile by others are skipped.
    const steps = function* () {
      while (readRulesAhead(rules, 1) > 0) yield;
    };
    read = inSlices(steps(), () => undefined, options).finally(() => reading.delete(rules));
    reading.set(rules, read);
  }
  return read;
}
