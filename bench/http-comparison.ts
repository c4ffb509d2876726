/**
 * One HTTP comparison, as docs/bench-method.md defines it: the subject route, the no-op
 * route of the same express app, the honest floor (a node:http server that
 * parses the body and stringifies an answer of the same size) and a bare
 * node:http server answering the same bytes, each driven by autocannon
 * (-c 64) at pipelining 1 and 10, in the same run, the subject and its
 * target's baseline back to back in an order alternating by run. Ratios are of requests
 * per second, and of the servers' CPU per answer in the same windows (each
 * load's warm-up runs first as a load of its own, so the CPU read covers the
 * measured window only). One more baseline, the floor sending the subject's own headers
 * too (evaluate: RuleVault-Decision-Id, a UUID minted per answer),
 * says what those headers cost on their own: on two cores shared with the
 * load generator, whose HTTP parser reads every header line, they are not free.
 */
import type { LoadSpec } from './load';
import type { CaseResult } from './scenario';
import { BENCH_KEY, loadWithCpu, type LoadWithCpu, ownHeaders, startBare, startService, timing } from './http-harness';

export interface ComparisonOptions {
  readonly label: string;
  readonly dataDir: string;
  readonly path: string;
  readonly bodies: readonly string[];
  readonly quick: boolean;
  /** The baseline the target is stated against (evaluate: the floor; get-secrets: the no-op route): measured back to back with the subject. */
  readonly target: 'floor' | 'noop';
  /** The runner's run number: odd runs measure the target's baseline before the subject, even ones after. */
  readonly run: number;
}

export async function compareHttp({ label, dataDir, path, bodies, quick, target, run }: ComparisonOptions): Promise<CaseResult[]> {
  const service = await startService(dataDir);
  try {
    // The bare server answers exactly what the service answers to the first body.
    const sample = await fetch(service.url + path, { method: 'POST', headers: { authorization: `Bearer ${BENCH_KEY}` }, body: bodies[0] });
    const answer = await sample.text();
    if (sample.status !== 200) throw new Error(`${path} answered ${sample.status}: ${answer}`);
    const bare = await startBare(answer);
    const floor = await startBare(answer, { mode: 'floor' });
    const headers = ownHeaders(sample);
    const floorHeaders = await startBare(answer, { mode: 'floor', headers });
    try {
      const results: CaseResult[] = [];
      for (const pipelining of [1, 10]) {
        const spec = (url: string): LoadSpec => ({
          url,
          headers: { authorization: `Bearer ${BENCH_KEY}`, 'content-type': 'application/json' },
          bodies,
          connections: 64,
          pipelining,
          warmupSeconds: quick ? 1 : 3,
          seconds: quick ? 3 : 10,
        });
        // The subject and the baseline of its target are measured back to back, in an order that alternates run by
        // run: the machine's speed drifts within seconds on a shared host, and 13 s more between the two loads (the
        // no-op route's between evaluate and the floor, as the first rounds had it) moved single runs' ratios from 0.66x to 1.29x within an hour.
        const loadSubject = (): LoadWithCpu => loadWithCpu(spec(service.url + path), service.child.pid);
        const loadNoop = (): LoadWithCpu => loadWithCpu(spec(service.url + '/bench/noop'), service.child.pid);
        const loadFloor = (): LoadWithCpu => loadWithCpu(spec(floor.url), floor.child.pid);
        const loadPaired = target === 'floor' ? loadFloor : loadNoop;
        let subject: LoadWithCpu;
        let paired: LoadWithCpu;
        if (run % 2 === 0) {
          subject = loadSubject();
          paired = loadPaired();
        } else {
          paired = loadPaired();
          subject = loadSubject();
        }
        const noop = target === 'noop' ? paired : loadNoop();
        const floorLoad = target === 'floor' ? paired : loadFloor();
        const floorHeadersLoad = loadWithCpu(spec(floorHeaders.url), floorHeaders.child.pid);
        const baseline = loadWithCpu(spec(bare.url), bare.child.pid);
        const figures = {
          pipelining,
          rps_vs_noop: subject.rps / noop.rps,
          rps_vs_floor: subject.rps / floorLoad.rps,
          rps_vs_floor_with_headers: subject.rps / floorHeadersLoad.rps,
          floor_with_headers_vs_floor: floorHeadersLoad.rps / floorLoad.rps,
          rps_vs_bare: subject.rps / baseline.rps,
          // The server's CPU per answer in the same windows: what the gap to the floor is made of, less moved by the
          // client and the machine than req/s (the floor's ratio to ours, as rps_vs_floor is ours to the floor's).
          cpu_us: subject.cpuUsPerRequest,
          floor_cpu_us: floorLoad.cpuUsPerRequest,
          floor_with_headers_cpu_us: floorHeadersLoad.cpuUsPerRequest,
          cpu_vs_floor: floorLoad.cpuUsPerRequest / subject.cpuUsPerRequest,
          non2xx: subject.non2xx,
          errors: subject.errors,
          answer_bytes: answer.length,
        };
        results.push({ case: `${label} vs no-op route, p=${pipelining}`, subject: timing(subject), baseline: { name: 'no-op route', ...timing(noop) }, figures });
        results.push({ case: `${label} vs honest floor, p=${pipelining}`, subject: timing(subject), baseline: { name: 'node:http parse+stringify floor', ...timing(floorLoad) }, figures });
        results.push({
          case: `${label} vs honest floor with its headers, p=${pipelining}`,
          subject: timing(subject),
          baseline: { name: `floor + ${headers.map(([name]) => name).join(', ')}`, ...timing(floorHeadersLoad) },
          figures,
        });
        results.push({ case: `${label} vs bare node:http, p=${pipelining}`, subject: timing(subject), baseline: { name: 'bare node:http', ...timing(baseline) }, figures });
      }
      return results;
    } finally {
      await Promise.all([bare.stop(), floor.stop(), floorHeaders.stop()]);
    }
  } finally {
    await service.stop();
  }
}
