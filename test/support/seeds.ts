/**
 * The seeds every randomized test runs on (CONTRIBUTING.md, Seeds).
 *
 * `npm test` runs on FIXED_SEEDS, so two runs of one commit assert the same
 * cases. RULEVAULT_TEST_SEEDS=<n>[,<n>...] runs the given seeds instead: that
 * is how a seed printed by `npm run test:fresh-seeds` (fresh-seeds.ts, the one
 * place that draws seeds) is replayed. Nothing in this module draws
 * randomness, so `npm test` cannot run on a fresh seed.
 *
 * A test splits its budget over the seeds (`perSeed`), so its run time is the
 * same whatever the list; its totals are checked against thresholds scaled by
 * `seedShare()` (1 on the fixed list), so a replay of one seed still passes
 * the generator guards unless the property itself fails.
 */

/** The variable naming the seeds to run instead of the fixed ones. */
export const SEEDS_ENV = 'RULEVAULT_TEST_SEEDS';

/** The seeds of `npm test`. Changing them changes which random cases CI asserts: do it in a commit of its own. */
export const FIXED_SEEDS: readonly number[] = Object.freeze([1_318_472_023, 2_026_112_314, 541_201_877]);

/** The seeds `text` names (a comma-separated list of 32-bit integers); the fixed ones when it is unset or empty. */
export function parseSeeds(text: string | undefined): readonly number[] {
  if (text === undefined || text.trim() === '') return FIXED_SEEDS;
  const seeds = text.split(',').map((item) => item.trim());
  for (const item of seeds) {
    const seed = Number(item);
    if (!/^-?\d+$/.test(item) || seed < -(2 ** 31) || seed >= 2 ** 32) {
      throw new Error(`${SEEDS_ENV} must be a comma-separated list of 32-bit integers; "${item}" is not one (fresh seeds: npm run test:fresh-seeds)`);
    }
  }
  return Object.freeze(seeds.map(Number));
}

/** The seeds of this run: RULEVAULT_TEST_SEEDS, or FIXED_SEEDS. */
export function testSeeds(): readonly number[] {
  return parseSeeds(process.env[SEEDS_ENV]);
}

/**
 * The run's first seed, for a test that builds one long scenario whose
 * guards need its full length (the audit history of 3000 steps): it runs
 * once, on FIXED_SEEDS[0] under `npm test`.
 */
export function leadSeed(): number {
  return testSeeds()[0];
}

/** A test's budget for one seed: its total over the fixed list (at least 1). */
export function perSeed(total: number): number {
  return Math.max(1, Math.ceil(total / FIXED_SEEDS.length));
}

/** How many seeds run, relative to the fixed list: the factor for thresholds on totals over all seeds. */
export function seedShare(): number {
  return testSeeds().length / FIXED_SEEDS.length;
}

export interface PropertyOptions {
  readonly seed: number;
  readonly numRuns: number;
}

/** fast-check options, one per seed, splitting `numRuns` over them: `for (const options of propertyOptions(n)) fc.assert(p, options)`. */
export function propertyOptions(numRuns: number): PropertyOptions[] {
  return testSeeds().map((seed) => ({ seed, numRuns: perSeed(numRuns) }));
}

/** Where a failure on `seed` came from and how to replay it, for a failure message. */
export function replayHint(seed: number): string {
  return `seed ${seed} (replay: ${SEEDS_ENV}=${seed})`;
}
