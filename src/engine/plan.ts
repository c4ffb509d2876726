/**
 * Planning a rule for the index: which predicates are looked up in the field
 * indexes ("drivers", whose hits are counted) and which are only checked once
 * a group or rule is a candidate ("verify"). Pure.
 *
 * Counting (boolean-expression indexing): a group fires when its driver hit
 * count reaches `need` (AND: every driver; OR: one), and a rule fires when its
 * fired driver groups reach its own `need`. A conjunction needs only some of
 * its members driven, since any false member makes it false: the rest is
 * verified on the few candidates. A disjunction must have every member driven.
 *
 * Which members of a conjunction drive is a cost decision, never a semantic
 * one: one driver per conjunction (and one driver group per AND rule), the
 * cheapest kind to look up and, among equalities, the one estimated true for
 * the fewest requests. The other members are verified from the group's own
 * record, a few words beside its counter, which costs less than walking a
 * second posting list to count them (bench: engine-ab, 10k, against counting
 * every selective equality, the textbook form: ADR 0027).
 */
import type { Condition, ConditionGroup } from './conditions';
import type { RuleDefinition } from './types';
import { compileCondition } from './operators';
import { Kind, type Predicate } from './predicates';

export interface GroupPlan {
  readonly operator: 'AND' | 'OR';
  /** Distinct predicates (duplicates within a group would break counting). */
  readonly drivers: readonly Predicate[];
  /** Checked directly once the drivers have all hit (AND groups only). */
  readonly verify: readonly Predicate[];
  /** How costly driving this group is (kind class); lower is better. */
  readonly cost: number;
  /** Estimated share of requests that hit its drivers (equality only; 1 otherwise). */
  readonly share: number;
}

export interface RulePlan {
  readonly id: string;
  readonly operator: 'AND' | 'OR';
  readonly drivers: readonly GroupPlan[];
  /** Groups evaluated directly once the driver groups have all fired (AND rules only). */
  readonly verify: readonly GroupPlan[];
}

/**
 * Drive cost by kind: exact hash lookups first (selective, O(1)), then prefix
 * and suffix checks, booleans (half of all requests), numeric ranges (often
 * half), substring and regex scans, and negations last (true for almost every
 * present value). Chosen on bench: engine (10k mixed), where anchoring AND
 * groups on their equality conditions keeps candidates near the answer size.
 */
function kindCost(kind: Kind): number {
  switch (kind) {
    case Kind.TEXT_EQ: case Kind.TEXT_IN: case Kind.NUM_EQ: case Kind.NUM_IN: return 0;
    case Kind.STARTS_WITH: case Kind.ENDS_WITH: return 1;
    case Kind.BOOL_EQ: return 2;
    case Kind.NUM_GT: case Kind.NUM_GTE: case Kind.NUM_LT: case Kind.NUM_LTE: case Kind.BETWEEN: return 3;
    case Kind.CONTAINS: return 4;
    case Kind.REGEX: return 5;
    default: return 6;
  }
}

/**
 * Check order for verified members, cheapest and likeliest to decide first:
 * hash-free comparisons, then ranges, affixes, substring, negations (which
 * rarely fail) and regex last (bench: engine, 10k mixed).
 */
function checkCost(kind: Kind): number {
  switch (kind) {
    case Kind.TEXT_EQ: case Kind.TEXT_IN: case Kind.NUM_EQ: case Kind.NUM_IN: case Kind.BOOL_EQ: return 0;
    case Kind.NUM_GT: case Kind.NUM_GTE: case Kind.NUM_LT: case Kind.NUM_LTE: case Kind.BETWEEN: return 1;
    case Kind.STARTS_WITH: case Kind.ENDS_WITH: return 2;
    case Kind.CONTAINS: return 3;
    case Kind.REGEX: return 5;
    default: return 4;
  }
}

/** `members` in check order (a stable sort: equal costs keep the author's order). */
export function inCheckOrder(members: readonly Predicate[]): Predicate[] {
  return [...members].sort((a, b) => checkCost(a.kind) - checkCost(b.kind));
}

/**
 * Estimated share of requests for which an equality predicate holds (0..1):
 * the engine answers from the distinct values the rule set names on the field.
 */
export type Selectivity = (p: Predicate) => number;

/** Without knowledge of the rule set: every equality member counts as selective. */
const ASSUME_SELECTIVE: Selectivity = () => 0;

export interface PlanOptions {
  /** Estimates from the rule set (default: every equality assumed selective). */
  readonly selectivity?: Selectivity;
  /**
   * How a condition becomes a predicate (default compileCondition); the
   * builder passes one that returns the predicate it already holds under the
   * same key, so rules share one object per distinct condition.
   */
  readonly compile?: (condition: Condition) => Predicate | null;
}

/**
 * The index plan of an active rule, or null when the rule can never match
 * (no groups, an AND over an impossible group, invalid conditions) or is not
 * ACTIVE. Never throws on odd input.
 */
export function planRule(rule: RuleDefinition, options: PlanOptions = {}): RulePlan | null {
  const selectivity = options.selectivity ?? ASSUME_SELECTIVE;
  const compile = options.compile ?? compileCondition;
  if (rule.status !== 'ACTIVE' || !Array.isArray(rule.condition_groups)) return null;
  const operator = rule.group_operator;
  if (operator !== 'AND' && operator !== 'OR') return null;
  const groups: GroupPlan[] = [];
  for (const group of rule.condition_groups) {
    const plan = planGroup(group, selectivity, compile);
    if (plan !== null) groups.push(plan);
    else if (operator === 'AND') return null;
  }
  if (groups.length === 0) return null;
  if (operator === 'OR') return { id: rule.id, operator, drivers: groups, verify: [] };
  const [drivers, verify] = chooseDrivers(groups, (g) => g.cost, (g) => g.share);
  return { id: rule.id, operator, drivers, verify };
}

/**
 * A group's plan, or null when it can never be true. Distinct predicates are
 * found by a scan, not a Map: a group holds a few conditions, and a Map per
 * group was a visible share of a 1M-rule build (bench: million).
 */
function planGroup(group: ConditionGroup, selectivity: Selectivity, compile: (c: Condition) => Predicate | null): GroupPlan | null {
  if (group === null || typeof group !== 'object' || !Array.isArray(group.conditions)) return null;
  const operator = group.condition_operator;
  if (operator !== 'AND' && operator !== 'OR') return null;
  const predicates: Predicate[] = [];
  for (const condition of group.conditions) {
    const p = compile(condition);
    if (p === null) {
      if (operator === 'AND') return null;
      continue;
    }
    // Same key, same truth: a repeated condition keeps its first place (as a Map's insertion order did).
    const seen = predicates.findIndex((q) => q.key === p.key);
    if (seen === -1) predicates.push(p);
    else predicates[seen] = p;
  }
  if (predicates.length === 0) return null;
  const share = (p: Predicate): number => (kindCost(p.kind) === 0 ? selectivity(p) : 1);
  if (operator === 'OR') {
    let cost = 0;
    let shares = 0;
    for (const p of predicates) {
      cost = Math.max(cost, kindCost(p.kind));
      shares += share(p);
    }
    return { operator, drivers: predicates, verify: [], cost, share: Math.min(1, shares) };
  }
  const [drivers, verify] = chooseDrivers(predicates, (p) => kindCost(p.kind), share);
  let least = 1;
  for (const d of drivers) least = Math.min(least, share(d));
  return { operator, drivers, verify: inCheckOrder(verify), cost: kindCost(drivers[0].kind), share: least };
}

/** A conjunction's [drivers, members to verify]: the single best member by cost, then estimated share. */
function chooseDrivers<T>(members: readonly T[], cost: (m: T) => number, share: (m: T) => number): [T[], T[]] {
  let best = members[0];
  for (const m of members) {
    if (cost(m) < cost(best) || (cost(m) === cost(best) && share(m) < share(best))) best = m;
  }
  return [[best], members.filter((m) => m !== best)];
}
