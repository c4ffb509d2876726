/**
 * In-process evaluate: the compiled engine vs json-rules-engine (the
 * reference translation in src/engine/reference.ts) on the same generated
 * rules and requests, in the same process. The scoped shape at 1M rules
 * (minutes, ~3 GB) runs only with --1m, without the baseline (json-rules-engine
 * would take seconds a call); the `million` scenario (--only million) also
 * times the service's starts at 1M.
 */
import { evictCaches } from '../caches';
import { createEngine, type Engine, type Fields, type RuleDefinition } from '../../src/engine';
import { createReferenceEngine } from '../../test/support/reference';
import type { CaseResult, Scenario, Timing } from '../scenario';
import { summarize, timeEach, timeEachAsync } from '../stats';
import { countConditions, generateRequests, generateRules, scopedTenants, toDefinitions, type Shape } from '../workload';

interface Size {
  readonly label: string;
  readonly shape: Shape;
  readonly rules: number;
  readonly samples: number;
  /** Also time it with the caches cold (coldCase): the HTTP bench's workload. */
  readonly cold?: boolean;
  /**
   * json-rules-engine evaluates every rule on every call (~180 ms at 10k
   * rules, seconds at 100k), so it gets far fewer samples; its p99 over a
   * few samples is a rough figure, its p50 is what the ratio uses.
   */
  readonly baselineSamples: number;
}

const SIZES: readonly Size[] = [
  { label: 'mixed 1k', shape: 'mixed', rules: 1_000, samples: 30_000, baselineSamples: 100 },
  { label: 'mixed 10k', shape: 'mixed', rules: 10_000, samples: 30_000, baselineSamples: 10, cold: true },
  { label: 'mixed 100k', shape: 'mixed', rules: 100_000, samples: 15_000, baselineSamples: 2 },
  { label: 'scoped 100k', shape: 'scoped', rules: 100_000, samples: 15_000, baselineSamples: 2 },
  { label: 'broad 10k', shape: 'broad', rules: 10_000, samples: 15_000, baselineSamples: 5 },
  { label: 'regex-only 1k', shape: 'regex-only', rules: 1_000, samples: 15_000, baselineSamples: 50 },
];

/** With --1m: the scoped 1M shape (20,000 tenants, so the answer stays at the standard size). */
const MILLION: Size = { label: 'scoped 1M', shape: 'scoped', rules: 1_000_000, samples: 30_000, baselineSamples: 0 };

const RULE_SEED = 1;
const REQUEST_SEED = 2;
const REQUESTS = 2_000;

function build(definitions: readonly RuleDefinition[]): { engine: Engine; ms: number } {
  const start = process.hrtime.bigint();
  const engine = createEngine();
  engine.upsertMany(definitions);
  return { engine, ms: Number(process.hrtime.bigint() - start) / 1e6 };
}

/** Memory touched between two cold evaluations: more than this machine's L2 and its share of L3. */
const COLD_BYTES = 8 << 20;

/**
 * The same evaluations with COLD_BYTES of other memory written between each
 * two (untimed): in the service, the HTTP and kernel work between two
 * evaluate calls evicts the engine's data, and a warm loop hides that (issue
 * 18: 3.9 µs warm on the HTTP bench's requests, ~6.6 µs inside the service).
 * Ratio = warm p50 / cold p50.
 */
function coldCase(size: Size, engine: Engine, requests: readonly Fields[], warm: Timing, samples: number): CaseResult {
  const other = new Uint8Array(COLD_BYTES);
  const times = new Array<number>(samples);
  for (let i = 0; i < samples; i++) {
    evictCaches(other);
    const start = process.hrtime.bigint();
    engine.evaluate(requests[i % REQUESTS]);
    times[i] = Number(process.hrtime.bigint() - start);
  }
  return {
    case: `${size.label}, caches cold`,
    subject: summarize(times),
    baseline: { name: 'the same, warm', ...warm },
    figures: { other_memory_mb: COLD_BYTES >> 20 },
  };
}

async function measure(size: Size, quick: boolean): Promise<CaseResult[]> {
  const bodies = generateRules({ seed: RULE_SEED, count: size.rules, shape: size.shape });
  const definitions = toDefinitions(bodies);
  // Past 100k scoped rules the tenant vocabulary widens with the rules (workload.ts), requests drawing from it.
  const tenants = size.shape === 'scoped' ? scopedTenants(size.rules) : undefined;
  const requests = generateRequests({ seed: REQUEST_SEED, count: REQUESTS, tenants });
  const { engine, ms } = build(definitions);

  let matches = 0;
  for (const fields of requests) matches += engine.evaluate(fields).length;
  // Warm-up: let the JIT settle on the hot path before timing.
  for (let i = 0; i < 10_000; i++) engine.evaluate(requests[i % REQUESTS]);
  const samples = quick ? 10_000 : size.samples;
  const subject = summarize(timeEach(samples, (i) => engine.evaluate(requests[i % REQUESTS])));

  const baselineSamples = quick ? Math.max(1, Math.ceil(size.baselineSamples / 5)) : size.baselineSamples;
  let baseline: CaseResult['baseline'];
  let agree = 'not run';
  if (baselineSamples > 0 && !(quick && size.rules >= 100_000)) {
    const reference = createReferenceEngine(definitions);
    await reference.evaluate(requests[0]);
    let disagreements = 0;
    const times = await timeEachAsync(baselineSamples, async (i) => {
      // Requests are spread over the set so the few baseline samples are not all alike.
      const fields = requests[(i * 97) % REQUESTS];
      const want = await reference.evaluate(fields);
      if (JSON.stringify(want) !== JSON.stringify(engine.evaluate(fields))) disagreements++;
    });
    baseline = { name: 'json-rules-engine', ...summarize(times) };
    agree = disagreements === 0 ? `yes (${baselineSamples})` : `NO: ${disagreements}/${baselineSamples}`;
  }
  const result: CaseResult = {
    case: size.label,
    subject,
    baseline,
    figures: {
      rules: size.rules,
      conditions: countConditions(bodies),
      mean_matches: matches / REQUESTS,
      build_ms: ms,
      agrees_with_baseline: agree,
    },
  };
  return size.cold === true ? [result, coldCase(size, engine, requests, subject, quick ? 2_000 : 10_000)] : [result];
}

export const scenario: Scenario = {
  name: 'engine',
  description:
    'In-process evaluate, compiled engine vs json-rules-engine (same rules, same requests, same process): ' +
    'docs/bench-method.md standard workload at 1k/10k/100k rules; "scoped" 100k (the standard 10k plus 90k rules of one ' +
    'tenant each, so the answer stays at the standard size); the "broad" (10% of rules match every request) ' +
    'and "regex-only" stress shapes; with --1m, "scoped" 1M (20,000 tenants; no baseline). Baseline samples are few at 10k/100k (see bench/scenarios/engine.ts); ' +
    'the baseline timing includes a check that both answer the same. "mixed 10k, caches cold": the same evaluations with 8 MiB ' +
    'of other memory written between each two (untimed), as the HTTP work between two requests does; ratio = warm p50 / cold p50.',
  async run({ quick, million }) {
    const results: CaseResult[] = [];
    for (const size of million === true && !quick ? [...SIZES, MILLION] : SIZES) {
      process.stderr.write(`  engine: ${size.label}\n`);
      results.push(...(await measure(size, quick)));
      (globalThis as { gc?: () => void }).gc?.();
    }
    return results;
  },
};
