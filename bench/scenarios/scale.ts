/**
 * How the compiled engine scales: evaluate cost at 1k/10k/100k mixed rules
 * (is it sublinear?), memory at 100k rules, and the cost of changing one rule
 * (upsert of an existing id) at 100k rules. With --1m, also the scoped 1M
 * shape (build, memory, evaluate; minutes and ~3 GB, so not in the default
 * run); the `million` scenario (--only million) adds the service's starts.
 */
import { createEngine, type Engine, type Fields } from '../../src/engine';
import type { CaseResult, Scenario } from '../scenario';
import { summarize, timeEach } from '../stats';
import { generateRequests, generateRules, ruleId, scopedTenants, toDefinitions } from '../workload';

const REQUESTS = 2_000;

function gc(): void {
  const collect = (globalThis as { gc?: () => void }).gc;
  if (collect === undefined) throw new Error('scale needs node --expose-gc (bench/run.ts passes it)');
  collect();
  collect();
}

function memoryCase(label: string, before: NodeJS.MemoryUsage): CaseResult {
  gc();
  const memory = process.memoryUsage();
  return {
    case: `memory ${label}`,
    figures: {
      rss_mb: memory.rss / 2 ** 20,
      engine_mb: (memory.heapUsed + memory.arrayBuffers - before.heapUsed - before.arrayBuffers) / 2 ** 20,
      array_buffers_mb: memory.arrayBuffers / 2 ** 20,
      heap_used_mb: memory.heapUsed / 2 ** 20,
    },
  };
}

/** The scoped 1M shape (--1m): build (upsertMany), memory after GC, evaluate at the standard answer size. */
function scopedMillion(samples: number): CaseResult[] {
  const rules = 1_000_000;
  const definitions = toDefinitions(generateRules({ seed: 1, count: rules, shape: 'scoped' }));
  gc();
  const before = process.memoryUsage();
  const cpu = process.cpuUsage();
  const started = process.hrtime.bigint();
  const engine = createEngine();
  engine.upsertMany(definitions);
  const buildMs = Number(process.hrtime.bigint() - started) / 1e6;
  const used = process.cpuUsage(cpu);
  const memory = memoryCase('scoped 1M', before);
  const requests = generateRequests({ seed: 2, count: REQUESTS, tenants: scopedTenants(rules) });
  let matches = 0;
  for (const fields of requests) matches += engine.evaluate(fields).length;
  const evaluate = evaluateCase(engine, 'scoped 1M', requests, samples);
  return [
    { case: 'build scoped 1M', figures: { rules, build_ms: buildMs, build_cpu_ms: (used.user + used.system) / 1000 } },
    memory,
    { ...evaluate, figures: { rules, mean_matches: matches / REQUESTS } },
  ];
}

function evaluateCase(engine: Engine, label: string, requests: readonly Fields[], samples: number): CaseResult {
  for (let i = 0; i < 20_000; i++) engine.evaluate(requests[i % REQUESTS]);
  const subject = summarize(timeEach(samples, (i) => engine.evaluate(requests[i % REQUESTS])));
  return { case: `evaluate ${label}`, subject };
}

function growthCase(engine: Engine, rules: number, samples: number, base: number | null): CaseResult {
  const result = evaluateCase(engine, `${rules / 1000}k`, generateRequests({ seed: 2, count: REQUESTS }), samples);
  const subject = result.subject!;
  return {
    ...result,
    figures: base === null ? { rules } : { rules, p50_vs_1k: subject.p50_us / base, rules_vs_1k: rules / 1000 },
  };
}

export const scenario: Scenario = {
  name: 'scale',
  description:
    'Compiled engine growth: evaluate p50/p99 at 1k/10k/100k mixed rules (p50_vs_1k against rules_vs_1k shows ' +
    'whether cost is sublinear), memory at 100k rules after GC (rss: whole process; engine_mb: heap and array-buffer ' +
    'growth from building the engine, rule definitions excluded), and one rule change (upsert of an existing id) at 100k rules; ' +
    'with --1m, build, memory and evaluate of the scoped 1M shape.',
  async run({ quick, million }) {
    const results: CaseResult[] = [];
    let base: number | null = null;
    for (const rules of [1_000, 10_000, 100_000]) {
      const definitions = toDefinitions(generateRules({ seed: 1, count: rules }));
      gc();
      // The engine's records live in array buffers, outside the JS heap: both count.
      const before = process.memoryUsage();
      const engine = createEngine();
      engine.upsertMany(definitions);
      const result = growthCase(engine, rules, quick ? 10_000 : 20_000, base);
      base ??= result.subject!.p50_us;
      results.push(result);
      if (rules !== 100_000) continue;

      results.push(memoryCase('100k', before));

      // Replacement bodies for existing ids, generated up front so only upsert is timed.
      const changes = quick ? 500 : 2_000;
      const replacements = toDefinitions(generateRules({ seed: 7, count: changes }))
        .map((d, i) => ({ ...d, id: ruleId((i * 7919) % rules) }));
      const times = timeEach(changes, (i) => engine.upsert(replacements[i]));
      results.push({ case: 'upsert existing rule at 100k', subject: summarize(times), figures: { changes, size_after: engine.size } });
    }
    if (million === true && !quick) results.push(...scopedMillion(30_000));
    return results;
  },
};
