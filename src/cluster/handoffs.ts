/**
 * Connections the writer handed to a worker that died before taking them.
 *
 * With round-robin scheduling (node:cluster's default on Linux) the writer
 * accepts each connection and sends its handle to a worker (an internal
 * `newconn` message); it keeps its own copy open until the worker answers
 * whether it took it, and hands it to another worker when the answer is no.
 * A worker that dies first never answers, and node:cluster neither closes
 * nor hands on what it was waiting for: the connection stays open in the
 * writer with nobody reading it, and its client waits until a timeout of
 * its own (issue 62 item 7: 25 s and more). Worse, node:child_process then
 * never emits the worker's `disconnect` (it postpones it until the dead
 * worker acknowledges the handle), so when the worker's exit is seen before
 * its channel's end, node:cluster never takes it out of the round-robin.
 *
 * `rescueHandoffs` watches the handoffs to one worker. Once the worker has
 * exited and its channel has ended (`close`: every answer it sent has been
 * read), it (1) lets node:cluster take the worker out of the round-robin if
 * it has not (its own `disconnect` listener does that), then (2) answers
 * "not taken" for each handoff the worker never answered: node:cluster hands
 * that connection to another worker, which serves it as if it had come
 * there first. With no other worker serving, the connection is closed, so
 * its client learns at once. A worker answers before it reads a byte of a
 * connection (node's lib/internal/cluster/child.js), so a connection handed
 * on was never read.
 *
 * This relies on node:cluster's internal messages: `{cmd: 'NODE_CLUSTER',
 * act: 'newconn', seq}` with the handle, answered `{cmd: 'NODE_CLUSTER',
 * ack: seq, accepted}` (lib/internal/cluster/round_robin_handle.js, the
 * same since Node 0.12). test/cluster/workers.test.ts ("a connection
 * handed to a worker that dies") fails on a Node that changes them.
 */
import cluster, { type Worker } from 'node:cluster';

interface ClusterMessage {
  readonly cmd?: unknown;
  readonly act?: unknown;
  readonly seq?: unknown;
  readonly ack?: unknown;
  readonly accepted?: unknown;
}

/** What the writer holds of a connection it handed out: a TCP handle. */
interface ConnectionHandle {
  close(): void;
}

interface WorkerProcess {
  send(message: unknown, handle?: unknown, ...rest: unknown[]): boolean;
  on(event: 'internalMessage', listener: (message: ClusterMessage) => void): unknown;
  once(event: 'close', listener: () => void): unknown;
  emit(event: 'internalMessage', message: ClusterMessage): boolean;
  emit(event: 'disconnect'): boolean;
}

const CLUSTER = 'NODE_CLUSTER';

/** The workers whose server listens: those the round-robin hands connections to. */
const serving = new Set<Worker>();

/** Watches `worker`'s handoffs from its fork on (call it at once after `cluster.fork()`). */
export function rescueHandoffs(worker: Worker): void {
  const child = worker.process as unknown as WorkerProcess;
  worker.on('listening', () => serving.add(worker));
  // By the sequence number node:cluster gave each handoff: the handles this worker has not answered for.
  const pending = new Map<number, ConnectionHandle>();
  const send = child.send;
  child.send = function (this: unknown, message: unknown, handle?: unknown, ...rest: unknown[]): boolean {
    const handoff = message as ClusterMessage | null;
    if (handoff?.cmd === CLUSTER && handoff.act === 'newconn' && typeof handoff.seq === 'number' && isHandle(handle)) pending.set(handoff.seq, handle);
    return send.call(this, message, handle, ...rest);
  };
  child.on('internalMessage', (message) => {
    if (message?.cmd === CLUSTER && typeof message.ack === 'number') pending.delete(message.ack);
  });
  child.once('close', () => {
    serving.delete(worker);
    // (1) Still a member of the cluster: node:cluster saw no `disconnect` (see above); its own listener removes the worker.
    if (cluster.workers?.[worker.id] === worker) child.emit('disconnect');
    // (2) The handoffs it never answered, refused on its behalf: each goes to another worker, or is closed.
    const rescued = [...pending];
    pending.clear();
    for (const [seq, handle] of rescued) {
      if (someoneServes()) child.emit('internalMessage', { cmd: CLUSTER, ack: seq, accepted: false });
      else handle.close();
    }
  });
}

function isHandle(value: unknown): value is ConnectionHandle {
  return typeof value === 'object' && value !== null && typeof (value as ConnectionHandle).close === 'function';
}

/** True while another worker is connected and listening: the round-robin has someone to hand a connection to. */
function someoneServes(): boolean {
  for (const other of serving) if (other.isConnected()) return true;
  return false;
}
