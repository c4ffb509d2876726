/**
 * `npm run test:fresh-seeds [-- --rounds <n>]`: the randomized tests (the
 * test files that take their seeds from seeds.ts) on seeds drawn now, the
 * only place seeds are drawn. Prints the seeds before and after each round,
 * with the command that replays them; stops at the first failing round.
 * `npm test` never runs this: it runs on FIXED_SEEDS (CONTRIBUTING.md, Seeds).
 */
import { spawnSync } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { FIXED_SEEDS, SEEDS_ENV } from './seeds';

/** The repository root, from dist/test/support. */
const ROOT = path.resolve(__dirname, '../../..');
/** A test takes its seeds from seeds.ts by one of these calls. */
const SEEDED = /\b(testSeeds|propertyOptions|leadSeed)\(/;

/** The compiled test files (dist/test/...) whose sources (test/...) call for seeds. */
export function randomizedTestFiles(): string[] {
  const found: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith('.test.ts') && SEEDED.test(readFileSync(full, 'utf8'))) {
        found.push(path.join('dist', path.relative(ROOT, full)).replace(/\.ts$/, '.js'));
      }
    }
  };
  walk(path.join(ROOT, 'test'));
  return found.sort();
}

function main(argv: readonly string[]): number {
  const at = argv.indexOf('--rounds');
  const rounds = at >= 0 ? Number(argv[at + 1]) : 1;
  if (!Number.isInteger(rounds) || rounds < 1) {
    console.error('--rounds must be a whole number of at least 1');
    return 2;
  }
  const files = randomizedTestFiles();
  console.log(`${files.length} randomized test files:\n  ${files.join('\n  ')}`);
  for (let round = 1; round <= rounds; round++) {
    // As many seeds as the fixed list, so each test's budget and run time are as under `npm test`.
    const seeds = FIXED_SEEDS.map(() => randomInt(2 ** 31)).join(',');
    const replay = `${SEEDS_ENV}=${seeds} npx tap <file>`;
    console.log(`\nround ${round} of ${rounds}: fresh seeds ${seeds}\n  replay: ${replay}`);
    const run = spawnSync(path.join(ROOT, 'node_modules', '.bin', 'tap'), files, {
      cwd: ROOT, stdio: 'inherit', env: { ...process.env, [SEEDS_ENV]: seeds },
    });
    const status = run.status ?? 1;
    console.log(`round ${round}: ${status === 0 ? 'passed' : 'FAILED'} on seeds ${seeds}`);
    if (status !== 0) {
      console.log(`  replay: ${replay}\n  then pin the failing case as a row of the case table (CONTRIBUTING.md, Seeds)`);
      return status;
    }
  }
  return 0;
}

if (require.main === module) process.exitCode = main(process.argv.slice(2));
