/**
 * Filing drivers in their field's index: each distinct driver has one
 * posting list (postings.ts), found where the request's value looks for it
 * (field-index.ts): text equals/in under the named value's id (an `in`
 * under each of its items), numbers under the value, booleans under
 * true/false, thresholds in sorted order, affixes by operand, and the rest
 * (contains, regex, negations) in the residual list with their condition in
 * the block. A list is created with its first entry and unfiled with its
 * last.
 */
import { affixInsert, affixRemove } from './affix-index';
import type { Arena } from './arena';
import { conditionWords, writeCondition } from './code';
import { comparedNumbers, comparedTexts, forgetAllTextHeld, forgetTextHeld, requiredLiterals, type FieldSlot } from './field-index';
import { forgetAllEntries, forgetEntries } from './held-entries';
import { requiredSignature } from './literal-signature';
import type { Operands } from './operands';
import { Layout } from './layout';
import type { Postings } from './postings';
import { Kind, type Predicate } from './predicates';
import { addResidual, removeResidual } from './residuals';
import { insertThreshold, removeThreshold, type Thresholds } from './thresholds';

export interface Drivers {
  /** Adds `target` (a group record, or ~rule number) with its presence mask to every list `pred` drives. */
  attach(pred: Predicate, target: number, mask: number): void;
  /** Takes `target` out of those lists once, unfiling the ones left empty. */
  detach(pred: Predicate, target: number): void;
  /** The lists `pred` feeds, NONE for each one missing (inspect.ts). */
  lists(pred: Predicate): number[];
  /** The threshold, affix and residual lists by predicate key (image.ts). */
  readonly keyed: ReadonlyMap<string, number>;
}

/** Kinds driven from the residual list: tested one by one, their condition carried in the posting block. */
function isResidual(kind: Kind): boolean {
  switch (kind) {
    case Kind.TEXT_NE: case Kind.TEXT_NOT_IN: case Kind.CONTAINS: case Kind.NOT_CONTAINS: case Kind.REGEX:
    case Kind.NUM_NE: case Kind.NUM_NOT_IN:
      return true;
    default:
      return false;
  }
}

function thresholdsOf(slot: FieldSlot, kind: Kind): Thresholds {
  if (kind === Kind.NUM_GT || kind === Kind.NUM_GTE) return slot.above;
  if (kind === Kind.NUM_LT || kind === Kind.NUM_LTE) return slot.below;
  return slot.between;
}

/** `keyed`: an image's lists by predicate key, whose slots and postings were restored with it. */
export function createDrivers(arena: Arena, postings: Postings, operands: Operands, keyed = new Map<string, number>()): Drivers {
  // Threshold, affix and residual drivers by predicate key: one list per distinct predicate.

  /** The lists `pred` feeds (one per item of an `in`), created and filed when `create`; NONE for a missing one otherwise. */
  function handles(pred: Predicate, create: boolean): number[] {
    const slot = operands.slots.get(pred.field)!;
    const found: number[] = [];
    const take = (h: number | undefined, file: (h: number) => void): void => {
      if (h !== undefined && h !== Layout.NONE) found.push(h);
      else if (!create) found.push(Layout.NONE);
      else {
        const made = postings.create(isResidual(pred.kind) ? conditionWords(pred) : 0);
        file(made);
        found.push(made);
      }
    };
    switch (pred.kind) {
      case Kind.TEXT_EQ: case Kind.TEXT_IN:
        for (const text of comparedTexts(pred)) {
          const id = slot.valueIds.get(text)!;
          take(slot.textPostings[id], (h) => {
            slot.textPostings[id] = h;
            forgetTextHeld(slot, id);
          });
        }
        break;
      case Kind.NUM_EQ: case Kind.NUM_IN:
        for (const n of comparedNumbers(pred)) {
          take(slot.numPostings.get(n), (h) => slot.numPostings.set(n, h));
        }
        break;
      case Kind.BOOL_EQ:
        take(slot.boolPostings[pred.num], (h) => (slot.boolPostings[pred.num] = h));
        break;
      default:
        take(keyed.get(pred.key), (h) => {
          keyed.set(pred.key, h);
          fileKeyed(slot, pred, h);
        });
    }
    return found;
  }

  function fileKeyed(slot: FieldSlot, pred: Predicate, h: number): void {
    switch (pred.kind) {
      case Kind.NUM_GT: case Kind.NUM_LT:
        return insertThreshold(thresholdsOf(slot, pred.kind), pred.num, NaN, false, h);
      case Kind.NUM_GTE: case Kind.NUM_LTE: case Kind.BETWEEN:
        return insertThreshold(thresholdsOf(slot, pred.kind), pred.num, pred.num2, true, h);
      case Kind.STARTS_WITH: forgetAllTextHeld(slot); return affixInsert(slot.prefixes, pred.text, h);
      case Kind.ENDS_WITH: forgetAllTextHeld(slot); return affixInsert(slot.suffixes, pred.text, h);
      default:
        writeCondition(arena.i32, arena.f64, postings.at[h] + Layout.P_HEAD, pred, operands.index);
        addResidual(slot.scan, requiredSignature(requiredLiterals(pred)), h);
        forgetAllTextHeld(slot);
    }
  }

  function unfile(pred: Predicate, h: number): void {
    const slot = operands.slots.get(pred.field)!;
    switch (pred.kind) {
      case Kind.TEXT_EQ: case Kind.TEXT_IN:
        for (const text of comparedTexts(pred)) {
          const id = slot.valueIds.get(text)!;
          if (slot.textPostings[id] !== h) continue;
          slot.textPostings[id] = Layout.NONE;
          forgetTextHeld(slot, id);
        }
        return;
      case Kind.NUM_EQ: case Kind.NUM_IN:
        for (const n of comparedNumbers(pred)) if (slot.numPostings.get(n) === h) slot.numPostings.delete(n);
        return;
      case Kind.BOOL_EQ:
        slot.boolPostings[pred.num] = Layout.NONE;
        return;
      case Kind.NUM_GT: case Kind.NUM_GTE: case Kind.NUM_LT: case Kind.NUM_LTE: case Kind.BETWEEN:
        removeThreshold(thresholdsOf(slot, pred.kind), h);
        break;
      case Kind.STARTS_WITH: affixRemove(slot.prefixes, pred.text); forgetAllTextHeld(slot); break;
      case Kind.ENDS_WITH: affixRemove(slot.suffixes, pred.text); forgetAllTextHeld(slot); break;
      default: removeResidual(slot.scan, h); forgetAllTextHeld(slot);
    }
    keyed.delete(pred.key);
  }

  /** An entry of `pred`'s lists came or went: forget the values' copies of them (held-entries.ts). */
  function forgetCopies(pred: Predicate): void {
    const slot = operands.slots.get(pred.field)!;
    // Nothing copied yet (a build, a start): nothing to look up.
    if (slot.heldEntries.used === 1) return;
    switch (pred.kind) {
      case Kind.TEXT_EQ: case Kind.TEXT_IN:
        for (const text of comparedTexts(pred)) forgetEntries(slot.heldEntries, slot.valueIds.get(text)!);
        return;
      case Kind.STARTS_WITH: case Kind.ENDS_WITH:
        return forgetAllEntries(slot.heldEntries);
      default:
        if (isResidual(pred.kind)) forgetAllEntries(slot.heldEntries);
    }
  }

  return {
    attach(pred, target, mask) {
      for (const h of handles(pred, true)) postings.add(h, target, mask);
      forgetCopies(pred);
    },
    detach(pred, target) {
      for (const h of handles(pred, false)) {
        if (h === Layout.NONE) continue;
        if (postings.remove(h, target) > 0) continue;
        unfile(pred, h);
        postings.destroy(h);
      }
      forgetCopies(pred);
    },
    lists: (pred) => handles(pred, false),
    keyed,
  };
}
