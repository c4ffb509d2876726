/**
 * What the engine keeps beside the arena about each rule, and the handle the
 * debugging tools (inspect.ts) use to read an engine's internals without
 * widening the Engine interface.
 */
import type { Arena } from './arena';
import type { Drivers } from './drivers';
import type { Operands } from './operands';
import type { Postings } from './postings';
import type { Predicate } from './predicates';
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

/** An engine's internals, read by inspect.ts (dumps, invariant checks); never written through. */
export interface EngineInternals {
  readonly arena: Arena;
  readonly postings: Postings;
  readonly operands: Operands;
  readonly drivers: Drivers;
  readonly rules: ReadonlyMap<string, RuleEntry>;
  /** Rule ids by rule number ('' for a free number). */
  readonly ruleIds: readonly string[];
  readonly freeRuleIndexes: readonly number[];
}

const internals = new WeakMap<Engine, EngineInternals>();

export function registerInternals(engine: Engine, state: EngineInternals): Engine {
  internals.set(engine, state);
  return engine;
}

export function internalsOf(engine: Engine): EngineInternals {
  const state = internals.get(engine);
  if (state === undefined) throw new Error('not an engine made by createEngine');
  return state;
}
