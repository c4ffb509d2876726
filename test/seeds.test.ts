/**
 * `npm test` asserts the same random cases on every run of a commit: the
 * seed helper gives the fixed seeds when nothing names others (checked in a
 * child process with a clean environment), the same seed gives the same
 * cases, and no test source draws cases from an unseeded source.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import t from 'tap';
import { seededRandom } from './engine/random-rules';
import { randomizedTestFiles } from './support/fresh-seeds';
import { FIXED_SEEDS, parseSeeds, perSeed, propertyOptions, SEEDS_ENV } from './support/seeds';

const ROOT = path.resolve(__dirname, '../..');
const SEEDS_MODULE = path.join(__dirname, 'support', 'seeds.js');

/** testSeeds() and propertyOptions(2000) as a fresh process with `env` sees them. */
function seedsIn(env: Record<string, string>): { status: number | null; out: string; err: string } {
  const { [SEEDS_ENV]: _ignored, ...clean } = process.env;
  const code = `const s = require(${JSON.stringify(SEEDS_MODULE)}); console.log(JSON.stringify([s.testSeeds(), s.propertyOptions(2000)]));`;
  const run = spawnSync(process.execPath, ['-e', code], { env: { ...clean, ...env }, encoding: 'utf8' });
  return { status: run.status, out: run.stdout.trim(), err: run.stderr };
}

t.test('with no RULEVAULT_TEST_SEEDS, every randomized test runs on the fixed seeds', async (t) => {
  const plain = seedsIn({});
  t.equal(plain.status, 0, plain.err);
  const [seeds, options] = JSON.parse(plain.out) as [number[], { seed: number; numRuns: number }[]];
  t.same(seeds, FIXED_SEEDS, 'testSeeds() is FIXED_SEEDS');
  t.same(options, FIXED_SEEDS.map((seed) => ({ seed, numRuns: Math.ceil(2000 / FIXED_SEEDS.length) })), 'fast-check options: one per fixed seed, the runs split over them');
  t.same(JSON.parse(seedsIn({ [SEEDS_ENV]: '' }).out)[0], FIXED_SEEDS, 'an empty value is no value');
  t.same(parseSeeds(undefined), FIXED_SEEDS);
  t.ok(FIXED_SEEDS.length >= 2 && new Set(FIXED_SEEDS).size === FIXED_SEEDS.length, 'several distinct fixed seeds');
});

t.test('RULEVAULT_TEST_SEEDS replays given seeds, and refuses anything else', async (t) => {
  const given = seedsIn({ [SEEDS_ENV]: '7, 1318472023' });
  t.same(JSON.parse(given.out)[0], [7, 1318472023]);
  t.same(JSON.parse(given.out)[1][0], { seed: 7, numRuns: perSeed(2000) }, 'a replayed seed gets the budget it had in the run that printed it');
  const refused = seedsIn({ [SEEDS_ENV]: 'fresh' });
  t.not(refused.status, 0, 'npm test never draws seeds: "fresh" is refused');
  t.match(refused.err, /RULEVAULT_TEST_SEEDS must be a comma-separated list of 32-bit integers; "fresh" is not one \(fresh seeds: npm run test:fresh-seeds\)/);
  for (const bad of ['1.5', '7,,8', '99999999999', 'x', '-']) {
    t.throws(() => parseSeeds(bad), /must be a comma-separated list of 32-bit integers/, `${JSON.stringify(bad)} refused`);
  }
});

t.test('the same seed, the same cases', async (t) => {
  const draw = (seed: number) => Array.from({ length: 50 }, seededRandom(seed));
  t.same(draw(FIXED_SEEDS[0]), draw(FIXED_SEEDS[0]), 'seededRandom');
  t.not(JSON.stringify(draw(FIXED_SEEDS[0])), JSON.stringify(draw(FIXED_SEEDS[1])));
  const sample = (options: { seed: number; numRuns: number }) => fc.sample(fc.dictionary(fc.string(), fc.oneof(fc.string(), fc.double())), options);
  for (const options of propertyOptions(30)) t.same(sample(options), sample(options), `fast-check, seed ${options.seed}`);
});

/** Test sources, as [path relative to the root, text]. */
function testSources(): [string, string][] {
  const out: [string, string][] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith('.ts')) out.push([path.relative(ROOT, full), readFileSync(full, 'utf8')]);
    }
  };
  walk(path.join(ROOT, 'test'));
  return out;
}

/** The argument text of the call whose `(` is at `open`: parentheses counted, strings and comments skipped. */
function callArguments(text: string, open: number): string | null {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    const ch = text[i];
    if (ch === '"' || ch === "'" || ch === '`') {
      for (i += 1; i < text.length && text[i] !== ch; i++) if (text[i] === '\\') i += 1;
    } else if (ch === '/' && text[i + 1] === '/') {
      i = text.indexOf('\n', i);
      if (i < 0) return null;
    } else if (ch === '(') depth += 1;
    else if (ch === ')' && --depth === 0) return text.slice(open + 1, i);
  }
  return null;
}

t.test('no test draws its cases unseeded', async (t) => {
  const unseeded = 'Math' + '.random';
  const sources = testSources();
  let calls = 0;
  for (const [file, text] of sources) {
    t.notOk(text.includes(unseeded), `${file}: no ${unseeded} (use seededRandom from test/engine/random-rules.ts)`);
    for (const match of text.matchAll(/\bfc\.(assert|check|sample|statistics)\(/g)) {
      calls += 1;
      const args = callArguments(text, match.index! + match[0].length - 1);
      const line = text.slice(0, match.index).split('\n').length;
      // The options come from propertyOptions (seeds.ts) or carry one of its seeds.
      t.ok(args !== null && /\b(options|seed)\b/.test(args), `${file}:${line}: fc.${match[1]} is given a seed`);
    }
  }
  t.ok(calls >= 12, `${calls} fast-check calls checked`);
});

t.test('the fresh-seed command finds the randomized tests', async (t) => {
  const files = randomizedTestFiles();
  for (const file of ['engine/regex-prefilter', 'engine/fast-regex', 'engine/differential', 'fuzz/public-endpoints', 'audit/determinism']) {
    t.ok(files.includes(path.join('dist', 'test', `${file}.test.js`)), `${file} runs under test:fresh-seeds`);
  }
  const script = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).scripts as Record<string, string>;
  t.match(script['test:fresh-seeds'], /fresh-seeds\.js/);
  t.notMatch(script.test, /fresh|RULEVAULT_TEST_SEEDS/, 'npm test names no seeds: it runs on the fixed ones');
});
