/**
 * The standard workload at 1M rules, "scoped" shape (workload.ts: the
 * standard 10k, then tenant rules over 20,000 tenants, so the answer stays
 * at the standard size): the engine's build time, the process's memory, and
 * evaluate p50/p99 (as the engine and scale scenarios measure them at 100k);
 * then the real service started on a data folder whose log holds the 1M
 * rules: a cold start (replay), SIGTERM (it writes its snapshot on the way
 * out), and a start from that snapshot, both timed from spawn to the
 * service's `ready` log line.
 *
 * Explicit only (`--only million`, ~6 minutes on 2 busy cores): the default
 * run leaves it out. --quick runs it at 200k rules. Each figure the issue
 * sets a target for (issue 18, item 5) carries it beside it, with whether
 * it was met (at 200k the targets are only a guide).
 */
import { statSync } from 'node:fs';
import path from 'node:path';
import { createEngine, type RuleDefinition } from '../../src/engine';
import { SNAPSHOT_FILE } from '../../src/snapshots';
import { benchKeyEvent, cpuSeconds, loadedDataDir, peakRssMb, ruleEvents, startService } from '../http-harness';
import type { CaseResult, Scenario } from '../scenario';
import { summarize, timeEach } from '../stats';
import { countConditions, generateRequests, generateRules, scopedTenants, toDefinitions, type BenchRuleBody } from '../workload';

const REQUESTS = 2_000;
/** A start with 1M rules replays and compiles them all: far beyond the harness's default wait. */
const READY_TIMEOUT_MS = 15 * 60_000;

function gc(): void {
  const collect = (globalThis as { gc?: () => void }).gc;
  if (collect === undefined) throw new Error('million needs node --expose-gc (bench/run.ts passes it)');
  collect();
  collect();
}

const mb = (bytes: number): number => bytes / 2 ** 20;

/** The targets at 1M rules. */
const TARGET = { buildSeconds: 30, rssMb: 2048, p99Us: 30, snapshotStartSeconds: 3 } as const;

/** `figure` against the ceiling `limit`, as the report shows it: "≤ 30 s: met" or "≤ 30 s: missed (1.3x)". */
function against(figure: number | string, limit: number, unit: string): string {
  if (typeof figure !== 'number') return `≤ ${limit} ${unit}: not measured`;
  return figure <= limit ? `≤ ${limit} ${unit}: met` : `≤ ${limit} ${unit}: missed (${(figure / limit).toFixed(1)}x)`;
}
const msSince = (start: bigint): number => Number(process.hrtime.bigint() - start) / 1e6;
const cpuMs = (usage: NodeJS.CpuUsage): number => (usage.user + usage.system) / 1000;

/** Build, memory and evaluate of the in-process engine. */
function engineCases(bodies: readonly BenchRuleBody[], label: string, tenants: number, samples: number): CaseResult[] {
  let definitions: RuleDefinition[] | null = toDefinitions(bodies);
  gc();
  const before = process.memoryUsage();
  const started = process.hrtime.bigint();
  const cpu = process.cpuUsage();
  const engine = createEngine();
  engine.upsertMany(definitions); // the bulk build, as a start from a snapshot or a catch-up does
  const buildCpu = cpuMs(process.cpuUsage(cpu));
  const buildMs = msSince(started);
  definitions = null;
  gc();
  const memory = process.memoryUsage();

  const requests = generateRequests({ seed: 2, count: REQUESTS, tenants });
  let matches = 0;
  for (const fields of requests) matches += engine.evaluate(fields).length;
  for (let i = 0; i < 20_000; i++) engine.evaluate(requests[i % REQUESTS]);
  const subject = summarize(timeEach(samples, (i) => engine.evaluate(requests[i % REQUESTS])));
  return [
    {
      case: `build ${label}`,
      figures: {
        rules: bodies.length, conditions: countConditions(bodies), tenants, build_ms: buildMs, build_cpu_ms: buildCpu,
        target: against(buildMs / 1000, TARGET.buildSeconds, 's'),
      },
    },
    {
      case: `memory ${label}`,
      figures: {
        // The bench's own rule bodies stay in the heap (the service holds its rule records likewise).
        rss_mb: mb(memory.rss),
        engine_mb: mb(memory.heapUsed + memory.arrayBuffers - before.heapUsed - before.arrayBuffers),
        array_buffers_mb: mb(memory.arrayBuffers),
        heap_used_mb: mb(memory.heapUsed),
        target: against(mb(memory.rss), TARGET.rssMb, 'MB RSS'),
      },
    },
    {
      case: `evaluate ${label}`,
      subject,
      figures: { rules: engine.size, mean_matches: matches / REQUESTS, target: against(subject.p99_us, TARGET.p99Us, 'µs p99') },
    },
  ];
}

interface Start {
  readonly seconds: number;
  /** The service's CPU time at ready: 100 ticks/s (USER_HZ on Linux). */
  readonly cpuSeconds: number | string;
  readonly peakRssMb: number | string;
  readonly fromSnapshot: string;
  readonly startupMs: number | string;
  stop(): Promise<void>;
}

async function timeToReady(dataDir: string): Promise<Start> {
  const started = process.hrtime.bigint();
  const service = await startService(dataDir, { onReadyLine: true, readyTimeoutMs: READY_TIMEOUT_MS });
  const seconds = msSince(started) / 1000;
  const ready = JSON.parse(service.readyLog ?? '{}') as { from_snapshot?: string | null; startup_ms?: number };
  return {
    seconds,
    cpuSeconds: cpuSeconds(service.child.pid) ?? 'unknown',
    peakRssMb: peakRssMb(service.child.pid) ?? 'unknown',
    fromSnapshot: ready.from_snapshot ?? 'none',
    startupMs: ready.startup_ms ?? 'unknown',
    stop: service.stop,
  };
}

function snapshotMb(dir: string): number | string {
  try {
    return mb(statSync(path.join(dir, SNAPSHOT_FILE)).size);
  } catch {
    return 'none written';
  }
}

/** A data folder whose log holds the rules (bulk-loaded), a cold start, a snapshot at shutdown, a start from it. */
async function serviceCases(bodies: BenchRuleBody[], label: string): Promise<CaseResult[]> {
  const loadStarted = process.hrtime.bigint();
  const data = loadedDataDir((function* () {
    yield benchKeyEvent();
    yield* ruleEvents(bodies);
  })());
  const loadMs = msSince(loadStarted);
  bodies.length = 0; // the services, not this process, need the memory from here on
  gc();
  try {
    const cold = await timeToReady(data.dir);
    const stopStarted = process.hrtime.bigint();
    await cold.stop(); // SIGTERM: the service writes its snapshot on the way out
    const stopMs = msSince(stopStarted);
    const snapshot = snapshotMb(data.dir);
    const warm = await timeToReady(data.dir);
    await warm.stop();
    return [
      {
        case: `cold start ${label}`,
        figures: {
          bulk_load_ms: loadMs, seconds: cold.seconds, cpu_s: cold.cpuSeconds, startup_ms: cold.startupMs, peak_rss_mb: cold.peakRssMb,
          shutdown_ms: stopMs, snapshot_mb: snapshot, rss_target: against(cold.peakRssMb, TARGET.rssMb, 'MB RSS'),
        },
      },
      {
        case: `start from snapshot ${label}`,
        figures: {
          seconds: warm.seconds, cpu_s: warm.cpuSeconds, startup_ms: warm.startupMs, from_snapshot: warm.fromSnapshot, peak_rss_mb: warm.peakRssMb,
          target: against(warm.seconds, TARGET.snapshotStartSeconds, 's'),
          rss_target: against(warm.peakRssMb, TARGET.rssMb, 'MB RSS'),
        },
      },
    ];
  } finally {
    data.remove();
  }
}

export const explicitOnly = true;

export const scenario: Scenario = {
  name: 'million',
  description:
    'The standard workload at 1M rules (quick: 200k), "scoped" shape (the standard 10k, then rules of one tenant each over ' +
    '20,000 tenants, so the answer stays at the standard size): in-process build time (wall and CPU), memory after GC ' +
    '(rss: whole process, rule bodies included; engine_mb: heap and array-buffer growth from the build), evaluate p50/p99; ' +
    'then the service as its own process on a data folder whose log holds those rules (bulk-loaded): seconds from spawn to ' +
    'its ready log line cold (replay and compile), and again from the snapshot it wrote at shutdown. Explicit only: --only million.',
  async run({ quick }) {
    const rules = quick ? 200_000 : 1_000_000;
    const label = `scoped ${rules / 1000}k`.replace('1000k', '1M');
    const tenants = scopedTenants(rules);
    process.stderr.write(`  million: generating ${rules} rules\n`);
    const bodies = generateRules({ seed: 1, count: rules, shape: 'scoped' });
    process.stderr.write('  million: engine build and evaluate\n');
    const cases = engineCases(bodies, label, tenants, quick ? 10_000 : 30_000);
    gc();
    process.stderr.write('  million: service starts\n');
    cases.push(...(await serviceCases(bodies, label)));
    return cases;
  },
};
