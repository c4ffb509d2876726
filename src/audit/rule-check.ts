/**
 * Checking rules one by one, with the engine's operator table
 * (src/engine/operators.ts: compiled conditions, value tests, input
 * readings), so a verdict here is the engine's verdict. Used where building
 * the indexed engine would cost more than scanning: evaluate at a past point (a few ms
 * per query over thousands of rules, against ~0.5 s to index 1,000 rules
 * with their regexes) and explain. Deterministic, synchronous and total; the
 * only state is caches of compiled conditions.
 */
import type { RuleRecord } from '../../projections';
import { runSteps, type Steps } from '../base/steps';
import {
  compileCondition, Kind, readValue, testPredicate,
  type Condition, type ConditionGroup, type Engine, type Fields, type InputView, type Predicate, type RuleDefinition,
} from '../engine';
import { inSlices, stepsInSlices, type SliceClock, type SliceOptions } from '../service/read-ahead';

interface CheckedCondition {
  readonly condition: Condition;
  /** Null: the condition can never hold (an operand or operator the engine rejects). */
  readonly predicate: Predicate | null;
}

interface CheckedGroup {
  readonly operator: unknown;
  /** In the rule's order, for explain. */
  readonly conditions: readonly CheckedCondition[];
  /** The same, cheapest first, for matching: regexes run last, when nothing cheaper decided. */
  readonly byCost: readonly CheckedCondition[];
}

/** A rule with every condition compiled once. */
export interface CheckedRule {
  readonly rule: RuleDefinition;
  readonly groups: readonly CheckedGroup[];
}

/**
 * Caches keyed by object identity: records are replaced, never mutated, and
 * an update that leaves the conditions alone (status, name, links) keeps the
 * same condition_groups array, so its regexes are not compiled again
 * (bench: audit-as-of, where most updates are status and name changes).
 * In shards by the rule's id (an update keeps it): one WeakMap grown to 1M
 * records re-hashed all of them at once each time it doubled, ~0.17 s with
 * the node held (bench: audit-stall, with long-tasks.ts on its profile).
 */
const SHARDS = 64;
const byRecord = Array.from({ length: SHARDS }, () => new WeakMap<RuleDefinition, CheckedRule>());
const byGroups = Array.from({ length: SHARDS }, () => new WeakMap<readonly ConditionGroup[], readonly CheckedGroup[]>());

/** A shard for `id`, from its last characters (a UUID's are random). */
function shardOf(id: unknown): number {
  if (typeof id !== 'string') return 0;
  let hash = 0;
  for (let i = Math.max(0, id.length - 4); i < id.length; i++) hash = (hash * 31 + id.charCodeAt(i)) | 0;
  return hash & (SHARDS - 1);
}

/** The rule with its conditions compiled; the same object for the same record. */
export function checkedRule(rule: RuleDefinition): CheckedRule {
  const shard = shardOf(rule.id);
  let checked = byRecord[shard]!.get(rule);
  if (checked === undefined) {
    checked = { rule, groups: checkedGroups(rule.condition_groups, shard) };
    byRecord[shard]!.set(rule, checked);
  }
  return checked;
}

function checkedGroups(groups: readonly ConditionGroup[], shard: number): readonly CheckedGroup[] {
  if (!Array.isArray(groups)) return [];
  let checked = byGroups[shard]!.get(groups);
  if (checked === undefined) {
    checked = groups.map(checkedGroup);
    byGroups[shard]!.set(groups, checked);
  }
  return checked;
}

function checkedGroup(group: ConditionGroup): CheckedGroup {
  const conditions = group !== null && typeof group === 'object' && Array.isArray(group.conditions) ? group.conditions : [];
  const checked = conditions.map((condition) => ({ condition, predicate: predicateFor(condition) }));
  return { operator: group?.condition_operator, conditions: checked, byCost: [...checked].sort((a, b) => cost(a) - cost(b)) };
}

/**
 * Order of evaluation within a group; any order gives the same verdict (the
 * predicates are pure). A re2js test costs tens of microseconds, the rest
 * well under one (bench: audit-as-of, repeated points).
 */
function cost(c: CheckedCondition): number {
  if (c.predicate === null) return 0;
  if (c.predicate.kind === Kind.REGEX) return 2;
  return c.predicate.kind === Kind.CONTAINS || c.predicate.kind === Kind.NOT_CONTAINS ? 1 : 0;
}

/**
 * Predicates by condition text: a rewritten rule usually repeats conditions
 * seen before, and compiling a regex is the dearest step of a cold point
 * (bench: audit-as-of, random positions). Predicates are immutable, so
 * sharing is safe; the map is cleared when full to stay bounded.
 */
const predicates = new Map<string, Predicate | null>();
const MAX_PREDICATES = 50_000;

function predicateFor(condition: Condition): Predicate | null {
  if (condition === null || typeof condition !== 'object') return null;
  const key = conditionKey(condition);
  let predicate = predicates.get(key);
  if (predicate === undefined) {
    predicate = compileCondition(condition);
    if (predicates.size >= MAX_PREDICATES) predicates.clear();
    predicates.set(key, predicate);
  }
  return predicate;
}

/**
 * The condition's members joined by a control character: a sixth of the cost
 * of JSON.stringify, which was the top of a cold point's profile (bench:
 * audit-as-of). Members that are not strings (a record the API never wrote)
 * fall back to JSON, so no two conditions share a key.
 */
function conditionKey(c: Condition): string {
  const { field, operator, value, data_type: type } = c;
  if (typeof field === 'string' && typeof operator === 'string' && typeof value === 'string' && typeof type === 'string') {
    return `${field}\u0001${operator}\u0001${value}\u0001${type}`;
  }
  return JSON.stringify([field, operator, value, type]);
}

const hasOwn = Object.prototype.hasOwnProperty;

/**
 * The typed views of a request field as the engine stamps them, or undefined
 * when the field counts as absent (missing, or a value JSON cannot carry).
 */
export function inputView(fields: Fields, field: string): InputView | undefined {
  return hasOwn.call(fields, field) ? readValue(fields[field]) : undefined;
}

/** A request's input views, each read once per request however many conditions name the field. */
export type Inputs = (field: string) => InputView | undefined;

/** Marks a field read and found absent, apart from "not read yet". */
const ABSENT = { text: '', num: NaN, bool: -1 } satisfies InputView;

/**
 * Memoized `inputView` over one request: parsing a field as a number once
 * instead of once per condition (bench: audit-as-of, repeated points).
 */
export function readInputs(fields: Fields): Inputs {
  const views = new Map<string, InputView>();
  return (field) => {
    let view = views.get(field);
    if (view === undefined) {
      view = inputView(fields, field) ?? ABSENT;
      views.set(field, view);
    }
    return view === ABSENT ? undefined : view;
  };
}

function conditionHolds(c: CheckedCondition, inputs: Inputs): boolean {
  if (c.predicate === null) return false;
  const view = inputs(c.predicate.field);
  return view !== undefined && testPredicate(c.predicate, view);
}

/** An empty group never holds, nor one with an unknown logical operator. Plain loops: this is the scan's inner loop. */
function groupHolds(group: CheckedGroup, inputs: Inputs): boolean {
  const conditions = group.byCost;
  if (conditions.length === 0) return false;
  if (group.operator === 'AND') {
    for (let i = 0; i < conditions.length; i++) if (!conditionHolds(conditions[i]!, inputs)) return false;
    return true;
  }
  if (group.operator === 'OR') {
    for (let i = 0; i < conditions.length; i++) if (conditionHolds(conditions[i]!, inputs)) return true;
  }
  return false;
}

/** Whether an active rule matches the request (an INACTIVE rule never does; nor one without groups). */
export function ruleMatches(checked: CheckedRule, inputs: Inputs): boolean {
  const { rule, groups } = checked;
  if (rule.status !== 'ACTIVE' || groups.length === 0) return false;
  if (rule.group_operator === 'AND') {
    for (let i = 0; i < groups.length; i++) if (!groupHolds(groups[i]!, inputs)) return false;
    return true;
  }
  if (rule.group_operator === 'OR') {
    for (let i = 0; i < groups.length; i++) if (groupHolds(groups[i]!, inputs)) return true;
  }
  return false;
}

/**
 * `engine.evaluate(fields)`, the rules scanned in slices with the event loop
 * free between them: audit evaluate's scan over 1M rules held the node for
 * ~0.3 s in one piece (bench: audit-stall).
 */
export async function scanInSlices(engine: ScanEngine, fields: Fields, options?: SliceOptions): Promise<string[]> {
  if (fields === null || typeof fields !== 'object') return [];
  const inputs = readInputs(fields);
  const ids: string[] = [];
  await inSlices(engine.active, (checked) => {
    if (ruleMatches(checked, inputs)) ids.push(checked.rule.id);
  }, options);
  return ids.sort();
}

/**
 * Of `names`, the fields a condition of some active rule reads (a replay
 * asks it of the fields a decision record masked: only those could have
 * changed its answer). In slices, as scanInSlices; it stops once all are found.
 */
export async function fieldsReadInSlices(engine: ScanEngine, names: readonly string[], options?: SliceOptions): Promise<Set<string>> {
  const read = new Set<string>();
  if (names.length === 0) return read;
  const wanted = new Set(names);
  await inSlices(engine.active, (checked) => {
    for (const group of checked.groups) {
      for (const { condition } of group.conditions) if (wanted.has(condition.field)) read.add(condition.field);
    }
    return read.size < wanted.size;
  }, options);
  return read;
}

/** A scan engine and the rules it scans, so that another can be derived from it. */
export interface ScanEngine extends Engine {
  readonly active: readonly CheckedRule[];
}

/** What changed since `engine` was built: the ids of the rules that may differ. */
export interface ScanBase {
  readonly engine: ScanEngine;
  readonly changed: ReadonlySet<string>;
}

/**
 * An `Engine` over a fixed rule map that scans instead of indexing: answers
 * like the compiled engine, costs nothing to build (compiled conditions are
 * shared per record). With `base`, only the changed rules are looked at
 * again: deriving from a nearby point's engine instead of walking all rules
 * (bench: audit-as-of, random positions). Read-only: `upsert`, `upsertMany`
 * and `remove` are not for it.
 */
export function createScanEngine(rules: ReadonlyMap<string, RuleRecord>, base?: ScanBase): ScanEngine {
  return scanEngineOver(runSteps(activeRules(rules, base)));
}

/**
 * `createScanEngine(rules, base)` with the event loop free between slices,
 * while nothing changes `rules`: time travel derives one at each checkpoint,
 * and at 1M rules compiling the rules changed since the last one held the
 * node up to ~0.45 s (bench: audit-stall, with long-tasks.ts on its profile).
 */
export async function scanEngineInSlices(rules: ReadonlyMap<string, RuleRecord>, base: ScanBase | undefined, clock: SliceClock): Promise<ScanEngine> {
  return scanEngineOver(await stepsInSlices(activeRules(rules, base), clock));
}

/** Rules looked at per step: a changed one compiles its conditions (a regex, tens of µs). */
const SCAN_STEP = 256;

function* activeRules(rules: ReadonlyMap<string, RuleRecord>, base: ScanBase | undefined): Steps<CheckedRule[]> {
  const active: CheckedRule[] = [];
  let n = 0;
  if (base === undefined) {
    for (const rule of rules.values()) {
      if (rule.status === 'ACTIVE') active.push(checkedRule(rule));
      if (++n % SCAN_STEP === 0) yield;
    }
    return active;
  }
  for (const checked of base.engine.active) {
    if (!base.changed.has(checked.rule.id)) active.push(checked);
    if (++n % SCAN_STEP === 0) yield;
  }
  for (const id of base.changed) {
    const rule = rules.get(id);
    if (rule !== undefined && rule.status === 'ACTIVE') active.push(checkedRule(rule));
    if (++n % SCAN_STEP === 0) yield;
  }
  return active;
}

function scanEngineOver(active: readonly CheckedRule[]): ScanEngine {
  function evaluate(fields: Fields): string[] {
    if (fields === null || typeof fields !== 'object') return [];
    const inputs = readInputs(fields);
    const ids: string[] = [];
    for (const checked of active) if (ruleMatches(checked, inputs)) ids.push(checked.rule.id);
    // Sorting the answer, not the rule set: answers are small.
    return ids.sort();
  }
  return {
    active,
    evaluate,
    // Derived afresh each time: a scan engine lives for a few queries, and keeps nothing but its rules.
    evaluateDerived: (fields, derive) => evaluate(fields).map((id) => derive(id)),
    upsert() {
      throw new Error('a scan engine is read-only: build a new one from the rules');
    },
    upsertMany() {
      throw new Error('a scan engine is read-only: build a new one from the rules');
    },
    remove() {
      throw new Error('a scan engine is read-only: build a new one from the rules');
    },
    get size() {
      return active.length;
    },
  };
}
