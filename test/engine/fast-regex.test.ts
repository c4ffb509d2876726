/**
 * The fast regex matcher must answer exactly as re2js does wherever it
 * answers at all: random patterns and values (ENGINE_SEED=<n> to replay),
 * plus the patterns it must read and the ones it must leave to re2js.
 */
import { RE2JS } from 're2js';
import t from 'tap';
import { compileFastRegex, MATCH, NO_MATCH, UNKNOWN } from '../../src/engine/fast-regex';
import { randomValue, validPatterns } from './random-patterns';
import { seededRandom } from './random-rules';

const seed = process.env.ENGINE_SEED !== undefined ? Number(process.env.ENGINE_SEED) : Math.floor(Math.random() * 2 ** 31);
t.comment(`seed ${seed} (replay with ENGINE_SEED=${seed})`);

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

t.test('random patterns: wherever it answers, it answers as re2js', async (t) => {
  const random = seededRandom(seed);
  let valid = 0;
  let read = 0;
  let compared = 0;
  let matches = 0;
  let unknown = 0;
  for (const { pattern, re } of validPatterns(random, 4000)) {
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
          t.fail(`${JSON.stringify(pattern)} gave up on the ASCII value ${JSON.stringify(value)}`);
          return;
        }
        continue;
      }
      const want = expected(re, value);
      compared += 1;
      if (want === MATCH) matches += 1;
      if (got !== want) {
        t.fail(`${JSON.stringify(pattern)} on ${JSON.stringify(value)}: fast ${got}, re2js ${want}`);
        return;
      }
    }
  }
  // Guards the generator: the property means little if few patterns are read or nothing matches.
  t.ok(read > valid * 0.4, `${read} of ${valid} valid patterns read`);
  t.ok(compared > 40_000, `${compared} answers compared`);
  t.ok(matches > 10_000 && compared - matches > 10_000, `${matches} matches among them`);
  t.ok(unknown > 1000, `${unknown} values left to re2js`);
});
