/**
 * starts_with (or ends_with) operands on one field, filed by operand in a
 * hash map, with the distinct operand lengths kept sorted: a request value
 * looks up its own prefix (suffix) of each distinct length that fits, and
 * meets exactly the operands that are prefixes (suffixes) of it. Rule sets
 * name few distinct lengths per field (about 4 on the bench's workload), so
 * this is a few probes where a character trie walked one node per
 * character, each node a map of its own (bench: engine, 10k mixed).
 *
 * Most probes miss, and a probe costs a substring and a hash, so each
 * length also keeps a 32-bit fingerprint filter of its operands (one bit
 * per hashed pair of the operand's first and last character): a value whose
 * pair's bit is clear skips that length without a probe.
 *
 * Lengths and offsets are UTF-16 code units, as String.prototype.startsWith
 * compares them.
 */
export interface AffixIndex<T> {
  /** Items by operand. */
  readonly byOperand: Map<string, T>;
  /** Distinct operand lengths, ascending, each with its fingerprint filter. */
  readonly lengths: number[];
  readonly filters: number[];
  /** Per length, how many operands set each filter bit (32 counts per length). */
  readonly bitCounts: Int32Array[];
  /** true: operands are suffixes. */
  readonly suffix: boolean;
}

export function createAffixIndex<T>(suffix: boolean): AffixIndex<T> {
  return { byOperand: new Map(), lengths: [], filters: [], bitCounts: [], suffix };
}

/**
 * The filter bit (0..31) of the part of length `length` at the start (or
 * end) of `text`: a hash of its outer characters. The empty part has none
 * and is always probed.
 */
function fingerprint(text: string, length: number, suffix: boolean): number {
  const n = text.length;
  const first = suffix ? n - length : 0;
  const pair = (text.charCodeAt(first) << 16) ^ text.charCodeAt(first + length - 1);
  return Math.imul(pair ^ length, 0x9e3779b1) >>> 27;
}

/** Files `item` under `operand` (one item per operand; the caller shares it). */
export function affixInsert<T>(index: AffixIndex<T>, operand: string, item: T): void {
  index.byOperand.set(operand, item);
  const length = operand.length;
  let at = 0;
  while (at < index.lengths.length && index.lengths[at] < length) at++;
  if (index.lengths[at] !== length) {
    index.lengths.splice(at, 0, length);
    index.filters.splice(at, 0, length === 0 ? ~0 : 0);
    index.bitCounts.splice(at, 0, new Int32Array(32));
  }
  if (length === 0) return;
  const bit = fingerprint(operand, length, index.suffix);
  index.bitCounts[at][bit] += 1;
  index.filters[at] |= 1 << bit;
}

export function affixRemove<T>(index: AffixIndex<T>, operand: string): void {
  if (!index.byOperand.delete(operand)) return;
  const length = operand.length;
  const at = index.lengths.indexOf(length);
  const counts = index.bitCounts[at];
  if (length > 0) {
    const bit = fingerprint(operand, length, index.suffix);
    counts[bit] -= 1;
    if (counts[bit] === 0) index.filters[at] &= ~(1 << bit);
  }
  // A length stays while an operand has it: the empty operand sets no count, so look it up.
  if (length === 0 ? !index.byOperand.has('') : counts.every((c) => c === 0)) {
    index.lengths.splice(at, 1);
    index.filters.splice(at, 1);
    index.bitCounts.splice(at, 1);
  }
}

/** Calls `visit` with the item of every operand that is a prefix (suffix) of `text`. */
export function affixWalk<T>(index: AffixIndex<T>, text: string, visit: (item: T) => void): void {
  const lengths = index.lengths;
  const n = text.length;
  for (let i = 0; i < lengths.length; i++) {
    const length = lengths[i];
    if (length > n) return;
    if (length > 0 && (index.filters[i] & (1 << fingerprint(text, length, index.suffix))) === 0) continue;
    const part = length === n ? text : index.suffix ? text.slice(n - length) : text.slice(0, length);
    const item = index.byOperand.get(part);
    if (item !== undefined) visit(item);
  }
}
