/**
 * The change stream's publisher (README "GET /api/rule-engine/stream"): one per
 * node, shared by every subscriber. It publishes from the read model's apply
 * (ReadModel.onApplied), so a write is on this node's streams before the
 * command that made it answers. Each frame is built once and the same string
 * written to every subscriber; a window of recent frames serves resumes.
 *
 * Transport-free: a subscriber is a `StreamSink` (src/http/stream-endpoint.ts
 * makes one of a response). Frames are Server-Sent Events text.
 */
import { unreadRules } from '../../projections';
import type { Limits, StreamSettings } from '../config';
import type { ReadModel } from '../read-model';
import type { RecordedEvent } from '../store/port';
import { createEvaluationView, type EvaluationView } from './evaluation-view';

export interface StreamSink {
  /** Frames are Buffers built once and shared: a write keeps a reference, never a copy (1,000 subscribers, one snapshot in memory). */
  write(chunk: Buffer): void;
  /** Bytes written and not yet taken by the peer: the response's write back-pressure. */
  readonly buffered: number;
  /** Writes a last frame and ends the stream. */
  end(chunk: Buffer): void;
}

export interface ChangeFeed {
  /**
   * Adds a subscriber and writes its first frames at once: the changes after
   * `after` (its Last-Event-ID) when this node still holds them all, a
   * snapshot otherwise. Returns the function that removes it.
   * The read model must be caught up.
   */
  subscribe(after: bigint | undefined, sink: StreamSink): () => void;
  readonly subscribers: number;
  /** True once close() ran: new subscribers are refused. */
  readonly closed: boolean;
  /** Ends every stream with a `shutdown` event (graceful shutdown). */
  close(): void;
}

/** SSE reconnection delay a browser's EventSource uses (the frame `retry:`). */
const RETRY_MS = 1000;
const HEARTBEAT = Buffer.from(': heartbeat\n\n');
const RETRY = Buffer.from(`retry: ${RETRY_MS}\n\n`);

export const CUTOFF_MESSAGE = 'this subscriber fell too far behind (RULEVAULT_STREAM_MAX_BUFFER_BYTES): reconnect with Last-Event-ID to resume';
export const SHUTDOWN_MESSAGE = 'the node is shutting down: reconnect (to it or another node) with Last-Event-ID to resume';

interface Subscriber {
  readonly sink: StreamSink;
  /** Unsent bytes allowed: the bound plus the first frames (a snapshot may be larger than the bound). */
  readonly allowance: number;
}

interface Published {
  readonly position: bigint;
  readonly frame: Buffer;
}

export function createChangeFeed(readModel: ReadModel, settings: StreamSettings, limits: Limits): ChangeFeed {
  let view: EvaluationView | undefined;
  /** Every change after `base` is in `window` (from `first` on). */
  let base = -1n;
  let window: Published[] = [];
  let first = 0;
  let snapshotCache: { readonly position: bigint | undefined; readonly frame: Buffer } | undefined;
  const subscribers = new Set<Subscriber>();
  let heartbeat: NodeJS.Timeout | undefined;
  let closed = false;

  readModel.onApplied((event) => {
    if (view !== undefined) publish(view, event);
  });
  // Changes are kept from the catch-up on, not from a first subscriber: a
  // resume must replay on whichever process takes it (each worker keeps its
  // own window, and a reconnect may land on one that has had no subscriber).
  // A state restored from a snapshot with its records still unread waits for
  // its first subscriber instead: the view would decode every record (~2 GB
  // at 1M rules, bench: million).
  readModel.whenCaughtUp(() => {
    if (unreadRules(readModel.state.rules) === 0) started();
  });

  function publish(current: EvaluationView, event: RecordedEvent): void {
    const frame = eventFrame('change', event.position, JSON.stringify(current.apply(readModel.state, event)));
    remember({ position: event.position, frame });
    for (const subscriber of subscribers) {
      if (subscriber.sink.buffered + frame.length > subscriber.allowance) {
        subscribers.delete(subscriber);
        subscriber.sink.end(messageFrame('cutoff', CUTOFF_MESSAGE));
      } else {
        subscriber.sink.write(frame);
      }
    }
    if (subscribers.size === 0) stopHeartbeat();
  }

  function remember(published: Published): void {
    if (settings.replayEvents === 0) {
      base = published.position;
      return;
    }
    window.push(published);
    if (window.length - first > settings.replayEvents) {
      base = window[first]!.position;
      first++;
      // Drop the consumed head now and then, not on every change.
      if (first >= settings.replayEvents) {
        window = window.slice(first);
        first = 0;
      }
    }
  }

  function started(): EvaluationView {
    if (view === undefined) {
      view = createEvaluationView(readModel.state);
      base = readModel.position ?? -1n;
    }
    return view;
  }

  function snapshotFrame(current: EvaluationView): Buffer {
    const position = readModel.position;
    // One snapshot text per position, shared by every subscriber that starts there (a reconnect storm builds it once).
    if (snapshotCache === undefined || snapshotCache.position !== position) {
      snapshotCache = { position, frame: eventFrame('snapshot', position, JSON.stringify(current.snapshot(position, limits))) };
    }
    return snapshotCache.frame;
  }

  /** The frames that bring a subscriber at `after` up to now, or undefined when some are gone. */
  function replay(after: bigint): Buffer[] | undefined {
    const position = readModel.position ?? -1n;
    if (after < base || after > position) return undefined;
    const frames: Buffer[] = [];
    for (let i = first; i < window.length; i++) if (window[i]!.position > after) frames.push(window[i]!.frame);
    return frames;
  }

  function startHeartbeat(): void {
    heartbeat ??= setInterval(() => {
      // Behind queued frames a heartbeat says nothing new.
      for (const { sink } of subscribers) if (sink.buffered === 0) sink.write(HEARTBEAT);
    }, settings.heartbeatMs);
    heartbeat.unref();
  }
  function stopHeartbeat(): void {
    if (heartbeat !== undefined) clearInterval(heartbeat);
    heartbeat = undefined;
  }

  return {
    subscribe(after, sink) {
      const current = started();
      const resumed = after === undefined ? undefined : replay(after);
      const opening = [RETRY, ...(resumed ?? [snapshotFrame(current)])];
      let bytes = 0;
      for (const chunk of opening) {
        sink.write(chunk);
        bytes += chunk.length;
      }
      const subscriber: Subscriber = { sink, allowance: settings.maxBufferBytes + bytes };
      subscribers.add(subscriber);
      startHeartbeat();
      return () => {
        subscribers.delete(subscriber);
        if (subscribers.size === 0) stopHeartbeat();
      };
    },
    get subscribers() {
      return subscribers.size;
    },
    get closed() {
      return closed;
    },
    close() {
      closed = true;
      stopHeartbeat();
      const frame = messageFrame('shutdown', SHUTDOWN_MESSAGE);
      for (const { sink } of subscribers) sink.end(frame);
      subscribers.clear();
    },
  };
}

function eventFrame(event: string, position: bigint | undefined, data: string): Buffer {
  // JSON.stringify escapes line breaks, so the data is one `data:` line.
  return Buffer.from(`${position === undefined ? '' : `id: ${position}\n`}event: ${event}\ndata: ${data}\n\n`);
}

function messageFrame(event: string, message: string): Buffer {
  return Buffer.from(`event: ${event}\ndata: ${JSON.stringify({ err: message })}\n\n`);
}
