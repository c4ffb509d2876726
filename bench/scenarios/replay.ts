/**
 * Start-up: a log of 1M events of the project's own types (rules created and
 * changed, switched on and off; contexts; API keys; sealed secrets) replayed
 * into the read models until ready; then the same log started from the
 * snapshot written at shutdown. The service runs as its own process, started
 * as `npm start` starts it: seconds are from spawn to its `ready` log line
 * (when /readyz turns 200), so they include Node's own start-up.
 */
import { spawnSync } from 'node:child_process';
import type { BulkEvent } from '../../src/store/sqlite-bulk';
import { createSealer } from '../../src/vault/seal';
import { benchKeyEvent, loadedDataDir, MASTER_KEY, metadata, peakRssMb, startService } from '../http-harness';
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

/**
 * Lets the generator's after-effects pass before timing: its garbage (a
 * collection in this process would run on the cores the service uses) and
 * the kernel's write-back of the freshly written log.
 */
async function settle(): Promise<void> {
  (globalThis as { gc?: () => void }).gc?.();
  spawnSync('sync');
  await new Promise((resolve) => setTimeout(resolve, 1000));
}

async function timeToReady(dataDir: string): Promise<{ seconds: number; peakRssMb: number | undefined; stop: () => Promise<void> }> {
  const started = process.hrtime.bigint();
  const service = await startService(dataDir, { onReadyLine: true });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  return { seconds, peakRssMb: peakRssMb(service.child.pid), stop: service.stop };
}

export const scenario: Scenario = {
  name: 'replay',
  description:
    'Cold start of a 1M-event log (quick: 100k) on the embedded store: the service as its own process (`npm start` flags), ' +
    'seconds from spawn to its ready log line (/readyz turns 200), events/s, the service\'s peak RSS; then a start from the snapshot written at shutdown.',
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
      await settle();
      const cold = await timeToReady(data.dir);
      await cold.stop(); // SIGTERM: the service writes its snapshot on the way out
      const warm = await timeToReady(data.dir);
      await warm.stop();
      const cases: CaseResult[] = [
        { case: `cold start, ${total / 1000}k events`, figures: { events: total, seconds: cold.seconds, events_per_s: total / cold.seconds, peak_rss_mb: cold.peakRssMb ?? 'unknown' } },
        { case: `start from snapshot, ${total / 1000}k events`, figures: { events: total, seconds: warm.seconds, peak_rss_mb: warm.peakRssMb ?? 'unknown' } },
      ];
      return cases;
    } finally {
      data.remove();
    }
  },
};
