/**
 * The build half of the engine: upsert and remove. A rule is planned
 * (plan.ts: which conditions drive it, which are verified), given a rule
 * number, and written as records in the arena with posting entries that
 * point at them (layout.ts has the record layout and a worked example).
 * Only the rule's own records and index entries are touched, so a write
 * costs the same at 1k rules as at 1M.
 */
import { conditionWords, writeCondition, writeGroupHead } from './code';
import { estimateShare } from './field-index';
import { orderKey } from './id-order';
import { forgetAt } from './kept';
import { Layout, ruleTarget } from './layout';
import { compileCondition } from './operators';
import { inCheckOrder, planRule, type GroupPlan, type PlanOptions, type RulePlan } from './plan';
import type { Predicate } from './predicates';
import type { EngineState, GroupEntry, RuleEntry } from './state';
import type { Condition } from './conditions';
import type { RuleDefinition } from './types';

export interface Builder {
  upsert(rule: RuleDefinition): void;
  upsertMany(rules: Iterable<RuleDefinition>): void;
  remove(ruleId: string): void;
}

interface VerifyGroup {
  readonly operator: 'AND' | 'OR';
  readonly members: readonly Predicate[];
}

const codeWords = (preds: readonly Predicate[]): number => preds.reduce((n, p) => n + conditionWords(p), 0);

const groupsWords = (groups: readonly VerifyGroup[]): number =>
  groups.reduce((n, g) => n + Layout.GROUP_HEAD + codeWords(g.members), 0);

/**
 * Arena words upsertMany reserves per rule: what rules take in the standard
 * and scoped workloads (31 to 36), so the build does not double the arena;
 * a large overshoot is handed back when the batch ends (Arena.fit).
 */
const WORDS_PER_RULE = 36;

/**
 * Every predicate a plan uses, in an array of exactly that length: one kept
 * per rule, and an array grown by push keeps room for 17 (bench: million,
 * scoped 50k: arrays' backing stores were the engine's largest heap share).
 */
function usesOf(plan: RulePlan): Predicate[] {
  let count = 0;
  for (const g of plan.drivers) count += g.drivers.length + g.verify.length;
  for (const g of plan.verify) count += g.drivers.length + g.verify.length;
  const uses = new Array<Predicate>(count);
  let k = 0;
  for (const groups of [plan.drivers, plan.verify]) {
    for (const g of groups) {
      for (const pred of g.drivers) uses[k++] = pred;
      for (const pred of g.verify) uses[k++] = pred;
    }
  }
  return uses;
}

export function createBuilder(state: EngineState): Builder {
  const { arena, operands, drivers, rules, ruleIds, ruleKeys, freeRuleIndexes, predicates } = state;
  /**
   * The predicate already held under the same key, if any: rules share one
   * object per distinct condition (bench: million, scoped 200k: 750k
   * conditions, 130k distinct); per-condition predicates and their key
   * strings were a large share of the engine's heap (a 50k heap snapshot).
   */
  const shared = (condition: Condition): Predicate | null => {
    const p = compileCondition(condition);
    return p === null ? null : predicates.get(p.key)?.predicate ?? p;
  };
  const planOptions: PlanOptions = { selectivity: (p) => estimateShare(operands.slots.get(p.field), p), compile: shared };

  function share(pred: Predicate): void {
    const held = predicates.get(pred.key);
    if (held !== undefined) held.refs += 1;
    else predicates.set(pred.key, { predicate: pred, refs: 1 });
    operands.acquire(pred);
  }

  function unshare(pred: Predicate): void {
    operands.release(pred);
    const held = predicates.get(pred.key)!;
    held.refs -= 1;
    if (held.refs === 0) predicates.delete(pred.key);
  }

  /** Writes `preds` as conditions from word `from`; returns the word after them. */
  function writeConditions(from: number, preds: readonly Predicate[]): number {
    let p = from;
    for (const pred of preds) {
      writeCondition(arena.i32, arena.f64, p, pred, operands.index);
      p += conditionWords(pred);
    }
    return p;
  }

  /** Writes verify groups from word `from`; returns the word after them. */
  function writeGroups(from: number, groups: readonly VerifyGroup[]): number {
    let p = from;
    for (const g of groups) {
      const end = writeConditions(p + Layout.GROUP_HEAD, g.members);
      writeGroupHead(arena.i32, p, g.operator, end - p);
      p = end;
    }
    return p;
  }

  /** A driver group's record and postings; `inline` are its rule's verify groups when the rule has no record. */
  function addGroup(plan: GroupPlan, rule: number, index: number, inline: readonly VerifyGroup[], ruleFields: number): GroupEntry {
    const need = plan.operator === 'AND' ? plan.drivers.length : 1;
    if (need === 1 && rule === Layout.NO_RULE_RECORD && plan.verify.length === 0 && inline.length === 0) {
      for (const driver of plan.drivers) drivers.attach(driver, ruleTarget(index), 0);
      return { offset: Layout.NONE, words: 0, target: ruleTarget(index), drivers: plan.drivers };
    }
    const own = codeWords(plan.verify);
    const inlined = groupsWords(inline);
    const words = Layout.G_HEAD + own + inlined;
    const offset = arena.alloc(words);
    const record = arena.i32;
    record[offset + Layout.NEED] = need;
    record[offset + Layout.G_RULE] = rule;
    record[offset + Layout.G_INDEX] = index;
    record[offset + Layout.G_WORDS] = own;
    record[offset + Layout.G_GROUP_WORDS] = inlined;
    writeGroups(writeConditions(offset + Layout.G_HEAD, plan.verify), inline);
    const mask = operands.fieldsOf(plan.verify) | ruleFields;
    for (const driver of plan.drivers) drivers.attach(driver, offset, mask);
    return { offset, words, target: offset, drivers: plan.drivers };
  }

  function add(definition: RuleDefinition): RuleEntry {
    const plan = planRule(definition, planOptions);
    if (plan === null) return { index: Layout.NEVER_MATCHES, record: Layout.NONE, recordWords: 0, groups: [], uses: [] };
    const uses = usesOf(plan);
    for (const pred of uses) share(pred);
    const index = freeRuleIndexes.length > 0 ? freeRuleIndexes.pop()! : ruleIds.length;
    ruleIds[index] = plan.id;
    ruleKeys[index] = orderKey(plan.id);

    // Groups checked directly once the driver groups have all fired, cheapest members first.
    const verifyGroups = plan.verify.map((g) => ({ operator: g.operator, members: inCheckOrder([...g.drivers, ...g.verify]) }));
    // A conjunction needs every member's field; a disjunction needs none in particular.
    const ruleFields = verifyGroups.reduce((mask, g) => (g.operator === 'AND' ? mask | operands.fieldsOf(g.members) : mask), 0);
    const none = { record: Layout.NONE, recordWords: 0 };
    if (plan.operator === 'OR') {
      return { index, ...none, groups: plan.drivers.map((g) => addGroup(g, Layout.NO_RULE_RECORD, index, [], 0)), uses };
    }
    if (plan.drivers.length === 1) {
      // One driver group decides the rule: no rule record, its verify groups ride in the group's record.
      return { index, ...none, groups: [addGroup(plan.drivers[0], Layout.NO_RULE_RECORD, index, verifyGroups, ruleFields)], uses };
    }
    const recordWords = Layout.R_HEAD + groupsWords(verifyGroups);
    const record = arena.alloc(recordWords);
    const r = arena.i32;
    r[record + Layout.NEED] = plan.drivers.length;
    r[record + Layout.R_INDEX] = index;
    r[record + Layout.R_WORDS] = recordWords - Layout.R_HEAD;
    writeGroups(record + Layout.R_HEAD, verifyGroups);
    const groups = plan.drivers.map((g) => addGroup(g, record, index, [], ruleFields));
    return { index, record, recordWords, groups, uses };
  }

  function drop(entry: RuleEntry): void {
    for (const group of entry.groups) {
      for (const driver of group.drivers) drivers.detach(driver, group.target);
      if (group.offset !== Layout.NONE) arena.free(group.offset, group.words);
    }
    if (entry.record !== Layout.NONE) arena.free(entry.record, entry.recordWords);
    for (const pred of entry.uses) unshare(pred);
    if (entry.index !== Layout.NEVER_MATCHES) {
      ruleIds[entry.index] = '';
      freeRuleIndexes.push(entry.index);
      forgetAt(state.derived.values, entry.index);
    }
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

  /**
   * upsert of each rule in order, for a build from many rules at once (a
   * snapshot start, a catch-up, the bench): the arena is sized once for the
   * lot instead of doubling (and copying) through the build, and a rule the
   * engine does not hold is added after one lookup. (A memo of conditions by
   * their written form paid off only on the bench's generated rules, whose
   * strings are shared objects; on rules parsed from a snapshot it cost a
   * start more than it saved, so it was dropped: bench: million, 1M.)
   */
  function upsertMany(batch: Iterable<RuleDefinition>): void {
    const reserved = Array.isArray(batch) && arena.reserve(arena.used + batch.length * WORDS_PER_RULE);
    try {
      for (const rule of batch) {
        if (rule === null || typeof rule !== 'object' || typeof rule.id !== 'string') continue;
        const held = rules.get(rule.id);
        if (held !== undefined) {
          rules.delete(rule.id);
          drop(held);
        }
        if (rule.status === 'ACTIVE') rules.set(rule.id, add(rule));
      }
    } finally {
      if (reserved) arena.fit();
    }
  }

  return { upsert, upsertMany, remove };
}
