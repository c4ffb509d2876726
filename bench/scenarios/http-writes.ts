/**
 * Acknowledged admin writes over HTTP: POST /api/rule-engine/rules (a new
 * standard-workload rule per request) at -c 32 on the embedded store. Every
 * 201 is a rule committed, applied to the read model and durable before it
 * was answered. Subject: group commit (the default; concurrent writes share
 * one fdatasync of the WAL); baseline: RULEVAULT_GROUP_COMMIT=0 (synchronous=FULL,
 * one fsync per write), in the same run, alternated (ABBA) so that load from
 * elsewhere on the machine falls on both alike (issue 18 item 4).
 */
import { ADMIN_KEY, benchKeyEvent, cpuMicros, load, loadedDataDir, startService, timing } from '../http-harness';
import type { LoadResult } from '../load';
import type { Scenario, Timing } from '../scenario';
import { generateRules } from '../workload';

interface Measured {
  readonly result: LoadResult;
  readonly acknowledged: number;
  readonly syncs: number;
  readonly commits: number;
  readonly cpuMicros: number;
}

/** One metric's value on the service's /metrics. */
async function metric(url: string, name: string): Promise<number> {
  // A fresh connection each time: one kept alive across the load would have been closed by the server meanwhile.
  const headers = { authorization: `Bearer ${ADMIN_KEY}`, connection: 'close' };
  const text = await (await fetch(`${url}/metrics`, { headers })).text();
  const match = new RegExp(`^${name} (\\d+)$`, 'm').exec(text);
  if (match === null) throw new Error(`/metrics has no ${name}`);
  return Number(match[1]);
}

async function measure(groupCommit: boolean, quick: boolean): Promise<Measured> {
  const data = loadedDataDir([benchKeyEvent()]);
  const service = await startService(data.dir, { env: { RULEVAULT_GROUP_COMMIT: groupCommit ? '1' : '0' } });
  try {
    const bodies = generateRules({ seed: 3, count: 500 }).map((rule) => JSON.stringify(rule));
    const counts = async () => ({
      syncs: await metric(service.url, 'rulevault_store_syncs_total'),
      commits: await metric(service.url, 'rulevault_store_commits_total'),
      cpu: cpuMicros(service.child.pid),
    });
    // The counters include the warm-up: syncs per write is a ratio, and the warm-up runs the same load.
    const before = await counts();
    const result = load({
      url: `${service.url}/api/rule-engine/rules`,
      headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' },
      bodies,
      connections: 32,
      pipelining: 1,
      warmupSeconds: quick ? 1 : 3,
      seconds: quick ? 3 : 10,
    });
    const after = await counts();
    const acknowledged = result.rps * (result.requests > 0 ? (result.requests - result.non2xx) / result.requests : 0);
    return { result, acknowledged, syncs: after.syncs - before.syncs, commits: after.commits - before.commits, cpuMicros: after.cpu - before.cpu };
  } finally {
    await service.stop();
    data.remove();
  }
}

/** The rounds of one variant as one timing: requests summed, rates and percentiles averaged. */
function combined(rounds: readonly Measured[]): Timing {
  const mean = (pick: (t: Timing) => number) => rounds.reduce((sum, r) => sum + pick(timing(r.result)), 0) / rounds.length;
  return {
    samples: rounds.reduce((sum, r) => sum + r.result.requests, 0),
    p50_us: mean((t) => t.p50_us),
    p99_us: mean((t) => t.p99_us),
    ops_per_s: rounds.reduce((sum, r) => sum + r.acknowledged, 0) / rounds.length,
  };
}

const total = (rounds: readonly Measured[], pick: (m: Measured) => number) => rounds.reduce((sum, r) => sum + pick(r), 0);

export const scenario: Scenario = {
  name: 'http-writes',
  description:
    'rule creations over HTTP on the embedded SQLite store, autocannon -c 32, p=1 from a separate process ' +
    '(same 2 cores as the server), 3 s warm-up + 10 s (quick: 1 + 3) per round; req/s counts acknowledged (201) writes only. ' +
    'Subject: group commit (default); baseline: RULEVAULT_GROUP_COMMIT=0 (synchronous=FULL, one fsync per write); ' +
    'rounds alternated baseline, subject, subject, baseline (quick: one each). cpu_us_per_write: the server\'s CPU (user + system) per commit.',
  async run({ quick }) {
    const order = quick ? [false, true] : [false, true, true, false];
    const rounds = { on: [] as Measured[], off: [] as Measured[] };
    for (const groupCommit of order) (groupCommit ? rounds.on : rounds.off).push(await measure(groupCommit, quick));
    const figures = (name: string, list: readonly Measured[]) => {
      const commits = total(list, (m) => m.commits);
      return {
        [`syncs_per_write_${name}`]: Number((total(list, (m) => m.syncs) / Math.max(1, commits)).toFixed(3)),
        [`cpu_us_per_write_${name}`]: Math.round(total(list, (m) => m.cpuMicros) / Math.max(1, commits)),
        [`non2xx_${name}`]: total(list, (m) => m.result.non2xx),
        [`errors_${name}`]: total(list, (m) => m.result.errors),
      };
    };
    return [
      {
        case: 'rule creations, -c 32',
        subject: combined(rounds.on),
        baseline: { name: 'one fsync per write (RULEVAULT_GROUP_COMMIT=0)', ...combined(rounds.off) },
        figures: { ...figures('group', rounds.on), ...figures('fsync_each', rounds.off) },
      },
    ];
  },
};
