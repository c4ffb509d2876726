/**
 * The state between the engine's two halves: build.ts writes it (upsert,
 * remove), match.ts reads it (evaluate) and writes only its per-evaluation
 * stamps. Records and posting lists live in the arena (layout.ts); what is
 * here beside the arena is each rule's entry, so a rule can be removed
 * without searching the arena.
 */
import { createArena, type Arena, type ArenaImage } from './arena';
import { createDrivers, type Drivers } from './drivers';
import type { Kept } from './kept';
import { createOperands, type Operands, type OperandsImage } from './operands';
import { createPostings, type Postings, type PostingsImage } from './postings';
import type { Predicate } from './predicates';
import { SharedPredicates } from './shared-predicates';
import { RuleTable } from './rule-table';
import type { Engine } from './types';

export interface GroupEntry {
  /** Its record, NONE for a group that needs none (see `target`). */
  readonly offset: number;
  readonly words: number;
  /**
   * What its posting entries name: the record's offset, or, for a group with
   * nothing to count or verify (one hit decides it), ruleTarget(rule number),
   * so a hit lists the rule without reading a record (bench: engine, 10k
   * mixed: half of all hits).
   */
  readonly target: number;
  readonly drivers: readonly Predicate[];
}

export interface RuleEntry {
  /** The rule's number (ids and sort keys); NEVER_MATCHES when the active rule can never match. */
  readonly index: number;
  /** Its rule record, NONE when it has none. */
  readonly record: number;
  readonly recordWords: number;
  readonly groups: readonly GroupEntry[];
  /** Every condition it uses, driven or verified: their operands are released on removal. */
  readonly uses: readonly Predicate[];
}

export interface EngineState {
  readonly arena: Arena;
  readonly postings: Postings;
  /** Field slots, value ids and the pools of strings, regexes and number lists conditions point at. */
  readonly operands: Operands;
  /** Which posting lists each condition drives (equality maps, thresholds, affixes, residual scans). */
  readonly drivers: Drivers;
  /** Active rules by id (a restored engine's decoded on request: rule-table.ts). */
  readonly rules: RuleTable;
  /** Rule ids by rule number ('' for a free number); records and posting targets name rules by number. */
  readonly ruleIds: string[];
  /** Sort keys by rule number (id-order.ts), so answers sort without comparing strings. */
  readonly ruleKeys: number[];
  /** Rule numbers freed by removals, reused first. */
  readonly freeRuleIndexes: number[];
  /** One predicate object per distinct condition key, shared by the rules that use it (counted by use). */
  readonly predicates: SharedPredicates;
  /** What evaluateDerived's caller made of each matched rule, by rule number (match.ts; never imaged). */
  readonly derived: Derived;
}

/**
 * Values a caller derived from rules' ids (types.ts, evaluateDerived), by
 * rule number; `by` is the function that made them. A freed rule number's
 * value is cleared (build.ts drop), so a value never outlives the version of
 * the rule it was made from.
 */
export interface Derived {
  by: ((id: string) => unknown) | undefined;
  values: Kept<unknown>;
}

export interface SharedPredicate {
  readonly predicate: Predicate;
  refs: number;
}

/** A state restored from an engine image (image.ts): its parts decoded, each taken as it is. */
export interface StateParts {
  readonly arena: ArenaImage;
  readonly postings: PostingsImage;
  readonly operands: OperandsImage;
  readonly keyed: Map<string, number>;
  readonly rules: RuleTable;
  readonly ruleIds: string[];
  readonly ruleKeys: number[];
  readonly freeRuleIndexes: number[];
  readonly predicates: SharedPredicates;
}

/** An empty state, or one made of an image's parts. */
export function createState(from?: StateParts): EngineState {
  const arena = createArena(undefined, from?.arena);
  const postings = createPostings(arena, from?.postings);
  const operands = createOperands(from?.operands);
  const drivers = createDrivers(arena, postings, operands, from?.keyed);
  if (from !== undefined) {
    const { rules, ruleIds, ruleKeys, freeRuleIndexes, predicates } = from;
    return { arena, postings, operands, drivers, rules, ruleIds, ruleKeys, freeRuleIndexes, predicates, derived: noneDerived() };
  }
  const ruleIds: string[] = [];
  return {
    arena, postings, operands, drivers, rules: new RuleTable(ruleIds), ruleIds, ruleKeys: [], freeRuleIndexes: [], predicates: new SharedPredicates(),
    derived: noneDerived(),
  };
}

const noneDerived = (): Derived => ({ by: undefined, values: [] });

/** An engine's state, read by inspect.ts (dumps, invariant checks) without widening the Engine interface. */
const states = new WeakMap<Engine, EngineState>();

export function registerState(engine: Engine, state: EngineState): Engine {
  states.set(engine, state);
  return engine;
}

export function stateOf(engine: Engine): EngineState {
  const state = states.get(engine);
  if (state === undefined) throw new Error('not an engine made by createEngine');
  return state;
}
