/**
 * Values kept by a small integer (a rule number, a value id) until what they
 * were made from changes: the values evaluateDerived's caller made (state.ts
 * Derived) and the drivers kept per value (field-index.ts textHeld).
 */
export type Kept<T> = (T | undefined)[];

/** Keeps `value` at `index`, growing the array with undefined: a write past its end would make it a dictionary. */
export function keepAt<T>(kept: Kept<T>, index: number, value: T): void {
  while (kept.length <= index) kept.push(undefined);
  kept[index] = value;
}

/** Forgets what was kept at `index`. */
export function forgetAt<T>(kept: Kept<T>, index: number): void {
  if (index < kept.length) kept[index] = undefined;
}
