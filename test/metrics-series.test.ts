/**
 * The request counter and latency histogram are kept by hand (src/http/metrics.ts):
 * their exposition must be what prom-client's Counter and Histogram write for
 * the same observations.
 */
import t from 'tap';
import { Counter, Histogram, Registry } from 'prom-client';
import { createMetrics } from '../src/http/metrics';
import { createReadModel } from '../src/read-model/read-model';
import type { EventStore } from '../src/store/port';
import { createRandom } from '../bench/random';

const readModel = createReadModel();
// Only the lag gauge reads the store, and this test reads the two request metrics alone.
const store = {} as EventStore;

function linesOf(text: string, prefix: string): string[] {
  return text.split('\n').filter((line) => line.startsWith(prefix) || line.startsWith(`# HELP ${prefix}`) || line.startsWith(`# TYPE ${prefix}`));
}

t.test('the same exposition as prom-client for the same observations (seeded)', async (t) => {
  const metrics = createMetrics(readModel, store);
  const reference = new Registry();
  const labelNames = ['method', 'route', 'status'];
  const counter = new Counter({ name: 'rulevault_http_requests_total', help: 'HTTP requests answered', labelNames, registers: [reference] });
  const histogram = new Histogram({
    name: 'rulevault_http_request_duration_seconds', help: 'HTTP request latency', labelNames,
    buckets: [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1], registers: [reference],
  });
  const random = createRandom(18);
  const routes = ['/api/rule-engine/evaluate', '/api/vault/get-secrets', 'unmatched'];
  for (let i = 0; i < 2000; i++) {
    const method = random.pick(['POST', 'GET']);
    const route = random.pick(routes);
    const status = random.pick([200, 400, 401, 404, 503]);
    // Bounds exactly, values between them, and beyond the last one.
    const seconds = random.pick([0, 0.0001, 0.001, 1, 3, random.next() * 0.02]);
    metrics.observeRequest(method, route, status, seconds);
    counter.inc({ method, route, status: String(status) });
    histogram.observe({ method, route, status: String(status) }, seconds);
  }
  for (const name of ['rulevault_http_requests_total', 'rulevault_http_request_duration_seconds']) {
    const a = linesOf(await metrics.registry.getSingleMetricAsString(name), name);
    t.ok(a.length > 10, `${name} is exposed`);
    t.same(a.sort(), linesOf(await reference.getSingleMetricAsString(name), name).sort(), name);
  }
});
