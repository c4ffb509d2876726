/**
 * A field's residual drivers (contains, regex, negations): tested one by
 * one, so each sits beside the signature of the literals it requires
 * (literal-signature.ts) in parallel typed arrays, and a request value that
 * lacks a required literal passes over it without reading its posting block.
 *
 * Whether a residual condition holds depends on the field's value alone, so
 * for a value rules name (it has a value id, field-index.ts) the drivers
 * that hold are kept once found (`held`): a request with that value walks
 * them without testing a regex or a substring again (bench: engine, 10k mixed;
 * cpu-per-request --workload evaluate). Any change to the list forgets them
 * all, and a value id forgets its own when it is freed (its number may next
 * name another value).
 */
export interface Residuals {
  size: number;
  /** Required signature, low and high 32 bits (0, 0: no literal known, always tested). */
  needLo: Int32Array;
  needHi: Int32Array;
  /** The driver's posting list (postings.ts), which carries its condition. */
  handle: Int32Array;
  /** By value id: the handles of the drivers whose condition holds for that value, once found (never imaged). */
  held: (readonly number[] | undefined)[];
}

export function createResiduals(): Residuals {
  return { size: 0, needLo: new Int32Array(4), needHi: new Int32Array(4), handle: new Int32Array(4), held: [] };
}

/** Keeps the drivers that hold for value id `id` (grown with undefined: a sparse write would make a dictionary). */
export function keepHeld(list: Residuals, id: number, handles: readonly number[]): void {
  while (list.held.length <= id) list.held.push(undefined);
  list.held[id] = handles;
}

/** Forgets what was kept for value id `id` (freed: the number may come to name another value). */
export function forgetValue(list: Residuals, id: number): void {
  if (id < list.held.length) list.held[id] = undefined;
}

export function addResidual(list: Residuals, need: Int32Array, handle: number): void {
  if (list.size === list.handle.length) {
    const grown = (old: Int32Array): Int32Array => {
      const array = new Int32Array(old.length * 2);
      array.set(old);
      return array;
    };
    list.needLo = grown(list.needLo);
    list.needHi = grown(list.needHi);
    list.handle = grown(list.handle);
  }
  list.needLo[list.size] = need[0];
  list.needHi[list.size] = need[1];
  list.handle[list.size] = handle;
  list.size += 1;
  list.held = [];
}

/** Takes a driver out by its handle, keeping the others' order. */
export function removeResidual(list: Residuals, handle: number): void {
  const at = list.handle.subarray(0, list.size).indexOf(handle);
  if (at < 0) return;
  list.needLo.copyWithin(at, at + 1, list.size);
  list.needHi.copyWithin(at, at + 1, list.size);
  list.handle.copyWithin(at, at + 1, list.size);
  list.size -= 1;
  list.held = [];
}
