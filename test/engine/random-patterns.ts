/**
 * Random RE2 patterns and values for the regex tests (prefilter and fast
 * matcher, both checked against re2js): pieces of syntax, literal and not,
 * quantified and not, and values made partly from the pattern's own
 * characters so that matches are common.
 */
import { RE2JS } from 're2js';
import { pick, type Random } from './random-rules';

const ATOMS = [
  'a', 'b', 'c', '-', '1', 'ab', 'ba', '\\.', '\\-', '\\$', '.', '\\d', '\\w', '\\s', '\\b', '[ab]', '[^a]', '[]a]', '[[:digit:]]',
  '[0-9]', '[\\d]', '\\D', '\\W', '\\S', '[a-c1]', '[^0-9]', '12', '\\A', '\\z', '[\\x{1F600}]',
  '(a|b)', '(?:ab|c)', '(ab)', '(a(b|c))', '(a|)', '(?:a)', 'é', '😀', '\\x61', '(?i)a', '\\pL',
  '[a-]', '[-a]', '[\\-a]', '[[:^alpha:]]', '[^\\n]', '\\t', '\\n', '[.]', '(|a)', '()', '[a-c-e]', '[\\]]',
  // Classes that may match an astral character (two UTF-16 units), beside ASCII members or not.
  '[a[:^digit:]]', '[^[:alpha:]]', '[\\D]', '[\\W1]',
];
/** A `^` with a quantifier anchors nothing (rare: the fast matcher leaves such patterns to re2js). */
const QUANTIFIED_STARTS = ['^?', '^*', '^{0,1}'];
const QUANTIFIERS = ['', '', '', '?', '*', '+', '{2}', '{0,2}', '{1,}', '??', '+?', '{,2}', '{3}', '{1,2}', '{2,3}?', '{0}', '*?'];
const ALPHABET = ['a', 'b', 'c', 'A', '-', '1', '2', '3', '.', '$', ' ', '\n', '\t', '\v', 'é', '😀', ']', '[', '_'];

export function randomPattern(random: Random): string {
  let pattern = random() < 0.3 ? (random() < 0.1 ? pick(random, QUANTIFIED_STARTS) : '^') : '';
  const n = 1 + Math.floor(random() * 6);
  for (let i = 0; i < n; i++) pattern += pick(random, ATOMS) + pick(random, QUANTIFIERS);
  if (random() < 0.1) pattern += '|' + pick(random, ATOMS);
  if (random() < 0.3) pattern += '$';
  return pattern;
}

/** Random values, and values made from the pattern's own characters (so matches are common). */
export function randomValue(random: Random, pattern: string): string {
  const source = random() < 0.5 ? ALPHABET : [...pattern.replace(/[\\^$()[\]|?*+{}:]/g, '')].concat(ALPHABET);
  let value = '';
  const n = Math.floor(random() * 9);
  for (let i = 0; i < n; i++) value += pick(random, source);
  return value;
}

/** Up to `tries` random patterns, those re2js accepts, each with its compiled form. */
export function* validPatterns(random: Random, tries: number): Generator<{ pattern: string; re: RE2JS }> {
  for (let p = 0; p < tries; p++) {
    const pattern = randomPattern(random);
    let re: RE2JS;
    try {
      re = RE2JS.compile(pattern);
    } catch {
      continue;
    }
    yield { pattern, re };
  }
}
