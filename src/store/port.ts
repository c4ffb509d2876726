/**
 * The event-store port: the one interface every adapter (embedded SQLite,
 * EventStoreDB) implements, with EventStoreDB semantics so adapters drop in.
 *
 * - Stream revisions start at 0 and count the events of one stream.
 * - Positions are global, strictly increasing along the log, and opaque:
 *   they may have gaps. "After p" is always exclusive of p.
 * - Revisions and positions are bigints inside the process; they are turned
 *   into decimal strings at every JSON boundary (see `toJsonPosition`).
 */

/** A JSON value: what event data and metadata may hold. Never a bigint. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Who, when and why of an event; travels beside the data, never inside it. */
export interface EventMetadata {
  /** API key id, `cli`, `system` or `env-admin`. */
  readonly actor: string;
  /** ISO 8601 UTC time the command was decided. */
  readonly at: string;
  readonly request_id: string;
  /** Schema version of this event type's data. */
  readonly schema: number;
  /** The change request whose apply wrote this resource event (docs/decisions/0062-change-requests.md); absent otherwise. */
  readonly change_request?: string;
}

export interface NewEvent {
  /** Optional unique id; an adapter generates one when absent. */
  readonly id?: string;
  readonly type: string;
  readonly data: { readonly [key: string]: Json };
  readonly metadata: EventMetadata;
}

export interface RecordedEvent {
  readonly id: string;
  readonly stream: string;
  readonly type: string;
  readonly revision: bigint;
  readonly position: bigint;
  readonly data: { readonly [key: string]: Json };
  readonly metadata: EventMetadata;
}

/**
 * Optimistic concurrency for an append: the stream must not exist, must
 * exist, may be in any state, or must be exactly at this revision.
 */
export type ExpectedRevision = 'no_stream' | 'stream_exists' | 'any' | bigint;

/** One stream's part of an `appendAtomically`. */
export interface StreamAppend {
  readonly stream: string;
  readonly events: readonly NewEvent[];
  readonly expected: ExpectedRevision;
}

/** How an append settles (see `EventStore.durable`). */
export interface AppendOptions {
  /**
   * Resolve once the events are committed (readable, delivered to
   * subscriptions, surviving the death of this process) instead of once they
   * are durable; the caller then awaits `durable()` before it acknowledges
   * the write to anyone. Lets concurrent writers share one sync of the disk
   * (group commit). Stores whose commits are durable at once ignore it.
   */
  readonly deferDurability?: boolean;
}

/** Counts behind the store's write metrics: commits that had to become durable, and the syncs of the disk that made them so. */
export interface DurabilityStats {
  readonly commits: number;
  readonly syncs: number;
}

export interface AppendResult {
  /** Revision of the last event written. */
  readonly nextRevision: bigint;
  /** Global position of the last event written. */
  readonly position: bigint;
}

/** What `appendErasing` resolves with once the erasure is committed. */
export interface ErasureResult extends AppendResult {
  /**
   * Why a step after the commit could not run (SQLite: the WAL checkpoint,
   * kept from running by another process's read transaction or a full disk;
   * EventStoreDB: setting `$tb`); undefined when none is left. The erasure
   * happened either way; `eraseBefore` (and `scrub`) finish the rest.
   */
  readonly unfinished?: string;
}

export interface ReadAllOptions {
  /** Exclusive lower bound; absent means from the start of the log. */
  readonly after?: bigint;
  /** Page size; adapters cap it. */
  readonly limit?: number;
  /**
   * Ends the page with the event that brings the bytes of its events' data,
   * as JSON text in UTF-8, to this many (a page holds at least one event). A
   * page is decoded whole, so a reader of the whole log bounds its memory so
   * (`LOG_PAGE_BYTES`). With it, a page shorter than `limit` does not mean
   * the log ended: read on until a page is empty.
   */
  readonly maxDataBytes?: number;
}

/**
 * What a reader of the whole log asks a page to hold at most
 * (`ReadAllOptions.maxDataBytes`): a write may be 1 MiB (up to 64 MiB with
 * RULEVAULT_MAX_BODY_BYTES), and a page of 1,000 of them, decoded at once, was
 * 1 GB before any check of memory could run (bench/HISTORY.md, "pages of the log held to 8 MB").
 */
export const LOG_PAGE_BYTES = 8 * 2 ** 20;

export interface SubscriptionHandlers {
  /** Called once per event in log order; awaited when it returns a promise. */
  onEvent(event: RecordedEvent): void | Promise<void>;
  /**
   * Called once when the subscription has delivered everything that was in
   * the log when it started (then again never); live events follow.
   */
  onCaughtUp?(): void;
  /** The subscription stopped on an error; it delivers nothing more. */
  onError?(error: Error): void;
}

export interface Subscription {
  close(): Promise<void>;
}

export interface EventStore {
  /** Human-readable name of the backing store for logs (never credentials). */
  readonly description: string;
  /**
   * Appends events to one stream atomically. Throws `ConcurrencyError` when
   * `expected` does not hold, `StreamDeletedError` when the stream was deleted.
   * Resolves only once the events are durable (unless `deferDurability`).
   * `events` must not be empty.
   */
  append(stream: string, events: readonly NewEvent[], expected: ExpectedRevision, options?: AppendOptions): Promise<AppendResult>;
  /**
   * Optional (the embedded store has it; EventStoreDB cannot append to
   * several streams atomically): appends to several streams, in order, as
   * one atomic and durable write (SQLite: one transaction, one fsync). Throws
   * what `append` throws, for the first append whose expectation fails, and
   * then nothing at all is written. Results in the order given.
   */
  appendAtomically?(appends: readonly StreamAppend[], options?: AppendOptions): Promise<AppendResult[]>;
  /**
   * Resolves once every append that resolved before this call is durable
   * (survives power loss as well as the death of the process). Immediate on
   * a store whose appends are durable when they resolve (EventStoreDB; the
   * embedded store with group commit off). Rejects with
   * `StoreUnavailableError` when durability can no longer be ensured (a
   * failed sync): the store then refuses every later write.
   */
  durable(): Promise<void>;
  /** Optional: counts of commits and syncs (the embedded store), for metrics. */
  durabilityStats?(): DurabilityStats;
  /** All events of one stream from `fromRevision` (inclusive). [] when it does not exist. */
  readStream(stream: string, options?: { readonly fromRevision?: bigint }): Promise<RecordedEvent[]>;
  /** One page of the whole log in position order, after `options.after`. */
  readAll(options?: ReadAllOptions): Promise<RecordedEvent[]>;
  /**
   * The event at exactly `position`, undefined when the log has none of its
   * events there (a snapshot's check that the log is the one it was taken
   * from: snapshotter.ts). EventStoreDB may reject a position that is no
   * record's; that throws.
   */
  readAt(position: bigint): Promise<RecordedEvent | undefined>;
  /**
   * Catch-up subscription to the whole log after `after` (exclusive), then
   * live. Handlers are never called before `subscribe` returns.
   */
  subscribe(after: bigint | undefined, handlers: SubscriptionHandlers): Subscription;
  /**
   * Erasure that the log remembers: appends `events` (the record of the
   * erasure, e.g. SecretDeleted) and erases the content of every earlier
   * event of the stream. What stays of an erased event is what an auditor (and
   * a hash chain) needs: its id, type, stream, revision, position and
   * metadata; never its data. The appended events stay readable, so a replay
   * of the log alone always knows the stream was erased.
   * - SQLite: one transaction; each earlier row's data becomes `ERASED_DATA`
   *   (secure_delete zeroes the old bytes), then the WAL is checkpointed so
   *   no page image of the old rows survives in it or in the file (`scrub`).
   * - EventStoreDB cannot rewrite events: the append, then the stream's
   *   truncate-before (`$tb`) set to the first appended revision; the earlier
   *   events leave the stream's reads at once and the disk at the next
   *   scavenge (until then `$all` still delivers them, sealed).
   * Resolves once the commit is durable: a step after it that cannot run
   * does not fail the call, the result's `unfinished` says why. Throws what
   * `append` throws, and then nothing was erased.
   */
  appendErasing(stream: string, events: readonly NewEvent[], expected: ExpectedRevision): Promise<ErasureResult>;
  /**
   * Finishes an erasure that `appendErasing` may have left half done (the
   * process died between its steps, or a step could not run): erases the
   * content of the stream's events before `revision` (SQLite: then `scrub`,
   * when that erased anything). Idempotent, and harmless on a stream that
   * does not exist or was deleted. Throws `StoreUnavailableError` when a step
   * cannot run now; call it again later.
   */
  eraseBefore(stream: string, revision: bigint): Promise<void>;
  /**
   * Optional (the embedded store): removes what copies of erased content the
   * store may still hold beside its rows. SQLite: the WAL's older frames and
   * the file's older pages, by a checkpoint that truncates the WAL; owed after
   * every erasure until one completes, and from a start whose first
   * checkpoint could not complete. Resolves at once when nothing is owed;
   * never waits for a reader. Throws `StoreUnavailableError` when it cannot
   * complete now (another process holds a read transaction on the file, the
   * disk is full); call it again later.
   */
  scrub?(): Promise<void>;
  /**
   * Deletes a stream for good (EventStoreDB: tombstone). Later reads answer
   * [] for it and appends throw `StreamDeletedError`. See the adapter options
   * for when the events leave the physical log. Not for secrets: the
   * deletion itself would leave the log with the stream (use `appendErasing`).
   */
  deleteStream(stream: string, expected?: ExpectedRevision): Promise<void>;
  /**
   * Optional: a hint that another process appended (a worker's writer said
   * so), so subscriptions read the log now instead of at their next poll.
   * A store that pushes appends to its subscriptions (EventStoreDB) needs none.
   */
  wake?(): void;
  /**
   * Position of the newest event in the log, undefined when empty. On a store
   * that erases deleted streams at once it may move backwards after a delete.
   */
  headPosition(): Promise<bigint | undefined>;
  close(): Promise<void>;
}

/** Facts about an adapter that the shared contract suite needs to know. */
export interface AdapterTraits {
  /**
   * True when a deleted stream's events leave `readAll` at once (SQLite).
   * EventStoreDB keeps them in `$all` until a scavenge.
   */
  readonly erasesDeletedStreamsAtOnce: boolean;
  /**
   * True when `appendErasing` rewrites the earlier events in place (SQLite):
   * every read, `readAll` included, shows them with `ERASED_DATA` at once.
   * EventStoreDB hides them from stream reads only (truncate-before); `$all`
   * keeps them until a scavenge.
   */
  readonly erasesInPlace: boolean;
}

/** The data an erased event reads with (see `EventStore.appendErasing`). */
export const ERASED_DATA: { readonly erased: true } = Object.freeze({ erased: true });

/** True for an event whose content was erased: its data is `ERASED_DATA`. */
export function isErased(event: { readonly data: object }): boolean {
  return (event.data as { readonly erased?: unknown }).erased === true;
}

export class ConcurrencyError extends Error {
  override readonly name = 'ConcurrencyError';
  constructor(
    readonly stream: string,
    readonly expected: ExpectedRevision,
    /** Current revision, undefined when the stream does not exist. */
    readonly actual: bigint | undefined,
  ) {
    super(`stream ${stream}: expected revision ${String(expected)}, actual ${actual === undefined ? 'no stream' : String(actual)}`);
  }
}

export class StreamDeletedError extends Error {
  override readonly name = 'StreamDeletedError';
  constructor(readonly stream: string) {
    super(`stream ${stream} is deleted`);
  }
}

/** The store could not be reached or failed; the operation may be retried. */
export class StoreUnavailableError extends Error {
  override readonly name = 'StoreUnavailableError';
  constructor(message: string, override readonly cause?: unknown) {
    super(message);
  }
}

/** Positions and revisions leave the process as decimal strings. */
export function toJsonPosition(value: bigint): string {
  return value.toString(10);
}

/** Parses a decimal position from a query string or body; undefined when malformed. */
export function parseJsonPosition(text: string): bigint | undefined {
  return /^(0|[1-9][0-9]{0,19})$/.test(text) ? BigInt(text) : undefined;
}
