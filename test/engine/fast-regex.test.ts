/**
 * The fast regex matcher must answer exactly as re2js does wherever it
 * answers at all: random patterns and values (on the seeds of
 * test/support/seeds.ts), the cases random seeds once found, plus the
 * patterns it must read and the ones it must leave to re2js.
 */
import { RE2JS } from 're2js';
import t from 'tap';
import { compileFastRegex, MATCH, NO_MATCH, UNKNOWN } from '../../src/engine/fast-regex';
import { compileRegex, regexMatches, restoreRegex } from '../../src/engine/predicates';
import { perSeed, replayHint, seedShare, testSeeds } from '../support/seeds';
import { FOUND_REGEX_CASES } from './cases';
import { randomValue, validPatterns } from './random-patterns';
import { seededRandom } from './random-rules';

const expected = (re: RE2JS, value: string): number => (re.test(value) ? MATCH : NO_MATCH);

t.test('reads the bench workload and common shapes, answering as re2js', async (t) => {
  const rows: [string, string[]][] = [
    ['^checkout-\\d{1,2}$', ['checkout-12', 'checkout-123', 'checkout-', 'xcheckout-1']],
    ['^(gpt|claude)-[0-9]*8$', ['gpt-18', 'claude-8', 'gpt-17', 'llama-8']],
    ['-4[0-9]?$', ['a-4', 'a-45', 'a-456', '-4']],
    ['che.*\\d{3}', ['checkout-123', 'checkout-12', 'xche123']],
    ['^[a-z]+-?3', ['abc3', 'abc-3x', '3', '-3']],
    ['^gpt\\-4o\\-mini-\\d{1,2}$', ['gpt-4o-mini-1', 'gpt-4o-mini-100']],
    ['^$', ['', 'a']],
    ['', ['', 'anything']],
    ['a|b', ['xbx', 'c']],
    ['^[[:alpha:]_][[:word:]]*$', ['_a1', '1a']],
    ['[^\\n]x', ['\nx', 'ax']],
    ['^a.c$', ['abc', 'a\nc']],
  ];
  for (const [pattern, values] of rows) {
    const fast = compileFastRegex(pattern);
    t.not(fast, null, `${JSON.stringify(pattern)} is read`);
    const re = RE2JS.compile(pattern);
    for (const value of values) t.equal(fast!.test(value), expected(re, value), `${JSON.stringify(pattern)} on ${JSON.stringify(value)}`);
  }
});

t.test('leaves to re2js what it does not read', async (t) => {
  for (const pattern of ['(?i)abc', '\\bword', 'a\\z', '\\x41', '\\pL', 'é', '^a|b', 'a$b', 'a{,2}', 'a{40}', '(a|b){20}', '\\Qa.b\\E', '(?P<n>a)']) {
    t.equal(compileFastRegex(pattern), null, JSON.stringify(pattern));
  }
  const fast = compileFastRegex('a.c')!;
  t.equal(fast.test('xé'), UNKNOWN, 'a value outside ASCII, before any match: re2js decides');
  t.equal(fast.test('abcé'), MATCH, 'a match found in an ASCII prefix stands');
  t.equal(compileFastRegex('^a')!.test('bé'), NO_MATCH, 'an anchored search dead in an ASCII prefix stands');
});

t.test('cases random seeds found: wherever it answers, it answers as re2js', async (t) => {
  for (const [pattern, value, matches] of FOUND_REGEX_CASES) {
    const got = compileFastRegex(pattern)?.test(value) ?? UNKNOWN;
    if (got !== UNKNOWN) t.equal(got, matches ? MATCH : NO_MATCH, `${JSON.stringify(pattern)} on ${JSON.stringify(value)}`);
  }
  // Astral values: UNKNOWN unless an ASCII prefix already decides.
  const negated = compileFastRegex('^[[:^alpha:]]{2,3}?$')!;
  t.equal(negated.test('_[😀'), UNKNOWN, 'a negated POSIX class meets an astral character: re2js decides');
  t.equal(negated.test('_[]😀'), UNKNOWN, 'three ASCII units, then an astral one: not decided before it');
  t.equal(negated.test('a😀'), NO_MATCH, 'dead on an ASCII prefix before the astral character');
  t.equal(compileFastRegex('[^a]')!.test('a😀'), UNKNOWN);
  t.equal(compileFastRegex('\\D')!.test('😀'), UNKNOWN);
});

t.test('random patterns: wherever it answers, it answers as re2js', async (t) => {
  let valid = 0;
  let read = 0;
  let compared = 0;
  let matches = 0;
  let unknown = 0;
  for (const seed of testSeeds()) {
    const random = seededRandom(seed);
    for (const { pattern, re } of validPatterns(random, perSeed(4000))) {
      valid += 1;
      const fast = compileFastRegex(pattern);
      if (fast === null) continue;
      read += 1;
      for (let v = 0; v < 40; v++) {
        const value = randomValue(random, pattern);
        const got = fast.test(value);
        if (got === UNKNOWN) {
          unknown += 1;
          if (/^[\x00-\x7f]*$/.test(value)) {
            t.fail(`${JSON.stringify(pattern)} gave up on the ASCII value ${JSON.stringify(value)}; ${replayHint(seed)}`);
            return;
          }
          continue;
        }
        const want = expected(re, value);
        compared += 1;
        if (want === MATCH) matches += 1;
        if (got !== want) {
          t.fail(`${JSON.stringify(pattern)} on ${JSON.stringify(value)}: fast ${got}, re2js ${want}; ${replayHint(seed)}`);
          return;
        }
      }
    }
  }
  // Guards the generator: the property means little if few patterns are read or nothing matches.
  const share = seedShare();
  t.ok(read > valid * 0.4, `${read} of ${valid} valid patterns read`);
  t.ok(compared > 40_000 * share, `${compared} answers compared`);
  t.ok(matches > 10_000 * share && compared - matches > 10_000 * share, `${matches} matches among them`);
  t.ok(unknown > 1000 * share, `${unknown} values left to re2js`);
});

t.test('a restored pattern answers as a compiled one, re2js compiling it only at its first test', async (t) => {
  for (const seed of testSeeds()) {
    const random = seededRandom(seed);
    let wrong = 0;
    for (const { pattern } of validPatterns(random, perSeed(60))) {
      const compiled = compileRegex(pattern)!;
      const restored = restoreRegex(pattern);
      for (let i = 0; i < 8; i++) {
        const value = randomValue(random, pattern);
        if (regexMatches(restored, value) !== regexMatches(compiled, value)) wrong++;
      }
    }
    t.equal(wrong, 0, `seed ${seed}: restored and compiled agree${replayHint(seed)}`);
  }
  // A pattern re2js rejects (only a damaged image could hold one): restoring it compiles nothing, its first test does.
  const rejected = restoreRegex('a(b');
  t.doesNotThrow(() => rejected.filter, 'restored without compiling');
  t.throws(() => rejected.re.test('ab'), 're2js compiles it at its first test');
});
