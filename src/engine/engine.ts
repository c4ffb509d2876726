/**
 * The compiled, indexed rule engine. upsert/remove touch only the rule's own
 * records and index entries; evaluate visits only the indexes of fields
 * present in the request (field-index.ts), counts driver hits per group
 * (planned in plan.ts: one driver per conjunction by default), and verifies
 * the remaining conditions of the few candidates directly.
 *
 * Memory layout (bench: engine, 10k and 100k mixed, where evaluate spent
 * half its time waiting on loads from a rule set spread over the heap):
 * group records live in one arena of int32 words (arena.ts), each holding
 * its hit counter and, inline, the conditions it verifies (code.ts) and its
 * rule's other groups; posting lists hold (group, presence mask) pairs
 * (postings.ts), or the rule's number itself for a group that one hit
 * decides. A hit on an equality driver reads the field's hash map, one
 * posting block and at most one record.
 *
 * Evaluation state (field presence, group hit counts, regex answers) is
 * stamped with an evaluation counter ("epoch") instead of being cleared, so
 * evaluate allocates little beyond the answer.
 */
import { affixWalk } from './affix-index';
import { createArena } from './arena';
import { conditionWords, groupOperatorAt, sizeAt, testCondition, writeCondition, writeGroupHead } from './code';
import { createDrivers } from './drivers';
import { estimateShare, type FieldSlot } from './field-index';
import { orderKey, sortByOrder } from './id-order';
import { addSignature } from './literal-signature';
import { createOperands } from './operands';
import { inCheckOrder, planRule, type GroupPlan, type PlanOptions } from './plan';
import {
  COUNT, E_MASK, E_TARGET, ENTRY_WORDS, EPOCH, G_GROUP_WORDS, G_HEAD, G_INDEX, G_RULE, G_WORDS, GROUP_AND, GROUP_HEAD,
  NEED, NEVER_MATCHES, NO_RULE_RECORD, NO_VALUE, NONE, NOT_BOOL, P_COND, P_HEAD, P_LEN, P_MASK, R_HEAD, R_INDEX, R_WORDS,
  RULE_TARGET_BELOW, ruleTarget,
} from './layout';
import { createPostings } from './postings';
import { registerInternals, type GroupEntry, type RuleEntry } from './state';
import type { Predicate } from './predicates';
import type { Engine, Fields, RuleDefinition } from './types';
import { inputBoolean, inputNumber } from './values';

/**
 * Records and posting lists are laid out in layout.ts (a diagram and a
 * worked example there); every offset and marker below is named there.
 */
const hasOwn = Object.prototype.hasOwnProperty;

export interface EngineOptions {
  /**
   * How conjunctions pick their drivers (never changes answers; plan.ts):
   * 'single' (default) drives each conjunction by its one best member and
   * verifies the rest; 'all-equalities' counts every equals/in member
   * (every one assumed selective), the textbook counting algorithm. The
   * differential tests run both.
   */
  readonly drivers?: 'single' | 'all-equalities';
  /**
   * Evaluations after which the epoch counter wraps and every stamp is
   * cleared (default 2^30, so int32 stamps never overflow); tests set it low
   * to exercise the wrap.
   */
  readonly epochLimit?: number;
}

const DEFAULT_EPOCH_LIMIT = 2 ** 30;

/** A new, empty engine. */
export function createEngine(options: EngineOptions = {}): Engine {
  const planOptions: PlanOptions = options.drivers === 'all-equalities'
    ? { countEveryEquality: true }
    : { selectivity: (p) => estimateShare(slots.get(p.field), p) };
  const epochLimit = options.epochLimit ?? DEFAULT_EPOCH_LIMIT;
  const arena = createArena();
  const postings = createPostings(arena);
  const operands = createOperands();
  const { slots, view } = operands;
  const drivers = createDrivers(arena, postings, operands);
  const rules = new Map<string, RuleEntry>();
  // Rule numbers: ids and sort keys of the rules records point at.
  const ruleIds: string[] = [];
  const ruleKeys: number[] = [];
  const freeRuleIndexes: number[] = [];

  let epoch = 0;
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

  /** Writes `preds` as conditions from word `from`; returns the word after them. */
  function writeConditions(from: number, preds: readonly Predicate[]): number {
    let p = from;
    for (const pred of preds) {
      writeCondition(arena.i32, arena.f64, p, pred, operands.index);
      p += conditionWords(pred);
    }
    return p;
  }

  const codeWords = (preds: readonly Predicate[]): number => preds.reduce((n, p) => n + conditionWords(p), 0);

  interface VerifyGroup {
    readonly operator: 'AND' | 'OR';
    readonly members: readonly Predicate[];
  }

  const groupsWords = (groups: readonly VerifyGroup[]): number =>
    groups.reduce((n, g) => n + GROUP_HEAD + codeWords(g.members), 0);

  /** Writes verify groups from word `from`; returns the word after them. */
  function writeGroups(from: number, groups: readonly VerifyGroup[]): number {
    let p = from;
    for (const g of groups) {
      const end = writeConditions(p + GROUP_HEAD, g.members);
      writeGroupHead(arena.i32, p, g.operator, end - p);
      p = end;
    }
    return p;
  }

  /** A driver group's record and postings; `inline` are its rule's verify groups when the rule has no record. */
  function addGroup(plan: GroupPlan, rule: number, index: number, inline: readonly VerifyGroup[], ruleFields: number): GroupEntry {
    const need = plan.operator === 'AND' ? plan.drivers.length : 1;
    if (need === 1 && rule === NO_RULE_RECORD && plan.verify.length === 0 && inline.length === 0) {
      for (const driver of plan.drivers) drivers.attach(driver, ruleTarget(index), 0);
      return { offset: NONE, words: 0, target: ruleTarget(index), drivers: plan.drivers };
    }
    const own = codeWords(plan.verify);
    const inlined = groupsWords(inline);
    const words = G_HEAD + own + inlined;
    const offset = arena.alloc(words);
    const record = arena.i32;
    record[offset + NEED] = need;
    record[offset + G_RULE] = rule;
    record[offset + G_INDEX] = index;
    record[offset + G_WORDS] = own;
    record[offset + G_GROUP_WORDS] = inlined;
    writeGroups(writeConditions(offset + G_HEAD, plan.verify), inline);
    const mask = operands.fieldsOf(plan.verify) | ruleFields;
    for (const driver of plan.drivers) drivers.attach(driver, offset, mask);
    return { offset, words, target: offset, drivers: plan.drivers };
  }

  function add(definition: RuleDefinition): RuleEntry {
    const plan = planRule(definition, planOptions);
    if (plan === null) return { index: NEVER_MATCHES, record: NONE, recordWords: 0, groups: [], uses: [] };
    const uses: Predicate[] = [];
    for (const g of [...plan.drivers, ...plan.verify]) uses.push(...g.drivers, ...g.verify);
    for (const pred of uses) operands.acquire(pred);
    const index = freeRuleIndexes.length > 0 ? freeRuleIndexes.pop()! : ruleIds.length;
    ruleIds[index] = plan.id;
    ruleKeys[index] = orderKey(plan.id);

    // Groups checked directly once the driver groups have all fired, cheapest members first.
    const verifyGroups = plan.verify.map((g) => ({ operator: g.operator, members: inCheckOrder([...g.drivers, ...g.verify]) }));
    // A conjunction needs every member's field; a disjunction needs none in particular.
    const ruleFields = verifyGroups.reduce((mask, g) => (g.operator === 'AND' ? mask | operands.fieldsOf(g.members) : mask), 0);
    if (plan.operator === 'OR') {
      return { index, record: NONE, recordWords: 0, groups: plan.drivers.map((g) => addGroup(g, NO_RULE_RECORD, index, [], 0)), uses };
    }
    if (plan.drivers.length === 1) {
      // One driver group decides the rule: no rule record, its verify groups ride in the group's record.
      return { index, record: NONE, recordWords: 0, groups: [addGroup(plan.drivers[0], NO_RULE_RECORD, index, verifyGroups, ruleFields)], uses };
    }
    const recordWords = R_HEAD + groupsWords(verifyGroups);
    const record = arena.alloc(recordWords);
    const r = arena.i32;
    r[record + NEED] = plan.drivers.length;
    r[record + R_INDEX] = index;
    r[record + R_WORDS] = recordWords - R_HEAD;
    writeGroups(record + R_HEAD, verifyGroups);
    const groups = plan.drivers.map((g) => addGroup(g, record, index, [], ruleFields));
    return { index, record, recordWords, groups, uses };
  }

  function drop(entry: RuleEntry): void {
    for (const group of entry.groups) {
      for (const driver of group.drivers) drivers.detach(driver, group.target);
      if (group.offset !== NONE) arena.free(group.offset, group.words);
    }
    if (entry.record !== NONE) arena.free(entry.record, entry.recordWords);
    for (const pred of entry.uses) operands.release(pred);
    if (entry.index !== NEVER_MATCHES) {
      ruleIds[entry.index] = '';
      freeRuleIndexes.push(entry.index);
    }
  }

  function holds(p: number): boolean {
    return testCondition(i32, f64, p, view);
  }

  function groupHolds(q: number): boolean {
    const end = q + sizeAt(i32, q);
    if (groupOperatorAt(i32, q) === GROUP_AND) {
      for (let p = q + GROUP_HEAD; p < end; p += sizeAt(i32, p)) if (!holds(p)) return false;
      return true;
    }
    for (let p = q + GROUP_HEAD; p < end; p += sizeAt(i32, p)) if (holds(p)) return true;
    return false;
  }

  /** Counts a hit on a group or rule record; true when it is the hit the record needed last. */
  function completes(record: number): boolean {
    let count: number;
    if (i32[record + EPOCH] !== epoch) {
      i32[record + EPOCH] = epoch;
      count = i32[record + COUNT] = 1;
    } else count = ++i32[record + COUNT];
    return count === i32[record + NEED];
  }

  /** A driver of group `g` hit: count it; once all have, verify the group's other members, then count it for its rule. */
  function hitGroup(g: number): void {
    if (!completes(g)) return;
    const end = g + G_HEAD + i32[g + G_WORDS];
    for (let p = g + G_HEAD; p < end; p += sizeAt(i32, p)) if (!holds(p)) return;
    const rule = i32[g + G_RULE];
    if (rule === NO_RULE_RECORD) {
      const groupsEnd = end + i32[g + G_GROUP_WORDS];
      for (let q = end; q < groupsEnd; q += sizeAt(i32, q)) if (!groupHolds(q)) return;
      // A group fires at most once per evaluation (an OR rule's other groups may list it too).
      out.push(i32[g + G_INDEX]);
      return;
    }
    if (!completes(rule)) return;
    const rend = rule + R_HEAD + i32[rule + R_WORDS];
    for (let q = rule + R_HEAD; q < rend; q += sizeAt(i32, q)) if (!groupHolds(q)) return;
    out.push(i32[rule + R_INDEX]);
  }

  /** Walks a posting block: every group whose required fields are present gets a hit. */
  function walk(block: number): void {
    if ((i32[block + P_MASK] & ~presence) !== 0) return;
    let e = block + P_HEAD + i32[block + P_COND];
    const end = e + ENTRY_WORDS * i32[block + P_LEN];
    for (; e < end; e += ENTRY_WORDS) {
      if ((i32[e + E_MASK] & ~presence) !== 0) continue;
      const target = i32[e + E_TARGET];
      // A group one hit decides names its rule (ruleTarget) instead of a record.
      if (target < RULE_TARGET_BELOW) out.push(~target);
      else hitGroup(target);
    }
  }

  function walkHandle(handle: number): void {
    walk(at[handle]);
  }

  function drive(slot: FieldSlot): void {
    const s = slot.index;
    const id = view.slotValue[s];
    if (id !== NO_VALUE) {
      const h = slot.textPostings[id];
      if (h !== NONE) walk(at[h]);
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
        if (t < num || above.inclusive[i] === 1) walk(at[above.handle[i]]);
      }
      const below = slot.below;
      for (let i = 0; i < below.size; i++) {
        const t = below.bound[i];
        if (t < num) break;
        if (t > num || below.inclusive[i] === 1) walk(at[below.handle[i]]);
      }
      const between = slot.between;
      for (let i = 0; i < between.size; i++) {
        if (between.bound[i] > num) break;
        if (num <= between.high[i]) walk(at[between.handle[i]]);
      }
    }
    const bool = view.slotBool[s];
    if (bool !== NOT_BOOL) {
      const h = slot.boolPostings[bool];
      if (h !== NONE) walk(at[h]);
    }
    const text = view.slotText[s];
    if (slot.prefixes.lengths.length > 0) affixWalk(slot.prefixes, text, walkHandle);
    if (slot.suffixes.lengths.length > 0) affixWalk(slot.suffixes, text, walkHandle);
    const scan = slot.scan;
    if (scan.size > 0) {
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
        if ((i32[block + P_MASK] & ~presence) === 0 && holds(block + P_HEAD)) walk(block);
      }
    }
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
    view.slotValue[s] = slot.valueIds.size > 0 ? slot.valueIds.get(text) ?? NO_VALUE : NO_VALUE;
    view.slotNum[s] = slot.numReads > 0 ? inputNumber(value) : NaN;
    view.slotBool[s] = slot.boolReads > 0 ? inputBoolean(value) : NOT_BOOL;
    return true;
  }

  /** Clears every stamp so the epoch can restart at 1 (once per `epochLimit` evaluations). */
  function wrapEpoch(): void {
    const words = arena.i32;
    for (const entry of rules.values()) {
      for (const group of entry.groups) if (group.offset !== NONE) words[group.offset + EPOCH] = 0;
      if (entry.record !== NONE) words[entry.record + EPOCH] = 0;
    }
    view.slotEpoch.fill(0);
    for (const entry of view.regexes) entry.memoEpoch = 0;
    epoch = 0;
  }

  function evaluate(fields: Fields): string[] {
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
    const ids = new Array<string>(unique);
    for (let i = 0; i < unique; i++) ids[i] = ruleIds[matched[i]];
    return ids;
  }

  function remove(ruleId: string): void {
    const entry = rules.get(ruleId);
    if (entry === undefined) return;
    rules.delete(ruleId);
    drop(entry);
  }

  function upsert(rule: RuleDefinition): void {
    if (rule === null || typeof rule !== 'object' || typeof rule.id !== 'string') return;
    remove(rule.id);
    if (rule.status === 'ACTIVE') rules.set(rule.id, add(rule));
  }

  const engine: Engine = {
    upsert,
    remove,
    evaluate,
    get size() {
      return rules.size;
    },
  };
  return registerInternals(engine, { arena, postings, operands, drivers, rules, ruleIds, freeRuleIndexes });
}
