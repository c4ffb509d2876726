/**
 * The audit sink's counters on /metrics, registered once per node on the
 * node's registry (src/http/metrics.ts): records dropped because a queue was full,
 * writes that failed, and records written as a stand-in because they could
 * not be serialized.
 */
import { Counter, type Registry } from 'prom-client';

export type SinkName = 'decisions' | 'secret-reads';

export interface AuditSinkMetrics {
  dropped(sink: SinkName, count: number): void;
  writeFailed(sink: SinkName, error: Error): void;
  /** A record could not be serialized and a stand-in saying why was written instead (`error` says which and why). */
  replaced(sink: SinkName, error: Error): void;
}

/** `onError`: told about each failed write (the caller logs it, without flooding). */
export function createAuditSinkMetrics(registry: Registry, onError: (sink: SinkName, error: Error) => void): AuditSinkMetrics {
  const dropped = new Counter({
    name: 'rulevault_audit_records_dropped_total',
    help: 'Audit records (decision records, secret reads) dropped because the sink queue was full',
    labelNames: ['sink'], registers: [registry],
  });
  const failed = new Counter({
    name: 'rulevault_audit_sink_write_errors_total',
    help: 'Failed writes to an audit sink file (a queued batch is retried; a fail-closed read is refused)',
    labelNames: ['sink'], registers: [registry],
  });
  const replaced = new Counter({
    name: 'rulevault_audit_records_replaced_total',
    help: 'Audit records that could not be serialized, written as a small stand-in saying why (id, time, answer)',
    labelNames: ['sink'], registers: [registry],
  });
  for (const sink of ['decisions', 'secret-reads'] as const) {
    dropped.inc({ sink }, 0);
    failed.inc({ sink }, 0);
  }
  // Only decision records carry a caller's data that may not serialize; a secret read is built from the vault's own records.
  replaced.inc({ sink: 'decisions' }, 0);
  return {
    dropped: (sink, count) => dropped.inc({ sink }, count),
    writeFailed: (sink, error) => {
      failed.inc({ sink });
      onError(sink, error);
    },
    replaced: (sink, error) => {
      replaced.inc({ sink });
      onError(sink, error);
    },
  };
}
