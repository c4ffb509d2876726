/**
 * What an auditor's or operator's queries cost the evaluate callers of the
 * same node (audit evaluate as of a point, src/audit/time-travel.ts; any
 * admin GET, such as the digest or a rule listing): starts the service on a
 * copy of a data folder (make-folder.ts), then for each query of `--queries`
 * (a log position, `head`, or a GET path) sends it while a client evaluates back to
 * back beside it (one request at a time, the scoped workload's requests).
 * Per query: the answer's status and seconds, the evaluates answered
 * meanwhile, their p99 and slowest ms (the event loop's longest block, at
 * most), and the service's RSS after and peak so far, from /proc. A/B as
 * start-from-snapshot.ts (folder-ab.ts: builds alternate run by run).
 *
 *   node dist/bench/audit-stall.js <data folder> [--queries head,500000,head,/api/audit/digest] [--base <dist/src/main.js> [--base-folder <folder>]] [--runs 2] [--prof <dir>]
 *
 * `head` is a position past the log's end: the whole log. A GET path is
 * sent with the admin key (`/api/rule-engine/rules?limit=5`). `--prof` runs the
 * service under `node --cpu-prof` and writes one profile per run there
 * (`<build>-<run>.cpuprofile`), for `bench/long-tasks.ts` to name what held the event loop.
 */
import path from 'node:path';
import { takeOption } from './args';
import { alternate, onCopy } from './folder-ab';
import { ADMIN_KEY, BENCH_KEY, peakRssMb, rssMb, startService, type Running } from './http-harness';
import { generateRequests } from './workload';

const HEAD = '99999999999999';
const WARM_EVALUATES = 200;

function profileFlags(dir: string | undefined, main: string | undefined, run: number): string[] {
  if (dir === undefined) return [];
  return ['--cpu-prof', `--cpu-prof-dir=${path.resolve(dir)}`, `--cpu-prof-name=${main === undefined ? 'this' : 'base'}-${run}.cpuprofile`];
}

const post = (service: Running, path: string, key: string, body: unknown): Promise<Response> =>
  fetch(`${service.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });

async function stallOnce(folder: string, main: string | undefined, points: readonly string[], nodeFlags: string[]): Promise<Record<string, unknown>> {
  return onCopy(folder, async (copy) => {
    const service = await startService(copy, { onReadyLine: true, readyTimeoutMs: 15 * 60_000, main, nodeFlags });
    const requests = generateRequests({ seed: 2, count: 500 }).map((fields) => ({ entity_type: 'context', fields }));
    let next = 0;
    const evaluate = async (): Promise<number> => {
      const started = performance.now();
      const answer = await post(service, '/api/rule-engine/evaluate', BENCH_KEY, requests[next++ % requests.length]);
      await answer.arrayBuffer();
      if (answer.status !== 200) throw new Error(`evaluate answered ${answer.status}`);
      return performance.now() - started;
    };
    for (let i = 0; i < WARM_EVALUATES; i++) await evaluate();
    const results: Record<string, unknown>[] = [];
    for (const point of points) {
      let going = true;
      const latencies: number[] = [];
      const failures: string[] = [];
      const beside = (async () => {
        while (going) await evaluate().then((ms) => latencies.push(ms), (error: Error) => failures.push(error.message));
      })();
      const started = performance.now();
      const asked = point.startsWith('/')
        ? fetch(`${service.url}${point}`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } })
        : post(service, '/api/audit/evaluate', ADMIN_KEY, { ...requests[0], as_of: point === 'head' ? HEAD : point });
      const status = await asked.then(async (answer) => (await answer.arrayBuffer(), answer.status), (error: Error) => `failed: ${error.message}`);
      const seconds = (performance.now() - started) / 1000;
      going = false;
      await beside;
      latencies.sort((a, b) => a - b);
      results.push({
        query: point, status, audit_s: Number(seconds.toFixed(2)), evaluates: latencies.length, failed: failures.length, ...(failures.length > 0 ? { first_failure: failures[0] } : {}),
        p99_ms: Math.round(latencies[Math.floor(latencies.length * 0.99)] ?? NaN), slowest_ms: Math.round(latencies[latencies.length - 1] ?? NaN),
        rss_mb: Math.round(rssMb(service.child.pid) ?? NaN), peak_rss_mb: Math.round(peakRssMb(service.child.pid) ?? NaN),
      });
      if (service.child.exitCode !== null || service.child.signalCode !== null) break;
    }
    const exited = service.child.exitCode ?? service.child.signalCode;
    await service.stop();
    return { build: main ?? 'this', points: results, exited: exited ?? null };
  });
}

const points = (takeOption(process.argv, '--queries') ?? 'head,500000,head,/api/audit/digest').split(',');
const profiles = takeOption(process.argv, '--prof');
const runs = new Map<string | undefined, number>();
void alternate('audit-stall.js', 2, (folder, main) => {
  const run = (runs.get(main) ?? 0) + 1;
  runs.set(main, run);
  return stallOnce(folder, main, points, profileFlags(profiles, main, run));
});
