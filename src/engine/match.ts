/**
 * The evaluate half of the engine: reads the state build.ts wrote and never
 * changes it, but for per-evaluation stamps. Evaluate visits only the
 * indexes of fields present in the request (field-index.ts), counts driver
 * hits per group, and verifies the remaining conditions of the few
 * candidates directly (layout.ts: what each word means).
 *
 * The tricks on this path, each with the bench case that exercises it
 * (`node dist/bench/run.js --only engine`; docs/bench-method.md):
 * - per-evaluation state (field presence, hit counts, regex answers) is
 *   stamped with an evaluation counter ("epoch"), never cleared, so evaluate
 *   allocates little beyond the answer (mixed 10k and 100k);
 * - the arena, its views and the hot counters are closure locals refreshed
 *   once per call, not state members read per word (mixed 10k);
 * - a posting entry carries the presence mask of the fields its group needs,
 *   so a request lacking one skips it unread (scoped 100k);
 * - a group one hit decides is named by its rule number (ruleTarget), so a
 *   hit reads no record (mixed 10k: half of all hits);
 * - a value's kept lists are walked as one record of their copied entries,
 *   not block by block through the handle table (held-entries.ts;
 *   engine-ab, 10k: -0.85 to -1.3 µs of 7.0 to 8.5);
 * - thresholds are sorted, so only the true prefix is walked (broad 10k);
 * - residual conditions are skipped on a 64-bit literal signature before
 *   any string test (regex-only 1k);
 * - a number is turned into text only when a text condition reads its field
 *   (mixed 10k);
 * - answers sort by a numeric key that orders ids as strings do (broad 10k:
 *   a thousand matches per answer).
 */
import { affixWalk } from './affix-index';
import { groupOperatorAt, sizeAt, testCondition } from './code';
import type { FieldSlot } from './field-index';
import { keepEntries } from './held-entries';
import { sortByOrder } from './id-order';
import { keepAt, type Kept } from './kept';
import { Layout } from './layout';
import { addSignature } from './literal-signature';
import type { Residuals } from './residuals';
import type { EngineState } from './state';
import type { Fields } from './types';
import { inputBoolean, inputNumber } from './values';

const hasOwn = Object.prototype.hasOwnProperty;

export interface Evaluator {
  evaluate(fields: Fields): string[];
  evaluateDerived<T>(fields: Fields, derive: (id: string) => T): T[];
}

/** The evaluate functions over `state`; the epoch wraps (every stamp cleared) after `epochLimit` evaluations. */
export function createEvaluator(state: EngineState, epochLimit: number): Evaluator {
  const { arena, postings, rules, ruleIds, ruleKeys } = state;
  const { slots, view } = state.operands;
  // A restored engine goes on from the epoch it was imaged at (image.ts), so the stamps it restored are all past ones.
  let epoch = state.operands.view.epoch;
  // Refreshed at each evaluate: the arena and handle table are replaced when they grow.
  let i32 = arena.i32;
  let f64 = arena.f64;
  let at = postings.at;
  // The current request's presence mask (see FieldSlot.bit).
  let presence = 0;
  // The matching rules' numbers, collected in evaluation order.
  let out: number[] = [];
  // Reused between calls: the slots present in the current request; a value's literal signature.
  const present: FieldSlot[] = [];
  const signature = new Int32Array(2);

  function holds(p: number): boolean {
    return testCondition(i32, f64, p, view);
  }

  function groupHolds(q: number): boolean {
    const end = q + sizeAt(i32, q);
    if (groupOperatorAt(i32, q) === Layout.GROUP_AND) {
      for (let p = q + Layout.GROUP_HEAD; p < end; p += sizeAt(i32, p)) if (!holds(p)) return false;
      return true;
    }
    for (let p = q + Layout.GROUP_HEAD; p < end; p += sizeAt(i32, p)) if (holds(p)) return true;
    return false;
  }

  /** Counts a hit on a group or rule record; true when it is the hit the record needed last. */
  function completes(record: number): boolean {
    let count: number;
    if (i32[record + Layout.EPOCH] !== epoch) {
      i32[record + Layout.EPOCH] = epoch;
      count = i32[record + Layout.COUNT] = 1;
    } else count = ++i32[record + Layout.COUNT];
    return count === i32[record + Layout.NEED];
  }

  /** A driver of group `g` hit: count it; once all have, verify the group's other members, then count it for its rule. */
  function hitGroup(g: number): void {
    if (!completes(g)) return;
    const end = g + Layout.G_HEAD + i32[g + Layout.G_WORDS];
    for (let p = g + Layout.G_HEAD; p < end; p += sizeAt(i32, p)) if (!holds(p)) return;
    const rule = i32[g + Layout.G_RULE];
    if (rule === Layout.NO_RULE_RECORD) {
      const groupsEnd = end + i32[g + Layout.G_GROUP_WORDS];
      for (let q = end; q < groupsEnd; q += sizeAt(i32, q)) if (!groupHolds(q)) return;
      // A group fires at most once per evaluation (an OR rule's other groups may list it too).
      out.push(i32[g + Layout.G_INDEX]);
      return;
    }
    if (!completes(rule)) return;
    const rend = rule + Layout.R_HEAD + i32[rule + Layout.R_WORDS];
    for (let q = rule + Layout.R_HEAD; q < rend; q += sizeAt(i32, q)) if (!groupHolds(q)) return;
    out.push(i32[rule + Layout.R_INDEX]);
  }

  /** Walks a posting block: every group whose required fields are present gets a hit. */
  function walk(block: number): void {
    if ((i32[block + Layout.P_MASK] & ~presence) !== 0) return;
    let e = block + Layout.P_HEAD + i32[block + Layout.P_COND];
    const end = e + Layout.ENTRY_WORDS * i32[block + Layout.P_LEN];
    for (; e < end; e += Layout.ENTRY_WORDS) {
      if ((i32[e + Layout.E_MASK] & ~presence) !== 0) continue;
      const target = i32[e + Layout.E_TARGET];
      // A group one hit decides names its rule (ruleTarget) instead of a record.
      if (target < Layout.RULE_TARGET_BELOW) out.push(~target);
      else hitGroup(target);
    }
  }

  function walkHandle(handle: number): void {
    walk(at[handle]);
  }

  function drive(slot: FieldSlot): void {
    const s = slot.index;
    // The value's id among the values rules name on the field (0: none names it).
    const id = view.slotValue[s];
    if (id !== Layout.NO_VALUE) {
      // A value rules name: its equals/in list and the affix and residual drivers that hold for it,
      // found once (field-index.ts textHeld) and their entries copied in one record (held-entries.ts).
      const held = slot.heldEntries;
      let r = id < held.byValue.length ? held.byValue[id] : 0;
      if (r === 0) r = keepEntries(held, id, slot.textHeld[id] ?? heldTextDrivers(slot, id, view.slotText[s]), i32, at);
      const words = held.words;
      const end = r + 1 + words[r];
      // walk()'s loop over the copy (a shared function measured +0.17 µs: engine-ab, 10k).
      for (let e = r + 1; e < end; e += Layout.ENTRY_WORDS) {
        if ((words[e + Layout.E_MASK] & ~presence) !== 0) continue;
        const target = words[e + Layout.E_TARGET];
        if (target < Layout.RULE_TARGET_BELOW) out.push(~target);
        else hitGroup(target);
      }
      for (let k = end + 1, last = end + words[end]; k <= last; k++) walk(at[words[k]]);
    }
    const num = view.slotNum[s];
    if (num === num) {
      if (slot.numPostings.size > 0) {
        const h = slot.numPostings.get(num);
        if (h !== undefined) walk(at[h]);
      }
      // Sorted thresholds: walk the true prefix only (bench: engine, broad).
      const above = slot.above;
      for (let i = 0; i < above.size; i++) {
        const t = above.bound[i];
        if (t > num) break;
        if ((t < num || above.inclusive[i] === 1)) walk(at[above.handle[i]]);
      }
      const below = slot.below;
      for (let i = 0; i < below.size; i++) {
        const t = below.bound[i];
        if (t < num) break;
        if ((t > num || below.inclusive[i] === 1)) walk(at[below.handle[i]]);
      }
      const between = slot.between;
      for (let i = 0; i < between.size; i++) {
        if (between.bound[i] > num) break;
        if (num <= between.high[i]) walk(at[between.handle[i]]);
      }
    }
    const bool = view.slotBool[s];
    if (bool !== Layout.NOT_BOOL) {
      const h = slot.boolPostings[bool];
      if (h !== Layout.NONE) walk(at[h]);
    }
    if (id !== Layout.NO_VALUE) return;
    const text = view.slotText[s];
    if (slot.prefixes.lengths.length > 0) affixWalk(slot.prefixes, text, walkHandle);
    if (slot.suffixes.lengths.length > 0) affixWalk(slot.suffixes, text, walkHandle);
    if (slot.scan.size > 0) residualsHolding(slot.scan, text, presence, walkHandle);
  }

  /**
   * Calls `visit` with the handle of each residual driver whose condition
   * holds for `text` (the slot's stamped value), among those whose groups'
   * fields are all in `present` (a presence mask; ~0: every driver).
   */
  function residualsHolding(scan: Residuals, text: string, present: number, visit: (handle: number) => void): void {
    signature[0] = 0;
    signature[1] = 0;
    addSignature(text, signature);
    const lo = ~signature[0];
    const hi = ~signature[1];
    const needLo = scan.needLo;
    const needHi = scan.needHi;
    for (let i = 0; i < scan.size; i++) {
      // Cheapest first: a value lacking a required literal, then a request lacking a field
      // every group of the driver needs, skip the test.
      if (((needLo[i] & lo) | (needHi[i] & hi)) !== 0) continue;
      const block = at[scan.handle[i]];
      if ((i32[block + Layout.P_MASK] & ~present) === 0 && holds(block + Layout.P_HEAD)) visit(scan.handle[i]);
    }
  }

  /** Value id `id`'s (text `text`) equals/in list and the affix and residual drivers that hold for it, found and kept. */
  function heldTextDrivers(slot: FieldSlot, id: number, text: string): readonly number[] {
    const held: number[] = [];
    if (slot.textPostings[id] !== Layout.NONE) held.push(slot.textPostings[id]);
    const keep = (h: number): void => {
      held.push(h);
    };
    affixWalk(slot.prefixes, text, keep);
    affixWalk(slot.suffixes, text, keep);
    // Every driver the value passes, whatever this request's other fields: kept for the next request too.
    residualsHolding(slot.scan, text, ~0, keep);
    keepAt(slot.textHeld, id, held);
    return held;
  }

  /** Stamps a slot present with its typed views; false when the value counts as absent. */
  function stamp(slot: FieldSlot, value: unknown): boolean {
    let text: string;
    if (typeof value === 'string') text = value;
    else if (typeof value === 'number') {
      // Not expressible in JSON: treated as absent (case table: non-finite number).
      if (!Number.isFinite(value)) return false;
      // String(number) allocates; only done when a string condition reads this field.
      text = slot.textReads > 0 ? String(value) : '';
    } else if (typeof value === 'boolean') text = value ? 'true' : 'false';
    else return false;
    const s = slot.index;
    view.slotEpoch[s] = epoch;
    view.slotText[s] = text;
    view.slotValue[s] = slot.valueIds.size > 0 ? slot.valueIds.get(text) ?? Layout.NO_VALUE : Layout.NO_VALUE;
    view.slotNum[s] = slot.numReads > 0 ? inputNumber(value) : NaN;
    view.slotBool[s] = slot.boolReads > 0 ? inputBoolean(value) : Layout.NOT_BOOL;
    return true;
  }

  /** Clears every stamp so the epoch can restart at 1 (once per `epochLimit` evaluations). */
  function wrapEpoch(): void {
    const words = arena.i32;
    // Read in place, a restored engine's entries too (rule-table.ts): a wrap decodes no entry.
    rules.forEachRecord((record) => {
      words[record + Layout.EPOCH] = 0;
    });
    view.slotEpoch.fill(0);
    for (const entry of view.regexes) entry.memoEpoch = 0;
    epoch = 0;
  }

  /** The matching rules' numbers, in answer order (by id), each once. */
  function match(fields: Fields): number[] {
    if (fields === null || typeof fields !== 'object' || rules.size === 0) return [];
    if (epoch >= epochLimit) wrapEpoch();
    epoch += 1;
    view.epoch = epoch;
    i32 = arena.i32;
    f64 = arena.f64;
    at = postings.at;
    out = [];
    presence = 0;
    let n = 0;
    try {
      // Two passes: every present field is stamped before any group is verified.
      for (const key in fields) {
        if (!hasOwn.call(fields, key)) continue;
        const slot = slots.get(key);
        if (slot !== undefined && stamp(slot, fields[key])) {
          present[n++] = slot;
          presence |= slot.bit;
        }
      }
      for (let i = 0; i < n; i++) drive(present[i]);
    } catch {
      // Only exotic inputs (throwing getters, proxies) get here: fail closed, never throw.
      out = [];
    }
    const matched = out;
    out = [];
    sortByOrder(matched, ruleKeys, ruleIds);
    // Sorted, a rule listed by several of its groups is listed in a row: keep it once.
    let unique = 0;
    for (let i = 0; i < matched.length; i++) if (unique === 0 || matched[i] !== matched[unique - 1]) matched[unique++] = matched[i];
    matched.length = unique;
    return matched;
  }

  function evaluate(fields: Fields): string[] {
    const matched = match(fields);
    const ids = new Array<string>(matched.length);
    for (let i = 0; i < matched.length; i++) ids[i] = ruleIds[matched[i]];
    return ids;
  }

  /**
   * evaluate, each rule as the value `derive` made of it on its first match
   * (state.ts Derived). A lookup by rule number instead of by id: at 10k
   * rules an answer's ~13 lookups by id (the rule record, then its pieces)
   * waited on ~5 cache misses each, ~3 µs of CPU per request in the service
   * (bench: cpu-per-request --workload evaluate).
   */
  function evaluateDerived<T>(fields: Fields, derive: (id: string) => T): T[] {
    const derived = state.derived;
    if (derived.by !== derive) {
      derived.by = derive;
      derived.values = [];
    }
    const matched = match(fields);
    const values = derived.values as Kept<T>;
    const out = new Array<T>(matched.length);
    for (let i = 0; i < matched.length; i++) {
      const n = matched[i];
      let value = values[n];
      if (value === undefined) {
        value = derive(ruleIds[n]);
        keepAt(values, n, value);
      }
      out[i] = value;
    }
    return out;
  }

  return { evaluate, evaluateDerived };
}
