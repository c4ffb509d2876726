/**
 * Two builds' engines in one process, alternated, with the caches thrashed
 * between requests (issue 18): the tool that ranks an engine change of
 * ~0.1 µs, which HTTP runs (±0.5 to 1 µs between samples on this machine)
 * and separate engine runs (the machine drifts as much between them) cannot.
 *
 *   node dist/bench/engine-ab.js --base <another build's dist folder>
 *     [--rules 10000] [--thrash-kb 1024] [--rounds 40] [--batch 2000] [--warmup-rounds 4]
 *
 * Both engines get the standard workload (bench/workload.ts, seeds 1 and 2)
 * from this build, and must answer its 500 requests alike (else exit 1,
 * naming the first that differs). Then rounds: each engine in turn
 * evaluates `--batch` requests, JSON-parsed as the service gets them, and
 * before each request `--thrash-kb` of other memory is written, as the
 * service's parsing, streams and sockets do between two evaluations (its
 * CPU profile of the engine, line by line, is this one's at 1 MiB). Only the
 * evaluation is timed. Prints each build's median µs per evaluation over
 * the rounds after the warm-up ones, and the median and range of the
 * per-round difference. Give both sides the same build for the noise floor
 * (A/A: ~0.1 µs at 10k rules here).
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { takeOption } from './args';
import { evictCaches } from './caches';
import { median } from './stats';
import { generateRequests, generateRules, toDefinitions } from './workload';
import type { Fields } from '../src/engine';

/** What the tool uses of an engine, on any build: evaluateDerived when the build has it (the service's call), else evaluate. */
interface AnyEngine {
  upsertMany(definitions: unknown[]): void;
  evaluate(fields: Fields): string[];
  evaluateDerived?<T>(fields: Fields, derive: (id: string) => T): T[];
}

function usage(message: string): never {
  process.stderr.write(`${message}\nusage: node dist/bench/engine-ab.js --base <dist folder> [--rules N] [--thrash-kb N] [--rounds N] [--batch N] [--warmup-rounds N]\n`);
  process.exit(2);
}

function wholeOption(args: string[], name: string, fallback: number, min: number): number {
  const text = takeOption(args, name);
  const value = Number(text ?? fallback);
  if (!Number.isInteger(value) || value < min) usage(`${name} must be a whole number of at least ${min}, got ${text}`);
  return value;
}

function main(): void {
  const args = process.argv.slice(2);
  const base = takeOption(args, '--base');
  const rules = wholeOption(args, '--rules', 10_000, 1);
  const thrashKb = wholeOption(args, '--thrash-kb', 1024, 0);
  const rounds = wholeOption(args, '--rounds', 40, 1);
  const batch = wholeOption(args, '--batch', 2000, 1);
  const warmupRounds = wholeOption(args, '--warmup-rounds', 4, 0);
  if (base === undefined) usage('--base is required');
  if (args.length > 0) usage(`unknown argument ${args[0]}`);
  const baseEngine = path.resolve(base, 'src', 'engine', 'index.js');
  if (!existsSync(baseEngine)) usage(`--base ${base}: no build there (${baseEngine} is missing)`);
  if (rounds <= warmupRounds) usage(`--rounds (${rounds}) must exceed --warmup-rounds (${warmupRounds})`);

  const definitions = toDefinitions(generateRules({ seed: 1, count: rules }));
  // As the service gets them: each request a fresh object from JSON.parse.
  const bodies = generateRequests({ seed: 2, count: 500 }).map((fields) => JSON.stringify(fields));
  const builds = [
    { label: 'this build', create: (require('../src/engine') as { createEngine(): AnyEngine }).createEngine },
    { label: `base (${base})`, create: (require(baseEngine) as { createEngine(): AnyEngine }).createEngine },
  ].map(({ label, create }) => {
    const engine = create();
    engine.upsertMany(definitions);
    return { label, engine, times: [] as number[] };
  });

  for (let i = 0; i < bodies.length; i++) {
    const [a, b] = builds.map(({ engine }) => engine.evaluate(JSON.parse(bodies[i]!) as Fields).join(','));
    if (a !== b) {
      process.stderr.write(`the builds answer request ${i} differently: ${bodies[i]}\nthis build: [${a}]\nbase: [${b}]\n`);
      process.exit(1);
    }
  }

  const other = new Uint8Array(thrashKb * 1024);
  const derive = (id: string) => ({ id });
  // Keeps the answers' lengths, so no evaluation is left unread; a small integer (a captured sum
  // that grew became a heap number per add: collections inside the timed part doubled the figures).
  let sink = 0;
  const timeBatch = (engine: AnyEngine, offset: number): number => {
    let total = 0n;
    for (let i = 0; i < batch; i++) {
      const fields = JSON.parse(bodies[(offset + i) % bodies.length]!) as Fields;
      evictCaches(other);
      const start = process.hrtime.bigint();
      sink = (sink + (engine.evaluateDerived !== undefined ? engine.evaluateDerived(fields, derive).length : engine.evaluate(fields).length)) | 0;
      total += process.hrtime.bigint() - start;
    }
    return Number(total) / batch / 1000;
  };
  for (let round = 0; round < rounds; round++) {
    // Which build goes first alternates, and each round starts at another request.
    const order = round % 2 === 0 ? builds : [...builds].reverse();
    for (const build of order) {
      const us = timeBatch(build.engine, round * 37);
      if (round >= warmupRounds) build.times.push(us);
    }
  }

  const [own, baseline] = builds;
  const differences = own!.times.map((us, i) => us - baseline!.times[i]!);
  console.log(`engine A/B, ${rules} rules, ${batch} evaluations a round, ${rounds - warmupRounds} rounds after ${warmupRounds} warm-up, ${thrashKb} KiB written between evaluations (sink ${sink % 10})`);
  for (const build of builds) console.log(`${build.label.padEnd(40)} median ${median(build.times).toFixed(3)} µs per evaluation`);
  console.log(`this build - base, per round: median ${median(differences).toFixed(3)} µs, from ${Math.min(...differences).toFixed(3)} to ${Math.max(...differences).toFixed(3)}`);
}

main();
