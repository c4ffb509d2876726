/**
 * Calls between the writer process and its HTTP workers, over the IPC channel
 * node:cluster opens for each worker. Both ends call and answer: a worker
 * forwards writes and asks for the log head; the writer asks each worker to
 * confirm it applied a position. Messages use the channel's "advanced"
 * serialization (structured clone), so bigints (revisions, positions) cross
 * as they are.
 */
import { AppError, ERROR_STATUS, type ErrorCode } from '../base/errors';

/** One end of an IPC channel: `process` in a worker, a `cluster.Worker` in the writer. */
export interface Channel {
  send(message: unknown): unknown;
  on(event: 'message', listener: (message: unknown) => void): unknown;
  off(event: 'message', listener: (message: unknown) => void): unknown;
}

export type Handler = (payload: unknown) => unknown;

export interface Peer {
  /** Calls `method` on the other end; rejects with the error it threw (an AppError keeps its code and message). */
  call<T>(method: string, payload?: unknown): Promise<T>;
  /** Rejects every call still waiting (the other end is gone) and stops answering. */
  close(reason: string): void;
}

interface Call { readonly rpc: 'call'; readonly id: number; readonly method: string; readonly payload: unknown }
interface Reply { readonly rpc: 'reply'; readonly id: number; readonly value?: unknown; readonly error?: WireError }
/** What crosses for an error: an AppError's code and message; anything else is an internal error, its text withheld. */
interface WireError { readonly code: ErrorCode; readonly message: string }

export function createPeer(channel: Channel, handlers: Readonly<Record<string, Handler>>): Peer {
  let next = 0;
  let closed: string | undefined;
  const waiting = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();

  const listener = (message: unknown): void => {
    if (!isRpc(message)) return;
    if (message.rpc === 'reply') {
      const call = waiting.get(message.id);
      if (call === undefined) return;
      waiting.delete(message.id);
      if (message.error === undefined) call.resolve(message.value);
      else call.reject(fromWire(message.error));
      return;
    }
    const handler = handlers[message.method];
    const answer = (reply: Omit<Reply, 'rpc' | 'id'>): void => {
      if (closed === undefined) channel.send({ rpc: 'reply', id: message.id, ...reply });
    };
    if (handler === undefined) {
      answer({ error: { code: 'internal', message: `no such call: ${message.method}` } });
      return;
    }
    Promise.resolve()
      .then(() => handler(message.payload))
      .then((value) => answer({ value }), (error: unknown) => answer({ error: toWire(error) }));
  };
  channel.on('message', listener);

  return {
    call<T>(method: string, payload?: unknown): Promise<T> {
      if (closed !== undefined) return Promise.reject(new AppError('unavailable', closed));
      const id = ++next;
      return new Promise<T>((resolve, reject) => {
        waiting.set(id, { resolve: resolve as (value: unknown) => void, reject });
        channel.send({ rpc: 'call', id, method, payload } satisfies Call);
      });
    },
    close(reason) {
      if (closed !== undefined) return;
      closed = reason;
      channel.off('message', listener);
      for (const call of waiting.values()) call.reject(new AppError('unavailable', reason));
      waiting.clear();
    },
  };
}

function isRpc(message: unknown): message is Call | Reply {
  const rpc = (message as { rpc?: unknown } | null)?.rpc;
  return rpc === 'call' || rpc === 'reply';
}

function toWire(error: unknown): WireError {
  if (error instanceof AppError) return { code: error.code, message: error.message };
  // The other end answers it as a 500 with the catalog's internal message; the text is for this process's log only.
  return { code: 'internal', message: error instanceof Error ? error.message : String(error) };
}

/** An AppError again; an internal error becomes a plain Error, whose text the HTTP layer withholds (500 "internal error"). */
function fromWire(error: WireError): Error {
  if (error.code === 'internal' || !(error.code in ERROR_STATUS)) return new Error(error.message);
  return new AppError(error.code, error.message);
}
