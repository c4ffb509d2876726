/**
 * Compiling one condition into a predicate: operands parsed once, regexes
 * compiled once (re2js, linear time), and a typed test against the request's
 * value. Pure; anything invalid compiles to null, "never true".
 */
import { RE2JS } from 're2js';
import type { Condition } from './conditions';
import { compileFastRegex, MATCH, UNKNOWN, type FastRegex } from './fast-regex';
import { Layout } from './layout';
import { mayMatch, NO_FILTER, regexFilter, type RegexFilter } from './regex-prefilter';
import { parseDecimal, splitBetween, splitList } from './values';

/** Predicate kinds; boolean not_equals is folded into BOOL_EQ of the other value. */
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
  readonly re: RE2JS | null;
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

/** Compiles a condition; null when it can never be true (invalid operand, operator or type). */
export function compileCondition(condition: Condition): Predicate | null {
  if (condition === null || typeof condition !== 'object') return null;
  const { field, operator, value } = condition;
  if (typeof field !== 'string' || typeof value !== 'string') return null;
  // contract §2: data_type defaults to string; events always carry it, this keeps odd input total.
  const dataType: unknown = condition.data_type === undefined ? 'string' : condition.data_type;
  switch (dataType) {
    case 'string': return compileText(field, operator, value);
    case 'number': return compileNumber(field, operator, value);
    case 'boolean': return compileBoolean(field, operator, value);
    default: return null;
  }
}

function compileText(field: string, operator: string, value: string): Predicate | null {
  switch (operator) {
    case 'equals': return make(Kind.TEXT_EQ, field, value, { text: value });
    case 'not_equals': return make(Kind.TEXT_NE, field, value, { text: value });
    case 'contains': return make(Kind.CONTAINS, field, value, { text: value });
    case 'not_contains': return make(Kind.NOT_CONTAINS, field, value, { text: value });
    case 'starts_with': return make(Kind.STARTS_WITH, field, value, { text: value });
    case 'ends_with': return make(Kind.ENDS_WITH, field, value, { text: value });
    case 'in':
    case 'not_in': {
      const texts = new Set(splitList(value));
      const kind = operator === 'in' ? Kind.TEXT_IN : Kind.TEXT_NOT_IN;
      return make(kind, field, [...texts].sort().join('\u0000'), { texts });
    }
    case 'regex': {
      const compiledRegex = compileRegex(value);
      if (compiledRegex === null) return null;
      return make(Kind.REGEX, field, value, { text: value, ...compiledRegex });
    }
    default: return null;
  }
}

function compileNumber(field: string, operator: string, value: string): Predicate | null {
  switch (operator) {
    case 'equals': case 'not_equals': case 'gt': case 'gte': case 'lt': case 'lte': {
      const num = parseDecimal(value);
      if (Number.isNaN(num)) return null;
      return make(NUMBER_KINDS[operator], field, String(num), { num });
    }
    case 'in':
    case 'not_in': {
      const nums = new Set<number>();
      for (const item of splitList(value)) {
        const n = parseDecimal(item);
        if (Number.isNaN(n)) return null;
        nums.add(n);
      }
      const kind = operator === 'in' ? Kind.NUM_IN : Kind.NUM_NOT_IN;
      return make(kind, field, [...nums].sort((a, b) => a - b).join(','), { nums });
    }
    case 'between': {
      const bounds = splitBetween(value);
      if (bounds === null) return null;
      const lo = parseDecimal(bounds[0]);
      const hi = parseDecimal(bounds[1]);
      if (Number.isNaN(lo) || Number.isNaN(hi) || lo > hi) return null;
      return make(Kind.BETWEEN, field, `${lo},${hi}`, { num: lo, num2: hi });
    }
    default: return null;
  }
}

const NUMBER_KINDS = {
  equals: Kind.NUM_EQ, not_equals: Kind.NUM_NE, gt: Kind.NUM_GT, gte: Kind.NUM_GTE, lt: Kind.NUM_LT, lte: Kind.NUM_LTE,
} as const;

function compileBoolean(field: string, operator: string, value: string): Predicate | null {
  if (value !== 'true' && value !== 'false') return null;
  const wanted = value === 'true';
  // Inputs must be booleans for either operator, so not_equals X is exactly equals !X.
  if (operator === 'equals') return make(Kind.BOOL_EQ, field, String(wanted), { num: wanted ? Layout.BOOL_TRUE : Layout.BOOL_FALSE });
  if (operator === 'not_equals') return make(Kind.BOOL_EQ, field, String(!wanted), { num: wanted ? Layout.BOOL_FALSE : Layout.BOOL_TRUE });
  return null;
}

/**
 * Compiled patterns by source. Rule sets repeat patterns, and compiling is
 * the dearest step of building the engine (profile of a snapshot start:
 * re2js compiles were a tenth of it). A compiled RE2JS is immutable, so
 * rules share it; the map is cleared when full to stay bounded.
 */
const compiled = new Map<string, CompiledRegex | null>();
const MAX_COMPILED = 10_000;

export interface CompiledRegex {
  readonly re: RE2JS;
  readonly filter: RegexFilter;
  readonly fast: FastRegex | null;
}

/** Compiles a rule author's pattern with re2js (and its prefilter and fast matcher); null when re2js rejects it. */
export function compileRegex(pattern: string): CompiledRegex | null {
  let entry = compiled.get(pattern);
  if (entry !== undefined) return entry;
  try {
    entry = { re: RE2JS.compile(pattern), filter: regexFilter(pattern), fast: compileFastRegex(pattern) };
  } catch {
    entry = null;
  }
  if (compiled.size >= MAX_COMPILED) compiled.clear();
  compiled.set(pattern, entry);
  return entry;
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

interface Operands {
  text?: string; num?: number; num2?: number;
  texts?: ReadonlySet<string>; nums?: ReadonlySet<number>; re?: RE2JS; filter?: RegexFilter; fast?: FastRegex | null;
}

function make(kind: Kind, field: string, canonical: string, o: Operands): Predicate {
  return {
    key: `${kind}\u0001${field}\u0001${canonical}`,
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

/** Whether `p` holds for a present value. Absence is the caller's business (it makes every predicate false). */
export function testPredicate(p: Predicate, v: InputView): boolean {
  switch (p.kind) {
    case Kind.TEXT_EQ: return v.text === p.text;
    case Kind.TEXT_IN: return p.texts.has(v.text);
    case Kind.TEXT_NE: return v.text !== p.text;
    case Kind.TEXT_NOT_IN: return !p.texts.has(v.text);
    case Kind.STARTS_WITH: return v.text.startsWith(p.text);
    case Kind.ENDS_WITH: return v.text.endsWith(p.text);
    case Kind.CONTAINS: return v.text.includes(p.text);
    case Kind.NOT_CONTAINS: return !v.text.includes(p.text);
    // A regex predicate carries its compiled regex's members (re non-null once compiled).
    case Kind.REGEX: return p.re !== null && regexMatches(p as CompiledRegex, v.text);
    // NaN (not a number) fails every comparison below, including the negations.
    case Kind.NUM_EQ: return v.num === p.num;
    case Kind.NUM_IN: return p.nums.has(v.num);
    case Kind.NUM_NE: return v.num === v.num && v.num !== p.num;
    case Kind.NUM_NOT_IN: return v.num === v.num && !p.nums.has(v.num);
    case Kind.NUM_GT: return v.num > p.num;
    case Kind.NUM_GTE: return v.num >= p.num;
    case Kind.NUM_LT: return v.num < p.num;
    case Kind.NUM_LTE: return v.num <= p.num;
    case Kind.BETWEEN: return v.num >= p.num && v.num <= p.num2;
    case Kind.BOOL_EQ: return v.bool === p.num;
    default: return false;
  }
}
