/**
 * Masking decision records by path (RULEVAULT_DECISION_LOG_MASK_FIELDS).
 * Pure: no I/O, and the request is never changed; a masked copy is made
 * only along the paths that hold a masked value.
 *
 * A mask is a path of segments joined by `.`, matched from the root of
 * `fields` and of `entity_inputs.variables`. A member name is read as its
 * segments, so the field `user.email` and the variable
 * `{"user": {"email": ...}}` are both the path `user.email`, as a template
 * reads it (`{{user.email}}`). `*` stands for any one segment (an array
 * index too: `accounts.*.iban`), `**` for any number of them, none included
 * (`**.ssn`: an `ssn` at any depth). A matched member is masked whole,
 * whatever it holds.
 *
 * The walk goes down only where some mask can still match (all the way with
 * `**`); a request is nested at most VARIABLES_MAX_DEPTH levels
 * (service/evaluate.ts), so the recursion is shallow.
 */

/** What stands in a record for a masked value. */
export const MASKED = '[masked]';

/** Compiled masks: each one's segments. */
export type Masks = readonly (readonly string[])[];

/** Where a walk is in the masks: pairs of (mask, segments matched so far). */
type States = readonly (readonly [number, number])[];

export function compileMasks(paths: readonly string[]): Masks {
  return paths.map((path) => path.split('.'));
}

/**
 * `values` with every member a mask matches replaced by MASKED, its path
 * (`<prefix>.<member>...`) pushed on `masked`; `values` itself when none is.
 */
export function maskValues<T extends object>(values: T, masks: Masks, prefix: string, masked: string[]): T {
  if (masks.length === 0) return values;
  return maskBelow(values, masks, start(masks), prefix, masked);
}

function maskBelow<T extends object>(values: T, masks: Masks, states: States, prefix: string, masked: string[]): T {
  let copy: Record<string, unknown> | unknown[] | undefined;
  for (const key of Object.keys(values)) {
    let next = states;
    for (const segment of key.split('.')) {
      next = step(masks, next, segment);
      if (next.length === 0 || done(masks, next)) break;
    }
    if (next.length === 0) continue;
    const path = `${prefix}.${key}`;
    const value = (values as Record<string, unknown>)[key];
    let replacement: unknown;
    if (done(masks, next)) {
      replacement = MASKED;
      masked.push(path);
    } else if (typeof value === 'object' && value !== null) {
      replacement = maskBelow(value, masks, next, path, masked);
      if (replacement === value) continue;
    } else {
      continue;
    }
    // A null prototype: a member named __proto__ stays a plain member.
    copy ??= Array.isArray(values) ? [...values] : Object.assign(Object.create(null) as Record<string, unknown>, values);
    (copy as Record<string, unknown>)[key] = replacement;
  }
  return (copy ?? values) as T;
}

function start(masks: Masks): States {
  return closure(masks, masks.map((_, m) => [m, 0] as const));
}

/** The states after one more segment. */
function step(masks: Masks, states: States, segment: string): States {
  const next: (readonly [number, number])[] = [];
  for (const [m, i] of states) {
    const expected = masks[m]![i];
    if (expected === undefined) continue;
    if (expected === '**') next.push([m, i]); // one more segment under `**`
    else if (expected === '*' || expected === segment) next.push([m, i + 1]);
  }
  return closure(masks, next);
}

/** With each state at a `**`, the state past it too: `**` may match no segment. */
function closure(masks: Masks, states: (readonly [number, number])[]): States {
  const out: (readonly [number, number])[] = [];
  const seen = new Set<string>();
  const add = (m: number, i: number): void => {
    const key = `${m} ${i}`;
    if (seen.has(key)) return;
    seen.add(key);
    out.push([m, i]);
    if (masks[m]![i] === '**') add(m, i + 1);
  };
  for (const [m, i] of states) add(m, i);
  return out;
}

/** Whether some mask has matched all its segments. */
function done(masks: Masks, states: States): boolean {
  return states.some(([m, i]) => i === masks[m]!.length);
}
