/**
 * Prometheus metrics (prom-client), one registry per node. Gauges that read
 * the read model are computed when scraped, so the request path pays only
 * for its counter and histogram.
 */
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { ReadModel } from './read-model';
import type { EventStore } from './store/port';

export interface Metrics {
  readonly registry: Registry;
  observeRequest(method: string, route: string, status: number, seconds: number): void;
  observeMatches(count: number): void;
  secretsRead(keyId: string, count: number): void;
  setReplaySeconds(seconds: number): void;
}

export function createMetrics(readModel: ReadModel, store: EventStore): Metrics {
  const registry = new Registry();
  const requests = new Counter({
    name: 'rulevault_http_requests_total', help: 'HTTP requests answered', labelNames: ['method', 'route', 'status'], registers: [registry],
  });
  const latency = new Histogram({
    name: 'rulevault_http_request_duration_seconds', help: 'HTTP request latency', labelNames: ['method', 'route', 'status'],
    buckets: [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1], registers: [registry],
  });
  const matches = new Histogram({
    name: 'rulevault_evaluate_matches', help: 'Matching rules per evaluate request',
    buckets: [0, 1, 2, 5, 10, 20, 50, 100, 500], registers: [registry],
  });
  const secretReads = new Counter({
    name: 'rulevault_secret_reads_total', help: 'Secret values returned by get-secrets, per API key id', labelNames: ['key_id'], registers: [registry],
  });
  const replay = new Gauge({ name: 'rulevault_replay_duration_seconds', help: 'Time from start to caught up with the log', registers: [registry] });
  new Gauge({
    name: 'rulevault_rules_loaded', help: 'Active rules in the compiled engine', registers: [registry],
    collect() {
      this.set(readModel.engine.size);
    },
  });
  new Gauge({
    name: 'rulevault_entities_loaded', help: 'Records in the read models, by kind', labelNames: ['kind'], registers: [registry],
    collect() {
      const state = readModel.state;
      this.set({ kind: 'rule' }, state.rules.size);
      this.set({ kind: 'context' }, state.contexts.size);
      this.set({ kind: 'prompt' }, state.prompts.size);
      this.set({ kind: 'secret' }, state.vault.secrets.size);
      this.set({ kind: 'api_key' }, state.apiKeys.byId.size);
    },
  });
  new Gauge({
    name: 'rulevault_log_position', help: 'Log position applied to the read models', registers: [registry],
    collect() {
      this.set(Number(readModel.position ?? 0n));
    },
  });
  new Gauge({
    name: 'rulevault_subscription_lag_events', help: 'Log head position minus the applied position', registers: [registry],
    async collect() {
      const head = await store.headPosition();
      const applied = readModel.position ?? 0n;
      this.set(head === undefined || head < applied ? 0 : Number(head - applied));
    },
  });

  return {
    registry,
    observeRequest(method, route, status, seconds) {
      const labels = { method, route, status: String(status) };
      requests.inc(labels);
      latency.observe(labels, seconds);
    },
    observeMatches: (count) => matches.observe(count),
    secretsRead: (keyId, count) => secretReads.inc({ key_id: keyId }, count),
    setReplaySeconds: (seconds) => replay.set(seconds),
  };
}
