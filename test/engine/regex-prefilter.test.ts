/**
 * The regex prefilter must never reject a value the regex matches: checked
 * against re2js itself on random patterns and values (on the seeds of
 * test/support/seeds.ts), on the cases random seeds once found, plus a table
 * of what it extracts from typical patterns.
 */
import t from 'tap';
import { RE2JS } from 're2js';
import { mayMatch, NO_FILTER, regexFilter } from '../../src/engine/regex-prefilter';
import { perSeed, replayHint, seedShare, testSeeds } from '../support/seeds';
import { FOUND_REGEX_CASES } from './cases';
import { randomValue, validPatterns } from './random-patterns';
import { seededRandom } from './random-rules';

t.test('what it extracts', async (t) => {
  const none = { digits: 0, maxLength: Infinity };
  const rows: [string, object][] = [
    ['^checkout-\\d{1,2}$', { prefix: 'checkout-', suffix: '', all: ['checkout-'], any: [], digits: 1, maxLength: 11 }],
    ['^(gpt|claude)-[0-9]*8$', { prefix: '', suffix: '8', all: ['-', '8'], any: [['gpt', 'claude']], digits: 1, maxLength: Infinity }],
    ['-4[0-9]?$', { prefix: '', suffix: '', all: ['-4'], any: [], digits: 1, maxLength: Infinity }],
    ['che.*\\d{3}', { prefix: '', suffix: '', all: ['che'], any: [], digits: 3, maxLength: Infinity }],
    ['ab?c', { prefix: '', suffix: '', all: ['a', 'c'], any: [], ...none }],
    ['ab+c', { prefix: '', suffix: '', all: ['ab', 'c'], any: [], ...none }],
    ['ab{0,2}c$', { prefix: '', suffix: 'c', all: ['a', 'c'], any: [], ...none }],
    ['\\/api\\/chat', { prefix: '', suffix: '', all: ['/api/chat'], any: [], ...none }],
    ['(?:v1|v2)+x', { prefix: '', suffix: '', all: ['x'], any: [['v1', 'v2']], ...none }],
    ['^[a-z]{2,3}\\.?\\w$', { prefix: '', suffix: '', all: [], any: [], digits: 0, maxLength: 5 }],
    ['^.x$', { prefix: '', suffix: 'x', all: ['x'], any: [], digits: 0, maxLength: 3 }],
    ['^[^a]\\d\\d?$', { prefix: '', suffix: '', all: [], any: [], digits: 1, maxLength: 4 }],
  ];
  for (const [pattern, expected] of rows) t.same(regexFilter(pattern), expected, pattern);
  // Unsure readings give no filter at all; optional groups add nothing.
  for (const pattern of ['a|b', '(?i)abc', '\\x41bc', '\\pLx', '\\Qa.b\\E', 'a{,2}', '(a|)', '(ab)?', '']) {
    t.equal(regexFilter(pattern), NO_FILTER, `${JSON.stringify(pattern)}: no filter`);
  }
  t.same(regexFilter('(ab)*c'), { prefix: '', suffix: '', all: ['c'], any: [], ...none }, '(ab)*c');
});

t.test('passes whatever prefix, suffix and literals say, nothing else', async (t) => {
  const filter = regexFilter('^(gpt|claude)-[0-9]*8$');
  t.ok(mayMatch(filter, 'gpt-4o-mini-18'));
  t.notOk(mayMatch(filter, 'gpt-4o-mini-17'), 'suffix');
  t.notOk(mayMatch(filter, 'llama-18'), 'none of the alternatives');
  t.ok(mayMatch(NO_FILTER, ''), 'no filter passes everything');
  const digits = regexFilter('ten.*\\d{3}');
  t.ok(mayMatch(digits, 'tenant-123'));
  t.notOk(mayMatch(digits, 'tenant-12'), 'fewer digits than \\d{3} needs');
  const bounded = regexFilter('^svc-\\d{1,2}$');
  t.ok(mayMatch(bounded, 'svc-12'));
  t.notOk(mayMatch(bounded, 'svc-123'), 'longer than any match of a pattern anchored at both ends');
});

t.test('cases random seeds found: a value re2js matches passes the filter', async (t) => {
  for (const [pattern, value, matches] of FOUND_REGEX_CASES) {
    t.equal(RE2JS.compile(pattern).test(value), matches, `re2js: ${JSON.stringify(pattern)} on ${JSON.stringify(value)}`);
    if (matches) t.ok(mayMatch(regexFilter(pattern), value), `${JSON.stringify(pattern)} passes ${JSON.stringify(value)}`);
  }
  // The widths behind the first row: a negated POSIX class, like `.`, may match an astral character (two units).
  t.equal(regexFilter('^[[:^alpha:]]{2,3}?$').maxLength, 6);
  t.equal(regexFilter('^[[:alpha:]]{2,3}?$').maxLength, 3, 'a POSIX class that is not negated is ASCII');
  t.equal(regexFilter('^*abc$').maxLength, Infinity, 'a quantified ^ anchors nothing');
  t.equal(regexFilter('^*abc$').prefix, '');
});

t.test('random patterns: every value re2js matches passes the filter', async (t) => {
  let patterns = 0;
  let matched = 0;
  let rejected = 0;
  for (const seed of testSeeds()) {
    const random = seededRandom(seed);
    for (const { pattern, re } of validPatterns(random, perSeed(3000))) {
      patterns += 1;
      const filter = regexFilter(pattern);
      for (let v = 0; v < 40; v++) {
        const value = randomValue(random, pattern);
        const passes = mayMatch(filter, value);
        if (!passes) rejected += 1;
        if (re.test(value)) {
          matched += 1;
          if (!passes) {
            t.fail(`${JSON.stringify(pattern)} matches ${JSON.stringify(value)} but its filter ${JSON.stringify(filter)} rejects it; ${replayHint(seed)}`);
            return;
          }
        }
      }
    }
  }
  const share = seedShare();
  t.ok(patterns > 1500 * share, `${patterns} valid patterns`);
  // Guards the generator: the property means little if nothing matches or nothing is filtered.
  t.ok(matched > 5000 * share, `${matched} matches`);
  t.ok(rejected > 5000 * share, `${rejected} values rejected by filters`);
});
