/**
 * A field's residual drivers (contains, regex, negations): tested one by
 * one, so each sits beside the signature of the literals it requires
 * (literal-signature.ts) in parallel typed arrays, and a request value that
 * lacks a required literal passes over it without reading its posting block.
 * For a value rules name, the ones that hold are kept (field-index.ts, textHeld).
 */
export interface Residuals {
  size: number;
  /** Required signature, low and high 32 bits (0, 0: no literal known, always tested). */
  needLo: Int32Array;
  needHi: Int32Array;
  /** The driver's posting list (postings.ts), which carries its condition. */
  handle: Int32Array;
}

export function createResiduals(): Residuals {
  return { size: 0, needLo: new Int32Array(4), needHi: new Int32Array(4), handle: new Int32Array(4) };
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
}

/** Takes a driver out by its handle, keeping the others' order. */
export function removeResidual(list: Residuals, handle: number): void {
  const at = list.handle.subarray(0, list.size).indexOf(handle);
  if (at < 0) return;
  list.needLo.copyWithin(at, at + 1, list.size);
  list.needHi.copyWithin(at, at + 1, list.size);
  list.handle.copyWithin(at, at + 1, list.size);
  list.size -= 1;
}
