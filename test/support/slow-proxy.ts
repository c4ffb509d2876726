/**
 * A TCP proxy on loopback in front of a node, for client tests that need a
 * network that chops or crawls: what the node sends is passed on in pieces of
 * `pieceBytes`, one piece per `gapMs` (0: one turn of the event loop between
 * pieces). What the client sends goes straight through. It counts the
 * connections and the pieces, so a test can tell a reconnect from a
 * connection that held, and that a frame really came in many pieces.
 */
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';

export interface SlowProxy {
  /** The node's URL through the proxy. */
  readonly url: string;
  readonly connections: number;
  readonly pieces: number;
  close(): Promise<void>;
}

export interface SlowProxyOptions {
  readonly pieceBytes: number;
  readonly gapMs: number;
}

/** Queued bytes past which the proxy stops reading from the node until it has passed them on. */
const HIGH_WATER = 1 << 20;

export async function startSlowProxy(target: string, options: SlowProxyOptions): Promise<SlowProxy> {
  const { hostname, port } = new URL(target);
  let connections = 0;
  let pieces = 0;
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    connections++;
    const upstream = connect(Number(port), hostname);
    sockets.add(client).add(upstream);
    const queue: Buffer[] = [];
    let queued = 0;
    let ended = false;
    let pumping = false;
    const pump = (): void => {
      if (client.destroyed) return;
      if (queue.length === 0) {
        pumping = false;
        if (ended) client.end();
        return;
      }
      pumping = true;
      let piece = queue[0]!;
      if (piece.length > options.pieceBytes) {
        queue[0] = piece.subarray(options.pieceBytes);
        piece = piece.subarray(0, options.pieceBytes);
      } else {
        queue.shift();
      }
      queued -= piece.length;
      pieces++;
      client.write(piece);
      if (queued < HIGH_WATER) upstream.resume();
      if (options.gapMs === 0) setImmediate(pump);
      else setTimeout(pump, options.gapMs);
    };
    upstream.on('data', (chunk: Buffer) => {
      queue.push(chunk);
      queued += chunk.length;
      if (queued >= HIGH_WATER) upstream.pause();
      if (!pumping) pump();
    });
    upstream.on('end', () => {
      ended = true;
      if (!pumping) pump();
    });
    client.pipe(upstream);
    const done = (): void => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('close', done).on('error', done);
    upstream.on('close', () => {
      if (queue.length === 0) done();
    }).on('error', done);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get connections() {
      return connections;
    },
    get pieces() {
      return pieces;
    },
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
