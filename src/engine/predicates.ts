/**
 * A compiled condition (predicate): its kind, its operand parsed once and
 * its regex compiled once (re2js, linear time). Which operator and data type
 * compile to which kind, how the operand is read and how a value is tested
 * is the operator table's business (operators.ts); this file is the shape
 * they fill in. Pure.
 */
import { RE2JS } from 're2js';
import { compileFastRegex, MATCH, UNKNOWN, type FastRegex } from './fast-regex';
import { mayMatch, NO_FILTER, regexFilter, type RegexFilter } from './regex-prefilter';

/**
 * Predicate kinds; boolean not_equals is folded into BOOL_EQ of the other
 * value. The numbers are names only (written into arena words, code.ts):
 * nothing may depend on their order; what a kind reads and how it tests is
 * in the operator table (operators.ts).
 */
export const Kind = {
  TEXT_EQ: 0, TEXT_IN: 1, TEXT_NE: 2, TEXT_NOT_IN: 3,
  STARTS_WITH: 4, ENDS_WITH: 5, CONTAINS: 6, NOT_CONTAINS: 7, REGEX: 8,
  NUM_EQ: 9, NUM_IN: 10, NUM_NE: 11, NUM_NOT_IN: 12,
  NUM_GT: 13, NUM_GTE: 14, NUM_LT: 15, NUM_LTE: 16, BETWEEN: 17,
  BOOL_EQ: 18,
} as const;
export type Kind = (typeof Kind)[keyof typeof Kind];

/**
 * One compiled condition. Every member is always present (unused ones empty)
 * so all predicates share one object shape and the evaluation switch stays
 * monomorphic (bench: engine, 10k mixed).
 */
export interface Predicate {
  /** Identity for sharing one predicate between rules: same key, same truth. */
  readonly key: string;
  readonly field: string;
  readonly kind: Kind;
  readonly text: string;
  /** Number operand; BETWEEN's low bound; BOOL_EQ: 1 true, 0 false. */
  readonly num: number;
  /** BETWEEN's high bound. */
  readonly num2: number;
  readonly texts: ReadonlySet<string>;
  readonly nums: ReadonlySet<number>;
  readonly re: RegexTester | null;
  /** REGEX: what every match contains, tested before re2js (NO_FILTER for other kinds). */
  readonly filter: RegexFilter;
  /** REGEX: the fast matcher, when the pattern is simple enough for it (fast-regex.ts). */
  readonly fast: FastRegex | null;
}

/** The typed views of one present request value (see values.ts). */
export interface InputView {
  /** Text for string conditions. */
  text: string;
  /** NaN when the value is not a number. */
  num: number;
  /** 1 true, 0 false, -1 not a boolean. */
  bool: number;
}

const NO_TEXTS: ReadonlySet<string> = new Set();
const NO_NUMS: ReadonlySet<number> = new Set();

/**
 * Compiled patterns by source. Rule sets repeat patterns, and compiling is
 * the dearest step of building the engine (profile of a snapshot start:
 * re2js compiles were a tenth of it). A compiled RE2JS is immutable, so
 * rules share it; the map is cleared when full to stay bounded.
 */
const compiled = new Map<string, CompiledRegex | null>();
const MAX_COMPILED = 10_000;

/** What tests a text against a pattern: re2js's compiled pattern, or one compiled on first test (restoreRegex). */
export interface RegexTester {
  test(text: string): boolean;
}

export interface CompiledRegex {
  readonly re: RegexTester;
  readonly filter: RegexFilter;
  readonly fast: FastRegex | null;
}

/** Compiles a rule author's pattern with re2js (and its prefilter and fast matcher); null when re2js rejects it. */
export function compileRegex(pattern: string): CompiledRegex | null {
  return cachedBy(compiled, pattern, () => {
    try {
      return { re: RE2JS.compile(pattern), filter: regexFilter(pattern), fast: compileFastRegex(pattern) };
    } catch {
      return null;
    }
  });
}

/** `cache`'s entry for `pattern`, made once; the cache is cleared when full to stay bounded. */
function cachedBy<T>(cache: Map<string, T>, pattern: string, make: () => T): T {
  let entry = cache.get(pattern);
  if (entry !== undefined) return entry;
  entry = make();
  if (cache.size >= MAX_COMPILED) cache.clear();
  cache.set(pattern, entry);
  return entry;
}

/** Patterns an engine image restored, by source (bounded as `compiled` is). */
const restored = new Map<string, CompiledRegex>();

/** re2js's compile of a pattern, done on its first test. */
class DeferredRe2 implements RegexTester {
  #re: RE2JS | undefined;
  constructor(private readonly pattern: string) {}

  test(text: string): boolean {
    return (this.#re ??= RE2JS.compile(this.pattern)).test(text);
  }
}

/**
 * A pattern an engine image restores (image.ts): re2js accepted it when
 * its rule was compiled and the image's checksum vouches for it, so its
 * prefilter and fast matcher are built now and re2js's compile waits for the
 * first text they leave undecided. Compiling every pattern of a 1M-rule
 * image took ~0.25 s of the start, most of it for patterns no request had
 * reached yet (bench: million).
 */
export function restoreRegex(pattern: string): CompiledRegex {
  return cachedBy(restored, pattern, () => ({ re: new DeferredRe2(pattern), filter: regexFilter(pattern), fast: compileFastRegex(pattern) }));
}

/**
 * Whether a compiled regex matches `text`: the fast matcher where it
 * answers, otherwise the prefilter and then re2js (linear time either way).
 */
export function regexMatches(regex: CompiledRegex, text: string): boolean {
  if (regex.fast !== null) {
    const answer = regex.fast.test(text);
    if (answer !== UNKNOWN) return answer === MATCH;
  }
  return mayMatch(regex.filter, text) && regex.re.test(text);
}

/** A rule's operand, read by its operator row (operators.ts): the members of a predicate it sets, and its canonical text. */
export interface Operand {
  /** Same canonical text, same operand: with the kind and field, the predicate's key. */
  readonly canonical: string;
  readonly text?: string; readonly num?: number; readonly num2?: number;
  readonly texts?: ReadonlySet<string>; readonly nums?: ReadonlySet<number>;
  readonly re?: RegexTester; readonly filter?: RegexFilter; readonly fast?: FastRegex | null;
}

/** The predicate of `kind` on `field` with operand `o`, every member present (see Predicate). */
export function makePredicate(kind: Kind, field: string, o: Operand): Predicate {
  return {
    key: `${kind}\u0001${field}\u0001${o.canonical}`,
    field,
    kind,
    text: o.text ?? '',
    num: o.num ?? NaN,
    num2: o.num2 ?? NaN,
    texts: o.texts ?? NO_TEXTS,
    nums: o.nums ?? NO_NUMS,
    re: o.re ?? null,
    filter: o.filter ?? NO_FILTER,
    fast: o.fast ?? null,
  };
}
