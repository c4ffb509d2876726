/**
 * The change stream's publisher (docs/change-stream.md): one per
 * node, shared by every subscriber. It publishes from the read model's apply
 * (ReadModel.onApplied), so a write is on this node's streams before the
 * command that made it answers. Each frame is built once and the same string
 * written to every subscriber; a window of recent frames serves resumes.
 *
 * Transport-free: a subscriber is a `StreamSink` (src/http/stream-endpoint.ts
 * makes one of a response). Frames are Server-Sent Events text.
 */
import { unreadRules, unreadRuleTexts } from '../../projections';
import type { Limits, StreamSettings } from '../base/config';
import { AppError } from '../base/errors';
import type { ReadModel } from '../read-model/read-model';
import type { RecordedEvent } from '../store/port';
import { createEvaluationView, type ChangeFormat, type EvaluationView } from './evaluation-view';
import { inSlices, readAllRules } from './read-ahead';

export interface StreamSink {
  /** Frames are Buffers built once and shared: a write keeps a reference, never a copy (1,000 subscribers, one snapshot in memory). */
  write(chunk: Buffer): void;
  /** Bytes written and not yet taken by the peer: the response's write back-pressure. */
  readonly buffered: number;
  /** Writes a last frame and ends the stream. */
  end(chunk: Buffer): void;
}

/** What a subscriber's caller may do, asked again whenever the API keys change. */
export interface StreamAccess {
  /** True while the caller's key is live and holds the stream's scope. */
  allowed(): boolean;
}

export interface ChangeFeed {
  /**
   * Adds a subscriber and writes its first frames at once: the changes after
   * `after` (its Last-Event-ID) when this node still holds them all, a
   * snapshot otherwise. Returns the function that removes it.
   * The read model must be caught up. At each API key event the feed asks
   * `access` again, before that event's frame: a subscriber no longer allowed
   * is sent `revoked` and ended, so it gets nothing from the revocation on.
   */
  subscribe(after: bigint | undefined, format: ChangeFormat, sink: StreamSink, access: StreamAccess): () => void;
  /**
   * Undefined when `subscribe(after, format, …)` may run now; otherwise what to
   * await first, so that evaluate goes on meanwhile (read-ahead.ts): the
   * records a snapshot start left unread, read in slices, and a snapshot
   * event the subscriber needs, built in slices (at 200k rules one took
   * ~1 s built at once).
   */
  ready(after: bigint | undefined, format: ChangeFormat): Promise<void> | undefined;
  readonly subscribers: number;
  /** The resume window: the change frames held for resumes, and their bytes (bounded by RULEVAULT_STREAM_REPLAY_EVENTS and _BYTES). */
  readonly window: { readonly events: number; readonly bytes: number };
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
export const REVOKED_MESSAGE = 'the API key of this stream was revoked or no longer has the evaluate scope: the stream ends';

interface Subscriber {
  readonly sink: StreamSink;
  readonly format: ChangeFormat;
  readonly access: StreamAccess;
  /** Unsent bytes allowed: the bound plus the first frames (a snapshot may be larger than the bound). */
  readonly allowance: number;
}

interface Published {
  readonly position: bigint;
  /** The change in the `patch` format. */
  readonly frame: Buffer;
  /** True when the frame is the `records` format's too (the change has no patch). */
  readonly whole: boolean;
}

export function createChangeFeed(readModel: ReadModel, settings: StreamSettings, limits: Limits): ChangeFeed {
  let view: EvaluationView | undefined;
  /** Every change after `base` is in `window` (from `first` on). */
  let base = -1n;
  let window: Published[] = [];
  let first = 0;
  /** The bytes of the frames in `window` from `first` on. */
  let windowBytes = 0;
  let snapshotCache: { readonly position: bigint | undefined; readonly frame: Buffer } | undefined;
  const subscribers = new Set<Subscriber>();
  let heartbeat: NodeJS.Timeout | undefined;
  let closed = false;
  let preparing: Promise<void> | undefined;
  /**
   * Where a snapshot was last found too large: refused again at once until
   * the log moves, so each reconnect of a refused client does not measure
   * the lines (~0.35 s of CPU at 1M rules) or build up to the bound again.
   */
  let tooLargeAt: { readonly position: bigint | undefined } | undefined;
  const tooLarge = snapshotTooLarge(settings.maxSnapshotBytes);

  readModel.onApplied((event) => {
    if (view !== undefined) publish(view, event);
  });
  // Changes are kept from the catch-up on, not from a first subscriber: a
  // resume must replay on whichever process takes it (each worker keeps its
  // own window, and a reconnect may land on one that has had no subscriber).
  // A state restored from a snapshot with its records still unread waits for
  // its first subscriber instead: the view would decode every record (~2 GB
  // at 1M rules, bench: million), which `ready` then does in slices.
  readModel.whenCaughtUp(() => {
    if (unreadRules(readModel.state.rules) === 0) started();
  });

  function publish(current: EvaluationView, event: RecordedEvent): void {
    const change = current.apply(readModel.state, event);
    const patched = eventFrame('change', event.position, JSON.stringify(change.patched));
    remember({ position: event.position, frame: patched, whole: change.whole === undefined });
    if (event.type.startsWith('ApiKey')) endRevoked();
    // The `records` frame is built only for a subscriber that takes it, and never kept: the window holds patches.
    let whole = change.whole === undefined ? patched : undefined;
    for (const subscriber of subscribers) {
      const frame = subscriber.format === 'patch' ? patched : (whole ??= eventFrame('change', event.position, JSON.stringify(change.whole!())));
      if (subscriber.sink.buffered + frame.length > subscriber.allowance) {
        subscribers.delete(subscriber);
        subscriber.sink.end(messageFrame('cutoff', CUTOFF_MESSAGE));
      } else {
        subscriber.sink.write(frame);
      }
    }
    if (subscribers.size === 0) stopHeartbeat();
  }

  /**
   * Ends the streams whose key this event revoked (or whose scope it took),
   * before the event's frame goes out: the write that revokes answers only
   * after this apply, here and on every worker (src/cluster/fleet.ts), so no
   * stream of the key outlives the answer.
   */
  function endRevoked(): void {
    let frame: Buffer | undefined;
    for (const subscriber of subscribers) {
      if (subscriber.access.allowed()) continue;
      subscribers.delete(subscriber);
      subscriber.sink.end((frame ??= messageFrame('revoked', REVOKED_MESSAGE)));
    }
  }

  /**
   * Keeps a published change for resumes, then drops the oldest while the
   * window holds more than RULEVAULT_STREAM_REPLAY_EVENTS changes or
   * _REPLAY_BYTES bytes (a frame larger than the bound is not kept at all).
   * A cached snapshot the window no longer reaches can serve nobody: let go.
   */
  function remember(published: Published): void {
    window.push(published);
    windowBytes += published.frame.length;
    while (first < window.length && (window.length - first > settings.replayEvents || windowBytes > settings.replayBytes)) {
      const oldest = window[first]!;
      base = oldest.position;
      windowBytes -= oldest.frame.length;
      window[first] = undefined as unknown as Published;
      first++;
    }
    // Drop the consumed head once it is as long as what is left: each entry is copied O(1) times.
    if (first > 0 && first >= window.length - first) {
      window = window.slice(first);
      first = 0;
    }
    if (snapshotCache !== undefined && (snapshotCache.position === undefined || snapshotCache.position < base)) snapshotCache = undefined;
  }

  function started(): EvaluationView {
    if (view === undefined) {
      view = createEvaluationView(readModel.state);
      base = readModel.position ?? -1n;
    }
    return view;
  }

  /**
   * Before the first view after a snapshot start: the active rules' lines are
   * measured undecoded (their size is a lower bound of the snapshot's), so a
   * view too large for a snapshot event is refused before a record is read;
   * then every record is read. Both in slices (read-ahead.ts).
   */
  async function prepare(): Promise<void> {
    let bytes = 0;
    await inSlices(unreadRuleTexts(readModel.state.rules), (text) => {
      // A rule's only "status" member is its own: inside a JSON string a quote is escaped.
      if (text.includes(ACTIVE_STATUS)) bytes += Buffer.byteLength(text) + 1;
    });
    if (bytes > settings.maxSnapshotBytes) throw new AppError('unavailable', tooLarge);
    await readAllRules(readModel.state.rules);
    await buildSnapshot();
  }

  /** `work` (which prepares a snapshot), unless one was found too large at this very position; a refusal is remembered. */
  function refusing(work: () => Promise<void>): Promise<void> {
    const position = readModel.position;
    const done = tooLargeAt !== undefined && tooLargeAt.position === position
      ? Promise.reject(new AppError('unavailable', tooLarge))
      : work().catch((error: unknown) => {
        if (error instanceof AppError && error.message === tooLarge) tooLargeAt = { position };
        throw error;
      });
    return done.finally(() => {
      preparing = undefined;
    });
  }

  /** The snapshot event at the current position: its pieces (the records listed now) and the builder that joins them. */
  function snapshotAtNow(): { readonly position: bigint | undefined; readonly pieces: Iterable<string>; readonly frame: FrameBuilder } {
    const position = readModel.position;
    return { position, pieces: started().snapshotJson(position, limits), frame: new FrameBuilder(position, settings.maxSnapshotBytes) };
  }

  /** The snapshot event at the current position, built in slices (changes applied meanwhile follow it from the window). */
  async function buildSnapshot(): Promise<void> {
    const { position, pieces, frame } = snapshotAtNow();
    await inSlices(pieces, (piece) => frame.add(piece));
    snapshotCache = { position, frame: frame.finish() };
  }

  /**
   * True when the cached snapshot and the changes after it bring a new
   * subscriber to now: one snapshot text serves every subscriber until the
   * window no longer covers it (a reconnect storm builds it once).
   */
  function snapshotServes(format: ChangeFormat): boolean {
    if (snapshotCache === undefined) return false;
    const { position } = snapshotCache;
    return position === readModel.position || (position !== undefined && replay(position, format) !== undefined);
  }

  /** The frames of a fresh start: the cached snapshot and the changes after it, or a snapshot built now. */
  function freshStart(format: ChangeFormat): Buffer[] {
    if (snapshotServes(format)) return [snapshotCache!.frame, ...(snapshotCache!.position === undefined ? [] : replay(snapshotCache!.position, format)!)];
    const { position, pieces, frame } = snapshotAtNow();
    for (const piece of pieces) frame.add(piece);
    snapshotCache = { position, frame: frame.finish() };
    return [snapshotCache.frame];
  }

  /**
   * The frames that bring a subscriber at `after` up to now, or undefined
   * when some are gone. The window holds the `patch` format: a `records`
   * subscriber is replayed only changes without a patch (a snapshot otherwise).
   */
  function replay(after: bigint, format: ChangeFormat): Buffer[] | undefined {
    const position = readModel.position ?? -1n;
    if (after < base || after > position) return undefined;
    const frames: Buffer[] = [];
    for (let i = first; i < window.length; i++) {
      const published = window[i]!;
      if (published.position <= after) continue;
      if (format === 'records' && !published.whole) return undefined;
      frames.push(published.frame);
    }
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
    subscribe(after, format, sink, access) {
      started();
      const resumed = after === undefined ? undefined : replay(after, format);
      const opening = [RETRY, ...(resumed ?? freshStart(format))];
      let bytes = 0;
      for (const chunk of opening) {
        sink.write(chunk);
        bytes += chunk.length;
      }
      const subscriber: Subscriber = { sink, format, access, allowance: settings.maxBufferBytes + bytes };
      subscribers.add(subscriber);
      startHeartbeat();
      return () => {
        subscribers.delete(subscriber);
        if (subscribers.size === 0) stopHeartbeat();
      };
    },
    ready(after, format) {
      if (view === undefined && unreadRules(readModel.state.rules) > 0) return (preparing ??= refusing(prepare));
      if ((after !== undefined && replay(after, format) !== undefined) || snapshotServes(format)) return undefined;
      return (preparing ??= refusing(buildSnapshot));
    },
    get subscribers() {
      return subscribers.size;
    },
    get window() {
      return { events: window.length - first, bytes: windowBytes };
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

const ACTIVE_STATUS = '"status":"ACTIVE"';

/** Text gathered before it is copied into a Buffer: the pieces are a record each, the frame may be hundreds of MB. */
const PIECE_BYTES = 1 << 20;

/**
 * The snapshot event, built from its JSON pieces into one Buffer (never one
 * string: at ~400k rules the text passes V8's string limit); `add` throws an
 * AppError (503) naming the setting once the event would pass `maxBytes`.
 */
class FrameBuilder {
  readonly #parts: Buffer[] = [];
  #bytes = 0;
  #text: string;

  constructor(position: bigint | undefined, readonly maxBytes: number) {
    this.#text = `${position === undefined ? '' : `id: ${position}\n`}event: snapshot\ndata: `;
  }

  add(piece: string): void {
    this.#text += piece;
    if (this.#text.length >= PIECE_BYTES) this.#flush();
  }

  finish(): Buffer {
    this.#text += '\n\n';
    this.#flush();
    return this.#parts.length === 1 ? this.#parts[0]! : Buffer.concat(this.#parts, this.#bytes);
  }

  #flush(): void {
    const part = Buffer.from(this.#text);
    this.#text = '';
    this.#bytes += part.length;
    if (this.#bytes > this.maxBytes) throw new AppError('unavailable', snapshotTooLarge(this.maxBytes));
    this.#parts.push(part);
  }
}

function snapshotTooLarge(maxBytes: number): string {
  return `this node's rules and linked entities take more than RULEVAULT_STREAM_MAX_SNAPSHOT_BYTES (${maxBytes} bytes) as a stream snapshot: ` +
    'too many to evaluate locally; call POST /api/rule-engine/evaluate instead';
}

function eventFrame(event: string, position: bigint | undefined, data: string): Buffer {
  // JSON.stringify escapes line breaks, so the data is one `data:` line.
  return Buffer.from(`${position === undefined ? '' : `id: ${position}\n`}event: ${event}\ndata: ${data}\n\n`);
}

function messageFrame(event: string, message: string): Buffer {
  return Buffer.from(`event: ${event}\ndata: ${JSON.stringify({ err: message })}\n\n`);
}
