/**
 * The compiled, indexed rule engine. upsert/remove touch only the rule's own
 * index entries; evaluate visits only the indexes of fields present in the
 * request, counts driver hits per group and per rule (planned in plan.ts),
 * and verifies the remaining conditions of the few candidates directly.
 *
 * Evaluation state (field presence, group and rule hit counts) lives in the
 * index objects, stamped with an evaluation counter ("epoch") instead of
 * being cleared, so evaluate allocates nothing but the answer and touches
 * only what the request reaches (bench: engine; --cpu-prof shows the loads
 * of group, atom and slot objects as the hot lines, so no per-call maps).
 */
import {
  createFieldSlot, estimateShare, indexAtom, namedValues, removeItem, unindexAtom, viewOf,
  type Atom, type FieldSlot, type Group, type RuleSlot, type VerifyGroup,
} from './field-index';
import { planRule, type GroupPlan, type Selectivity } from './plan';
import { Kind, testPredicate, type Predicate } from './predicates';
import type { Engine, Fields, RuleDefinition } from './types';
import { inputBoolean, inputNumber } from './values';

interface RuleEntry {
  /** Null when the active rule can never match (nothing indexed). */
  readonly slot: RuleSlot | null;
  readonly groups: readonly Group[];
  /** Every atom use, released on removal. */
  readonly atoms: readonly Atom[];
}

const hasOwn = Object.prototype.hasOwnProperty;

/**
 * Ascending by UTF-16 code units, like Array.prototype.sort() on strings but
 * without its generic ToString path: insertion sort for the usual handful of
 * matches, a comparator sort above that (bench: engine, 10k mixed, where
 * --cpu-prof put the default sort among evaluate's hottest lines; broad for
 * the large answers).
 */
function sortIds(ids: string[]): string[] {
  const n = ids.length;
  if (n > 32) return ids.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  for (let i = 1; i < n; i++) {
    const id = ids[i];
    let j = i - 1;
    while (j >= 0 && ids[j] > id) {
      ids[j + 1] = ids[j];
      j--;
    }
    ids[j + 1] = id;
  }
  return ids;
}

export interface EngineOptions {
  /**
   * How conjunctions pick their counted drivers (never changes answers):
   * 'estimated' (default) counts only equality members estimated selective
   * from the rule set; 'all-equalities' counts every equals/in member, the
   * textbook counting algorithm (the differential tests run both).
   */
  readonly drivers?: 'estimated' | 'all-equalities';
}

/** A new, empty engine. */
export function createEngine(options: EngineOptions = {}): Engine {
  const selectivity: Selectivity | undefined = options.drivers === 'all-equalities'
    ? undefined
    : (p) => estimateShare(slots.get(p.field), p);
  const rules = new Map<string, RuleEntry>();
  const atoms = new Map<string, Atom>();
  const slots = new Map<string, FieldSlot>();
  let epoch = 0;
  let out: string[] = [];
  // Reused between calls: the slots present in the current request.
  const present: FieldSlot[] = [];

  function acquire(pred: Predicate, uses: Atom[]): Atom {
    let atom = atoms.get(pred.key);
    if (atom === undefined) {
      let slot = slots.get(pred.field);
      if (slot === undefined) {
        slot = createFieldSlot(pred.field);
        slots.set(pred.field, slot);
      }
      slot.refs += 1;
      const view = viewOf(pred.kind);
      if (view === 'text') slot.textAtoms += 1;
      else if (view === 'num') slot.numAtoms += 1;
      else slot.boolAtoms += 1;
      for (const v of namedValues(pred)) slot.named.set(v, (slot.named.get(v) ?? 0) + 1);
      atom = {
        key: pred.key, field: pred.field, kind: pred.kind, text: pred.text, num: pred.num, num2: pred.num2,
        texts: pred.texts, nums: pred.nums, re: pred.re,
        slot, groups: [], refs: 0, memoEpoch: 0, memo: false,
      };
      atoms.set(pred.key, atom);
    }
    atom.refs += 1;
    uses.push(atom);
    return atom;
  }

  function release(atom: Atom): void {
    atom.refs -= 1;
    if (atom.refs > 0) return;
    atoms.delete(atom.key);
    const slot = atom.slot;
    const view = viewOf(atom.kind);
    if (view === 'text') slot.textAtoms -= 1;
    else if (view === 'num') slot.numAtoms -= 1;
    else slot.boolAtoms -= 1;
    for (const v of namedValues(atom)) {
      const left = (slot.named.get(v) ?? 1) - 1;
      if (left === 0) slot.named.delete(v);
      else slot.named.set(v, left);
    }
    slot.refs -= 1;
    if (slot.refs === 0) slots.delete(slot.name);
  }

  function add(rule: RuleDefinition): RuleEntry {
    const plan = planRule(rule, selectivity);
    const uses: Atom[] = [];
    if (plan === null) return { slot: null, groups: [], atoms: uses };
    const verify: VerifyGroup[] = plan.verify.map((g) => ({
      operator: g.operator,
      atoms: [...g.drivers, ...g.verify].map((p) => acquire(p, uses)),
    }));
    const slot: RuleSlot = {
      id: plan.id, need: plan.operator === 'AND' ? plan.drivers.length : 1, verify, epoch: 0, count: 0,
    };
    const groups = plan.drivers.map((g) => materialize(g, slot, uses));
    for (const group of groups) {
      for (const atom of group.drivers) {
        atom.groups.push(group);
        if (atom.groups.length === 1) indexAtom(atom);
      }
    }
    return { slot, groups, atoms: uses };
  }

  function materialize(plan: GroupPlan, rule: RuleSlot, uses: Atom[]): Group {
    return {
      need: plan.operator === 'AND' ? plan.drivers.length : 1,
      drivers: plan.drivers.map((p) => acquire(p, uses)),
      verify: plan.verify.map((p) => acquire(p, uses)),
      rule, epoch: 0, count: 0,
    };
  }

  function drop(entry: RuleEntry): void {
    for (const group of entry.groups) {
      for (const atom of group.drivers) {
        removeItem(atom.groups, group);
        if (atom.groups.length === 0) unindexAtom(atom);
      }
    }
    for (const atom of entry.atoms) release(atom);
  }

  /** Whether an atom holds for the current request; absent field => false whatever the operator. */
  function holds(atom: Atom): boolean {
    const slot = atom.slot;
    if (slot.epoch !== epoch) return false;
    if (atom.kind !== Kind.REGEX) return testPredicate(atom, slot);
    if (atom.memoEpoch !== epoch) {
      atom.memoEpoch = epoch;
      atom.memo = testPredicate(atom, slot);
    }
    return atom.memo;
  }

  function groupHolds(group: VerifyGroup): boolean {
    const list = group.atoms;
    if (group.operator === 'AND') {
      for (let i = 0; i < list.length; i++) if (!holds(list[i])) return false;
      return true;
    }
    for (let i = 0; i < list.length; i++) if (holds(list[i])) return true;
    return false;
  }

  function hitGroup(group: Group): void {
    if (group.epoch !== epoch) {
      group.epoch = epoch;
      group.count = 0;
    }
    if (++group.count !== group.need) return;
    const verify = group.verify;
    for (let i = 0; i < verify.length; i++) if (!holds(verify[i])) return;
    const rule = group.rule;
    if (rule.epoch !== epoch) {
      rule.epoch = epoch;
      rule.count = 0;
    }
    if (++rule.count !== rule.need) return;
    const groups = rule.verify;
    for (let i = 0; i < groups.length; i++) if (!groupHolds(groups[i])) return;
    out.push(rule.id);
  }

  function hit(atom: Atom): void {
    const groups = atom.groups;
    for (let i = 0; i < groups.length; i++) hitGroup(groups[i]);
  }

  function hitAll(list: readonly Atom[] | undefined): void {
    if (list === undefined) return;
    for (let i = 0; i < list.length; i++) hit(list[i]);
  }

  /** Stamps a slot present with its typed views; false when the value counts as absent. */
  function stamp(slot: FieldSlot, value: unknown): boolean {
    let text: string;
    if (typeof value === 'string') text = value;
    else if (typeof value === 'number') {
      // Not expressible in JSON: treated as absent (case table: non-finite number).
      if (!Number.isFinite(value)) return false;
      // String(number) allocates; only done when a string condition reads this field.
      text = slot.textAtoms > 0 ? String(value) : '';
    } else if (typeof value === 'boolean') text = value ? 'true' : 'false';
    else return false;
    slot.epoch = epoch;
    slot.text = text;
    slot.num = slot.numAtoms > 0 ? inputNumber(value) : NaN;
    slot.bool = slot.boolAtoms > 0 ? inputBoolean(value) : -1;
    return true;
  }

  function drive(slot: FieldSlot): void {
    if (slot.textEq.size > 0) hitAll(slot.textEq.get(slot.text));
    const num = slot.num;
    if (num === num) {
      if (slot.numEq.size > 0) hitAll(slot.numEq.get(num));
      // Sorted thresholds: walk the true prefix only (bench: engine, broad).
      const above = slot.above;
      for (let i = 0; i < above.length; i++) {
        const a = above[i];
        const t = a.num;
        if (t > num) break;
        if (t < num || a.kind === Kind.NUM_GTE) hit(a);
      }
      const below = slot.below;
      for (let i = 0; i < below.length; i++) {
        const a = below[i];
        const t = a.num;
        if (t < num) break;
        if (t > num || a.kind === Kind.NUM_LTE) hit(a);
      }
      const between = slot.between;
      for (let i = 0; i < between.length; i++) {
        const a = between[i];
        if (a.num > num) break;
        if (num <= a.num2) hit(a);
      }
    }
    if (slot.bool === 1) hitAll(slot.boolTrue);
    else if (slot.bool === 0) hitAll(slot.boolFalse);
    const scan = slot.scan;
    for (let i = 0; i < scan.length; i++) if (holds(scan[i])) hit(scan[i]);
  }

  function evaluate(fields: Fields): string[] {
    if (fields === null || typeof fields !== 'object' || rules.size === 0) return [];
    epoch += 1;
    out = [];
    let n = 0;
    try {
      // Two passes: every present field is stamped before any group is verified.
      for (const key in fields) {
        if (!hasOwn.call(fields, key)) continue;
        const slot = slots.get(key);
        if (slot !== undefined && stamp(slot, fields[key])) present[n++] = slot;
      }
      for (let i = 0; i < n; i++) drive(present[i]);
    } catch {
      // Only exotic inputs (throwing getters, proxies) get here: fail closed, never throw.
      out = [];
    }
    present.length = 0;
    const result = out;
    out = [];
    return sortIds(result);
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

  return {
    upsert,
    remove,
    evaluate,
    get size() {
      return rules.size;
    },
  };
}
