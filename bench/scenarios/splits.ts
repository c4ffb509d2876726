/**
 * Splits (issue 65, item 8): the standard workload's 10k rules, each linking
 * two contexts, answered by the service's evaluate (what the HTTP handler
 * calls, engine and answer assembly) with 10% of the rules split 90/10 over
 * their two links, against the same rules unsplit. The two states alternate
 * in rounds over the same requests, so drift of the machine falls on both;
 * the requests carry a targetingKey, so a matching split rule buckets.
 * Reports both p50/p99 and the p99 ratio (the bound: within +10%).
 * bench/engine-ab.ts compares engines of two builds; the split's cost is in
 * the answer, not the engine, which this measures.
 */
import type { ContextRecord, RuleRecord } from '../../projections';
import { getHeapStatistics } from 'node:v8';
import { PerformanceObserver } from 'node:perf_hooks';
import { chooseVariant, compileSplit, createEngine } from '../../src/engine';
import { DEFAULTS } from '../../src/base/config';
import { evaluate, parseEvaluateRequest, type EvaluationReads } from '../../src/service/evaluate';
import type { CaseResult, Scenario } from '../scenario';
import { summarize } from '../stats';
import { generateRequests, generateRules, ruleId, toDefinitions } from '../workload';

const CONTEXTS = ['context-a', 'context-b'];

function contextRecord(id: string): ContextRecord {
  return {
    id, name: id, description: '', content: `the ${id} text`, tags: [], meta_properties: {}, status: 'ACTIVE',
    created_by: 'bench', created_at: '', updated_at: '', revision: 0n, position: 0n,
  } as unknown as ContextRecord;
}

/** The rule records, every tenth with a 90/10 split over its two context links when `split`. */
function records(count: number, split: boolean): Map<string, RuleRecord> {
  const bodies = generateRules({ seed: 1, count });
  const rules = new Map<string, RuleRecord>();
  bodies.forEach((body, i) => {
    const id = ruleId(i);
    const entities = CONTEXTS.map((entity_id) => ({ entity_type: 'context' as const, entity_id }));
    const splits = split && i % 10 === 0
      ? [{ entity_type: 'context' as const, bucket_by: 'targetingKey', variants: CONTEXTS.map((entity_id, v) => ({ name: `v${v}`, entity_id, weight: v === 0 ? 90 : 10 })) }]
      : undefined;
    rules.set(id, {
      id, ...body, description: '', entities, ...(splits === undefined ? {} : { splits }),
      created_by: 'bench', created_at: '', updated_at: '', revision: 0n, position: 0n,
    } as RuleRecord);
  });
  return rules;
}

/**
 * Heap bytes one bucketing allocates (chooseVariant over 500 prepared keys,
 * 200,000 times): the heap's growth over the loop, taken only when no
 * collection ran inside it (a collection would hide what was allocated; up
 * to five tries), so `undefined` means "not measured", never "none".
 */
async function bucketingBytesPerCall(): Promise<number | undefined> {
  const split = compileSplit({
    entity_type: 'context', bucket_by: 'targetingKey',
    variants: CONTEXTS.map((entity_id, v) => ({ name: `v${v}`, entity_id, weight: v === 0 ? 90 : 10 })),
  } as Parameters<typeof compileSplit>[0], 'bench-rule');
  const keys = Array.from({ length: 500 }, (_, i) => `user-${i}`);
  const calls = 200_000;
  let sink = 0;
  for (let i = 0; i < 10_000; i++) sink += chooseVariant(split, keys[i % 500], 0);
  let collections = 0;
  const observer = new PerformanceObserver((list) => { collections += list.getEntries().length; });
  observer.observe({ entryTypes: ['gc'] });
  let bytes: number | undefined;
  for (let attempt = 0; attempt < 5 && bytes === undefined; attempt++) {
    await new Promise((resolve) => setImmediate(resolve));
    collections = 0;
    const before = getHeapStatistics().used_heap_size;
    for (let i = 0; i < calls; i++) sink += chooseVariant(split, keys[i % 500], 0);
    const after = getHeapStatistics().used_heap_size;
    // The observer is told of a collection on a later turn.
    await new Promise((resolve) => setImmediate(resolve));
    if (collections === 0) bytes = Math.max(0, after - before) / calls;
  }
  observer.disconnect();
  if (sink < 0) throw new Error('unreachable');
  return bytes;
}

export const scenario: Scenario = {
  name: 'splits',
  description: 'evaluate answers at 10k standard rules with 10% split 90/10, against the same rules unsplit, alternating rounds',
  async run({ quick }) {
    const count = quick ? 1_000 : 10_000;
    const rounds = quick ? 4 : 30;
    const batch = quick ? 500 : 2_000;
    const engine = createEngine();
    engine.upsertMany(toDefinitions(generateRules({ seed: 1, count })));
    const contexts = new Map(CONTEXTS.map((id) => [id, contextRecord(id)]));
    const states = [false, true].map((split) => ({
      split,
      state: { rules: records(count, split), contexts, prompts: new Map() } as unknown as EvaluationReads,
      samples: [] as number[],
      linked: 0,
    }));
    const limits = DEFAULTS.limits;
    const bodies = generateRequests({ seed: 2, count: 500 }).map((fields, i) =>
      JSON.stringify({ entity_type: 'context', fields: { ...fields, targetingKey: `user-${i}` } }));
    for (let round = 0; round < rounds; round++) {
      // Alternate which goes first, so neither always follows the other's cache state.
      for (const side of round % 2 === 0 ? states : [...states].reverse()) {
        for (let i = 0; i < batch; i++) {
          const request = parseEvaluateRequest(JSON.parse(bodies[i % bodies.length]!), limits, Date.now());
          const start = process.hrtime.bigint();
          const answer = evaluate(side.state, engine, request, limits);
          side.samples.push(Number(process.hrtime.bigint() - start));
          side.linked += answer.entities.length;
        }
      }
    }
    const [plain, split] = states.map((s) => summarize(s.samples));
    const bytes = await bucketingBytesPerCall();
    const result: CaseResult = {
      case: `evaluate ${count} rules, 10% split`,
      subject: split!,
      baseline: { name: 'the same rules unsplit', ...plain! },
      figures: {
        p99_ratio: split!.p99_us / plain!.p99_us,
        entities_per_answer_split: states[1]!.linked / states[1]!.samples.length,
        entities_per_answer_unsplit: states[0]!.linked / states[0]!.samples.length,
        ...(bytes === undefined ? {} : { bucketing_heap_bytes_per_call: bytes }),
      },
    };
    return [result];
  },
};
