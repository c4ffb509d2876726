/**
 * Conditions as arena words: how a compiled predicate is written into a
 * group or rule record (or a residual posting list), and how it is tested
 * against the current request. Operands are inline: numbers as float64s,
 * text equality as the value's id on its field (values named by rules are
 * interned per field, so `equals`/`in` compare integers, not strings),
 * other text operands and regexes by index into the engine's pools.
 *
 * Layout, in words, every condition an even number of words long (so a
 * float64 operand sits at an even offset):
 *   word 0: kind | (size in words << 8); word 1: field slot; then
 *   TEXT_EQ, TEXT_NE                 [2] value id
 *   TEXT_IN, TEXT_NOT_IN             [2] n, [3..] n value ids, ascending
 *   STARTS_WITH ... NOT_CONTAINS     [2] string index
 *   REGEX                            [2] regex index
 *   BOOL_EQ                          [2] 1 true, 0 false
 *   NUM_EQ ... NUM_LTE               [2,3] float64
 *   BETWEEN                          [2,3] low, [4,5] high
 *   NUM_IN, NUM_NOT_IN               [2] n, [4..] n float64s, ascending
 * (`in` lists are sorted so a long one is searched, not scanned.)
 */
import { Layout } from './layout';
import { Kind, regexMatches, type CompiledRegex, type Predicate } from './predicates';

/** A compiled regex shared by every condition with the same field and pattern, its answer remembered per evaluation. */
export interface RegexEntry extends CompiledRegex {
  memoEpoch: number;
  memo: boolean;
}

/** A new entry for `regex`: no answer remembered yet. */
export function regexEntry(regex: CompiledRegex): RegexEntry {
  return { re: regex.re, filter: regex.filter, fast: regex.fast, memoEpoch: 0, memo: false };
}

/**
 * The current request, by field slot: what a condition reads. A slot is
 * present in this evaluation iff `slotEpoch[slot] === epoch`.
 */
export interface RequestView {
  epoch: number;
  slotEpoch: Int32Array;
  /** The value's id among the text values rules name on the field; 0 for any other value. */
  slotValue: Int32Array;
  /** NaN when the value is not a number. */
  slotNum: Float64Array;
  /** 1 true, 0 false, -1 not a boolean. */
  slotBool: Int8Array;
  slotText: string[];
  readonly strings: string[];
  readonly regexes: RegexEntry[];
}

/** How an operand is found in the engine's tables while a condition is written. */
export interface OperandIndex {
  slot(field: string): number;
  valueId(field: string, text: string): number;
  string(text: string): number;
  /** By predicate key: one entry per field and pattern, so its answer can be remembered per evaluation. */
  regex(key: string): number;
}

const even = (n: number): number => n + (n & 1);

/** Words `p` takes when written. */
export function conditionWords(p: Predicate): number {
  switch (p.kind) {
    case Kind.TEXT_IN: case Kind.TEXT_NOT_IN: return even(Layout.C_IDS + p.texts.size);
    case Kind.NUM_IN: case Kind.NUM_NOT_IN: return 2 * (Layout.C_NUMS + p.nums.size);
    case Kind.BETWEEN: return Layout.C_BETWEEN_WORDS;
    default: return Layout.C_WORDS;
  }
}

/** Writes `p` at word `at` (even). */
export function writeCondition(i32: Int32Array, f64: Float64Array, at: number, p: Predicate, operands: OperandIndex): void {
  i32[at + Layout.C_TAG] = p.kind | (conditionWords(p) << Layout.SIZE_SHIFT);
  i32[at + Layout.C_SLOT] = operands.slot(p.field);
  switch (p.kind) {
    case Kind.TEXT_EQ: case Kind.TEXT_NE:
      i32[at + Layout.C_OPERAND] = operands.valueId(p.field, p.text);
      return;
    case Kind.TEXT_IN: case Kind.TEXT_NOT_IN: {
      const ids = [...p.texts].map((text) => operands.valueId(p.field, text)).sort((a, b) => a - b);
      i32[at + Layout.C_COUNT] = ids.length;
      i32.set(ids, at + Layout.C_IDS);
      return;
    }
    case Kind.STARTS_WITH: case Kind.ENDS_WITH: case Kind.CONTAINS: case Kind.NOT_CONTAINS:
      i32[at + Layout.C_OPERAND] = operands.string(p.text);
      return;
    case Kind.REGEX:
      i32[at + Layout.C_OPERAND] = operands.regex(p.key);
      return;
    case Kind.BOOL_EQ:
      i32[at + Layout.C_OPERAND] = p.num;
      return;
    case Kind.NUM_IN: case Kind.NUM_NOT_IN: {
      const nums = [...p.nums].sort((a, b) => a - b);
      i32[at + Layout.C_COUNT] = nums.length;
      f64.set(nums, (at >> 1) + Layout.C_NUMS);
      return;
    }
    case Kind.BETWEEN:
      f64[(at >> 1) + Layout.C_NUM] = p.num;
      f64[(at >> 1) + Layout.C_NUM2] = p.num2;
      return;
    default:
      f64[(at >> 1) + Layout.C_NUM] = p.num;
  }
}

/** Words of the condition at `at`. */
export function sizeAt(i32: Int32Array, at: number): number {
  return i32[at + Layout.C_TAG] >> Layout.SIZE_SHIFT;
}

/** Writes a verify group's header; its conditions follow. */
export function writeGroupHead(i32: Int32Array, at: number, operator: 'AND' | 'OR', words: number): void {
  i32[at + Layout.C_TAG] = (operator === 'AND' ? Layout.GROUP_AND : Layout.GROUP_OR) | (words << Layout.SIZE_SHIFT);
  i32[at + Layout.GROUP_SPARE] = 0;
}

export function groupOperatorAt(i32: Int32Array, at: number): number {
  return i32[at + Layout.C_TAG] & Layout.KIND_MASK;
}

/** Whether the condition at `at` holds for the current request; absent field => false whatever the operator. */
export function testCondition(i32: Int32Array, f64: Float64Array, at: number, v: RequestView): boolean {
  const slot = i32[at + Layout.C_SLOT];
  if (v.slotEpoch[slot] !== v.epoch) return false;
  switch (i32[at + Layout.C_TAG] & Layout.KIND_MASK) {
    case Kind.TEXT_EQ: return v.slotValue[slot] === i32[at + Layout.C_OPERAND];
    case Kind.TEXT_NE: return v.slotValue[slot] !== i32[at + Layout.C_OPERAND];
    case Kind.TEXT_IN: return hasId(i32, at, v.slotValue[slot]);
    case Kind.TEXT_NOT_IN: return !hasId(i32, at, v.slotValue[slot]);
    case Kind.STARTS_WITH: return v.slotText[slot].startsWith(v.strings[i32[at + Layout.C_OPERAND]]);
    case Kind.ENDS_WITH: return v.slotText[slot].endsWith(v.strings[i32[at + Layout.C_OPERAND]]);
    case Kind.CONTAINS: return v.slotText[slot].includes(v.strings[i32[at + Layout.C_OPERAND]]);
    case Kind.NOT_CONTAINS: return !v.slotText[slot].includes(v.strings[i32[at + Layout.C_OPERAND]]);
    case Kind.REGEX: {
      const entry = v.regexes[i32[at + Layout.C_OPERAND]];
      if (entry.memoEpoch !== v.epoch) {
        entry.memoEpoch = v.epoch;
        entry.memo = regexMatches(entry, v.slotText[slot]);
      }
      return entry.memo;
    }
    case Kind.BOOL_EQ: return v.slotBool[slot] === i32[at + Layout.C_OPERAND];
    // NaN (not a number) fails every comparison below, including the negations.
    case Kind.NUM_EQ: return v.slotNum[slot] === f64[(at >> 1) + Layout.C_NUM];
    case Kind.NUM_NE: {
      const n = v.slotNum[slot];
      return n === n && n !== f64[(at >> 1) + Layout.C_NUM];
    }
    case Kind.NUM_GT: return v.slotNum[slot] > f64[(at >> 1) + Layout.C_NUM];
    case Kind.NUM_GTE: return v.slotNum[slot] >= f64[(at >> 1) + Layout.C_NUM];
    case Kind.NUM_LT: return v.slotNum[slot] < f64[(at >> 1) + Layout.C_NUM];
    case Kind.NUM_LTE: return v.slotNum[slot] <= f64[(at >> 1) + Layout.C_NUM];
    case Kind.BETWEEN: {
      const n = v.slotNum[slot];
      return n >= f64[(at >> 1) + Layout.C_NUM] && n <= f64[(at >> 1) + Layout.C_NUM2];
    }
    case Kind.NUM_IN: return hasNumber(i32, f64, at, v.slotNum[slot]);
    case Kind.NUM_NOT_IN: {
      const n = v.slotNum[slot];
      return n === n && !hasNumber(i32, f64, at, n);
    }
    default: return false;
  }
}

/** In-lists up to this long are scanned; longer ones binary-searched. */
const SCAN = 8;

/** Whether an `in` list of value ids holds `id` (0, a value no rule names, is in none). */
function hasId(i32: Int32Array, at: number, id: number): boolean {
  return sortedHas(i32, at + Layout.C_IDS, i32[at + Layout.C_COUNT], id);
}

function hasNumber(i32: Int32Array, f64: Float64Array, at: number, n: number): boolean {
  return sortedHas(f64, (at >> 1) + Layout.C_NUMS, i32[at + Layout.C_COUNT], n);
}

/** Whether the ascending run of `count` values from `first` holds `x` (NaN is in no run). */
function sortedHas(values: Int32Array | Float64Array, first: number, count: number, x: number): boolean {
  let lo = first;
  let hi = first + count - 1;
  if (count <= SCAN) {
    for (let k = lo; k <= hi; k++) if (values[k] === x) return true;
    return false;
  }
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const v = values[mid];
    if (v === x) return true;
    if (v < x) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
}
