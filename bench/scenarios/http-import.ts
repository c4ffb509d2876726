/**
 * POST /api/import of 100k standard-workload rules (NDJSON) into the
 * embedded store (one transaction, durable before it answers) over HTTP: the time until the import
 * answers (parsed, every item checked, one transaction, applied to the read
 * model, so evaluable), the service's CPU for it, and its peak memory
 * (issue 18 item 4: target ≤ 30 s). Then evaluate is asked at once and must
 * see the imported rules.
 */
import { ADMIN_KEY, BENCH_KEY, benchKeyEvent, cpuSeconds, loadedDataDir, peakRssMb, startService } from '../http-harness';
import type { Scenario } from '../scenario';
import { generateRequests, generateRules } from '../workload';

export const scenario: Scenario = {
  name: 'http-import',
  description:
    'POST /api/import of N standard-workload rules as NDJSON (100k; quick: 20k) into the embedded SQLite store, from this process ' +
    '(same 2 cores as the server): seconds until the 201 (checked, one transaction, applied: evaluable), the service\'s CPU seconds ' +
    'and peak RSS; then one evaluate must match imported rules.',
  async run({ quick }) {
    const count = quick ? 20_000 : 100_000;
    const data = loadedDataDir([benchKeyEvent()]);
    const service = await startService(data.dir);
    try {
      const body = generateRules({ seed: 5, count }).map((rule) => JSON.stringify({ kind: 'rule', ...rule })).join('\n');
      const rssBefore = peakRssMb(service.child.pid);
      const cpuBefore = cpuSeconds(service.child.pid);
      const started = process.hrtime.bigint();
      const answer = await fetch(`${service.url}/api/import`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/x-ndjson' },
        body,
      });
      const text = await answer.text();
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      if (answer.status !== 201) throw new Error(`import answered ${answer.status}: ${text.slice(0, 300)}`);
      const cpuAfter = cpuSeconds(service.child.pid);
      const cpu = cpuBefore === undefined || cpuAfter === undefined ? 'unknown' : cpuAfter - cpuBefore;
      const imported = (JSON.parse(text) as { imported: number }).imported;

      // Evaluable when the import answered: the first evaluate after it matches imported rules.
      let matched = 0;
      for (const request of generateRequests({ seed: 5, count: 50 })) {
        const evaluated = await fetch(`${service.url}/api/rule-engine/evaluate`, {
          method: 'POST',
          headers: { authorization: `Bearer ${BENCH_KEY}` },
          body: JSON.stringify({ entity_type: 'context', fields: request }),
        });
        matched += ((await evaluated.json()) as { matchingRuleIds: string[] }).matchingRuleIds.length;
      }
      if (matched === 0) throw new Error('no evaluate after the import matched an imported rule');
      return [
        {
          case: `import ${count} rules (NDJSON, one request)`,
          figures: {
            rules: imported,
            body_mb: Buffer.byteLength(body) / 1e6,
            seconds_until_answered: seconds,
            rules_per_s: imported / seconds,
            server_cpu_s: cpu,
            server_peak_rss_mb_before: rssBefore ?? 'unknown',
            server_peak_rss_mb: peakRssMb(service.child.pid) ?? 'unknown',
            matches_in_50_evaluates_after: matched,
          },
        },
      ];
    } finally {
      await service.stop();
      data.remove();
    }
  },
};
