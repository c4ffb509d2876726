/**
 * The compiled, indexed rule engine. upsert/remove touch only the rule's own
 * index entries; evaluate visits only the indexes of fields present in the
 * request, counts driver hits per group and per rule (planned in plan.ts),
 * and verifies the remaining conditions of the few candidates directly.
 *
 * Evaluation state (field presence, group and rule hit counts) is stamped
 * with an evaluation counter ("epoch") instead of being cleared, so evaluate
 * allocates nothing but the answer and touches only what the request
 * reaches. Hit counts live in int32 record tables (record-table.ts), posting
 * lists are arrays of group numbers: the counting loop reads dense memory
 * (bench: engine, 10k and 100k mixed).
 */
import {
  createFieldSlot, estimateShare, indexAtom, namedValues, removeItem, unindexAtom, viewOf,
  type Atom, type FieldSlot, type VerifyGroup,
} from './field-index';
import { inCheckOrder, planRule, type Selectivity } from './plan';
import { Kind, testPredicate, type Predicate } from './predicates';
import { trieWalk } from './affix-trie';
import { orderKey, sortByOrder } from './id-order';
import { createRecordTable } from './record-table';
import type { Engine, Fields, RuleDefinition } from './types';
import { inputBoolean, inputNumber } from './values';

/**
 * Group records: [epoch of the last hit, hits in that epoch, hits needed,
 * owning rule, fields required, flags]; rule records use the first three. "Fields
 * required" is the presence mask of the fields the group's verify members,
 * and its rule's verify conjunctions, read: a request lacking one of them
 * cannot match, so the group is not verified at all (bench: engine, 10k
 * mixed: most candidates fail on a field the request does not carry).
 */
const EPOCH = 0;
const COUNT = 1;
const NEED = 2;
const RULE = 3;
const MASK = 4;
/** Group flags: the group has members to verify; its rule matches as soon as the group fires. */
const FLAGS = 5;
const HAS_VERIFY = 1;
const RULE_DONE = 2;
const GROUP_WIDTH = 6;
const RULE_WIDTH = 3;

interface RuleEntry {
  /** Record in the rule table; -1 when the active rule can never match (nothing indexed). */
  readonly rule: number;
  /** Its driver groups' records in the group table, and each one's driver atoms. */
  readonly groups: readonly number[];
  readonly drivers: readonly (readonly Atom[])[];
  /** Every atom use, released on removal. */
  readonly atoms: readonly Atom[];
}

const hasOwn = Object.prototype.hasOwnProperty;
const NONE: readonly never[] = [];

/** The presence mask of the fields `atoms` read. */
function fieldsOf(atoms: readonly Atom[]): number {
  let mask = 0;
  for (const atom of atoms) mask |= atom.slot.bit;
  return mask;
}

export interface EngineOptions {
  /**
   * How conjunctions pick their counted drivers (never changes answers):
   * 'estimated' (default) counts only equality members estimated selective
   * from the rule set; 'all-equalities' counts every equals/in member, the
   * textbook counting algorithm (the differential tests run both).
   */
  readonly drivers?: 'estimated' | 'all-equalities';
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
  const selectivity: Selectivity | undefined = options.drivers === 'all-equalities'
    ? undefined
    : (p) => estimateShare(slots.get(p.field), p);
  const epochLimit = options.epochLimit ?? DEFAULT_EPOCH_LIMIT;
  const rules = new Map<string, RuleEntry>();
  const atoms = new Map<string, Atom>();
  const slots = new Map<string, FieldSlot>();
  // Each group's verify atoms, and each rule's id and verify groups, beside their records.
  const groupTable = createRecordTable(GROUP_WIDTH);
  const groupVerify: (readonly Atom[])[] = [];
  const ruleTable = createRecordTable(RULE_WIDTH);
  const ruleIds: string[] = [];
  const ruleKeys: number[] = [];
  const ruleVerify: (readonly VerifyGroup[])[] = [];
  let fieldOrdinal = 0;
  let epoch = 0;
  // The current request's presence mask (see FieldSlot.bit).
  let presence = 0;
  // The matching rules' numbers, collected in evaluation order.
  let out: number[] = [];
  // Reused between calls: the slots present in the current request.
  const present: FieldSlot[] = [];

  function acquire(pred: Predicate, uses: Atom[]): Atom {
    let atom = atoms.get(pred.key);
    if (atom === undefined) {
      let slot = slots.get(pred.field);
      if (slot === undefined) {
        slot = createFieldSlot(pred.field, fieldOrdinal++);
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
        texts: pred.texts, nums: pred.nums, re: pred.re, filter: pred.filter,
        slot, groups: [], fields: 0, refs: 0, memoEpoch: 0, memo: false,
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

  function add(definition: RuleDefinition): RuleEntry {
    const plan = planRule(definition, selectivity);
    const uses: Atom[] = [];
    if (plan === null) return { rule: -1, groups: [], drivers: [], atoms: uses };
    const rule = ruleTable.allocate();
    ruleTable.data[rule * RULE_WIDTH + NEED] = plan.operator === 'AND' ? plan.drivers.length : 1;
    ruleIds[rule] = plan.id;
    ruleKeys[rule] = orderKey(plan.id);
    const verifyGroups: VerifyGroup[] = plan.verify.map((g) => ({
      operator: g.operator,
      atoms: inCheckOrder([...g.drivers, ...g.verify]).map((p) => acquire(p, uses)),
    }));
    ruleVerify[rule] = verifyGroups;
    // A conjunction needs every member's field; a disjunction needs none in particular.
    const ruleFields = verifyGroups.reduce((mask, g) => (g.operator === 'AND' ? mask | fieldsOf(g.atoms) : mask), 0);
    const groups: number[] = [];
    const drivers: Atom[][] = [];
    for (const g of plan.drivers) {
      const group = groupTable.allocate();
      const verify = g.verify.map((p) => acquire(p, uses));
      const record = group * GROUP_WIDTH;
      groupTable.data[record + NEED] = g.operator === 'AND' ? g.drivers.length : 1;
      groupTable.data[record + RULE] = rule;
      groupTable.data[record + MASK] = fieldsOf(verify) | ruleFields;
      groupTable.data[record + FLAGS] = (verify.length > 0 ? HAS_VERIFY : 0)
        | (plan.drivers.length === 1 && verifyGroups.length === 0 ? RULE_DONE : 0);
      groupVerify[group] = verify;
      const driven = g.drivers.map((p) => acquire(p, uses));
      for (const atom of driven) {
        atom.groups.push(group);
        atom.fields = atom.groups.length === 1 ? groupFields(group) : atom.fields & groupFields(group);
        if (atom.groups.length === 1) indexAtom(atom);
      }
      groups.push(group);
      drivers.push(driven);
    }
    return { rule, groups, drivers, atoms: uses };
  }

  function drop(entry: RuleEntry): void {
    entry.groups.forEach((group, g) => {
      for (const atom of entry.drivers[g]) {
        removeItem(atom.groups, group);
        atom.fields = atom.groups.reduce((mask, other) => mask & groupFields(other), ~0);
        if (atom.groups.length === 0) unindexAtom(atom);
      }
      groupVerify[group] = NONE;
      groupTable.release(group);
    });
    for (const atom of entry.atoms) release(atom);
    if (entry.rule >= 0) {
      ruleIds[entry.rule] = '';
      ruleVerify[entry.rule] = NONE;
      ruleTable.release(entry.rule);
    }
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

  /** A group's drivers have all hit: verify its other members, then count it for its rule. */
  function fire(group: number, rule: number, flags: number): void {
    if ((flags & HAS_VERIFY) !== 0) {
      const verify = groupVerify[group];
      for (let i = 0; i < verify.length; i++) if (!holds(verify[i])) return;
    }
    // A rule of one driver group and nothing else to verify: this group is the rule, and a
    // group fires at most once per evaluation, so the rule record is not needed (bench: engine, 10k mixed).
    if ((flags & RULE_DONE) !== 0) {
      out.push(rule);
      return;
    }
    const r = ruleTable.data;
    const record = rule * RULE_WIDTH;
    let count: number;
    if (r[record + EPOCH] !== epoch) {
      r[record + EPOCH] = epoch;
      count = r[record + COUNT] = 1;
    } else count = ++r[record + COUNT];
    if (count !== r[record + NEED]) return;
    const groups = ruleVerify[rule];
    for (let i = 0; i < groups.length; i++) if (!groupHolds(groups[i])) return;
    out.push(rule);
  }

  function groupFields(group: number): number {
    return groupTable.data[group * GROUP_WIDTH + MASK];
  }

  function hit(atom: Atom): void {
    if ((atom.fields & ~presence) !== 0) return;
    const list = atom.groups;
    const g = groupTable.data;
    for (let i = 0; i < list.length; i++) {
      const record = list[i] * GROUP_WIDTH;
      let count: number;
      if (g[record + EPOCH] !== epoch) {
        g[record + EPOCH] = epoch;
        count = g[record + COUNT] = 1;
      } else count = ++g[record + COUNT];
      if (count === g[record + NEED] && (g[record + MASK] & ~presence) === 0) fire(list[i], g[record + RULE], g[record + FLAGS]);
    }
  }

  function hitAll(list: readonly Atom[] | undefined): void {
    if (list === undefined) return;
    for (let i = 0; i < list.length; i++) hit(list[i]);
  }

  /** Clears every stamp so the epoch can restart at 1 (once per `epochLimit` evaluations). */
  function wrapEpoch(): void {
    groupTable.clearField(EPOCH);
    ruleTable.clearField(EPOCH);
    for (const slot of slots.values()) slot.epoch = 0;
    for (const atom of atoms.values()) atom.memoEpoch = 0;
    epoch = 0;
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
    trieWalk(slot.prefixes, slot.text, false, hitAll);
    trieWalk(slot.suffixes, slot.text, true, hitAll);
    const scan = slot.scan;
    for (let i = 0; i < scan.length; i++) {
      const atom = scan[i];
      // Cheap before costly: a request lacking a field every group of the atom needs skips the test.
      if ((atom.fields & ~presence) === 0 && holds(atom)) hit(atom);
    }
  }

  function evaluate(fields: Fields): string[] {
    if (fields === null || typeof fields !== 'object' || rules.size === 0) return [];
    if (epoch >= epochLimit) wrapEpoch();
    epoch += 1;
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
    present.length = 0;
    const matched = out;
    out = [];
    sortByOrder(matched, ruleKeys, ruleIds);
    const ids = new Array<string>(matched.length);
    for (let i = 0; i < matched.length; i++) ids[i] = ruleIds[matched[i]];
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

  return {
    upsert,
    remove,
    evaluate,
    get size() {
      return rules.size;
    },
  };
}
