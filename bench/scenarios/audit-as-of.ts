/**
 * Audit evaluate at past points (POST /api/audit/evaluate minus HTTP) on a
 * 1M-event log (quick: 100k) on the embedded store: rules created, switched
 * on and off, renamed and rewritten; contexts. Every event has its own time.
 * After the first query (a full fold that lays the checkpoints): repeated
 * queries over a working set of points, and queries at uniformly random
 * positions and times across the whole log. Memory figures are the
 * process's after the runs (it also generated the log).
 */
import { DEFAULTS } from '../../src/base/config';
import { createAuditService } from '../../src/audit/service';
import { parseRuleCreate } from '../../src/domain/rules';
import { createReadModel } from '../../src/read-model/read-model';
import { openSqliteStore } from '../../src/store/sqlite';
import type { BulkEvent } from '../../src/store/sqlite-bulk';
import { loadedDataDir, metadata } from '../http-harness';
import { createRandom } from '../random';
import type { CaseResult, Scenario } from '../scenario';
import { summarize, timeEachAsync } from '../stats';
import { generateRequests, generateRules, ruleId } from '../workload';
import path from 'node:path';

const START = Date.parse('2025-01-01T00:00:00.000Z');
const atOf = (i: number) => new Date(START + i * 1000).toISOString();

export function* history(total: number): Generator<BulkEvent> {
  const random = createRandom(21);
  const ruleCount = Math.round(total / 100);
  const bodies = generateRules({ seed: 5, count: ruleCount });
  let n = 0;
  const contexts: string[] = [];
  for (let i = 0; i < ruleCount / 4; i++) {
    const id = `00000000-0000-4000-a000-${String(i).padStart(12, '0')}`;
    contexts.push(id);
    yield {
      stream: `context-${id}`, type: 'ContextCreated', metadata: metadata(atOf(n++)),
      data: { id, name: `context ${i}`, description: '', content: 'Answer briefly. '.repeat(4), tags: ['bench'], meta_properties: {}, status: 'ACTIVE' },
    };
  }
  for (let i = 0; i < ruleCount; i++) {
    const id = ruleId(i);
    yield {
      stream: `rule-${id}`, type: 'RuleCreated', metadata: metadata(atOf(n++)),
      data: { id, ...parseRuleCreate(bodies[i]), entities: [{ entity_type: 'context', entity_id: random.pick(contexts) }] } as never,
    };
  }
  while (n < total) {
    const i = random.int(0, ruleCount - 1);
    const roll = random.int(0, 99);
    if (roll < 5) {
      const id = random.pick(contexts);
      yield { stream: `context-${id}`, type: 'ContextUpdated', metadata: metadata(atOf(n++)), data: { id, changes: { content: `edited ${n}` } } };
      continue;
    }
    const changes = roll < 55
      ? { status: random.int(0, 1) === 0 ? 'ACTIVE' : 'INACTIVE' }
      : roll < 80
        ? { name: `rule ${i} at ${n}` }
        : { condition_groups: parseRuleCreate(bodies[random.int(0, ruleCount - 1)]).condition_groups };
    yield { stream: `rule-${ruleId(i)}`, type: 'RuleUpdated', metadata: metadata(atOf(n++)), data: { id: ruleId(i), changes } as never };
  }
}

export const scenario: Scenario = {
  name: 'audit-as-of',
  description:
    'Audit evaluate as of a past point on a 1M-event log (quick: 100k; 10k rules, 2.5k contexts; embedded store), ' +
    'default time-travel limits (512 checkpoints, 32 points): the first query, then repeated points, random positions ' +
    'and random times; RSS and heap after.',
  async run({ quick }) {
    const total = quick ? 100_000 : 1_000_000;
    const data = loadedDataDir(history(total));
    const store = openSqliteStore(path.join(data.dir, 'events.db'));
    try {
      const limits = DEFAULTS.limits;
      const audit = createAuditService({ store, readModel: createReadModel(), limits, clock: Date.now });
      const requests = generateRequests({ seed: 2, count: 1000 });
      const body = (i: number) => ({ entity_type: 'context', include_entity_data: true, fields: requests[i % requests.length] });
      const random = createRandom(7);
      const head = Number(await store.headPosition());

      const started = process.hrtime.bigint();
      await audit.evaluateAsOf({ ...body(0), as_of: String(head) });
      const firstMs = Number(process.hrtime.bigint() - started) / 1e6;

      const working = Array.from({ length: 16 }, () => random.int(1, head));
      for (const p of working) await audit.evaluateAsOf({ ...body(0), as_of: p });
      let matches = 0;
      const repeated = summarize(await timeEachAsync(quick ? 500 : 2000, async (i) => {
        matches += (await audit.evaluateAsOf({ ...body(i), as_of: working[i % working.length] })).matchingRuleIds.length;
      }));
      const positions = summarize(await timeEachAsync(quick ? 100 : 300, (i) => audit.evaluateAsOf({ ...body(i), as_of: random.int(1, head) })));
      const times = summarize(await timeEachAsync(quick ? 100 : 300, (i) => audit.evaluateAsOf({ ...body(i), as_of: atOf(random.int(0, total - 1)) })));
      (globalThis as { gc?: () => void }).gc?.();
      const memory = process.memoryUsage();
      const figures = {
        events: total,
        rules: Math.round(total / 100),
        first_query_ms: firstMs,
        mean_matches: matches / (quick ? 500 : 2000),
        rss_mb: memory.rss / 2 ** 20,
        heap_used_mb: memory.heapUsed / 2 ** 20,
      };
      return [
        { case: `first query (full fold), ${total / 1000}k events`, figures },
        { case: `repeated points (16), ${total / 1000}k events`, subject: repeated },
        { case: `random positions, ${total / 1000}k events`, subject: positions },
        { case: `random times, ${total / 1000}k events`, subject: times },
      ] satisfies CaseResult[];
    } finally {
      await store.close();
      data.remove();
    }
  },
};
