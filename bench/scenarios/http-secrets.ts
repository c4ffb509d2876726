/**
 * POST /api/vault/get-secrets by tags over HTTP (200 sealed secrets, 20 tags,
 * each request one tag: about 15 secrets opened per request), against the
 * same app's no-op route, the honest floor and a bare node:http server.
 */
import { compareHttp } from '../http-comparison';
import { loadedDataDir } from '../http-harness';
import { secretsWorkload } from '../http-workloads';
import type { Scenario } from '../scenario';

export const scenario: Scenario = {
  name: 'http-secrets',
  description:
    'get-secrets by tags over HTTP: 200 sealed secrets, 20 tags, one tag per request (~15 values opened per request), ' +
    'autocannon -c 64 from a separate process on the same 2 cores; vs the no-op route, the honest floor, the floor sending ' +
    'the subject\'s own headers too (X-Request-Id, Cache-Control) and a bare node:http server; each server\'s CPU per answer in the same windows.',
  async run({ quick, run = 0 }) {
    const workload = await secretsWorkload();
    const data = loadedDataDir(workload.events);
    try {
      return await compareHttp({ label: workload.label, dataDir: data.dir, path: workload.path, bodies: workload.bodies, quick, target: 'noop', run });
    } finally {
      data.remove();
    }
  },
};
