/**
 * Literals that every match of a regex must contain: the cheap prefilter in
 * front of the linear-time regex (the idea of RE2's FilteredRE2). A request
 * value that fails it cannot match, so a few `startsWith`/`includes` calls
 * (nanoseconds) answer most regex conditions without running re2js
 * (~500 ns per call on the bench's values; bench: engine, 10k mixed and
 * 1k regex-only).
 *
 * Conservative by construction: only top-level runs of plain ASCII
 * characters and top-level groups of plain literal alternatives count, and
 * anything this reader is unsure of (alternation at the top level, flag
 * groups, escapes other than the plain ones) yields "no prefilter". The
 * property test in test/engine/regex-prefilter.test.ts checks "matches
 * implies passes" on random patterns against re2js itself.
 */

export interface RegexFilter {
  /** The value starts with this ('' for no constraint). */
  readonly prefix: string;
  /** The value ends with this ('' for no constraint). */
  readonly suffix: string;
  /** The value contains each of these. */
  readonly all: readonly string[];
  /** For each set, the value contains at least one member. */
  readonly any: readonly (readonly string[])[];
  /** The value holds at least this many ASCII digits (`\d{3}` needs three). */
  readonly digits: number;
  /**
   * For a pattern anchored at both ends with bounded repetition: the longest
   * value it can match, in UTF-16 units (a character outside the BMP, which
   * any class but a plainly ASCII one may match, counts two).
   */
  readonly maxLength: number;
}

export const NO_FILTER: RegexFilter = Object.freeze({ prefix: '', suffix: '', all: [], any: [], digits: 0, maxLength: Infinity });

/** Whether `text` passes the filter: false means the regex cannot match it. */
export function mayMatch(filter: RegexFilter, text: string): boolean {
  if (text.length > filter.maxLength) return false;
  if (!text.startsWith(filter.prefix) || !text.endsWith(filter.suffix)) return false;
  const all = filter.all;
  for (let i = 0; i < all.length; i++) if (!text.includes(all[i])) return false;
  const any = filter.any;
  for (let i = 0; i < any.length; i++) if (!includesOne(text, any[i])) return false;
  return filter.digits === 0 || hasDigits(text, filter.digits);
}

function includesOne(text: string, literals: readonly string[]): boolean {
  for (let i = 0; i < literals.length; i++) if (text.includes(literals[i])) return true;
  return false;
}

function hasDigits(text: string, wanted: number): boolean {
  let found = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 48 && code <= 57 && ++found === wanted) return true;
  }
  return false;
}

/** Escapes naming a class or an assertion (\d, \b, ...): they match no fixed text. */
const CLASS_ESCAPES = new Set(['d', 'D', 's', 'S', 'w', 'W', 'b', 'B', 'A', 'z']);
/**
 * Widest match of a class or assertion escape, in UTF-16 units: RE2's \d,
 * \s, \w are ASCII; their negations can match a character outside the BMP
 * (two units); assertions match nothing.
 */
const ESCAPE_WIDTH: Readonly<Record<string, number>> = { d: 1, s: 1, w: 1, D: 2, S: 2, W: 2, b: 0, B: 0, A: 0, z: 0 };
/** `{n}`, `{n,}` or `{n,m}`: RE2's counted repetition. */
const COUNTED = /^\{(\d+)(,(\d*))?\}/;
/** Characters with a meaning of their own in RE2 syntax. */
const META = new Set(['\\', '[', ']', '(', ')', '|', '.', '^', '$', '*', '+', '?', '{', '}']);

const isDigit = (ch: string): boolean => ch >= '0' && ch <= '9';

/** What every match of `pattern` is known to contain; NO_FILTER when nothing is known. */
export function regexFilter(pattern: string): RegexFilter {
  let prefix = '';
  let suffix = '';
  const all: string[] = [];
  const any: string[][] = [];
  let run = '';
  // A leading `^` anchors the match at the start of the value, unless a quantifier
  // follows it: `^*abc$` (zero or more empty matches) anchors nothing, so then the
  // `^` is read as an element like any other.
  const anchoredStart = pattern.startsWith('^') && quantifierAt(pattern, 1)[2] === 0;
  // Whether the run began right after the leading anchor (so it is a prefix of the value).
  let runAnchored = anchoredStart;
  // Whether the last thing read was a character appended to `run` (a quantifier then applies to it alone).
  let lastInRun = false;
  // Digits every match holds, and the widest match (UTF-16 units); both summed over the
  // top-level elements, which occupy disjoint parts of a match.
  let digits = 0;
  let width = 0;
  let endAnchored = false;
  // The last element's widest width and its digits, which a quantifier scales.
  let lastWidth = 0;
  let lastDigits = 0;

  const element = (w: number, d: number): void => {
    width += w;
    digits += d;
    lastWidth = w;
    lastDigits = d;
  };

  const commit = (): void => {
    if (run.length > 0) {
      if (runAnchored) prefix = run;
      if (!all.includes(run)) all.push(run);
    }
    run = '';
    runAnchored = false;
    lastInRun = false;
  };

  let i = anchoredStart ? 1 : 0;
  while (i < pattern.length) {
    const ch = pattern[i];
    switch (ch) {
      case '\\': {
        const escaped = escapedLiteral(pattern, i);
        if (escaped === undefined) return NO_FILTER;
        if (escaped === null) {
          commit();
          const name = pattern[i + 1];
          element(ESCAPE_WIDTH[name], name === 'd' ? 1 : 0);
        } else {
          run += escaped;
          lastInRun = true;
          element(1, 0);
        }
        i += 2;
        continue;
      }
      case '[': {
        const end = classEnd(pattern, i);
        if (end < 0) return NO_FILTER;
        commit();
        const body = pattern.slice(i + 1, end - 1);
        element(classWidth(body), body === '0-9' || body === '\\d' ? 1 : 0);
        i = end;
        continue;
      }
      case '(': {
        if (pattern[i + 1] === '?' && pattern[i + 2] !== ':') return NO_FILTER;
        const end = groupEnd(pattern, i);
        if (end < 0) return NO_FILTER;
        commit();
        // A group of plain literal alternatives, unless a quantifier makes it optional.
        const alternatives = literalAlternatives(pattern.slice(pattern[i + 1] === '?' ? i + 3 : i + 1, end - 1));
        const [min] = quantifierAt(pattern, end);
        if (alternatives !== null && min > 0 && !alternatives.includes('')) any.push(alternatives);
        element(Infinity, 0);
        i = end;
        continue;
      }
      case '|': case ')':
        return NO_FILTER;
      case '$':
        // The run right before a final `$` ends the value (RE2: `$` is end of text without the m flag).
        if (i === pattern.length - 1) {
          endAnchored = true;
          if (lastInRun) suffix = run;
        }
        commit();
        element(0, 0);
        i += 1;
        continue;
      case '.': case '^':
        commit();
        // `.` matches one character, which may lie outside the BMP.
        element(ch === '.' ? 2 : 0, 0);
        i += 1;
        continue;
      case '*': case '?': case '+': case '{': {
        const [min, max, length] = quantifierAt(pattern, i);
        if (length === 0) return NO_FILTER;
        // The quantifier applies to the last character alone: optional, it leaves the run;
        // required, it stays but what follows need not be adjacent to it.
        if (lastInRun && min === 0) run = run.slice(0, -1);
        commit();
        // The element now stands for its repetitions (so a further quantifier would scale them).
        // An unbounded element stays unbounded (Infinity * 0 would be NaN, not 0).
        if (lastWidth > 0 && lastWidth < Infinity) {
          const repeated = lastWidth * max;
          width += repeated - lastWidth;
          lastWidth = repeated;
        }
        digits += lastDigits * (min - 1);
        lastDigits *= min;
        i += length;
        continue;
      }
      default:
        if (ch.charCodeAt(0) >= 0x80) {
          // A quantifier after it would apply to the whole character, which is not in the run.
          commit();
          element(Infinity, 0);
          i += 1;
          continue;
        }
        run += ch;
        lastInRun = true;
        element(1, isDigit(ch) ? 1 : 0);
        i += 1;
    }
  }
  commit();
  const maxLength = anchoredStart && endAnchored ? width : Infinity;
  if (prefix === '' && suffix === '' && all.length === 0 && any.length === 0 && digits === 0 && maxLength === Infinity) {
    return NO_FILTER;
  }
  return { prefix, suffix, all, any, digits, maxLength };
}

/**
 * Widest match of a bracket class: one unit when it is plainly ASCII (not
 * negated; ASCII members, escapes only of punctuation or \d \s \w, POSIX
 * classes not negated), two otherwise, since it may match a character
 * outside the BMP: `[^a]`, `[[:^alpha:]]`, `[\D]`, `[\pL]`, `[\x{1F600}]`.
 */
function classWidth(body: string): number {
  if (body.startsWith('^')) return 2;
  for (let i = 0; i < body.length; i++) {
    const code = body.charCodeAt(i);
    if (code >= 0x80) return 2;
    if (body[i] === '\\') {
      const next = body[i + 1] ?? '';
      if (/[A-Za-z0-9]/.test(next) && !'dsw'.includes(next)) return 2;
      i += 1;
    } else if (body[i] === '[' && body[i + 1] === ':') {
      // A POSIX class: ASCII (RE2's are), unless negated (`[:^alpha:]` is everything else, astral included).
      if (body[i + 2] === '^') return 2;
      const close = body.indexOf(':]', i + 2);
      if (close < 0) return 2;
      i = close + 1;
    }
  }
  return 1;
}

/**
 * The literal character `\x` stands for at `i`: null for a class or
 * assertion escape (\d, \b), undefined for escapes not read here (\x41, \pL,
 * \Q...\E, octal, non-ASCII).
 */
function escapedLiteral(pattern: string, i: number): string | null | undefined {
  const next = pattern[i + 1];
  if (next === undefined || next.charCodeAt(0) >= 0x80) return undefined;
  if (/[A-Za-z0-9]/.test(next)) return CLASS_ESCAPES.has(next) ? null : undefined;
  return next;
}

/** [minimum repetitions, maximum repetitions, length of the quantifier including a lazy `?`] at `i`; [1, 1, 0] when none. */
function quantifierAt(pattern: string, i: number): [number, number, number] {
  const ch = pattern[i];
  let min: number;
  let max: number;
  let length: number;
  if (ch === '*') [min, max, length] = [0, Infinity, 1];
  else if (ch === '?') [min, max, length] = [0, 1, 1];
  else if (ch === '+') [min, max, length] = [1, Infinity, 1];
  else if (ch === '{') {
    const counted = COUNTED.exec(pattern.slice(i));
    if (counted === null) return [1, 1, 0];
    min = Number(counted[1]);
    max = counted[2] === undefined ? min : counted[3] === '' ? Infinity : Number(counted[3]);
    length = counted[0].length;
  } else return [1, 1, 0];
  if (pattern[i + length] === '?') length += 1;
  return [min, max, length];
}

/** The alternatives of a group body when each is plain ASCII literal text; null otherwise. */
function literalAlternatives(body: string): string[] | null {
  const alternatives: string[] = [];
  let current = '';
  for (let i = 0; i < body.length; i++) {
    const ch = body[i];
    if (ch === '|') {
      alternatives.push(current);
      current = '';
    } else if (ch === '\\') {
      const escaped = escapedLiteral(body, i);
      if (typeof escaped !== 'string') return null;
      current += escaped;
      i += 1;
    } else if (META.has(ch) || ch.charCodeAt(0) >= 0x80) return null;
    else current += ch;
  }
  alternatives.push(current);
  return alternatives;
}

/** Index just past the `]` closing the class opened at `start`, or -1. */
function classEnd(pattern: string, start: number): number {
  let i = start + 1;
  if (pattern[i] === '^') i += 1;
  // A `]` first in the class is a member, not the end.
  if (pattern[i] === ']') i += 1;
  while (i < pattern.length) {
    const ch = pattern[i];
    if (ch === '\\') i += 2;
    else if (ch === '[' && pattern[i + 1] === ':') {
      const close = pattern.indexOf(':]', i + 2);
      if (close < 0) return -1;
      i = close + 2;
    } else if (ch === ']') return i + 1;
    else i += 1;
  }
  return -1;
}

/** Index just past the `)` closing the group opened at `start`, or -1. */
function groupEnd(pattern: string, start: number): number {
  let depth = 0;
  let i = start;
  while (i < pattern.length) {
    const ch = pattern[i];
    if (ch === '\\') i += 2;
    else if (ch === '[') {
      i = classEnd(pattern, i);
      if (i < 0) return -1;
    } else {
      if (ch === '(') depth += 1;
      else if (ch === ')' && --depth === 0) return i + 1;
      i += 1;
    }
  }
  return -1;
}
