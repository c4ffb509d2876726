/**
 * What decision logging costs evaluate over HTTP (issue 19: at most 15% of
 * throughput at 100% sampling, nothing measurable at 1%): three services on
 * the same 10k-rule log, decision logging off, at 1% and at 100%, driven in
 * alternation (off, 1%, 100%, then again) so drift of a shared, loaded
 * machine falls on all three alike. Reported per setting: req/s and p50/p99
 * (autocannon -c 64, pipelining 1, from a separate process on the same two
 * cores), and the service's CPU time per request (utime + stime from
 * /proc, so the load generator's share of the cores does not count).
 */
import { readFileSync } from 'node:fs';
import { BENCH_KEY, benchKeyEvent, load, loadedDataDir, ruleEvents, startService, timing, type Running } from '../http-harness';
import type { LoadResult, LoadSpec } from '../load';
import type { CaseResult, Scenario } from '../scenario';
import { median } from '../stats';
import { generateRequests, generateRules } from '../workload';

const SETTINGS = [
  { name: 'off', env: {} },
  { name: '1%', env: { RULEVAULT_DECISION_LOG: '1', RULEVAULT_DECISION_LOG_SAMPLE_RATE: '0.01' } },
  { name: '100%', env: { RULEVAULT_DECISION_LOG: '1', RULEVAULT_DECISION_LOG_SAMPLE_RATE: '1' } },
] as const;

/** Clock ticks of CPU (user + system) a process has used; Linux only. */
function cpuTicks(pid: number | undefined): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  // After "pid (comm) ", utime and stime are the 12th and 13th fields.
  return Number(fields[11]) + Number(fields[12]);
}
/** USER_HZ on Linux. */
const TICKS_PER_SECOND = 100;

export const scenario: Scenario = {
  name: 'decision-log',
  description:
    'evaluate over HTTP, 10k mixed rules, decision logging off / 1% / 100% (three services on copies of one log), ' +
    'autocannon -c 64 p=1 from a separate process on the same 2 cores, runs alternated; ' +
    'cpu_us_per_request = the service\'s utime+stime over the load / requests answered. ratio = off p50 / subject p50.',
  async run({ quick }) {
    const rules = generateRules({ seed: 1, count: 10_000 });
    const dirs = SETTINGS.map(() => loadedDataDir([benchKeyEvent(), ...ruleEvents(rules)]));
    const services: Running[] = [];
    try {
      for (let i = 0; i < SETTINGS.length; i++) services.push(await startService(dirs[i]!.dir, { env: SETTINGS[i]!.env }));
      const bodies = generateRequests({ seed: 2, count: 500 }).map((fields) => JSON.stringify({ entity_type: 'context', fields }));
      const spec = (url: string): LoadSpec => ({
        url: url + '/api/rule-engine/evaluate',
        headers: { authorization: `Bearer ${BENCH_KEY}`, 'content-type': 'application/json' },
        bodies,
        connections: 64,
        pipelining: 1,
        // The warm-up is a load run of its own, so the CPU measured around the next one is of the requests it counts.
        warmupSeconds: 0,
        seconds: quick ? 2 : 6,
      });
      const warmSeconds = quick ? 1 : 2;
      const rounds = quick ? 1 : 3;
      const loads: LoadResult[][] = SETTINGS.map(() => []);
      const cpu: number[][] = SETTINGS.map(() => []);
      for (let round = 0; round < rounds; round++) {
        for (let i = 0; i < SETTINGS.length; i++) {
          const pid = services[i]!.child.pid;
          load({ ...spec(services[i]!.url), seconds: warmSeconds });
          const before = cpuTicks(pid);
          const result = load(spec(services[i]!.url));
          const ticks = cpuTicks(pid) - before;
          loads[i]!.push(result);
          cpu[i]!.push(((ticks / TICKS_PER_SECOND) * 1e6) / Math.max(1, result.requests));
        }
      }
      const medianLoad = (i: number) => {
        const sorted = [...loads[i]!].sort((a, b) => a.rps - b.rps);
        return sorted[Math.floor(sorted.length / 2)]!;
      };
      const off = medianLoad(0);
      const offCpu = median(cpu[0]!);
      return SETTINGS.map((setting, i): CaseResult => {
        const subject = medianLoad(i);
        return {
          case: `evaluate 10k, decision log ${setting.name} vs off`,
          subject: timing(subject),
          baseline: { name: 'decision log off', ...timing(off) },
          figures: {
            rps_vs_off: subject.rps / off.rps,
            cpu_us_per_request: median(cpu[i]!),
            cpu_vs_off: median(cpu[i]!) / offCpu,
            rounds,
            non2xx: subject.non2xx,
            errors: subject.errors,
          },
        };
      });
    } finally {
      await Promise.all(services.map((s) => s.stop()));
      for (const dir of dirs) dir.remove();
    }
  },
};
