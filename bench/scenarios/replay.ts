/**
 * Start-up: a log of 1M events of the project's own types (rules created,
 * changed, switched off and deleted; contexts; prompts with versions; API
 * keys; sealed secrets) replayed into the read models until ready; then the
 * same log started from the snapshot written at shutdown.
 */
import { loadConfig } from '../../src/config';
import { silentLogger } from '../../src/log';
import { startNode } from '../../src/main';
import type { BulkEvent } from '../../src/store/sqlite-bulk';
import { createSealer } from '../../src/vault/seal';
import { ADMIN_KEY, benchKeyEvent, loadedDataDir, MASTER_KEY, metadata } from '../http-harness';
import { createRandom } from '../random';
import type { CaseResult, Scenario } from '../scenario';
import { generateRules, ruleId } from '../workload';
import { parseRuleCreate } from '../../src/domain/rules';

export function* history(total: number, secretEvents: BulkEvent[]): Generator<BulkEvent> {
  const random = createRandom(11);
  const ruleCount = Math.round(total / 50);
  const bodies = generateRules({ seed: 3, count: ruleCount });
  const at = metadata().at;
  yield benchKeyEvent();
  yield* secretEvents;
  let emitted = 1 + secretEvents.length;
  const contexts: string[] = [];
  for (let i = 0; i < ruleCount / 4; i++, emitted++) {
    const id = `00000000-0000-4000-a000-${String(i).padStart(12, '0')}`;
    contexts.push(id);
    yield {
      stream: `context-${id}`, type: 'ContextCreated', metadata: metadata(at),
      data: { id, name: `context ${i}`, description: '', content: 'Answer briefly. '.repeat(8), tags: ['bench'], meta_properties: {}, status: 'ACTIVE' },
    };
  }
  for (let i = 0; i < ruleCount; i++, emitted++) {
    const id = ruleId(i);
    const body = parseRuleCreate(bodies[i]);
    yield { stream: `rule-${id}`, type: 'RuleCreated', metadata: metadata(at), data: { id, ...body, entities: [{ entity_type: 'context', entity_id: random.pick(contexts) }] } as never };
  }
  const revisions = new Map<number, number>();
  while (emitted < total) {
    const i = random.int(0, ruleCount - 1);
    const id = ruleId(i);
    const roll = random.int(0, 99);
    const changes = roll < 50
      ? { status: random.int(0, 1) === 0 ? 'ACTIVE' : 'INACTIVE' }
      : roll < 80
        ? { name: `rule ${i} v${(revisions.get(i) ?? 0) + 1}` }
        : { condition_groups: parseRuleCreate(bodies[random.int(0, ruleCount - 1)]).condition_groups };
    revisions.set(i, (revisions.get(i) ?? 0) + 1);
    yield { stream: `rule-${id}`, type: 'RuleUpdated', metadata: metadata(at), data: { id, changes } as never };
    emitted++;
  }
}

async function timeToReady(dataDir: string): Promise<{ seconds: number; stop: () => Promise<void> }> {
  const started = process.hrtime.bigint();
  const node = await startNode(
    loadConfig({ PORT: '0', RULEVAULT_DATA_DIR: dataDir, RULEVAULT_ADMIN_KEY: ADMIN_KEY, RULEVAULT_MASTER_KEY: MASTER_KEY }),
    { logger: silentLogger, announce: () => undefined },
  );
  await node.ready;
  return { seconds: Number(process.hrtime.bigint() - started) / 1e9, stop: () => node.stop() };
}

export const scenario: Scenario = {
  name: 'replay',
  description:
    'Cold start of a 1M-event log (quick: 100k) on the embedded store to ready: seconds, events/s, peak RSS of the ' +
    'process (it also generated the log); then a start from the snapshot written at shutdown.',
  async run({ quick }) {
    const total = quick ? 100_000 : 1_000_000;
    const sealer = await createSealer(Buffer.from(MASTER_KEY, 'base64'));
    const secrets: BulkEvent[] = [];
    for (let i = 0; i < 1000; i++) {
      const id = `00000000-0000-4000-b000-${String(i).padStart(12, '0')}`;
      secrets.push({ stream: `secret-${id}`, type: 'SecretCreated', metadata: metadata(), data: { id, key: `K${i}`, tags: ['t'], version: 1, sealed: { ...sealer.seal(id, 1, `value-${i}`) } } });
    }
    secrets.push({ stream: 'vault-keyring', type: 'MasterKeyEnrolled', metadata: metadata(), data: { canary: { ...sealer.makeCanary() } } });
    sealer.dispose();
    const data = loadedDataDir(history(total, secrets));
    try {
      const cold = await timeToReady(data.dir);
      const peakRssMb = process.resourceUsage().maxRSS / 1024;
      await cold.stop(); // writes the snapshot
      const warm = await timeToReady(data.dir);
      await warm.stop();
      const cases: CaseResult[] = [
        { case: `cold start, ${total / 1000}k events`, figures: { events: total, seconds: cold.seconds, events_per_s: total / cold.seconds, peak_rss_mb: peakRssMb } },
        { case: `start from snapshot, ${total / 1000}k events`, figures: { events: total, seconds: warm.seconds } },
      ];
      return cases;
    } finally {
      data.remove();
    }
  },
};
