/**
 * What conditions read: a slot per field (its index into the per-slot
 * request arrays, its presence bit, the text values rules name on it) and
 * the interned operands (affix strings, compiled regexes), all reference
 * counted by the conditions that use them, so a rule's removal releases
 * exactly what its upsert took. The request view (code.ts) is the current
 * request's values in those slots.
 */
import { regexEntry, type OperandIndex, type RegexEntry, type RequestView } from './code';
import { acquireValueId, comparedTexts, createFieldSlot, namedValues, releaseValueId, type FieldSlot } from './field-index';
import { viewOf } from './operators';
import { Kind, type Predicate } from './predicates';

export interface Operands {
  /** Slots by field name. */
  readonly slots: ReadonlyMap<string, FieldSlot>;
  readonly view: RequestView;
  /** How writeCondition finds operands (code.ts). */
  readonly index: OperandIndex;
  /** Takes a reference on everything `pred` reads: its field's slot and views, its interned operands. */
  acquire(pred: Predicate): void;
  release(pred: Predicate): void;
  /** The presence mask of the fields `preds` read (acquired). */
  fieldsOf(preds: readonly Predicate[]): number;
  /** What restores these operands (image.ts). */
  image(): OperandsImage;
}

/** A pool as image.ts stores it: its items by index and each key's [key, index, refs]. */
export interface PoolImage<T> {
  readonly items: readonly T[];
  readonly entries: ReadonlyArray<readonly [string, number, number]>;
  readonly free: readonly number[];
}

/** Operands as image.ts stores them; the regexes' items are rebuilt from their predicates (a compiled regex is no bytes). */
export interface OperandsImage {
  readonly slots: readonly FieldSlot[];
  readonly freeSlots: readonly number[];
  readonly slotCount: number;
  readonly viewLength: number;
  readonly strings: PoolImage<string>;
  readonly regexes: PoolImage<RegexEntry>;
}

/** Interned values with reference counts; an index is reused once its value is released. */
interface Pool<T> {
  readonly items: T[];
  acquire(key: string, make: () => T): void;
  /** Drops a reference; returns the item when that was its last. */
  release(key: string): T | undefined;
  indexOf(key: string): number;
  image(): PoolImage<T>;
}

function createPool<T>(from?: PoolImage<T>): Pool<T> {
  const items: T[] = from === undefined ? [] : [...from.items];
  const entries = new Map<string, { index: number; refs: number }>();
  for (const [key, index, refs] of from?.entries ?? []) entries.set(key, { index, refs });
  const free: number[] = from === undefined ? [] : [...from.free];
  return {
    items,
    image: () => ({ items, entries: [...entries].map(([key, e]) => [key, e.index, e.refs] as const), free }),
    acquire(key, make) {
      const entry = entries.get(key);
      if (entry !== undefined) {
        entry.refs += 1;
        return;
      }
      const index = free.length > 0 ? free.pop()! : items.length;
      items[index] = make();
      entries.set(key, { index, refs: 1 });
    },
    release(key) {
      const entry = entries.get(key);
      if (entry === undefined) return undefined;
      entry.refs -= 1;
      if (entry.refs > 0) return undefined;
      entries.delete(key);
      free.push(entry.index);
      return items[entry.index];
    },
    indexOf(key) {
      return entries.get(key)?.index ?? -1;
    },
  };
}

/** Kinds whose text operand is interned in the string pool (the arena holds its index, code.ts). */
function isPooledText(kind: Kind): boolean {
  switch (kind) {
    case Kind.STARTS_WITH: case Kind.ENDS_WITH: case Kind.CONTAINS: case Kind.NOT_CONTAINS: return true;
    default: return false;
  }
}

/** New operands, or those of an image (its slots taken as they are). */
export function createOperands(from?: OperandsImage): Operands {
  const slots = new Map<string, FieldSlot>();
  for (const slot of from?.slots ?? []) slots.set(slot.name, slot);
  const freeSlots: number[] = from === undefined ? [] : [...from.freeSlots];
  let slotCount = from?.slotCount ?? 0;
  const strings = createPool<string>(from?.strings);
  const regexes = createPool<RegexEntry>(from?.regexes);
  const length = from?.viewLength ?? 32;
  const view: RequestView = {
    epoch: 0,
    slotEpoch: new Int32Array(length),
    slotValue: new Int32Array(length),
    slotNum: new Float64Array(length),
    slotBool: new Int8Array(length),
    slotText: [],
    strings: strings.items,
    regexes: regexes.items,
  };

  function growSlots(): void {
    const n = view.slotEpoch.length * 2;
    const grown = <T extends Int32Array | Float64Array | Int8Array>(old: T, make: (n: number) => T): T => {
      const array = make(n);
      array.set(old);
      return array;
    };
    view.slotEpoch = grown(view.slotEpoch, (k) => new Int32Array(k));
    view.slotValue = grown(view.slotValue, (k) => new Int32Array(k));
    view.slotNum = grown(view.slotNum, (k) => new Float64Array(k));
    view.slotBool = grown(view.slotBool, (k) => new Int8Array(k));
  }

  function acquire(pred: Predicate): void {
    let slot = slots.get(pred.field);
    if (slot === undefined) {
      const index = freeSlots.length > 0 ? freeSlots.pop()! : slotCount++;
      if (index >= view.slotEpoch.length) growSlots();
      // A reused index must not look present in the current evaluation.
      view.slotEpoch[index] = 0;
      slot = createFieldSlot(pred.field, index);
      slots.set(pred.field, slot);
    }
    slot.refs += 1;
    const reads = viewOf(pred.kind);
    if (reads === 'text') slot.textReads += 1;
    else if (reads === 'num') slot.numReads += 1;
    else slot.boolReads += 1;
    for (const v of namedValues(pred)) slot.named.set(v, (slot.named.get(v) ?? 0) + 1);
    for (const text of comparedTexts(pred)) acquireValueId(slot, text);
    if (pred.kind === Kind.REGEX) {
      regexes.acquire(pred.key, () => regexEntry({ re: pred.re!, filter: pred.filter, fast: pred.fast }));
    } else if (isPooledText(pred.kind)) {
      strings.acquire(pred.text, () => pred.text);
    }
  }

  function release(pred: Predicate): void {
    const slot = slots.get(pred.field)!;
    const reads = viewOf(pred.kind);
    if (reads === 'text') slot.textReads -= 1;
    else if (reads === 'num') slot.numReads -= 1;
    else slot.boolReads -= 1;
    for (const v of namedValues(pred)) {
      const left = (slot.named.get(v) ?? 1) - 1;
      if (left === 0) slot.named.delete(v);
      else slot.named.set(v, left);
    }
    for (const text of comparedTexts(pred)) releaseValueId(slot, text);
    if (pred.kind === Kind.REGEX) regexes.release(pred.key);
    else if (isPooledText(pred.kind)) strings.release(pred.text);
    slot.refs -= 1;
    if (slot.refs === 0) {
      slots.delete(slot.name);
      freeSlots.push(slot.index);
    }
  }

  function fieldsOf(preds: readonly Predicate[]): number {
    let mask = 0;
    for (const p of preds) mask |= slots.get(p.field)!.bit;
    return mask;
  }

  return {
    slots,
    view,
    index: {
      slot: (field) => slots.get(field)!.index,
      valueId: (field, text) => slots.get(field)!.valueIds.get(text)!,
      string: (text) => strings.indexOf(text),
      regex: (key) => regexes.indexOf(key),
    },
    acquire,
    release,
    fieldsOf,
    image: () => ({
      slots: [...slots.values()], freeSlots, slotCount, viewLength: view.slotEpoch.length, strings: strings.image(), regexes: regexes.image(),
    }),
  };
}
