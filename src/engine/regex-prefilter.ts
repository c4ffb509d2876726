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
}

export const NO_FILTER: RegexFilter = Object.freeze({ prefix: '', suffix: '', all: [], any: [] });

/** Whether `text` passes the filter: false means the regex cannot match it. */
export function mayMatch(filter: RegexFilter, text: string): boolean {
  if (!text.startsWith(filter.prefix) || !text.endsWith(filter.suffix)) return false;
  const all = filter.all;
  for (let i = 0; i < all.length; i++) if (!text.includes(all[i])) return false;
  const any = filter.any;
  for (let i = 0; i < any.length; i++) if (!includesOne(text, any[i])) return false;
  return true;
}

function includesOne(text: string, literals: readonly string[]): boolean {
  for (let i = 0; i < literals.length; i++) if (text.includes(literals[i])) return true;
  return false;
}

/** Escapes naming a class or an assertion (\d, \b, ...): they match no fixed text. */
const CLASS_ESCAPES = new Set(['d', 'D', 's', 'S', 'w', 'W', 'b', 'B', 'A', 'z']);
/** `{n}`, `{n,}` or `{n,m}`: RE2's counted repetition. */
const COUNTED = /^\{(\d+)(,\d*)?\}/;
/** Characters with a meaning of their own in RE2 syntax. */
const META = new Set(['\\', '[', ']', '(', ')', '|', '.', '^', '$', '*', '+', '?', '{', '}']);

/** What every match of `pattern` is known to contain; NO_FILTER when nothing is known. */
export function regexFilter(pattern: string): RegexFilter {
  let prefix = '';
  let suffix = '';
  const all: string[] = [];
  const any: string[][] = [];
  let run = '';
  // Whether the run began right after a leading `^` (so it is a prefix of the value).
  let runAnchored = pattern.startsWith('^');
  // Whether the last thing read was a character appended to `run` (a quantifier then applies to it alone).
  let lastInRun = false;

  const commit = (): void => {
    if (run.length > 0) {
      if (runAnchored) prefix = run;
      if (!all.includes(run)) all.push(run);
    }
    run = '';
    runAnchored = false;
    lastInRun = false;
  };

  let i = runAnchored ? 1 : 0;
  while (i < pattern.length) {
    const ch = pattern[i];
    switch (ch) {
      case '\\': {
        const escaped = escapedLiteral(pattern, i);
        if (escaped === undefined) return NO_FILTER;
        if (escaped === null) commit();
        else {
          run += escaped;
          lastInRun = true;
        }
        i += 2;
        continue;
      }
      case '[': {
        const end = classEnd(pattern, i);
        if (end < 0) return NO_FILTER;
        commit();
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
        i = end;
        continue;
      }
      case '|': case ')':
        return NO_FILTER;
      case '$':
        // The run right before a final `$` ends the value (RE2: `$` is end of text without the m flag).
        if (i === pattern.length - 1 && lastInRun) suffix = run;
        commit();
        i += 1;
        continue;
      case '.': case '^':
        commit();
        i += 1;
        continue;
      case '*': case '?': case '+': case '{': {
        const [min, length] = quantifierAt(pattern, i);
        if (length === 0) return NO_FILTER;
        // The quantifier applies to the last character alone: optional, it leaves the run;
        // required, it stays but what follows need not be adjacent to it.
        if (lastInRun && min === 0) run = run.slice(0, -1);
        commit();
        i += length;
        continue;
      }
      default:
        if (ch.charCodeAt(0) >= 0x80) {
          // A quantifier after it would apply to the whole character, which is not in the run.
          commit();
          i += 1;
          continue;
        }
        run += ch;
        lastInRun = true;
        i += 1;
    }
  }
  commit();
  if (prefix === '' && suffix === '' && all.length === 0 && any.length === 0) return NO_FILTER;
  return { prefix, suffix, all, any };
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

/** [minimum repetitions, length of the quantifier including a lazy `?`] at `i`; [1, 0] when none. */
function quantifierAt(pattern: string, i: number): [number, number] {
  const ch = pattern[i];
  let min: number;
  let length: number;
  if (ch === '*' || ch === '?') [min, length] = [0, 1];
  else if (ch === '+') [min, length] = [1, 1];
  else if (ch === '{') {
    const counted = COUNTED.exec(pattern.slice(i));
    if (counted === null) return [1, 0];
    [min, length] = [Number(counted[1]), counted[0].length];
  } else return [1, 0];
  if (pattern[i + length] === '?') length += 1;
  return [min, length];
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
