/**
 * Freshness on one node: the time from sending an admin write to its
 * acknowledgement, and whether the very first evaluate sent after the
 * acknowledgement already sees it (read-your-writes on the node that wrote).
 */
import { ADMIN_KEY, BENCH_KEY, benchKeyEvent, loadedDataDir, ruleEvents, startService } from '../http-harness';
import type { CaseResult, Scenario } from '../scenario';
import { summarize } from '../stats';
import { generateRules } from '../workload';

export const scenario: Scenario = {
  name: 'freshness',
  description:
    'Admin write to evaluate visibility on the same node, with 10k rules loaded: write latency (POST rule, ' +
    'acknowledged after fsync and after the read model applied it) and the share of writes the first evaluate ' +
    'after the acknowledgement already sees (must be 100%).',
  async run({ quick }) {
    const data = loadedDataDir([benchKeyEvent(), ...ruleEvents(generateRules({ seed: 1, count: 10_000 }))]);
    const service = await startService(data.dir);
    try {
      const writes = quick ? 100 : 500;
      const writeNs: number[] = [];
      const readNs: number[] = [];
      let visible = 0;
      for (let i = 0; i < writes; i++) {
        const tag = `fresh-${i}`;
        const started = process.hrtime.bigint();
        const written = await fetch(`${service.url}/api/rule-engine/rules`, {
          method: 'POST',
          headers: { authorization: `Bearer ${ADMIN_KEY}` },
          body: JSON.stringify({ name: tag, condition_groups: [{ conditions: [{ field: 'fresh', operator: 'equals', value: tag }] }] }),
        });
        const acknowledged = process.hrtime.bigint();
        if (written.status !== 201) throw new Error(`write answered ${written.status}`);
        const id = ((await written.json()) as { id: string }).id;
        const answer = await fetch(`${service.url}/api/rule-engine/evaluate`, {
          method: 'POST',
          headers: { authorization: `Bearer ${BENCH_KEY}` },
          body: JSON.stringify({ entity_type: 'context', fields: { fresh: tag } }),
        });
        readNs.push(Number(process.hrtime.bigint() - acknowledged));
        if (((await answer.json()) as { matchingRuleIds: string[] }).matchingRuleIds.includes(id)) visible++;
        writeNs.push(Number(acknowledged - started));
      }
      const cases: CaseResult[] = [
        { case: 'admin write acknowledged (fsync + applied)', subject: summarize(writeNs) },
        { case: 'first evaluate after the acknowledgement', subject: summarize(readNs), figures: { writes, visible_on_first_read_pct: (100 * visible) / writes } },
      ];
      return cases;
    } finally {
      await service.stop();
      data.remove();
    }
  },
};
