/**
 * Per-field index: the request value's typed views for the current evaluation,
 * and the driver atoms on this field, filed by how they are found: hash maps
 * for equality and `in`, two lists for booleans, sorted lists for numeric
 * comparisons, tries for prefixes and suffixes, and a residual list scanned
 * one by one.
 */
import { createTrieNode, trieInsert, trieRemove, type TrieNode } from './affix-trie';
import { Kind, type InputView, type Predicate } from './predicates';

/**
 * A predicate shared by every rule using it, with the groups it drives. The
 * predicate's members are copied in rather than referenced, so a check loads
 * one object, not two (bench: engine, 10k/100k mixed, where --cpu-prof puts
 * the object loads in holds() among the hottest lines).
 */
export interface Atom extends Predicate {
  readonly slot: FieldSlot;
  /**
   * Groups for which this atom is a counted driver, as indexes into the
   * engine's group table (a posting list of small integers, so walking it
   * loads no objects); the atom is indexed while non-empty.
   */
  readonly groups: number[];
  /**
   * Presence bits every one of those groups requires (the intersection of
   * their masks): a request lacking one cannot fire any of them, so the atom
   * is neither tested nor counted.
   */
  fields: number;
  /** Rule parts holding this atom (drivers and verify lists). */
  refs: number;
  /** Regex results are remembered per evaluation: many rules share a pattern. */
  memoEpoch: number;
  memo: boolean;
}

/** A condition group checked directly, once its rule is a candidate. */
export interface VerifyGroup {
  readonly operator: 'AND' | 'OR';
  readonly atoms: readonly Atom[];
}

export interface FieldSlot extends InputView {
  readonly name: string;
  /**
   * This field's bit in a request's presence mask (fields beyond 32 share
   * bits: a shared bit can only say "maybe present", never "absent" wrongly).
   */
  readonly bit: number;
  /** The evaluation in which this field was last present; present now iff equal to the current one. */
  epoch: number;
  refs: number;
  /** Atoms by input view, so a request value is only converted to the views some atom reads. */
  textAtoms: number;
  numAtoms: number;
  boolAtoms: number;
  /** Values named by equals/in atoms on this field, with how many atoms name each: the selectivity estimate. */
  readonly named: Map<string | number, number>;
  readonly textEq: Map<string, Atom[]>;
  readonly numEq: Map<number, Atom[]>;
  readonly boolTrue: Atom[];
  readonly boolFalse: Atom[];
  /** gt/gte, ascending threshold: the true ones are a prefix. */
  readonly above: Atom[];
  /** lt/lte, descending threshold: the true ones are a prefix. */
  readonly below: Atom[];
  /** between, ascending low bound: candidates are a prefix, each checked against its high bound. */
  readonly between: Atom[];
  /** starts_with and ends_with operands: the value walks each trie once. */
  readonly prefixes: TrieNode<Atom>;
  readonly suffixes: TrieNode<Atom>;
  /** contains, regex and negations: tested one by one. */
  readonly scan: Atom[];
}

/** A slot for field `name`; `ordinal` numbers the fields so each gets a presence bit. */
export function createFieldSlot(name: string, ordinal: number): FieldSlot {
  return {
    name, bit: 1 << (ordinal & 31), epoch: 0, refs: 0, text: '', num: NaN, bool: -1, textAtoms: 0, numAtoms: 0, boolAtoms: 0, named: new Map(),
    textEq: new Map(), numEq: new Map(), boolTrue: [], boolFalse: [],
    above: [], below: [], between: [], prefixes: createTrieNode(), suffixes: createTrieNode(), scan: [],
  };
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

export type View = 'text' | 'num' | 'bool';

export function viewOf(kind: Kind): View {
  if (kind <= Kind.REGEX) return 'text';
  if (kind === Kind.BOOL_EQ) return 'bool';
  return 'num';
}

/** Files a driver atom in its slot's structures. */
export function indexAtom(atom: Atom): void {
  const pred: Predicate = atom;
  const slot = atom.slot;
  switch (pred.kind) {
    case Kind.TEXT_EQ: return addPosting(slot.textEq, pred.text, atom);
    case Kind.TEXT_IN: for (const t of pred.texts) addPosting(slot.textEq, t, atom); return;
    case Kind.NUM_EQ: return addPosting(slot.numEq, pred.num, atom);
    case Kind.NUM_IN: for (const n of pred.nums) addPosting(slot.numEq, n, atom); return;
    case Kind.BOOL_EQ: (pred.num === 1 ? slot.boolTrue : slot.boolFalse).push(atom); return;
    case Kind.NUM_GT: case Kind.NUM_GTE: return insertSorted(slot.above, atom, 1);
    case Kind.NUM_LT: case Kind.NUM_LTE: return insertSorted(slot.below, atom, -1);
    case Kind.BETWEEN: return insertSorted(slot.between, atom, 1);
    case Kind.STARTS_WITH: return trieInsert(slot.prefixes, pred.text, false, atom);
    case Kind.ENDS_WITH: return trieInsert(slot.suffixes, pred.text, true, atom);
    default: slot.scan.push(atom);
  }
}

/** Takes a driver atom out of its slot's structures (the inverse of indexAtom). */
export function unindexAtom(atom: Atom): void {
  const pred: Predicate = atom;
  const slot = atom.slot;
  switch (pred.kind) {
    case Kind.TEXT_EQ: return removePosting(slot.textEq, pred.text, atom);
    case Kind.TEXT_IN: for (const t of pred.texts) removePosting(slot.textEq, t, atom); return;
    case Kind.NUM_EQ: return removePosting(slot.numEq, pred.num, atom);
    case Kind.NUM_IN: for (const n of pred.nums) removePosting(slot.numEq, n, atom); return;
    case Kind.BOOL_EQ: return removeItem(pred.num === 1 ? slot.boolTrue : slot.boolFalse, atom);
    case Kind.NUM_GT: case Kind.NUM_GTE: return removeItem(slot.above, atom);
    case Kind.NUM_LT: case Kind.NUM_LTE: return removeItem(slot.below, atom);
    case Kind.BETWEEN: return removeItem(slot.between, atom);
    case Kind.STARTS_WITH: return trieRemove(slot.prefixes, pred.text, false, atom);
    case Kind.ENDS_WITH: return trieRemove(slot.suffixes, pred.text, true, atom);
    default: removeItem(slot.scan, atom);
  }
}

function addPosting<K>(map: Map<K, Atom[]>, key: K, atom: Atom): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [atom]);
  else list.push(atom);
}

function removePosting<K>(map: Map<K, Atom[]>, key: K, atom: Atom): void {
  const list = map.get(key);
  if (list === undefined) return;
  removeItem(list, atom);
  if (list.length === 0) map.delete(key);
}

export function removeItem<T>(list: T[], item: T): void {
  const i = list.indexOf(item);
  if (i >= 0) list.splice(i, 1);
}

/** Binary-search insertion by `pred.num` (direction 1 ascending, -1 descending): O(log n) + one splice. */
function insertSorted(list: Atom[], atom: Atom, direction: 1 | -1): void {
  const t = atom.num * direction;
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (list[mid].num * direction <= t) lo = mid + 1;
    else hi = mid;
  }
  list.splice(lo, 0, atom);
}
