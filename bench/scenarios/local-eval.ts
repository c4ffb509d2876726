/**
 * Local evaluation over the change stream (issue 16): the client's in-process
 * evaluate at 10k rules against the in-process engine (p50) and against the
 * HTTP path (evaluations per second); the time from sending an admin write to
 * a subscribed client holding it (loopback); and the service's memory with
 * 1,000 idle stream subscribers.
 */
import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { createLocalEvaluator } from '../../src/client/local';
import { createEngine } from '../../src/engine';
import { ADMIN_KEY, BENCH_KEY, benchKeyEvent, load, loadedDataDir, ruleEvents, startService, timing } from '../http-harness';
import type { CaseResult, Scenario } from '../scenario';
import { summarize, timeEach } from '../stats';
import { generateRequests, generateRules, toDefinitions } from '../workload';

const RULES = 10_000;
const REQUESTS = 2_000;

/** Resident memory of a process in MB now (Linux: VmRSS). */
function rssMb(pid: number | undefined): number {
  const match = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match === null ? Number.NaN : Number(match[1]) / 1024;
}

/** An idle subscriber: a raw socket that reads (and drops) what it gets; resolves once the snapshot has arrived. */
function subscribe(url: string): Promise<Socket> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let seen = '';
    socket.once('error', reject);
    socket.on('data', (chunk: Buffer) => {
      if (seen === undefined) return;
      seen = (seen + chunk.toString('latin1')).slice(-64);
      if (seen.includes('\n\n')) {
        seen = undefined as unknown as string;
        resolve(socket);
      }
    });
    socket.write(`GET /api/rule-engine/stream HTTP/1.1\r\nHost: ${hostname}:${port}\r\nAuthorization: Bearer ${BENCH_KEY}\r\n\r\n`);
  });
}

/**
 * One admin write, sent again once when the kept-alive connection it went on
 * was closed by the server's keep-alive timeout as it was reused (undici:
 * "other side closed"; the request never reached the service).
 */
async function writeRule(url: string, i: number): Promise<Response> {
  const send = () => fetch(`${url}/api/rule-engine/rules`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_KEY}` },
    body: JSON.stringify({ name: `seen-${i}`, condition_groups: [{ conditions: [{ field: 'seen', operator: 'equals', value: String(i) }] }] }),
  });
  return send().catch(send);
}

export const scenario: Scenario = {
  name: 'local-eval',
  description:
    `Local evaluation at ${RULES / 1000}k rules: the client's evaluate (from the change stream) vs the in-process engine ` +
    '(p50; target within 1.2x) and its evaluations/s vs the HTTP path (autocannon -c 64; target 50x); admin write to ' +
    'subscribed client (p99; target <= 50 ms, loopback); service RSS with 1,000 idle stream subscribers (target < 100 MB held).',
  async run({ quick }) {
    const bodies = generateRules({ seed: 1, count: RULES });
    const requests = generateRequests({ seed: 2, count: REQUESTS });
    const data = loadedDataDir([benchKeyEvent(), ...ruleEvents(bodies)]);
    const service = await startService(data.dir, { env: { RULEVAULT_STREAM_HEARTBEAT_MS: '15000' } });
    const cases: CaseResult[] = [];
    try {
      const subscribers = quick ? 200 : 1_000;
      // First, on a service fresh from start-up: later phases leave garbage whose collection would blur the difference.
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      const before = rssMb(service.child.pid);
      const sockets: Socket[] = [];
      // In batches, as a reconnect storm would come, each waiting for its snapshot.
      for (let i = 0; i < subscribers; i += 50) {
        sockets.push(...(await Promise.all(Array.from({ length: Math.min(50, subscribers - i) }, () => subscribe(service.url)))));
      }
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      const after = rssMb(service.child.pid);
      for (const socket of sockets) socket.destroy();
      cases.push({
        case: `${subscribers} idle stream subscribers (${RULES / 1000}k rules)`,
        figures: { subscribers, service_rss_before_mb: before, service_rss_after_mb: after, held_mb: after - before },
      });
      const local = createLocalEvaluator({ url: service.url, apiKey: BENCH_KEY });
      await local.ready(120_000);
      const engine = createEngine();
      for (const definition of toDefinitions(bodies)) engine.upsert(definition);
      const asked = requests.map((fields) => ({ entity_type: 'context' as const, fields }));
      let disagree = 0;
      for (let i = 0; i < REQUESTS; i++) {
        const answer = local.evaluate(asked[i]!);
        if (answer.err !== null || answer.matchingRuleIds.join() !== engine.evaluate(requests[i]!).join()) disagree++;
      }
      for (let i = 0; i < 10_000; i++) {
        local.evaluate(asked[i % REQUESTS]!);
        engine.evaluate(requests[i % REQUESTS]!);
      }
      const samples = quick ? 10_000 : 30_000;
      const subject = summarize(timeEach(samples, (i) => local.evaluate(asked[i % REQUESTS]!)));
      const baseline = summarize(timeEach(samples, (i) => engine.evaluate(requests[i % REQUESTS]!)));
      cases.push({
        case: `local evaluate ${RULES / 1000}k vs in-process engine`,
        subject,
        baseline: { name: 'in-process engine', ...baseline },
        figures: { p50_ratio: subject.p50_us / baseline.p50_us, answers_differing: disagree },
      });

      // The service's throughput (64 callers at once), and one caller's: evaluate after evaluate, as a request handler does.
      for (const connections of [64, 1]) {
        const http = load({
          url: `${service.url}/api/rule-engine/evaluate`,
          headers: { authorization: `Bearer ${BENCH_KEY}`, 'content-type': 'application/json' },
          bodies: asked.slice(0, 500).map((body) => JSON.stringify(body)),
          connections,
          pipelining: 1,
          warmupSeconds: quick ? 1 : 3,
          seconds: quick ? 3 : 10,
        });
        cases.push({
          case: `local evaluate ${RULES / 1000}k vs HTTP evaluate (c=${connections}, p=1)`,
          subject,
          baseline: { name: 'HTTP evaluate', ...timing(http) },
          figures: { ops_ratio: subject.ops_per_s / http.rps },
        });
      }

      // Each write is one event, so its position is the next one: wait for it before sending.
      const writes = quick ? 50 : 300;
      const seenNs: number[] = [];
      let seenBeforeAck = 0;
      for (let i = 0; i < writes; i++) {
        const expected = (local.position ?? 0n) + 1n;
        const started = process.hrtime.bigint();
        let seenAt = 0n;
        const seen = local.waitFor(expected, 30_000).then(() => {
          seenAt = process.hrtime.bigint();
        });
        const written = await writeRule(service.url, i);
        if (written.status !== 201) throw new Error(`write answered ${written.status}`);
        if (written.headers.get('rulevault-position') !== expected.toString()) throw new Error('a write was not the next position');
        if (seenAt !== 0n) seenBeforeAck++;
        await written.arrayBuffer();
        await seen;
        seenNs.push(Number(seenAt - started));
      }
      cases.push({ case: 'admin write seen by a subscribed client (loopback)', subject: summarize(seenNs), figures: { writes, seen_before_ack_pct: (100 * seenBeforeAck) / writes } });
      local.close();

    } finally {
      await service.stop();
      data.remove();
    }
    return cases;
  },
};
