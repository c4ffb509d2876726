/**
 * Evaluate over HTTP at one and two worker processes (RULEVAULT_WORKERS,
 * src/cluster/): req/s and latency, and the server's CPU per request (the
 * writer and its workers, read from /proc), which does not depend on how many
 * cores there are and so says what more cores would give.
 */
import { BENCH_KEY, load, loadedDataDir, peakRssMb, serviceCpuMicros, startService, timing } from '../http-harness';
import { evaluateWorkload } from '../http-workloads';
import type { LoadSpec } from '../load';
import type { CaseResult, Scenario } from '../scenario';
import { childPids } from '../../test/support/process';

const WORKERS = [1, 2];

export const scenario: Scenario = {
  name: 'http-workers',
  description:
    'evaluate over HTTP, 10k mixed rules, at RULEVAULT_WORKERS=1 and 2; autocannon -c 64, p=1, from a separate process on the same 2 cores ' +
    '(a 3 s warm-up load, then 10 s measured; quick: 1 + 3); cpu_us_per_request = CPU of the writer and its workers over the measured window / requests.',
  async run({ quick }) {
    const workload = evaluateWorkload();
    const data = loadedDataDir(workload.events);
    const results: CaseResult[] = [];
    const rps = new Map<number, number>();
    try {
      for (const workers of WORKERS) {
        const service = await startService(data.dir, { env: { RULEVAULT_WORKERS: String(workers) } });
        try {
          // /readyz answers once the first worker listens: wait for the rest before loading.
          while (workers > 1 && childPids(service.child.pid!).length < workers) await new Promise((resolve) => setTimeout(resolve, 50));
          const spec = (seconds: number): LoadSpec => ({
            url: service.url + workload.path,
            headers: { authorization: `Bearer ${BENCH_KEY}`, 'content-type': 'application/json' },
            bodies: workload.bodies,
            connections: 64,
            pipelining: 1,
            warmupSeconds: 0,
            seconds,
          });
          load(spec(quick ? 1 : 3));
          const before = serviceCpuMicros(service.child.pid);
          const measured = load(spec(quick ? 3 : 10));
          const cpu = serviceCpuMicros(service.child.pid) - before;
          const workerPids = workers === 1 ? [service.child.pid!] : childPids(service.child.pid!);
          rps.set(workers, measured.rps);
          results.push({
            case: `${workload.label}, ${workers} worker${workers === 1 ? '' : 's'}, p=1`,
            subject: timing(measured),
            figures: {
              workers,
              cpu_us_per_request: cpu / measured.requests,
              rps_vs_one_worker: measured.rps / rps.get(1)!,
              // Peak RSS of the process that answers (the service itself at 1; the largest worker at 2), and of the writer.
              serving_rss_mb: Math.max(...workerPids.map((pid) => peakRssMb(pid) ?? 0)),
              writer_rss_mb: peakRssMb(service.child.pid) ?? 0,
              non2xx: measured.non2xx,
              errors: measured.errors,
            },
          });
        } finally {
          await service.stop();
        }
      }
      return results;
    } finally {
      data.remove();
    }
  },
};
