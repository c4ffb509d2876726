/**
 * Prometheus metrics (prom-client), one registry per node. Gauges that read
 * the read model are computed when scraped, so the request path pays only
 * for its counter and histogram.
 */
import { getHeapStatistics } from 'node:v8';
import { Counter, Gauge, Histogram, Registry, type Metric } from 'prom-client';
import type { ReadModel } from '../read-model/read-model';
import type { EventStore } from '../store/port';

export interface Metrics {
  readonly registry: Registry;
  /** `code`: on an always-200 endpoint, the body's error code (null: answered); the series then carry `outcome` and `code`. */
  observeRequest(method: string, route: string, status: number, seconds: number, code?: string | null): void;
  observeMatches(count: number): void;
  secretsRead(keyId: string, count: number): void;
  setReplaySeconds(seconds: number): void;
}

export function createMetrics(readModel: ReadModel, store: EventStore): Metrics {
  const registry = new Registry();
  const requests = createRequestSeries();
  registry.registerMetric(requests.counter);
  registry.registerMetric(requests.histogram);
  const matches = new Histogram({
    name: 'rulevault_evaluate_matches', help: 'Matching rules per evaluate request',
    buckets: [0, 1, 2, 5, 10, 20, 50, 100, 500], registers: [registry],
  });
  const secretReads = new Counter({
    name: 'rulevault_secret_reads_total', help: 'Secret values returned by get-secrets, per API key id', labelNames: ['key_id'], registers: [registry],
  });
  // Gauges say how they combine across worker processes (src/cluster/fleet.ts): every worker holds the same read
  // models, so a sum would count them once per worker; the position is the slowest worker's, the lag the largest.
  const replay = new Gauge({ name: 'rulevault_replay_duration_seconds', help: 'Time from start to caught up with the log', aggregator: 'max', registers: [registry] });
  new Gauge({
    name: 'rulevault_rules_loaded', help: 'Active rules in the compiled engine', aggregator: 'max', registers: [registry],
    collect() {
      this.set(readModel.engine.size);
    },
  });
  new Gauge({
    name: 'rulevault_entities_loaded', help: 'Records in the read models, by kind', labelNames: ['kind'], aggregator: 'max', registers: [registry],
    collect() {
      const state = readModel.state;
      this.set({ kind: 'rule' }, state.rules.size);
      this.set({ kind: 'context' }, state.contexts.size);
      this.set({ kind: 'prompt' }, state.prompts.size);
      this.set({ kind: 'secret' }, state.vault.secrets.size);
      this.set({ kind: 'api_key' }, state.apiKeys.byId.size);
    },
  });
  // Counted from the log (every BreakGlassUsed event), so every process and every restart agree: a counter that never resets.
  new Counter({
    name: 'rulevault_break_glass_total', help: 'Direct writes to protected resources with the break-glass scope (BreakGlassUsed events in the log)',
    aggregator: 'max', registers: [registry],
    collect() {
      this.reset();
      this.inc(readModel.state.changeControl.breakGlassUses);
    },
  });
  new Gauge({
    name: 'rulevault_log_position', help: 'Log position applied to the read models', aggregator: 'min', registers: [registry],
    collect() {
      this.set(Number(readModel.position ?? 0n));
    },
  });
  new Gauge({
    name: 'rulevault_subscription_lag_events', help: 'Log head position minus the applied position', aggregator: 'max', registers: [registry],
    async collect() {
      const head = await store.headPosition();
      const applied = readModel.position ?? 0n;
      this.set(head === undefined || head < applied ? 0 : Number(head - applied));
    },
  });
  // The heap against its limit (src/base/memory-room.ts): across workers, the fullest heap and the smallest limit.
  new Gauge({
    name: 'rulevault_heap_used_bytes', help: 'V8 heap in use, live and not yet collected', aggregator: 'max', registers: [registry],
    collect() {
      this.set(getHeapStatistics().used_heap_size);
    },
  });
  new Gauge({
    name: 'rulevault_heap_limit_bytes', help: 'V8 heap size limit (--max-old-space-size, or sized by Node from the memory it may use)', aggregator: 'min',
    registers: [registry],
    collect() {
      this.set(getHeapStatistics().heap_size_limit);
    },
  });
  const stats = store.durabilityStats?.bind(store);
  if (stats !== undefined) {
    // Group commit at work: syncs well below commits means concurrent writes shared syncs.
    new Counter({
      name: 'rulevault_store_commits_total', help: 'Write transactions the embedded store committed', registers: [registry],
      collect() {
        this.reset();
        this.inc(stats().commits);
      },
    });
    new Counter({
      name: 'rulevault_store_syncs_total', help: 'Syncs of the embedded store\'s log to disk (each made every commit before it durable)', registers: [registry],
      collect() {
        this.reset();
        this.inc(stats().syncs);
      },
    });
  }

  return {
    registry,
    observeRequest: requests.observe,
    observeMatches: (count) => matches.observe(count),
    secretsRead: (keyId, count) => secretReads.inc({ key_id: keyId }, count),
    setReplaySeconds: (seconds) => replay.set(seconds),
  };
}

const LATENCY_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1];

/** One (method, route, status[, outcome, code]) series: its request count and latency histogram. */
interface Series {
  readonly labels: { readonly method: string; readonly route: string; readonly status: string; readonly outcome?: string; readonly code?: string };
  count: number;
  sum: number;
  /** Observations per bucket (not cumulative); index LATENCY_BUCKETS.length is above the last bound. */
  readonly buckets: Float64Array;
}

/**
 * rulevault_http_requests_total and rulevault_http_request_duration_seconds,
 * kept in plain numbers per series and written out only when scraped, in
 * prom-client's exposition. prom-client's own Counter.inc and
 * Histogram.observe validate, sort and hash the label object on every call:
 * about 2% of the server's busy time at 10k rules (bench: cpu-per-request
 * --workload evaluate, --cpu-prof); here a request costs three map lookups,
 * with no allocation once its series exists.
 */
function createRequestSeries() {
  // route -> method -> status (or, on an always-200 endpoint, its outcome: `200 <code>`): the labels come from small fixed
  // sets (the route label is a pattern, never a raw path; a code is one of the catalog's).
  const byRoute = new Map<string, Map<string, Map<number | string, Series>>>();
  const all: Series[] = [];

  function seriesFor(method: string, route: string, status: number, code: string | null | undefined): Series {
    let byMethod = byRoute.get(route);
    if (byMethod === undefined) byRoute.set(route, (byMethod = new Map()));
    let byStatus = byMethod.get(method);
    if (byStatus === undefined) byMethod.set(method, (byStatus = new Map()));
    const key = code === undefined ? status : `${status} ${code ?? ''}`;
    let series = byStatus.get(key);
    if (series === undefined) {
      const labels = code === undefined
        ? { method, route, status: String(status) }
        : code === null ? { method, route, status: String(status), outcome: 'ok' } : { method, route, status: String(status), outcome: 'error', code };
      series = { labels, count: 0, sum: 0, buckets: new Float64Array(LATENCY_BUCKETS.length + 1) };
      byStatus.set(key, series);
      all.push(series);
    }
    return series;
  }

  const counterName = 'rulevault_http_requests_total';
  const counterHelp = 'HTTP requests answered';
  const histogramName = 'rulevault_http_request_duration_seconds';
  const histogramHelp = 'HTTP request latency';
  // What the registry reads of a metric: its name, and get() for the values (prom-client's MetricObject).
  const counter = {
    name: counterName, help: counterHelp, type: 'counter', aggregator: 'sum',
    get: async () => ({
      name: counterName, help: counterHelp, type: 'counter', aggregator: 'sum',
      values: all.map((s) => ({ labels: { ...s.labels }, value: s.count })),
    }),
    reset: () => all.forEach(clear),
  } as unknown as Metric;
  const histogram = {
    name: histogramName, help: histogramHelp, type: 'histogram', aggregator: 'sum',
    get: async () => ({
      name: histogramName, help: histogramHelp, type: 'histogram', aggregator: 'sum',
      values: all.flatMap((s) => {
        let cumulative = 0;
        const values: { labels: Record<string, string | number>; value: number; metricName: string }[] = LATENCY_BUCKETS.map((le, i) => {
          cumulative += s.buckets[i];
          return { labels: { le, ...s.labels }, value: cumulative, metricName: `${histogramName}_bucket` };
        });
        values.push(
          { labels: { le: '+Inf', ...s.labels }, value: s.count, metricName: `${histogramName}_bucket` },
          { labels: { ...s.labels }, value: s.sum, metricName: `${histogramName}_sum` },
          { labels: { ...s.labels }, value: s.count, metricName: `${histogramName}_count` },
        );
        return values;
      }),
    }),
    reset: () => all.forEach(clear),
  } as unknown as Metric;

  function clear(s: Series): void {
    s.count = 0;
    s.sum = 0;
    s.buckets.fill(0);
  }

  return {
    counter,
    histogram,
    observe(method: string, route: string, status: number, seconds: number, code?: string | null): void {
      const series = seriesFor(method, route, status, code);
      series.count += 1;
      series.sum += seconds;
      let i = 0;
      while (i < LATENCY_BUCKETS.length && seconds > LATENCY_BUCKETS[i]) i++;
      series.buckets[i] += 1;
    },
  };
}

/** What the change feed (src/service/change-feed.ts, a layer above) shows the gauges. */
export interface StreamGauges {
  readonly subscribers: number;
  readonly window: { readonly events: number; readonly bytes: number };
}

/** The change stream's gauges. Each worker keeps its own window and its own subscribers: the service's are their sum. */
export function registerStreamMetrics(registry: Registry, feed: StreamGauges): void {
  new Gauge({
    name: 'rulevault_stream_subscribers', help: 'Open change streams', aggregator: 'sum', registers: [registry],
    collect() {
      this.set(feed.subscribers);
    },
  });
  new Gauge({
    name: 'rulevault_stream_replay_events', help: 'Changes held for resuming streams (RULEVAULT_STREAM_REPLAY_EVENTS)', aggregator: 'sum', registers: [registry],
    collect() {
      this.set(feed.window.events);
    },
  });
  new Gauge({
    name: 'rulevault_stream_replay_bytes', help: 'Bytes of the change frames held for resuming streams (RULEVAULT_STREAM_REPLAY_BYTES)', aggregator: 'sum',
    registers: [registry],
    collect() {
      this.set(feed.window.bytes);
    },
  });
}
