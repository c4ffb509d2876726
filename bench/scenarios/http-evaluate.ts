/**
 * POST /api/rule-engine/evaluate over HTTP with 10k standard-workload rules,
 * against the same app's no-op route, the honest floor and a bare node:http server.
 */
import { compareHttp } from '../http-comparison';
import { loadedDataDir } from '../http-harness';
import { evaluateWorkload } from '../http-workloads';
import type { Scenario } from '../scenario';

export const scenario: Scenario = {
  name: 'http-evaluate',
  description:
    'evaluate over HTTP, 10k mixed rules, autocannon -c 64 from a separate process (same 2 cores as the server), ' +
    '3 s warm-up + 10 s (quick: 1 + 3); subject vs the same express app\'s no-op route, the honest floor, the floor sending the ' +
    'subject\'s own headers too (RuleVault-Decision-Id) and a bare node:http server answering the same JSON; each server\'s CPU per answer ' +
      'in the same windows (cpu_us, floor_cpu_us; cpu_vs_floor = floor µs / subject µs). ' +
    'ratio = baseline p50 / subject p50; rps_vs_* = subject req/s / baseline req/s.',
  async run({ quick, run = 0 }) {
    const workload = evaluateWorkload();
    const data = loadedDataDir(workload.events);
    try {
      return await compareHttp({ label: workload.label, dataDir: data.dir, path: workload.path, bodies: workload.bodies, quick, target: 'floor', run });
    } finally {
      data.remove();
    }
  },
};
