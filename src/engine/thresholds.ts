/**
 * Numeric range drivers on one field, sorted so that the ones true for a
 * request value are a prefix: gt/gte by ascending threshold, lt/lte by
 * descending threshold, between by ascending low bound (each candidate then
 * checked against its high bound). Parallel typed arrays, so the walk reads
 * contiguous memory (bench: engine, broad and 100k mixed).
 */
export interface Thresholds {
  size: number;
  /** The threshold, or between's low bound. */
  bound: Float64Array;
  /** between's high bound (unused otherwise). */
  high: Float64Array;
  /** 1 when the comparison includes equality (gte, lte; between always). */
  inclusive: Uint8Array;
  /** The driver's posting list (postings.ts). */
  handle: Int32Array;
  /** 1 ascending, -1 descending. */
  readonly direction: 1 | -1;
}

export function createThresholds(direction: 1 | -1): Thresholds {
  return {
    size: 0, bound: new Float64Array(4), high: new Float64Array(4), inclusive: new Uint8Array(4),
    handle: new Int32Array(4), direction,
  };
}

function grow(list: Thresholds): void {
  const n = list.bound.length * 2;
  const bound = new Float64Array(n);
  bound.set(list.bound);
  const high = new Float64Array(n);
  high.set(list.high);
  const inclusive = new Uint8Array(n);
  inclusive.set(list.inclusive);
  const handle = new Int32Array(n);
  handle.set(list.handle);
  list.bound = bound;
  list.high = high;
  list.inclusive = inclusive;
  list.handle = handle;
}

/** The first place whose bound sorts after `bound` (`after`), or the first at or after it. */
function placeOf(list: Thresholds, bound: number, after: boolean): number {
  const key = bound * list.direction;
  let lo = 0;
  let hi = list.size;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const k = list.bound[mid] * list.direction;
    if (k < key || (after && k === key)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Files a driver: binary search for its place after equal bounds, then one shift. */
export function insertThreshold(list: Thresholds, bound: number, high: number, inclusive: boolean, handle: number): void {
  if (list.size === list.bound.length) grow(list);
  const lo = placeOf(list, bound, true);
  const end = list.size;
  list.bound.copyWithin(lo + 1, lo, end);
  list.high.copyWithin(lo + 1, lo, end);
  list.inclusive.copyWithin(lo + 1, lo, end);
  list.handle.copyWithin(lo + 1, lo, end);
  list.bound[lo] = bound;
  list.high[lo] = high;
  list.inclusive[lo] = inclusive ? 1 : 0;
  list.handle[lo] = handle;
  list.size = end + 1;
}

/** Takes a driver out by its handle. */
export function removeThreshold(list: Thresholds, handle: number): void {
  const at = list.handle.subarray(0, list.size).indexOf(handle);
  if (at < 0) return;
  const end = list.size;
  list.bound.copyWithin(at, at + 1, end);
  list.high.copyWithin(at, at + 1, end);
  list.inclusive.copyWithin(at, at + 1, end);
  list.handle.copyWithin(at, at + 1, end);
  list.size = end - 1;
}
