/**
 * The writer's side of a multi-process service (RULEVAULT_WORKERS > 1): forks
 * the HTTP workers (node:cluster; the kernel's connections are handed out
 * round-robin by this process), runs the writes they forward, and answers a
 * write only once every worker has applied it, so a write is visible on
 * every worker when its response is sent, as on one process. A worker that
 * dies is replaced; the replacement listens only once it has caught up.
 *
 * Membership is what makes "every worker" exact: a worker becomes a member
 * when it asks for the log head (after its own catch-up) and listens only
 * once it has applied that head. A write that committed before the question
 * is inside the head it applies; one that committed after waits for it.
 */
import cluster, { type Worker } from 'node:cluster';
import { AggregatorRegistry, type Registry } from 'prom-client';
import type { WriteCommands } from '../http/deps';
import type { Logger } from '../base/log';
import type { ReadModel } from '../read-model/read-model';
import type { EventStore } from '../store/port';
import { runForwarded, type ForwardedCall } from './forwarded';
import { rescueHandoffs } from './handoffs';
import { createPeer, type Channel, type Peer } from './peer';

export interface FleetOptions {
  readonly count: number;
  /** The writer's own parts: its commands, the read model they decide on, its store and metrics. */
  readonly commands: WriteCommands;
  readonly readModel: ReadModel;
  readonly store: EventStore;
  readonly registry: Registry;
  readonly logger: Logger;
  /** Milliseconds a worker has to finish its in-flight requests at shutdown before it is killed. */
  readonly shutdownGraceMs: number;
  /** The service's URL, once the first worker listens. */
  readonly onListening: (url: string) => void;
}

export interface Fleet {
  /** Workers alive now (starting or serving). */
  readonly size: number;
  /** Stops every worker gracefully (each finishes its requests) and resolves once all have exited. */
  stop(): Promise<void>;
}

interface Member {
  readonly worker: Worker;
  readonly peer: Peer;
  readonly forkedAt: number;
  /** Asked for the head: every write from now on waits for this worker. */
  joined: boolean;
}

/** A worker that does not confirm a position within this long is killed and replaced (it is stuck, not slow). */
const SYNC_TIMEOUT_MS = 60_000;
/** A worker that dies sooner than this after its fork is restarted after a growing delay (a crash loop must not spin). */
const QUICK_DEATH_MS = 10_000;
const MAX_RESTART_DELAY_MS = 30_000;

export function startFleet(options: FleetOptions): Fleet {
  const { commands, readModel, store, registry, logger } = options;
  const members = new Map<number, Member>();
  let stopping: Promise<void> | undefined;
  let restartDelay = 0;
  let announced = false;

  /** Resolves once every member has applied `position` (a member that dies meanwhile no longer counts). */
  async function synced(position: bigint | undefined): Promise<void> {
    if (position === undefined) return;
    await Promise.all([...members.values()].filter((m) => m.joined).map((m) => confirm(m, position)));
  }

  function confirm(member: Member, position: bigint): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const stuck = new Promise<void>((resolve) => {
      timer = setTimeout(() => {
        logger.error('worker did not apply a write in time; replacing it', { worker: member.worker.id, position: position.toString(), timeout_ms: SYNC_TIMEOUT_MS });
        member.worker.process.kill('SIGKILL');
        resolve();
      }, SYNC_TIMEOUT_MS);
    });
    const applied = member.peer.call('sync', position).then(() => undefined, () => undefined);
    return Promise.race([applied, stuck]).finally(() => clearTimeout(timer));
  }

  /** GET /metrics on any worker: every process's registry, combined (counters summed, gauges as each declares). */
  async function serviceMetrics(): Promise<string> {
    const perWorker = await Promise.all(
      [...members.values()].filter((m) => m.joined).map((m) => m.peer.call<unknown[]>('metrics-json').catch(() => undefined)),
    );
    const all = [await registry.getMetricsAsJSON(), ...perWorker.filter((json) => json !== undefined)];
    return AggregatorRegistry.aggregate(all as Parameters<typeof AggregatorRegistry.aggregate>[0]).metrics();
  }

  function fork(): void {
    const worker = cluster.fork();
    // A connection handed to this worker when it dies goes to another worker (handoffs.ts).
    rescueHandoffs(worker);
    const member: Member = {
      worker,
      forkedAt: Date.now(),
      joined: false,
      peer: createPeer(worker as unknown as Channel, {
        head: async () => {
          member.joined = true;
          return store.headPosition();
        },
        command: async (call) => {
          try {
            return await runForwarded(commands, call as ForwardedCall);
          } finally {
            // Also after a failure: a write that stopped part way (EventStoreDB import) is visible everywhere too.
            await synced(readModel.position);
          }
        },
        metrics: serviceMetrics,
        listening: (url) => {
          logger.info('worker listening', { worker: worker.id, pid: worker.process.pid, url });
          if (!announced) {
            announced = true;
            options.onListening(url as string);
          }
        },
      }),
    };
    members.set(worker.id, member);
  }

  cluster.on('exit', (worker, code, signal) => {
    const member = members.get(worker.id);
    if (member === undefined) return;
    members.delete(worker.id);
    member.peer.close(`worker ${worker.id} exited`);
    if (stopping !== undefined) return;
    const lived = Date.now() - member.forkedAt;
    restartDelay = lived < QUICK_DEATH_MS ? Math.min(Math.max(restartDelay * 2, 100), MAX_RESTART_DELAY_MS) : 0;
    logger.error('worker exited; starting another', { worker: worker.id, code, signal, lived_ms: lived, restart_in_ms: restartDelay });
    setTimeout(() => {
      if (stopping === undefined) fork();
    }, restartDelay).unref();
  });

  // Structured clone on the IPC channels: revisions and positions are bigints.
  cluster.setupPrimary({ serialization: 'advanced' });
  for (let i = 0; i < options.count; i++) fork();

  return {
    get size() {
      return members.size;
    },
    stop() {
      stopping ??= new Promise<void>((resolve) => {
        if (members.size === 0) return resolve();
        const exited = (): void => {
          if (members.size > 0) return;
          clearTimeout(force);
          cluster.off('exit', exited);
          resolve();
        };
        cluster.on('exit', exited);
        // Past the grace (and a margin for closing stores), a worker that still runs is killed.
        const force = setTimeout(() => {
          for (const { worker } of members.values()) worker.process.kill('SIGKILL');
        }, options.shutdownGraceMs + 5_000);
        for (const { peer } of members.values()) peer.call('stop').catch(() => undefined);
      });
      return stopping;
    },
  };
}
