/**
 * Per-field index: the text values rules name on the field (interned as
 * small ids), and the field's drivers filed by how they are found: a
 * posting list per named value for equals/in (text by value id, numbers by
 * value), two for booleans, sorted thresholds for numeric comparisons,
 * affix indexes for prefixes and suffixes, and a residual list tested one
 * by one.
 * The request's value on the field lives in the engine's per-slot arrays
 * (code.ts RequestView), indexed by `index`.
 */
import { createAffixIndex, type AffixIndex } from './affix-index';
import { createHeldEntries, forgetAllEntries, forgetEntries, type HeldEntries } from './held-entries';
import { forgetAt, type Kept } from './kept';
import { Kind, type Predicate } from './predicates';
import { createResiduals, type Residuals } from './residuals';
import { createThresholds, type Thresholds } from './thresholds';

export interface FieldSlot {
  readonly name: string;
  /** Index into the per-slot request arrays; reused once the field is unused. */
  readonly index: number;
  /**
   * This field's bit in a request's presence mask (fields beyond 32 share
   * bits: a shared bit can only say "maybe present", never "absent" wrongly).
   */
  readonly bit: number;
  /** Conditions (driven or verified) reading this field, by the view of the value they read. */
  refs: number;
  textReads: number;
  numReads: number;
  boolReads: number;
  /** Values named by equals/in conditions on this field, with how many name each: the selectivity estimate. */
  readonly named: Map<string | number, number>;
  /** Text values named by equals/not_equals/in/not_in, by id (ids start at 1), with reference counts. */
  readonly valueIds: Map<string, number>;
  readonly valueRefs: number[];
  readonly freeValueIds: number[];
  /** Posting handle (postings.ts) of the equals/in drivers naming each value id; 0 for none. */
  readonly textPostings: number[];
  /** Posting handle of the number equals/in drivers naming each value. */
  readonly numPostings: Map<number, number>;
  /** Posting handles of boolean drivers: [false, true]; 0 for none. */
  readonly boolPostings: [number, number];
  /** gt/gte (ascending), lt/lte (descending), between (ascending low bound). */
  readonly above: Thresholds;
  readonly below: Thresholds;
  readonly between: Thresholds;
  /** starts_with and ends_with operands, each with its driver's posting handle. */
  readonly prefixes: AffixIndex<number>;
  readonly suffixes: AffixIndex<number>;
  /** Residual drivers (contains, regex, negations), each carrying its condition: tested one by one. */
  readonly scan: Residuals;
  /**
   * By value id: the value's equals/in list and the affix and residual
   * drivers that hold for it, once found (never imaged). Whether they hold
   * depends on the value alone, so a request with a value rules name walks
   * one list without an affix probe, a regex or a substring test (bench:
   * engine, 10k mixed; cpu-per-request --workload evaluate). Filing or
   * unfiling an affix or residual driver forgets all (drivers.ts); the
   * value's equals/in list filed or unfiled, or its id freed, forgets its own.
   */
  textHeld: Kept<readonly number[]>;
  /** textHeld's lists with their entries copied side by side (held-entries.ts). */
  readonly heldEntries: HeldEntries;
}

/** A slot for field `name` at per-slot index `index`. */
export function createFieldSlot(name: string, index: number): FieldSlot {
  return {
    name, index, bit: 1 << (index & 31), refs: 0, textReads: 0, numReads: 0, boolReads: 0, named: new Map(),
    valueIds: new Map(), valueRefs: [0], freeValueIds: [], textPostings: [0], numPostings: new Map(), boolPostings: [0, 0],
    above: createThresholds(1), below: createThresholds(-1), between: createThresholds(1),
    prefixes: createAffixIndex(false), suffixes: createAffixIndex(true), scan: createResiduals(), textHeld: [],
    heldEntries: createHeldEntries(),
  };
}

/** Forgets what was kept for value id `id` (its equals/in list was filed or unfiled, or the id freed). */
export function forgetTextHeld(slot: FieldSlot, id: number): void {
  forgetAt(slot.textHeld, id);
  forgetEntries(slot.heldEntries, id);
}

/** Forgets what was kept for every value of the field (an affix or residual driver was filed or unfiled). */
export function forgetAllTextHeld(slot: FieldSlot): void {
  slot.textHeld = [];
  forgetAllEntries(slot.heldEntries);
}


/** The values an equals/in predicate names (none for other kinds). */
export function namedValues(pred: Predicate): Iterable<string | number> {
  switch (pred.kind) {
    case Kind.TEXT_EQ: return [pred.text];
    case Kind.TEXT_IN: return pred.texts;
    case Kind.NUM_EQ: return [pred.num];
    case Kind.NUM_IN: return pred.nums;
    default: return [];
  }
}

/** The text values a predicate compares by id (equals, not_equals, in, not_in on strings). */
export function comparedTexts(pred: Predicate): Iterable<string> {
  switch (pred.kind) {
    case Kind.TEXT_EQ: case Kind.TEXT_NE: return [pred.text];
    case Kind.TEXT_IN: case Kind.TEXT_NOT_IN: return pred.texts;
    default: return [];
  }
}

/** The numbers a number equals/in predicate names (none for other kinds). */
export function comparedNumbers(pred: Predicate): Iterable<number> {
  switch (pred.kind) {
    case Kind.NUM_EQ: return [pred.num];
    case Kind.NUM_IN: return pred.nums;
    default: return [];
  }
}

/**
 * Estimated share of requests for which an equals/in predicate holds,
 * assuming requests spread over the values rules name: items / distinct
 * values named on the field (1 when the field is new to the rule set).
 */
export function estimateShare(slot: FieldSlot | undefined, pred: Predicate): number {
  const items = pred.kind === Kind.TEXT_IN ? pred.texts.size : pred.kind === Kind.NUM_IN ? pred.nums.size : 1;
  const distinct = slot === undefined ? 0 : slot.named.size;
  return distinct === 0 ? 1 : Math.min(1, items / distinct);
}

/** Acquires the id of text value `text` on the slot (a new id when no rule named it yet). */
export function acquireValueId(slot: FieldSlot, text: string): number {
  let id = slot.valueIds.get(text);
  if (id === undefined) {
    id = slot.freeValueIds.length > 0 ? slot.freeValueIds.pop()! : slot.valueRefs.length;
    slot.valueIds.set(internalized(text), id);
    slot.valueRefs[id] = 0;
    slot.textPostings[id] = 0;
  }
  slot.valueRefs[id] += 1;
  return id;
}

/**
 * The same text as V8's one internalized copy (a property name is one, and
 * `Object.keys` hands it back). JSON.parse internalizes short strings, so a
 * request's short value found here is the same string and the lookup
 * compares pointers; one no rule names is another internalized string, a
 * miss without reading either. Texts from a split `in` list, an engine
 * image or a generated workload are not internalized until made so here
 * (bench: engine-ab, 10k: -0.3 to -0.6 µs of ~11 per evaluation).
 */
function internalized(text: string): string {
  return Object.keys({ [text]: 0 })[0];
}

export function releaseValueId(slot: FieldSlot, text: string): void {
  const id = slot.valueIds.get(text);
  if (id === undefined) return;
  slot.valueRefs[id] -= 1;
  if (slot.valueRefs[id] > 0) return;
  slot.valueIds.delete(text);
  slot.freeValueIds.push(id);
  // The number may come to name another value.
  forgetTextHeld(slot, id);
}

/** The literals a match of a residual driver must contain (none for negations). */
export function requiredLiterals(pred: Predicate): string[] {
  if (pred.kind === Kind.CONTAINS) return [pred.text];
  if (pred.kind === Kind.REGEX) return [pred.filter.prefix, pred.filter.suffix, ...pred.filter.all];
  return [];
}
