/**
 * How the compiled engine scales: evaluate cost at 1k/10k/100k mixed rules
 * (is it sublinear?), memory at 100k rules, and the cost of changing one rule
 * (upsert of an existing id) at 100k rules. Build time, memory and evaluate
 * at 1M rules are the `million` scenario's (run only with --only million).
 */
import { createEngine, type Engine } from '../../src/engine';
import type { CaseResult, Scenario } from '../scenario';
import { summarize, timeEach } from '../stats';
import { generateRequests, generateRules, ruleId, toDefinitions } from '../workload';

const REQUESTS = 2_000;

function gc(): void {
  const collect = (globalThis as { gc?: () => void }).gc;
  if (collect === undefined) throw new Error('scale needs node --expose-gc (bench/run.ts passes it)');
  collect();
  collect();
}

function evaluateCase(engine: Engine, rules: number, samples: number, base: number | null): CaseResult {
  const requests = generateRequests({ seed: 2, count: REQUESTS });
  for (let i = 0; i < 20_000; i++) engine.evaluate(requests[i % REQUESTS]);
  const subject = summarize(timeEach(samples, (i) => engine.evaluate(requests[i % REQUESTS])));
  return {
    case: `evaluate ${rules / 1000}k`,
    subject,
    figures: base === null ? { rules } : { rules, p50_vs_1k: subject.p50_us / base, rules_vs_1k: rules / 1000 },
  };
}

export const scenario: Scenario = {
  name: 'scale',
  description:
    'Compiled engine growth: evaluate p50/p99 at 1k/10k/100k mixed rules (p50_vs_1k against rules_vs_1k shows ' +
    'whether cost is sublinear), memory at 100k rules after GC (rss: whole process; engine_mb: heap and array-buffer ' +
    'growth from building the engine, rule definitions excluded), and one rule change (upsert of an existing id) at 100k rules.',
  async run({ quick }) {
    const results: CaseResult[] = [];
    let base: number | null = null;
    for (const rules of [1_000, 10_000, 100_000]) {
      const definitions = toDefinitions(generateRules({ seed: 1, count: rules }));
      gc();
      // The engine's records live in array buffers, outside the JS heap: both count.
      const before = process.memoryUsage();
      const engine = createEngine();
      for (const d of definitions) engine.upsert(d);
      const result = evaluateCase(engine, rules, quick ? 10_000 : 20_000, base);
      base ??= result.subject!.p50_us;
      results.push(result);
      if (rules !== 100_000) continue;

      gc();
      const memory = process.memoryUsage();
      results.push({
        case: 'memory 100k',
        figures: {
          rss_mb: memory.rss / 2 ** 20,
          engine_mb: (memory.heapUsed + memory.arrayBuffers - before.heapUsed - before.arrayBuffers) / 2 ** 20,
          array_buffers_mb: memory.arrayBuffers / 2 ** 20,
          heap_used_mb: memory.heapUsed / 2 ** 20,
        },
      });

      // Replacement bodies for existing ids, generated up front so only upsert is timed.
      const changes = quick ? 500 : 2_000;
      const replacements = toDefinitions(generateRules({ seed: 7, count: changes }))
        .map((d, i) => ({ ...d, id: ruleId((i * 7919) % rules) }));
      const times = timeEach(changes, (i) => engine.upsert(replacements[i]));
      results.push({ case: 'upsert existing rule at 100k', subject: summarize(times), figures: { changes, size_after: engine.size } });
    }
    return results;
  },
};
