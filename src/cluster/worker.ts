/**
 * A worker's end of its channel to the writer (src/cluster/fleet.ts is the
 * other end): the forwarding command objects, the whole service's metrics,
 * and the start-up handshake. main.ts's `startWorker` composes a worker from
 * this and the same parts a single process uses.
 */
import type { WriteCommands } from '../http/deps';
import { forwardingCommands, type ForwardedCall } from './forwarded';
import { createPeer, type Channel } from './peer';

/** What the writer asks of a worker. */
export interface WorkerDuties {
  /** Resolves once this worker's read models have applied `position`. */
  applied(position: bigint): Promise<void>;
  /** This process's metrics as prom-client JSON (`registry.getMetricsAsJSON()`). */
  metricsJson(): Promise<unknown>;
  /** Finish the requests in flight and exit. */
  stop(): void;
}

export interface WriterLink {
  /** Command objects whose every call runs in the writer and answers once every worker applied it. */
  readonly commands: WriteCommands;
  /** The text of GET /metrics for the whole service. */
  serviceMetrics(): Promise<string>;
  /**
   * Joins the fleet: from this call on, every write waits for this worker.
   * Answers the log head; the worker applies it before it listens.
   */
  join(): Promise<bigint | undefined>;
  /** Tells the writer the worker serves at `url`. */
  listening(url: string): Promise<void>;
  close(): void;
}

export function linkToWriter(duties: WorkerDuties, channel: Channel = process as unknown as Channel): WriterLink {
  const peer = createPeer(channel, {
    sync: (position) => duties.applied(position as bigint),
    'metrics-json': () => duties.metricsJson(),
    stop: () => {
      // Answered at once; the worker then finishes its requests and exits (the writer waits for the exit).
      setImmediate(() => duties.stop());
    },
  });
  return {
    commands: forwardingCommands((call: ForwardedCall) => peer.call('command', call)),
    serviceMetrics: () => peer.call<string>('metrics'),
    join: () => peer.call<bigint | undefined>('head'),
    listening: (url) => peer.call('listening', url),
    close: () => peer.close('the worker is stopping'),
  };
}
