/**
 * POST /api/rule-engine/evaluate over HTTP with 10k standard-workload rules,
 * against the same app's no-op route, the honest floor and a bare node:http server.
 */
import { compareHttp } from '../http-comparison';
import { benchKeyEvent, loadedDataDir, ruleEvents } from '../http-harness';
import type { Scenario } from '../scenario';
import { generateRequests, generateRules } from '../workload';

export const scenario: Scenario = {
  name: 'http-evaluate',
  description:
    'evaluate over HTTP, 10k mixed rules, autocannon -c 64 from a separate process (same 2 cores as the server), ' +
    '3 s warm-up + 10 s (quick: 1 + 3); subject vs the same express app\'s no-op route, the honest floor and a bare node:http server ' +
    'answering the same JSON. ratio = baseline p50 / subject p50; rps_vs_* = subject req/s / baseline req/s.',
  async run({ quick }) {
    const data = loadedDataDir([benchKeyEvent(), ...ruleEvents(generateRules({ seed: 1, count: 10_000 }))]);
    try {
      const bodies = generateRequests({ seed: 2, count: 500 }).map((fields) => JSON.stringify({ entity_type: 'context', fields }));
      return await compareHttp({ label: 'evaluate 10k', dataDir: data.dir, path: '/api/rule-engine/evaluate', bodies, quick });
    } finally {
      data.remove();
    }
  },
};
